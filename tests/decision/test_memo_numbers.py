"""The numbers the memo reads, computed in :mod:`mc_tco.decision` (issue 22 item 4), checked
against hand calculations and scipy on small results-like datasets."""

from __future__ import annotations

import statistics

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from mc_tco.decision import breakeven, claims, costs, indices, one_page, shares, timeaxis
from mc_tco.decision.tco_data import CHOICES, STRATEGIES
from mc_tco.decision.triggers import demand_trigger, input_trigger

R = 8
PER = 50
N = R * PER
DEMANDS = [1e10, 3e10, 1e11, 5e11, 2e12]
ALL = ["api", *STRATEGIES]


def _results(seed: int = 0, ci: str = "rqmc") -> xr.Dataset:
    """A results-like Dataset of the TCO model: cost (sample, demand, strategy), the saving
    against the API, break-even demands, stored P(beats the API), components, inputs."""
    rng = np.random.default_rng(seed)
    d = np.asarray(DEMANDS)
    api = d[None, :] * rng.uniform(1e-7, 3e-7, (N, 1))
    cost = np.stack([api] + [api * rng.uniform(0.6, 1.6, (N, len(d))) for _ in STRATEGIES],
                    axis=-1)
    saving = cost[..., :1] - cost
    be = rng.uniform(1e10, 1e12, (N, len(ALL)))
    be[rng.uniform(size=be.shape) < 0.2] = np.inf
    p = (saving > 0).mean(axis=0)  # (demand, strategy)
    comp = rng.uniform(0, 1, (N, len(d), 3)) * [[[1.0, 3.0, 0.5]]]
    x = rng.uniform(0, 1, (N, 2))
    ds = xr.Dataset(
        {"cost": (("sample", "demand", "strategy"), cost),
         "saving": (("sample", "demand", "strategy"), saving),
         "breakeven_demand": (("sample", "strategy"), be),
         "p_positive": (("target", "demand", "strategy"), p[None]),
         "p_positive_ci": (("target", "demand", "strategy", "ci_bound"),
                           np.stack([p - 0.01, p + 0.01], axis=-1)[None]),
         "cost_component": (("sample", "demand", "component"), comp),
         "input_value": (("sample", "input"), x)},
        coords={"sample": np.arange(N), "demand": d, "strategy": ALL,
                "target": ["saving>0"], "ci_bound": ["lower", "upper"],
                "component": ["power", "staff", "storage"], "input": ["a", "b"]},
    )
    ds.attrs.update(ci=ci, replicates=R if ci == "rqmc" else 1, conf_level=0.95)
    return ds


def _t_interval(p_r):
    """The replicate t interval of R per-scramble shares, by hand."""
    p_r = np.asarray(p_r, dtype=float)
    half = stats.t.ppf(0.975, len(p_r) - 1) * p_r.std(ddof=1) / np.sqrt(len(p_r))
    return p_r.mean() - half, p_r.mean() + half


def test_cheapest_shares_count_the_argmin_and_give_ties_to_the_api():
    ds = _results()
    ds["cost"].loc[{"sample": 0, "demand": 5e11}] = 1.0  # every option equal: the API's
    got = shares.cheapest_shares(ds, 5e11)
    c = ds["cost"].sel(demand=5e11, strategy=list(CHOICES)).values
    want = np.bincount(np.argmin(c, axis=1), minlength=len(CHOICES))
    assert list(got["strategy"].values) == list(CHOICES)
    np.testing.assert_array_equal(got["scenarios_cheapest"].values, want)
    np.testing.assert_allclose(got["share"].values, want / N)
    assert got["share"].attrs["units"] == "1"
    # the interval is the spread of the 8 scrambles (sample g is in scramble g % 8)
    best = np.argmin(c, axis=1)
    for i, s in enumerate(CHOICES):
        p_r = [np.mean(best[r::R] == i) for r in range(R)]
        if min(p_r) > 0 and max(p_r) < 1:
            np.testing.assert_allclose(got["share_ci"].sel(strategy=s).values,
                                       _t_interval(p_r))


