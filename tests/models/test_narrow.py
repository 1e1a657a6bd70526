"""The kernels' shortcuts that must give the same numbers bit for bit: the break-even
narrowing's one-strategy npv (``narrow.npv_one``) against the scalar month loop
(``npv.npv_cell``), and the fused row factors' numpy-equal sums and buffer."""

from __future__ import annotations

import math

import numpy as np

from mc_tco.models import tco
from mc_tco.models.kernels import narrow, npv, rows
from tests.models.test_v3_reference import analyst_points, spread


def finite(p: dict) -> dict:
    """The reference's point with infinite event months at NEVER (the model's inputs)."""
    return {k: (1000.0 if math.isinf(v) else v) for k, v in p.items()}


def _points(n: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(31)
    points = [finite(spread(rng)) for _ in range(n)] + [
        finite(p) for p in analyst_points(n, seed=32)]
    for p in points[::5]:
        p["tax_rate"] = 0.0
    for p in points[1::6]:
        p["tax_depreciation_years"] = 0.5  # purchases depreciated before exit
    for p in points[2::7]:
        p["staff_fte"] = 0.0
    return {k: np.array([p[k] for p in points]) for k in tco.INPUTS}


def test_one_strategys_npv_is_the_month_loops_bit_for_bit():
    """Buy, rent, reserved and owned, at demands from no node to many, on points with every
    mechanism on, without tax, with a short tax life, without staff."""
    V, S = rows.row_factors(_points(25))
    W = np.empty((npv.NW_NPV, V.shape[2]))
    buf = np.zeros((2, 64))
    want = np.empty(npv.NRES_OUT)
    short = (S[:, rows.TAX] != 0) & (S[:, rows.LIFE] < S[:, rows.EXIT])
    assert 0 < short.sum() < len(S) and (S[:, rows.TAX] == 0).any()
    checked = 0
    for i in range(V.shape[0]):
        for dem in (1e6, 3e9, 1e11, 4.4e11, 2e12, 3e13):
            npv.npv_cell(V[i], S[i], dem, W, buf, want)
            for s in range(1, 5):
                assert narrow.npv_one(V[i], S[i], dem, W, buf, s) == want[npv.NPV + s], (
                    i, dem, s)
                checked += 1
    assert checked == 50 * 6 * 4


def test_row_factors_sum_as_numpy_and_fill_a_buffer():
    """``P_MEAN`` is numpy's pairwise sum of the prices over the horizon, below and above
    128 months; ``into`` gives the same numbers in the buffer's memory."""
    x = _points(6)
    x["horizon_years"][:3] = [1.0, 9.5, 12.0]  # 13, 115 and 145 months
    V, S = rows.row_factors(x)
    assert V.shape[2] == 145
    assert np.array_equal(S[:, rows.P_MEAN], V[:, rows.PC].sum(axis=1) / S[:, rows.T_])
    short = {k: v[3:] for k, v in x.items()}  # (at most 25 months: the kernel's own sum)
    V2, S2 = rows.row_factors(short)
    assert V2.shape[2] <= 128
    assert np.array_equal(S2[:, rows.P_MEAN], V2[:, rows.PC].sum(axis=1) / S2[:, rows.T_])
    buf = np.full(V.size + 5, np.nan)
    V3, S3 = rows.row_factors(x, into=buf)
    assert np.shares_memory(V3, buf)
    assert np.array_equal(V3, V) and np.array_equal(S3, S)
