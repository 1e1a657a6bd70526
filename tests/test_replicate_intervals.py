"""Issue 14: the intervals of the break-even CDF, the family and independence checks and
the PRIM box shares come from the spread of the run's scrambles (Wilson's as the fallback)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from mc_tco.memo import analysis as A
from mc_tco.uncertainty import replicate_of, wilson_interval

R = 8


def _breakeven_file(counts, per=40, ci="rqmc"):
    """A results-like Dataset whose break-even demand is <= 1e12 in ``counts[r]`` rows of
    scramble r (1e11 there, 1e13 elsewhere)."""
    n = R * per
    rep = replicate_of(np.arange(n), R)
    be = np.full((n, 4), 1e13)
    for r, c in enumerate(counts):
        be[np.flatnonzero(rep == r)[:c], :] = 1e11
    ds = xr.Dataset({"breakeven_demand": (("sample", "strategy"), be)},
                    coords={"sample": np.arange(n), "strategy": list(A.STRATEGIES)})
    ds.attrs.update(ci=ci, replicates=R if ci == "rqmc" else 1, conf_level=0.95)
    return ds


def test_breakeven_cdf_interval_is_the_replicate_t_interval():
    counts = [10, 12, 9, 14, 11, 8, 13, 10]
    cdf = A.breakeven_cdf(_breakeven_file(counts), np.array([1e12]))
    p_r = np.array(counts) / 40
    half = stats.t.ppf(0.975, R - 1) * p_r.std(ddof=1) / np.sqrt(R)
    got = cdf.cdf_ci.sel(strategy="buy").values[0]
    np.testing.assert_allclose(got, [p_r.mean() - half, p_r.mean() + half])
    assert not bool(cdf.cdf_fallback.sel(strategy="buy")[0])


def test_breakeven_cdf_falls_back_to_wilson():
    counts = [10, 12, 0, 14, 11, 8, 13, 10]  # one scramble without a break-even by 1e12
    cdf = A.breakeven_cdf(_breakeven_file(counts), np.array([1e12]))
    np.testing.assert_allclose(cdf.cdf_ci.sel(strategy="buy").values[0],
                               wilson_interval(sum(counts), 320))
    assert bool(cdf.cdf_fallback.sel(strategy="buy")[0])
    # a file without scrambles (--ci bootstrap): Wilson's
    plain = A.breakeven_cdf(_breakeven_file([10] * R, ci="bootstrap"), np.array([1e12]))
    np.testing.assert_allclose(plain.cdf_ci.sel(strategy="buy").values[0],
                               wilson_interval(80, 320))
    assert float(plain.cdf.sel(strategy="buy")[0]) == pytest.approx(0.25)
