"""The scripts in ``benchmarks/`` run as ``python benchmarks/NAME.py``, which puts that folder
first on ``sys.path``: a script named like a library module shadows it for every import in
the process. ``benchmarks/coverage.py`` did exactly that, and numba (which imports the
``coverage`` package) failed at import in every benchmark."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def test_no_benchmark_script_shadows_a_module():
    names = sorted(p.stem for p in BENCH.glob("*.py"))
    assert names, BENCH
    saved = list(sys.path)
    try:
        sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
        shadowing = [
            n for n in names if n in sys.stdlib_module_names or importlib.util.find_spec(n)
        ]
    finally:
        sys.path[:] = saved
    assert not shadowing, f"benchmarks/ scripts shadow importable modules: {shadowing}"


@pytest.mark.slow
def test_the_model_imports_with_benchmarks_first_on_the_path():
    """What ``python benchmarks/x.py`` does: the folder first on ``sys.path``, then numba."""
    import subprocess

    code = f"import sys; sys.path.insert(0, {str(BENCH)!r}); import mc_tco.models.tco"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