def test_cheapest_shares_of_a_file_without_scrambles_are_wilsons():
    ds = _results(ci="bootstrap")
    got = shares.cheapest_shares(ds, 1e11)
    for s in CHOICES:
        k = int(got["scenarios_cheapest"].sel(strategy=s))
        ref = stats.binomtest(k, N).proportion_ci(0.95, method="wilson")
        np.testing.assert_allclose(got["share_ci"].sel(strategy=s).values,
                                   [ref.low, ref.high])


def test_a_share_leaves_out_what_is_not_applicable():
    event = np.array([1, 0, np.nan, 1, 1, np.nan, 0, 1], dtype=float)
    got = shares.share_with_interval(event, 0.9)
    assert (got.k, got.n, got.p) == (4, 6, 4 / 6)
    ref = stats.binomtest(4, 6).proportion_ci(0.9, method="wilson")
    assert (got.lower, got.upper) == pytest.approx((ref.low, ref.high))
    assert shares.prob_with_ci(event, 0.9) == tuple(got)


def test_odds_over_demand_read_the_stored_shares():
    ds = _results()
    p = np.array([0.1, 0.3, 0.6, 0.4, 0.7])
    ds["p_positive"].loc[{"strategy": "buy"}] = p[None]
    ds["p_positive_ci"].loc[{"strategy": "buy"}] = np.stack([p - 0.01, p + 0.01], -1)[None]
    got = shares.odds_over_demand(ds, "buy")
    assert got.first_half == 1e11 and got.top_demand == 2e12
    assert got.top == pytest.approx((0.7, 0.69, 0.71))
    ds["p_positive"].loc[{"strategy": "buy"}] = (p / 2)[None]
    assert shares.odds_over_demand(ds, "buy").first_half is None


