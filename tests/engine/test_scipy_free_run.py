"""A run computed without scipy.stats (:mod:`mc_tco.sobol_points`,
:mod:`mc_tco.distributions.frozen`) gives the numbers of the same run through scipy.stats'
own objects (its Sobol' engine, its frozen distributions, its quantiles), every variable
bit for bit: the default book (pert, uniform, lognormal by interval, exponential, beta,
constants, a Gaussian copula) and a book of the other families ``Frozen`` computes
(triangular, loguniform, normal by interval, student_t)."""

from __future__ import annotations

import numpy as np
import pytest

import mc_tco.book.built as built
import mc_tco.distributions.frozen as frozen
import mc_tco.sobol_points as sobol_points
from mc_tco import run
from tests.paths import DEFAULT_BOOK

MODEL = '''
import numpy as np
import xarray as xr

def model(inputs):
    x = inputs
    return xr.Dataset({"y": x.a * np.log(x.b) + x.c ** 2 - x.d * x.volume})
'''

BOOK = '''
[book]
model = "freemodel:model"
[analysis]
targets = ["y"]
[grid.volume]
values = [1, 2, 5]
[inputs.a]
dist = "triangular"
min = 0.4
mode = 0.6
max = 1.1
[inputs.b]
dist = "loguniform"
low = 1
high = 100
[inputs.c]
dist = "normal"
low = 0.836
high = 1.164
[inputs.d]
dist = "student_t"
df = 4
loc = 1
scale = 0.1
'''


def _via_scipy(monkeypatch) -> None:
    """Every scipy-free path off: the rows through scipy.stats' own objects."""
    monkeypatch.setattr(frozen, "FAST", {})
    monkeypatch.setattr(frozen, "_NORM", frozen.Frozen("norm"))  # (scipy's, now)
    monkeypatch.setattr(frozen, "_BINOM_PPF", None)
    monkeypatch.setattr(sobol_points, "_table_file", lambda: sobol_points.Path("/missing"))
    monkeypatch.setattr(built, "_BUILT", type(built._BUILT)())  # (no Frozen kept)


def _same(a, b) -> None:
    assert sorted(a.data_vars) == sorted(b.data_vars)
    for name in a.data_vars:
        x, y = a[name].values, b[name].values
        if x.dtype.kind == "f":
            assert np.array_equal(x, y, equal_nan=True), name
        else:
            assert np.array_equal(x, y), name


@pytest.mark.parametrize("which", ["default", "others"])
def test_the_numbers_are_scipy_stats_own(which, monkeypatch, tmp_path):
    if which == "default":
        book, opts = DEFAULT_BOOK, {"samples": 64, "shapley_permutations": 64}
    else:
        (tmp_path / "freemodel.py").write_text(MODEL)
        (tmp_path / "book.toml").write_text(BOOK)
        monkeypatch.syspath_prepend(str(tmp_path))
        book, opts = tmp_path / "book.toml", {"samples": 256}
    monkeypatch.setattr(built, "_BUILT", type(built._BUILT)())
    free = run(book, **opts)
    _via_scipy(monkeypatch)
    through_scipy = run(book, **opts)
    _same(free, through_scipy)
