"""The budget tables of the memo (cost model version 3), computed in
:mod:`mc_tco.decision.budget`: quantiles over the scenarios of the nominal cash by year and
of the cost per million tokens, with the run's replicate intervals, checked by hand on a
small results-like dataset."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from mc_tco.decision import budget

R = 8
PER = 40
N = R * PER
STRATS = ["api", "buy", "rent", "reserved", "owned", "hybrid"]
CASH_DEMANDS = [1e11, 5e11, 3e12]
DEMANDS = [1e10, 5e11, 2e12]


def _results(ci: str = "rqmc") -> xr.Dataset:
    rng = np.random.default_rng(3)
    cash = rng.lognormal(12, 1, (N, len(CASH_DEMANDS), 4, len(STRATS)))
    cash[:, :, 3, 1] -= 2e5  # buy's resale in year 4 can make it a net inflow
    cpm = rng.lognormal(-3, 0.5, (N, len(DEMANDS), len(STRATS)))
    cpm[:7, 0, :] = np.nan  # no demand ever arrives in 7 scenarios at 10B
    ds = xr.Dataset(
        {"cash_by_year": (("sample", "cash_demand", "year", "strategy"), cash),
         "cost_per_mtok": (("sample", "demand", "strategy"), cpm)},
        coords={"sample": np.arange(N), "cash_demand": CASH_DEMANDS, "year": [1, 2, 3, 4],
                "strategy": STRATS, "demand": DEMANDS})
    ds.attrs.update(ci=ci, replicates=R if ci == "rqmc" else 1, conf_level=0.95)
    return ds


def _order(v, q):
    """numpy's inverted_cdf quantile of the non-NaN values: x_(ceil(q n)), by hand."""
    v = np.sort(v[~np.isnan(v)])
    return v[int(np.ceil(q * v.size)) - 1]


def _t_interval(values, q):
    """The replicate t interval around the pooled quantile: the spread of the R
    per-scramble quantiles (sample g is in scramble g % R)."""
    q_r = [_order(values[r::R], q) for r in range(R)]
    half = stats.t.ppf(0.975, R - 1) * np.std(q_r, ddof=1) / np.sqrt(R)
    est = _order(values, q)
    return est - half, est + half


def _order_interval(values, q):
    """The distribution-free interval [x_(l), x_(u)] of the q quantile, by hand: l and u
    from the binomial(n, q) counts below it."""
    v = np.sort(values)
    lo = int(stats.binom.ppf(0.025, v.size, q))
    hi = int(stats.binom.ppf(0.975, v.size, q)) + 1
    return v[lo - 1], v[hi - 1]


def test_cash_by_year_is_the_quantiles_of_each_year_with_their_interval():
    ds = _results()
    t = budget.cash_by_year(ds, 5e11)
    assert list(t["strategy"].values) == STRATS  # the API first, then every option
    assert t["estimate"].dims == ("strategy", "year", "quantile")
    assert list(t["quantile"].values) == [0.1, 0.5, 0.9]
    assert t.attrs["demand"] == 5e11 and t["estimate"].attrs["units"] == "USD"
    for s, y, q in (("api", 1, 0.5), ("buy", 4, 0.1), ("hybrid", 2, 0.9)):
        v = ds["cash_by_year"].sel(cash_demand=5e11, strategy=s, year=y).values
        assert float(t["estimate"].sel(strategy=s, year=y, quantile=q)) == _order(v, q)
        # a median has enough scenarios on each side in every scramble for the t interval;
        # a P10 of 40 scenarios a scramble (4 below it) falls back to order statistics
        want = _t_interval(v, q) if q == 0.5 else _order_interval(v, q)
        np.testing.assert_allclose(t["ci"].sel(strategy=s, year=y, quantile=q).values, want)


def test_the_total_is_the_quantile_of_each_scenarios_sum_not_the_sum_of_quantiles():
    ds = _results()
    t = budget.cash_by_year(ds, 5e11, strategies=["buy", "api"])
    assert list(t["strategy"].values) == ["buy", "api"]
    v = ds["cash_by_year"].sel(cash_demand=5e11, strategy="buy").sum("year").values
    for q in (0.1, 0.5, 0.9):
        assert float(t["total_estimate"].sel(strategy="buy", quantile=q)) == pytest.approx(
            _order(v, q), rel=1e-14)
    summed = float(t["estimate"].sel(strategy="buy", quantile=0.1).sum())
    assert float(t["total_estimate"].sel(strategy="buy", quantile=0.1)) != pytest.approx(summed)


def test_cash_by_year_reads_the_nearest_report_demand_on_a_log_scale():
    ds = _results()
    t = budget.cash_by_year(ds, 8e11)  # 5e11 is 1.6x away, 3e12 is 3.75x
    assert (t.attrs["demand"], t.attrs["requested_demand"]) == (5e11, 8e11)
    assert budget.cash_demand_of(ds, 2e12) == 3e12


def test_cost_per_mtok_leaves_out_the_scenarios_without_demand():
    ds = _results()
    t = budget.cost_per_mtok(ds, 1e10)
    assert t["estimate"].dims == ("strategy", "quantile")
    assert t["estimate"].attrs["units"] == "USD/Mtok"
    assert int(t["scenarios"].sel(strategy="rent")) == N - 7
    v = ds["cost_per_mtok"].sel(demand=1e10, strategy="rent").values
    assert float(t["estimate"].sel(strategy="rent", quantile=0.5)) == _order(v, 0.5)
    np.testing.assert_allclose(t["ci"].sel(strategy="rent", quantile=0.5).values,
                               _t_interval(v, 0.5))


def test_a_file_without_scrambles_gets_the_order_statistic_interval():
    ds = _results(ci="bootstrap")
    t = budget.cost_per_mtok(ds, 5e11, strategies=["api"])
    v = ds["cost_per_mtok"].sel(demand=5e11, strategy="api").values
    np.testing.assert_array_equal(t["ci"].sel(strategy="api", quantile=0.5).values,
                                  _order_interval(v, 0.5))


def test_widest_error_by_hand():
    est = xr.DataArray([100.0, 0.0, 50.0, np.nan])
    ci = xr.DataArray([[90.0, 104.0], [-5.0, 5.0], [49.0, 56.0], [1.0, 2.0]],
                      dims=("dim_0", "ci_bound"), coords={"ci_bound": ["lower", "upper"]})
    # relative: 10/100 and 6/50 (the zero cell has no relative error; NaN has none)
    assert budget.widest_error(est, ci) == pytest.approx(0.12)
    # absolute: the largest half-width of any finite cell, the zero one included
    assert budget.widest_error(est, ci, relative=False) == pytest.approx(10.0)
    assert np.isnan(budget.widest_error(est[[1]], ci[[1]]))
