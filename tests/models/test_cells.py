"""The demands-in-lanes kernel of every output (``mc_tco.models.kernels.cells``, the base
rows at the grid's demands) against the scalar month loop ``cell.cell`` one demand at a
time (itself checked against the reference month loop in ``test_tco.py``), through
``grid.grid``: the same numbers to the last bit, every output, NaN where cell's is NaN."""

from __future__ import annotations

import numpy as np
import pytest

from mc_tco.models import tco
from mc_tco.models.kernels import cell, cells, grid, rows
from tests.models.test_lanes import finite
from tests.models.test_v3_reference import analyst_points, spread


def scalar(V: np.ndarray, S: np.ndarray, dems: np.ndarray, paths: bool = True,
           want_irr: bool = True) -> np.ndarray:
    """``cell.cell`` at every row and demand (rows, demands, NOUT)."""
    W = np.empty((cell.NW, V.shape[2]))
    Z = np.empty((cell.NZ, 6))
    top = max(2.0, float(S[:, rows.SFULL].max()))
    buf = np.zeros((2, int(np.ceil(top)) + 16))
    none = np.zeros((1, 6))
    want = np.empty((V.shape[0], dems.size, cell.NOUT))
    for i in range(V.shape[0]):
        for j, dem in enumerate(dems):
            cell.cell(V[i], S[i], dem, W, Z, buf, want[i, j], paths, want_irr, none, none,
                      False)
    return want


def check(V: np.ndarray, S: np.ndarray, dems: np.ndarray, paths: bool = True,
          want_irr: bool = True) -> None:
    got = np.full((V.shape[0], dems.size, cell.NOUT), -7.0)
    grid.grid(V, S, dems, paths, want_irr, got)
    want = scalar(V, S, dems, paths, want_irr)
    if not paths:  # (cell leaves the paths' outputs as they were: 0 here, -7 there)
        keep = [i for i in range(cell.NOUT) if not cell.PAY <= i < cell.IRR]
        got, want = got[:, :, keep], want[:, :, keep]
    np.testing.assert_array_equal(got, want)  # (NaN where NaN, to the last bit)


def _points() -> dict[str, np.ndarray]:
    """Spread points (1-2 year horizons, events in 3-30 months, a tax life of 1 or 5 years:
    some rows stay with the scalar loop) and analyst points (4 years), a tax rate of 0 on
    some, a scale efficiency near 0 on two."""
    rng = np.random.default_rng(21)
    points = [finite(spread(rng)) for _ in range(40)] + [
        finite(p) for p in analyst_points(40, seed=22)]
    for p in points[::6]:
        p["tax_rate"] = 0.0
    points[5]["scale_efficiency_single_node"] = 1e-9
    points[44]["scale_efficiency_single_node"] = 3e-9
    return {k: np.array([p[k] for p in points]) for k in tco.INPUTS}


def test_the_lanes_equal_the_scalar_loop_to_the_last_bit():
    """Every mechanism, at 45 demands from 0 to 2e13 (three groups, the last padded):
    events before the horizon, reserved terms past exit, the tax
    life ending before exit (the scalar loop's rows), tax 0, every strategy's payback and
    irr."""
    x = _points()
    V, S = rows.row_factors(x)
    short = (S[:, rows.TAX] != 0) & (S[:, rows.LIFE] < S[:, rows.EXIT])
    assert 0 < short.sum() < short.size // 2  # both paths
    assert (S[:, rows.EXIT] < S[:, rows.T_]).sum() > 20  # events before the horizon
    assert (S[:, rows.TAX] == 0).sum() >= 10
    dems = np.concatenate([[0.0], np.geomspace(1e8, 2e13, 44)])
    assert dems.size % cells.PB
    check(V, S, dems)


def test_the_lanes_equal_the_scalar_loop_on_the_default_books_draws(default_book):
    """The default run's case: draws of the default book at its own 46 demands, with and
    without the paths and the irr."""
    rng = np.random.default_rng(23)
    n = 120
    x = {name: (np.full(n, float(inp.value)) if inp.is_constant
                else inp.ppf(rng.uniform(0.001, 0.999, n)))
         for name, inp in default_book.inputs.items() if not inp.is_grid}
    V, S = rows.row_factors({k: x[k] for k in tco.INPUTS})
    from mc_tco.engine import plan_run

    dems = np.asarray(plan_run(default_book, samples=64).grid["demand"].values, dtype=float)
    assert dems.size == 46  # (the book's 42 and the report points)
    check(V, S, dems)
    check(V, S, dems, paths=True, want_irr=False)
    check(V, S, dems, paths=False, want_irr=False)


@pytest.mark.parametrize("n_dems", [7, 8, 17])
def test_few_demands_and_a_padded_group(n_dems):
    """Fewer than PB / 2 demands go to the scalar loop; 8 and 17 fill a padded group."""
    x = {k: v[40:52] for k, v in _points().items()}
    V, S = rows.row_factors(x)
    check(V, S, np.geomspace(3e10, 5e12, n_dems))
