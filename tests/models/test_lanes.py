"""The rows-in-lanes kernel (``mc_tco.models.kernels.lanes``, the model at fewer than 8
demands: the Shapley pass) against the scalar month loop ``npv.npv_cell`` (itself checked
against the reference month loop in ``test_tco.py``), through ``grid.npv_grid``'s routing."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mc_tco.models import tco
from mc_tco.models.kernels import grid, lanes, npv, rows
from tests.models.test_v3_reference import analyst_points, spread


def finite(p: dict) -> dict:
    """The reference's point with infinite event months at NEVER (the model's inputs)."""
    return {k: (1000.0 if math.isinf(v) else v) for k, v in p.items()}


def scalar(V: np.ndarray, S: np.ndarray, dems: np.ndarray) -> np.ndarray:
    """``npv_cell`` at every row and demand (rows, demands, NRES_OUT)."""
    W = np.empty((npv.NW_NPV, V.shape[2]))
    buf = np.zeros((2, 64))
    want = np.empty((V.shape[0], dems.size, npv.NRES_OUT))
    for i in range(V.shape[0]):
        for j, dem in enumerate(dems):
            npv.npv_cell(V[i], S[i], dem, W, buf, want[i, j])
    return want


def check(V: np.ndarray, S: np.ndarray, dems: np.ndarray) -> np.ndarray:
    """``grid.npv_grid`` (few demands: the lanes) equals ``npv_cell`` to 1e-12 of the
    cell's largest npv; returns the share of results equal to the last bit."""
    got = np.full((V.shape[0], dems.size, npv.NRES_OUT), np.nan)
    grid.npv_grid(V, S, dems, got)
    want = scalar(V, S, dems)
    scale = np.maximum(1.0, np.abs(want[:, :, :npv.SUM_API]).max(axis=2, keepdims=True))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)  # (npv and the sums)
    assert (np.abs(got - want) <= 1e-12 * scale).all()
    return (got == want).mean()


def test_the_lanes_equal_the_scalar_loop_on_spread_and_analyst_points():
    """Every mechanism on (spread points: 1-2 year horizons, cancel and stop in 3-30 months,
    a tax life of 1 or 5 years, so that some rows go to the scalar loop) and analyst points
    (4-year horizons, exponential events), mixed so that blocks hold rows of different
    horizons; a tax rate of 0 on some rows, a scale efficiency near 0 on two (the exact
    first size reaching the peak), 6 demands with a zero demand and one where no hybrid
    node can pay."""
    rng = np.random.default_rng(5)
    points = [finite(spread(rng)) for _ in range(37)] + [
        finite(p) for p in analyst_points(30, seed=6)]
    for p in points[::7]:
        p["tax_rate"] = 0.0
    points[3]["scale_efficiency_single_node"] = 1e-9
    points[40]["scale_efficiency_single_node"] = 3e-9
    x = {k: np.array([p[k] for p in points]) for k in tco.INPUTS}
    V, S = rows.row_factors(x)
    T = S[:, rows.T_]
    assert len(set(T)) >= 3 and len(points) % lanes.L
    short = (S[:, rows.TAX] != 0) & (S[:, rows.LIFE] < S[:, rows.EXIT])
    assert 0 < short.sum() < len(points) // 2  # both paths
    assert (S[:, rows.EXIT] < T).sum() > 20  # events before the horizon
    blocks = np.flatnonzero(~short)  # (the lanes' rows, L at a time)
    assert any(len(set(T[blocks[i:i + lanes.L]])) > 1 for i in range(0, blocks.size, lanes.L))
    dems = np.array([0.0, 1e9, 5e10, 4e11, 3e12, 2e13])
    assert dems.size < grid.PB // 2  # the lanes' path
    same = check(V, S, dems)
    assert same > 0.999  # (the fleet sizes in closed form: equal but at a tie)


def test_the_lanes_equal_the_scalar_loop_on_the_default_books_draws(default_book):
    """The Shapley pass's case: draws of the default book (each input by its ppf) at the
    report demands, 150 rows (9 full blocks and a padded one)."""
    rng = np.random.default_rng(12)
    n = 150
    x = {name: (np.full(n, float(inp.value)) if inp.is_constant
                else inp.ppf(rng.uniform(0.001, 0.999, n)))
         for name, inp in default_book.inputs.items()}
    V, S = rows.row_factors({k: x[k] for k in tco.INPUTS})
    dems = np.array([*tco.REPORT_DEMANDS, 2e12])
    assert check(V, S, dems) > 0.999


@pytest.mark.parametrize("n_rows", [1, 17])
def test_few_rows_fill_a_padded_block(n_rows):
    """Fewer rows than a block (the last row repeated in the empty lanes)."""
    rng = np.random.default_rng(n_rows)
    points = [finite(p) for p in analyst_points(n_rows, seed=n_rows)]
    for p in points:
        p["demand_realization"] *= float(rng.uniform(0.5, 2))
    x = {k: np.array([p[k] for p in points]) for k in tco.INPUTS}
    V, S = rows.row_factors(x)
    check(V, S, np.array([3e11, 1e12]))
