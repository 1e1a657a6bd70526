"""The cold-cache helper process (:mod:`mc_tco.models.kernels.warm`): started only on a cold
cache, waited for once, and compiling the kernels with the very types a run calls them
with (else its cache entries would never be loaded and the run would compile them again)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from numba import typeof

import mc_tco
from mc_tco.models import tco
from mc_tco.models.compile_cells import compile_cells
from mc_tco.models.kernels import grid, warm


class _Index:
    def __init__(self, overloads):
        self.overloads = overloads

    def _load_index(self):
        return self.overloads


class _Kernel:
    def __init__(self, overloads):
        self._cache = type("Cache", (), {"_cache_file": _Index(overloads)})()


def test_cached_reads_numbas_index():
    assert not warm._cached(_Kernel({}))  # no current overload: cold
    assert warm._cached(_Kernel({("sig",): "data"}))
    assert warm._cached(object())  # no cache at all: nothing a helper could do


class _Helper:
    def __init__(self, argv, **kw):
        self.argv, self.kw, self.waited = argv, kw, 0
        launched.append(self)

    def wait(self, timeout=None):
        self.waited += 1
        return 0


launched: list[_Helper] = []


@pytest.fixture
def fresh(monkeypatch):
    launched.clear()
    monkeypatch.setattr(warm, "_started", False)
    monkeypatch.setattr(warm, "_helper", None)
    monkeypatch.setattr(warm.subprocess, "Popen", _Helper)
    monkeypatch.delenv("MC_TCO_PARALLEL_COMPILE", raising=False)
    return monkeypatch


def test_a_cold_cache_starts_one_helper_waited_for_once(fresh):
    fresh.setattr(warm, "_cached", lambda kernel: False)
    warm.start()
    warm.start()  # once a process
    assert len(launched) == 1
    helper = launched[0]
    assert helper.argv[0] == sys.executable and "compile_cells()" in helper.argv[-1]
    assert helper.kw["env"]["MC_TCO_PARALLEL_COMPILE"] == "0"  # the helper starts no other
    assert helper.kw["stderr"] is subprocess.DEVNULL and helper.kw["stdout"] is subprocess.DEVNULL
    warm.wait()
    warm.wait()
    assert helper.waited == 1


@pytest.mark.parametrize("why", ["warm cache", "switched off"])
def test_a_warm_cache_or_the_switch_starts_nothing(fresh, why):
    if why == "warm cache":
        fresh.setattr(warm, "_cached", lambda kernel: True)
    else:
        fresh.setattr(warm, "_cached", lambda kernel: False)
        fresh.setenv("MC_TCO_PARALLEL_COMPILE", "0")
    warm.start()
    warm.wait()
    assert launched == []


def _recorder(calls, name):
    def record(*args):
        calls.setdefault(name, set()).add(tuple(str(typeof(a)) for a in args))
    return record


def test_the_helper_calls_the_kernels_with_a_runs_types(monkeypatch):
    """The helper's calls of grid.grid and grid.cash have the types of a run's calls (the
    engine's own input Dataset), so its cache entries are the ones a run loads."""
    helper: dict = {}
    for name in ("grid", "cash"):
        monkeypatch.setattr(grid, name, _recorder(helper, name))
    monkeypatch.setattr(tco, "check_outputs", lambda *a, **k: None)  # (nothing computed)
    compile_cells()
    run: dict = {}
    for name in ("grid", "cash"):
        monkeypatch.setattr(grid, name, _recorder(run, name))
    monkeypatch.setattr(warm, "start", lambda: None)
    mc_tco.run("distributions/deepseek-v4.1-flash.toml", samples=64, shapley=False)
    assert set(helper) == {"grid", "cash"}
    for name in helper:
        assert helper[name] <= run[name], name
    # and the demands the npv chain sees are writable, as the break-even search's own
    seen = []
    monkeypatch.setattr(grid, "npv_grid", lambda V, S, dems, out, by=None, saving=None: (
        seen.append(dems.flags.writeable) or out.fill(0.0)
        or (saving is None or saving.fill(0.0))))
    ds = tco.model(warm_inputs())
    assert seen and all(seen) and "saving" in ds


def warm_inputs():
    import xarray as xr

    from mc_tco.book import load_book
    book = load_book("distributions/deepseek-v4.1-flash.toml")
    data = {n: ("sample", np.full(2, float(i.value) if i.is_constant
                                  else float(i.ppf(np.array([0.5]))[0])))
            for n, i in book.inputs.items()}
    ds = xr.Dataset(data, coords={"demand": np.geomspace(1e9, 1e13, 5)})
    ds.attrs["outputs"] = ["saving"]
    return ds
