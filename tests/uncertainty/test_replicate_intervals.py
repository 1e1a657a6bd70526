"""Issue 14: the intervals of the break-even CDF, the family and independence checks and
the PRIM box shares come from the spread of the run's scrambles (Wilson's as the fallback)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from mc_tco.decision.breakeven import breakeven_cdf
from mc_tco.decision.tco_data import STRATEGIES
from mc_tco.uncertainty.scrambles import replicate_of, wilson_interval

R = 8


def _breakeven_file(counts, per=40, ci="rqmc"):
    """A results-like Dataset whose break-even demand is <= 1e12 in ``counts[r]`` rows of
    scramble r (1e11 there, 1e13 elsewhere)."""
    n = R * per
    rep = replicate_of(np.arange(n), R)
    be = np.full((n, len(STRATEGIES)), 1e13)
    for r, c in enumerate(counts):
        be[np.flatnonzero(rep == r)[:c], :] = 1e11
    ds = xr.Dataset({"breakeven_demand": (("sample", "strategy"), be)},
                    coords={"sample": np.arange(n), "strategy": list(STRATEGIES)})
    ds.attrs.update(ci=ci, replicates=R if ci == "rqmc" else 1, conf_level=0.95)
    return ds


def test_breakeven_cdf_interval_is_the_replicate_t_interval():
    counts = [10, 12, 9, 14, 11, 8, 13, 10]
    cdf = breakeven_cdf(_breakeven_file(counts), np.array([1e12]))
    p_r = np.array(counts) / 40
    half = stats.t.ppf(0.975, R - 1) * p_r.std(ddof=1) / np.sqrt(R)
    got = cdf.cdf_ci.sel(strategy="buy").values[0]
    np.testing.assert_allclose(got, [p_r.mean() - half, p_r.mean() + half])
    assert not bool(cdf.cdf_fallback.sel(strategy="buy")[0])


def test_breakeven_cdf_falls_back_to_wilson():
    counts = [10, 12, 0, 14, 11, 8, 13, 10]  # one scramble without a break-even by 1e12
    cdf = breakeven_cdf(_breakeven_file(counts), np.array([1e12]))
    np.testing.assert_allclose(cdf.cdf_ci.sel(strategy="buy").values[0],
                               wilson_interval(sum(counts), 320))
    assert bool(cdf.cdf_fallback.sel(strategy="buy")[0])
    # a file without scrambles (--ci bootstrap): Wilson's
    plain = breakeven_cdf(_breakeven_file([10] * R, ci="bootstrap"), np.array([1e12]))
    np.testing.assert_allclose(plain.cdf_ci.sel(strategy="buy").values[0],
                               wilson_interval(80, 320))
    assert float(plain.cdf.sel(strategy="buy")[0]) == pytest.approx(0.25)


def test_independence_check_intervals_come_from_the_scrambles(tmp_path):
    """P(y > 0) without the copula: the replicate interval of its own rows, and the paired
    change from the scrambles (the rows are a prefix of the run's base rows)."""
    import dataclasses

    from mc_tco.book import load_book
    from mc_tco.engine.dependence import independence_check
    from mc_tco.engine.evaluate import evaluate_base
    from mc_tco.engine.family import paired_change
    from mc_tco.engine.plan import plan_run
    from mc_tco.uncertainty.scrambles import proportion
    from tests.engine.test_correlation import owen_book

    book = load_book(owen_book(tmp_path))
    plan = plan_run(book, samples=256, seed=2, resamples=0, shapley=False)
    out = independence_check(plan)
    free = dataclasses.replace(plan, book=dataclasses.replace(book, correlation=None,
                                                             correlations=[]))
    y0 = evaluate_base(free)["y"].values > 0
    y1 = evaluate_base(plan)["y"].values > 0
    rep = replicate_of(np.arange(256), plan.n_replicates)
    ref = proportion(y0, rep, plan.n_replicates)
    ci = out.independent_p_positive_ci.sel(target="y>0").values
    np.testing.assert_allclose(ci, [ref.lower, ref.upper])
    assert int(out.independent_p_positive_fallback.sel(target="y>0")) == int(ref.fallback)
    assert "randomized-QMC" in out.independent_p_positive_ci.attrs["method"]
    ch = paired_change(y1, y0, rep, plan.n_replicates)
    np.testing.assert_allclose(out.correlation_change_ci.sel(target="y>0").values,
                               [ch.lower, ch.upper])


def test_independence_check_intervals_equal_an_independent_recomputation(tmp_path):
    """The independence check's P(y > 0) without the copula and its change, recomputed from
    the same rows with numpy and scipy only (:mod:`tests.references`), not mc_tco's
    interval code."""
    import dataclasses

    from mc_tco.book import load_book
    from mc_tco.engine.dependence import independence_check
    from mc_tco.engine.evaluate import evaluate_base
    from mc_tco.engine.plan import plan_run
    from tests import references
    from tests.engine.test_correlation import owen_book

    book = load_book(owen_book(tmp_path))
    plan = plan_run(book, samples=256, seed=2, resamples=0, shapley=False)
    out = independence_check(plan)
    free = dataclasses.replace(plan, book=dataclasses.replace(book, correlation=None,
                                                             correlations=[]))
    y0 = evaluate_base(free)["y"].values > 0
    y1 = evaluate_base(plan)["y"].values > 0
    sample = np.arange(256)
    p, lo, hi, fb = references.rqmc_proportion(y0.astype(float), sample, plan.n_replicates)
    cell = dict(target="y>0")
    np.testing.assert_allclose(float(out.independent_p_positive.sel(cell)), p, rtol=1e-12)
    np.testing.assert_allclose(out.independent_p_positive_ci.sel(cell).values, [lo, hi],
                               rtol=1e-9)
    assert bool(out.independent_p_positive_fallback.sel(cell)) == fb
    _, lo, hi, fb = references.paired_change(y1, y0, sample, plan.n_replicates)
    np.testing.assert_allclose(out.correlation_change_ci.sel(cell).values, [lo, hi],
                               rtol=1e-9)
    assert bool(out.correlation_change_fallback.sel(cell)) == fb
