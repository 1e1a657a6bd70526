"""Shared fixtures: the shipped books, small runs of them and their results files (each
computed once per session). Shared paths (plain constants) are in ``tests/paths.py``."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time

import pytest

from tests.paths import ARTICLE_BOOK, DEFAULT_BOOK

#: the kernels whose cache tells whether the cost model is compiled (module.function)
KERNELS = ("grid.npv_grid", "grid.grid", "grid.cash", "lanes.npv_lanes")
#: run in a subprocess by :func:`pytest_configure`: exit 0 at once where numba's cache holds
#: :data:`KERNELS`, else compile them by a small run of the default book (the run compiles
#: them on both cores, :mod:`mc_tco.models.kernels.warm`)
_PRECOMPILE = f"""
import importlib, sys
from mc_tco.models.kernels import warm
kernels = [getattr(importlib.import_module("mc_tco.models.kernels." + m), f)
           for m, f in (name.split(".") for name in {KERNELS!r})]
if all(warm._cached(k) for k in kernels):
    sys.exit(0)
from mc_tco._entry import main
sys.argv = ["mc-tco", "run", sys.argv[1], "-n", "256", "--out", sys.argv[2], "-q"]
main()
"""


#: test modules that --dist loadscope sends to one worker together: they read the same
#: session fixture, whose first use costs more than most modules (``compared_memo``, the
#: memo of both books with its figures: 27-30 s on a slow 2-core machine, built by each
#: worker that ran one of them)
SHARED_SCOPES = {f"tests/report/memo/{name}.py": "tests/report/memo (compared_memo)"
                 for name in ("test_beside", "test_issue24_words", "test_memo",
                              "test_v3_readers")}


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadscope`` with the modules of :data:`SHARED_SCOPES` as one scope."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class _Scheduler(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            scope = super()._split_scope(nodeid)
            return SHARED_SCOPES.get(scope, scope)

    return _Scheduler(config, log)


def _kernels_look_cached() -> bool:
    """Whether numba's cache indexes of those kernels exist and are newer than every source
    of the kernels' package (a cheap test, no import: where it says no, the subprocess
    asks numba; where it wrongly says yes, the workers compile what is stale, as before)."""
    from pathlib import Path

    kernels = Path(__file__).resolve().parents[1] / "mc_tco" / "models" / "kernels"
    newest = max(p.stat().st_mtime for p in kernels.glob("*.py"))
    for name in KERNELS:
        found = list((kernels / "__pycache__").glob(f"{name}-*.nbi"))
        if not found or min(p.stat().st_mtime for p in found) < newest:
            return False
    return True


def pytest_configure(config):
    """With pytest-xdist's workers, compile the kernels once, before they start.

    On a cold cache (a fresh clone, CI) each worker compiled every kernel of the cost model
    itself, at the same time as the other: about 110 s of the suite's 620 on a slow 2-core
    machine, against about 50 s compiled once here, on both cores. A warm cache costs a
    look at the cache files (:func:`_kernels_look_cached`), or one import (about 3 s) where
    they are older than a source. Without workers nothing is done here: the first test that needs a
    kernel compiles it, as before."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    if _kernels_look_cached():
        return
    import tempfile

    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run([sys.executable, "-c", _PRECOMPILE, str(DEFAULT_BOOK),
                              os.path.join(tmp, "warm.nc")], capture_output=True, text=True,
                             timeout=900)
    if res.returncode != 0:  # (the tests that need the kernels will say what is wrong)
        text = f"compiling the kernels before the workers failed:\n{res.stderr}"
    else:
        text = (f"compiled the cost model's kernels once for the workers "
                f"({time.monotonic() - t0:.0f} s)\n")
    capture = config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture else contextlib.nullcontext():
        sys.stderr.write(text)


@pytest.fixture(scope="session")
def default_book():
    from mc_tco.book import load_book

    return load_book(DEFAULT_BOOK)


@pytest.fixture(scope="session")
def article_book():
    from mc_tco.book import load_book

    return load_book(ARTICLE_BOOK)


@pytest.fixture(scope="session")
def article_run(article_book):
    from mc_tco.engine import run

    return run(article_book, samples=512, seed=3, resamples=50)


@pytest.fixture(scope="session")
def default_run(default_book):
    from mc_tco.engine import run

    return run(default_book, samples=512, seed=1, resamples=50)


@pytest.fixture(scope="session")
def result_files(tmp_path_factory, default_run, article_run):
    """The two session runs written once as results files, named as ``mc-tco run`` names
    them: ``{"default": .../deepseek-v4.1-flash.nc, "article": .../article.nc}``.

    Shared by every module that reads them through a command (memo, explain, the grid-point
    paths); treat them as read-only and write outputs into a ``tmp_path`` of your own.
    """
    from mc_tco.results.io import write_results

    folder = tmp_path_factory.mktemp("session_results")
    return {"default": write_results(default_run, folder / "deepseek-v4.1-flash.nc"),
            "article": write_results(article_run, folder / "article.nc")}


@pytest.fixture
def no_png(monkeypatch):
    """Skip rendering the memo's figures to PNG (the figure objects are still built):
    keeps memo tests fast; test_memo_writes_every_figure... renders and checks them."""
    import mc_tco.report.memo.figures as F

    monkeypatch.setattr(F, "to_png", lambda fig, dpi=None: b"\x89PNG")
