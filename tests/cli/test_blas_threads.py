"""``mc-tco`` runs numpy's and scipy's BLAS on one thread unless the user's environment
sets their number (:func:`mc_tco._entry.one_blas_thread`): the engine's own threads do the
parallel work, and a BLAS pool a core beside them only spun (issue 26)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mc_tco import _entry

#: a user's model that notes, as the engine calls it, the BLAS setting it runs under and
#: the threads of its process
MODEL = '''
import json, os
import numpy as np
import xarray as xr


def model(inputs):
    tasks = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else -1
    with open(os.environ["SEEN"], "w") as f:
        json.dump({"blas": os.environ.get("OPENBLAS_NUM_THREADS"), "threads": tasks}, f)
    return xr.Dataset({"y": inputs.x1 + 2 * inputs.x2})
'''

BOOK = '''
[book]
model = "blas_model:model"
[analysis]
targets = ["y"]
[inputs.x1]
dist = "uniform"
low = 0
high = 1
[inputs.x2]
dist = "uniform"
low = -1
high = 1
'''


@pytest.mark.parametrize(("given", "expected"), [
    ({}, {"OPENBLAS_NUM_THREADS": "1"}),
    ({"OPENBLAS_NUM_THREADS": "4"}, {"OPENBLAS_NUM_THREADS": "4"}),
    ({"OMP_NUM_THREADS": "3"}, {"OMP_NUM_THREADS": "3"}),
    ({"MKL_NUM_THREADS": "2"}, {"MKL_NUM_THREADS": "2"}),
])
def test_one_blas_thread_unless_the_user_set_it(monkeypatch, given, expected):
    for name in _entry.BLAS_THREADS:
        monkeypatch.delenv(name, raising=False)
    for name, value in given.items():
        monkeypatch.setenv(name, value)
    _entry.one_blas_thread()
    assert {n: os.environ[n] for n in _entry.BLAS_THREADS if n in os.environ} == expected


def _run(tmp_path: Path, **env: str) -> dict:
    (tmp_path / "blas_model.py").write_text(MODEL)
    (tmp_path / "blas.toml").write_text(BOOK)
    seen = tmp_path / "seen.json"
    clean = {k: v for k, v in os.environ.items() if k not in _entry.BLAS_THREADS}
    done = subprocess.run(
        [sys.executable, "-m", "mc_tco", "run", str(tmp_path / "blas.toml"), "--samples", "64",
         "--out", str(tmp_path / "r.nc"), "--quiet", "--scheduler", "synchronous"],
        capture_output=True, text=True, cwd=tmp_path,
        env={**clean, **env, "SEEN": str(seen),
             "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(seen.read_text())


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")
def test_the_command_starts_no_blas_pool(tmp_path):
    """The model runs with OPENBLAS_NUM_THREADS=1 and no BLAS threads beside the command's
    own; asked for two, OpenBLAS starts its pools (numpy's, and scipy's if loaded)."""
    alone = _run(tmp_path)
    assert alone["blas"] == "1"
    pooled = _run(tmp_path, OPENBLAS_NUM_THREADS="2")
    assert pooled["blas"] == "2"
    assert pooled["threads"] > alone["threads"]