def test_breakeven_band_is_the_samples_own_order_statistics():
    ds = _results()
    be = ds["breakeven_demand"].sel(strategy="buy").values
    got = breakeven.breakeven_band(ds, "buy")
    s = np.sort(be)
    # inverted_cdf: x_(ceil(q n)), the 1-based order statistic
    assert got.q05 == s[int(np.ceil(0.05 * N)) - 1]
    assert got.median == s[N // 2 - 1] == statistics.median_low(be)
    assert got.q95 == s[int(np.ceil(0.95 * N)) - 1]
    assert got.p_never == np.isinf(be).sum() / N


def test_nonmonotone_count_is_broke_even_below_yet_losing_at():
    ds = _results()
    be = ds["breakeven_demand"].sel(strategy="buy").values
    loses = ds["saving"].sel(demand=5e11, strategy="buy").values < 0
    want = sum(1 for b, lo in zip(be, loses, strict=True) if b <= 5e11 and lo)
    assert breakeven.nonmonotone_count(ds, 5e11, "buy") == (want, N)


def test_saving_band_and_the_largest_component():
    ds = _results()
    v = ds["saving"].sel(demand=1e11, strategy="rent").values
    assert costs.saving_band(ds, 1e11, "rent") == pytest.approx(
        tuple(np.percentile(v, [5, 50, 95])))
    bd = costs.cost_breakdown(ds)
    med = {c: statistics.median(ds["cost_component"].sel(demand=1e11, component=c).values)
           for c in ("power", "staff", "storage")}
    name, share = costs.largest_component(bd, 1e11)
    assert name == max(med, key=med.get) == "staff"
    assert share == pytest.approx(med["staff"] / sum(med.values()))


def test_sovereignty_is_the_yearly_shortfall_against_the_api():
    ds = _results()
    s = ds["saving"].sel(demand=5e11, strategy="hybrid").values
    need = np.sort(np.maximum(-12 * s, 0))
    got = costs.sovereignty(ds, 5e11, "hybrid")
    assert got.median == need[N // 2 - 1]
    assert got.q90 == need[int(np.ceil(0.9 * N)) - 1]
    assert got.pays == pytest.approx(np.mean(s > 0))


def test_node_hour_by_hand():
    n = 5
    ds = xr.Dataset(
        {"node_api_revenue_per_hour": ("sample", np.array([10.0, 20, 30, 40, 50])),
         "input_value": (("sample", "input"), np.array([[0.5, 3e5]] * n))},
        coords={"input": ["utilization", "node_price"]},
        attrs={"constants": '{"node_annual_depreciation": 0.2, "discount_rate": 0.1, '
                            '"maintenance_fraction": 0.05, "node_power_kw": 10, "pue": 1.2, '
                            '"electricity_price": 0.1}'})
    value, own = costs.node_hour(ds)
    assert value == 0.5 * 30
    assert own == pytest.approx(3e5 * 0.35 / 8760 + 10 * 1.2 * 0.1)
    assert np.isnan(costs.median_of(xr.DataArray([np.nan, np.nan])))
    # version 3: the network bought with the node is capital too, colocation is per kW
    v3 = ds.copy()
    v3.attrs["constants"] = ds.attrs["constants"][:-1] + (
        ', "network_capex_fraction": 0.1, "colocation_per_kw_month": 200}')
    _, own3 = costs.node_hour(v3)
    assert own3 == pytest.approx(3e5 * 1.1 * 0.3 / 8760 + 3e5 * 0.05 / 8760
                                 + 10 * 1.2 * 0.1 + 10 * 200 * 12 / 8760)


def test_top_components_are_the_largest_positive_medians():
    ds = _results()
    comp = ds["cost_component"].values
    comp[:, :, 0] -= 2.0  # power: a negative median (as a tax saved) is not a cost
    ds["cost_component"] = (("sample", "demand", "component"), comp)
    med = {c: statistics.median_low(ds["cost_component"].sel(demand=5e11, component=c).values)
           for c in ("staff", "storage")}
    assert costs.top_components(ds, 5e11) == [("staff", med["staff"]),
                                               ("storage", med["storage"])]
    assert costs.top_components(ds, 5e11, n=1) == [("staff", med["staff"])]


def test_sovereignty_says_what_the_book_already_counts():
    ds = _results().assign_coords(input=["a", "sovereignty_value"])
    ds["input_value"].loc[{"input": "sovereignty_value"}] = np.linspace(500, 1500, N)
    # the median of N = 400 evenly spaced values, one scenario's own (inverted_cdf): x_(200)
    want = np.linspace(500, 1500, N)[N // 2 - 1]
    assert costs.sovereignty(ds, 5e11, "buy").counted == pytest.approx(12 * want)
    assert costs.sovereignty(_results(), 5e11, "buy").counted == 0


def test_input_trigger_finds_the_least_extreme_value_that_wins_half():
    """Wins exactly where x >= 600 of x = 0..999: among the m largest x the win rate is
    min(m, 400) / m, at least one half up to m = 800, whose smallest x is 200."""
    n = 1000
    rng = np.random.default_rng(1)
    x = rng.permutation(n).astype(float)
    ds = xr.Dataset(
        {"input_value": (("sample", "input"), x[:, None]),
         "saving": (("sample", "demand", "strategy"),
                    np.where(x >= 600, 1.0, -1.0)[:, None, None])},
        coords={"input": ["price"], "demand": [5e11], "strategy": ["buy"]})
    got = input_trigger(ds, 5e11, "buy", "price", rising=True)
    assert (got.value, got.share_beyond) == (200.0, 0.8)
    # falling: among the m smallest x the win rate is max(0, m - 600) / m < 1/2 for m <= 1000
    assert input_trigger(ds, 5e11, "buy", "price", rising=False) is None
    assert input_trigger(ds, 5e11, "buy", "not_an_input") is None


def test_demand_trigger_is_the_first_larger_demand_won_in_half():
    ds = _results()
    ds["p_positive"].loc[{"strategy": "buy"}] = np.array([[0.1, 0.2, 0.3, 0.55, 0.9]])
    ds["p_positive"].loc[{"strategy": "hybrid"}] = np.array([[0.1, 0.2, 0.3, 0.6, 0.8]])
    t = demand_trigger(ds, 1e11)
    assert (t.found, t.demand, t.strategy, t.p) == (True, 5e11, "hybrid", 0.6)
    ds["p_positive"].loc[{"strategy": ["buy", "hybrid"]}] = 0.2
    t = demand_trigger(ds, 1e11)
    assert (t.found, t.demand) == (False, 2e12)
    assert demand_trigger(ds, 2e12) is None


def test_page_numbers_are_p10_p50_p90_over_the_scenarios():
    ds = _results()
    ds["investment"] = ds["cost"].sel(strategy="buy", drop=True) * 10
    for v in ("peak_cash_need_nominal", "npv", "payback_months", "simple_payback_months"):
        ds[v] = ds["cost"] * 2
    held = ds["cost"].sel(strategy="buy", drop=True)
    ds["hybrid_served_share"] = held.where(held > held.median(), 0.0)
    top = float(ds["demand"].max())
    got = one_page.page_numbers(ds, top)
    # twice the grid's last demand lies past it: that column is left out (issue 24)
    assert [f for f, _ in got.points] == [0.5, 1.0]
    got = one_page.page_numbers(ds, 1e11)
    pts = [d for _, d in got.points]
    assert got.points[1] == (1.0, 1e11)
    api = ds["cost"].sel(strategy="api")

    def band(v):  # inverted_cdf by hand: x_(ceil(q n))
        v = np.sort(np.asarray(v, dtype=float))
        return tuple(float(v[int(np.ceil(q * v.size)) - 1]) for q in (0.1, 0.5, 0.9))

    assert got.table[("api_bill_year", "api")] == tuple(
        tuple(12 * x for x in band(api.sel(demand=d).values)) for d in pts)
    assert got.table[("api_bill_year", "api")][1][1] == 12 * statistics.median_low(
        api.sel(demand=1e11).values)
    assert got.table[("simple_payback", "hybrid")] == tuple(
        band(ds["simple_payback_months"].sel(demand=d, strategy="hybrid").values)
        for d in pts)
    # the share (p, MC lower, MC upper): the estimate by hand, its interval around it
    for (p, lo, hi), d in zip(got.table[("never_buys", "hybrid")], pts, strict=True):
        assert p == pytest.approx(float((ds["hybrid_served_share"].sel(demand=d) == 0).mean()))
        assert lo <= p <= hi
    assert list(got.table) == [(q, s) for q, (ss, _) in one_page.QUANTITIES.items()
                               for s in ss]
    # the one rule: the largest expected NPV against the API (the API's is 0)
    mean = {s: float(ds["npv"].sel(demand=1e11, strategy=s).values.mean())
            for s in one_page.SELF}
    best = max(mean, key=mean.get)
    assert got.best_self == best and got.decision.choice == got.choice
    assert got.choice == (best if mean[best] > 0 else "api")
    m, lo, hi = got.table[("mean_npv", best)][1]
    assert m == pytest.approx(mean[best]) and lo < m < hi
    assert "reserved" in one_page.SELF
    # sovereignty is priced on an option that keeps every token in house (not the hybrid)
    assert got.best_in_house == max(("buy", "rent", "reserved"), key=mean.get)


def test_priced_risks_read_which_events_the_book_prices():
    ds = _results()
    ds = ds.assign_coords(input=["stop_month", "b"])
    ds.attrs["constants"] = ('{"cancel_month": 1000, "demand_realization": 1.0, '
                             '"spare_fraction": 0.1, "horizon_years": 4}')
    assert one_page.priced_risks(ds) == {"stop": True, "cancel": False, "demand": False,
                                         "hardware": True}
    ds.attrs["constants"] = '{"cancel_month": 30, "horizon_years": 4}'
    assert one_page.prices(ds, "cancel_month")  # inside the horizon: it happens
    assert not one_page.prices(ds, "spare_fraction")  # not in the book


def test_indicator_rankable_needs_enough_wins_and_losses():
    ds = _results()
    wins = (ds["saving"].sel(strategy=["buy"]) > 0).sum("sample").values
    want = np.minimum(wins, N - wins) >= shares.MIN_EVENTS
    np.testing.assert_array_equal(indices.indicator_rankable(ds, ["buy"]).values, want)


@pytest.mark.parametrize("p,verdict", [(0.9, claims.HOLDS), (0.95, claims.HOLDS),
                                       (0.5, claims.HOLDS_IN_PART),
                                       (0.1, claims.DOES_NOT_HOLD),
                                       (float("nan"), claims.NOT_TESTABLE)])
def test_part_verdicts_follow_the_thresholds(p, verdict):
    assert claims.part_verdict(p) == verdict


def test_borderline_is_an_interval_across_a_threshold():
    assert claims.borderline(0.88, 0.85, 0.91)
    assert claims.borderline(0.12, 0.09, 0.15)
    assert not claims.borderline(0.5, 0.45, 0.55)
    assert not claims.borderline(float("nan"), 0, 1)


def test_claim_numbers_are_shares_of_the_scenarios():
    ds = _results()
    n_d = len(DEMANDS)
    rng = np.random.default_rng(2)
    ds["gpu_share"] = (("sample", "demand"), rng.uniform(0.85, 1.0, (N, n_d)))
    ds["storage_to_gpu_ratio"] = (("sample", "demand"), rng.uniform(0, 0.2, (N, n_d)))
    ds["storage_tb"] = (("sample", "demand"), rng.uniform(1, 9, (N, n_d)))
    ds["node_api_revenue_per_hour"] = ("sample", rng.uniform(20, 120, N))
    ds["rent_per_node_hour"] = ("sample", np.full(N, 56.8))
    c = claims.claim_numbers(ds)
    be = ds["breakeven_demand"]
    assert c.rent_never.p == np.isinf(be.sel(strategy="rent").values).mean()
    assert c.buy_by.k == int((be.sel(strategy="buy").values <= 5e11).sum())
    api = ds["node_api_revenue_per_hour"].values
    assert (c.api_below_rent.k, c.api_under_100.k) == ((api < 56.8).sum(), (api < 100).sum())
    assert c.api_hour == pytest.approx(tuple(np.percentile(api, [5, 50, 95])))
    gpu = ds["gpu_share"].sel(demand=3e10).values
    assert c.at_users.gpu_over_90.k == (gpu > 0.9).sum()
    assert c.at_users.storage_tb is not None and c.at_scale.storage_tb is None
    # the interval is the run's: the spread of its scrambles
    ev = (api < 100).astype(float)
    assert (c.api_under_100.lower, c.api_under_100.upper) == pytest.approx(
        _t_interval([ev[r::R].mean() for r in range(R)]))
    # a grid without a claim's demand leaves it unread
    assert claims.claim_numbers(ds.drop_sel(demand=3e10)).at_users.grid_demand is None


def test_the_median_with_its_interval_is_the_pooled_order_statistic():
    ds = _results()
    da = ds["cost"].sel(demand=1e11, strategy="buy")
    est = timeaxis.median_ci(ds, da)
    assert est.value == statistics.median_low(da.values)
    med_r = [statistics.median_low(da.values[r::R]) for r in range(R)]
    half = stats.t.ppf(0.975, R - 1) * np.std(med_r, ddof=1) / np.sqrt(R)
    assert (est.lower, est.upper) == pytest.approx((est.value - half, est.value + half))
    both = timeaxis.median_with_interval(ds, ds["cost"].sel(demand=1e11))
    assert float(both["estimate"].sel(strategy="buy")) == est.value
    assert both["ci"].dims == ("strategy", "ci_bound")


def test_an_indicator_ranks_only_above_its_own_error():
    assert indices.above_its_error([0.1, 0.5, np.nan], [0.05, 0.4, 0.0])
    assert not indices.above_its_error([0.1, 0.5], [0.05, 0.6])  # the top one is noise
    assert not indices.above_its_error([np.nan, np.nan], [0.1, 0.1])
    assert shares.rare_indicator(49, 1000) and shares.rare_indicator(960, 1000)
    assert not shares.rare_indicator(50, 1000)
