"""`mc-tco run` on a small book of a user's own model imports only what that run needs
(issue 26): not the TCO model or its numba kernels, not dask (xarray's dask checks are
lazy: :func:`mc_tco.results.store.lazy_dask_check`), not the other commands, the browser
app or the Shapley, family and correlation passes the book does not ask for. Checked in a
fresh interpreter, as the ``mc-tco`` command starts (this session has imported them)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

#: modules a run of a user's model without correlations must not import
NOT_IMPORTED = [
    "numba", "mc_tco.models.kernels", "mc_tco.models.tco",  # the TCO model and kernels
    "dask",  # (0.1-0.7 s: dask.base, dask.array, psutil, yaml, jinja2)
    "mc_tco.app", "mc_tco.cli.app", "mc_tco.cli.memo", "mc_tco.cli.explain",
    "mc_tco.report.memo", "mc_tco.engine.family", "mc_tco.engine.shapley",
    "mc_tco.engine.dependence", "mc_tco.sensitivity.shapley",
    "scipy.stats", "scipy.optimize",  # (0.3-0.6 s: mc_tco.distributions.frozen)
]

MODEL = '''
import numpy as np
import xarray as xr


def model(inputs):
    # a ufunc on DataArrays: xarray asks each array whether it is a dask collection
    return xr.Dataset({"y": np.sin(inputs.x1) + 7 * np.sin(inputs.x2) ** 2})
'''

BOOK = '''
[book]
model = "small_model:model"
[analysis]
targets = ["y"]
[inputs.x1]
dist = "uniform"
low = -3.14
high = 3.14
[inputs.x2]
dist = "normal"
mean = 0
sd = 1
'''

#: the mc-tco console script's entry, with the modules it imported written at exit
SCRIPT = textwrap.dedent("""
    import atexit, json, sys
    watch, report = json.loads(sys.argv[1]), sys.argv[2]

    def imported():
        found = [w for w in watch if any(m == w or m.startswith(w + ".") for m in sys.modules)]
        with open(report, "w") as f:
            json.dump(found, f)

    atexit.register(imported)
    sys.argv = ["mc-tco", *sys.argv[3:]]
    from mc_tco._entry import main
    main()
""")


def _imported(tmp_path, watch: list[str], *args: str) -> list[str]:
    report = tmp_path / "imported.json"
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(watch), str(report), *args],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(report.read_text())


def test_the_default_run_does_without_scipy_stats(tmp_path):
    """The default book's families (pert, uniform, lognormal, exponential, beta), its
    Sobol' design, intervals and Shapley pass need no scipy.stats (0.3-0.6 s of one core
    before the first model row): :mod:`mc_tco.distributions.frozen`,
    :mod:`mc_tco.sobol_points`."""
    from tests.paths import DEFAULT_BOOK

    found = _imported(tmp_path, ["scipy.stats", "scipy.optimize", "scipy.ndimage"], "run",
                      str(DEFAULT_BOOK), "--samples", "64", "--out", str(tmp_path / "r.nc"),
                      "--quiet")
    assert (tmp_path / "r.nc").exists()
    assert found == []


def test_a_small_user_model_imports_no_kernels_dask_or_unused_passes(tmp_path):
    (tmp_path / "small_model.py").write_text(MODEL)
    (tmp_path / "small.toml").write_text(BOOK)
    report = tmp_path / "imported.json"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(NOT_IMPORTED), str(report), "run",
         str(tmp_path / "small.toml"), "--samples", "64", "--out", str(tmp_path / "r.nc"),
         "--quiet"],
        capture_output=True, text=True, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "r.nc").exists()
    assert json.loads(report.read_text()) == []
