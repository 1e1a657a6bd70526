"""The numbers the memo's drivers, time figures and value-of-information sentences read,
computed in :mod:`mc_tco.decision` (issue 22 item 4), checked by hand and with numpy on
small synthetic datasets."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from mc_tco.decision import breakeven, costs, indices, information, shares, timeaxis, voi

N = 200
DEMANDS = [1e10, 1e11, 1e12]
STRATS = ["api", "buy", "rent", "reserved", "owned", "hybrid"]


def _file(seed: int = 0) -> xr.Dataset:
    """saving (sample, demand, strategy) with a chosen number of wins per demand for
    buying, ST (target, input, demand, strategy), cost and break-even demands."""
    rng = np.random.default_rng(seed)
    saving = -rng.uniform(1, 2, (N, len(DEMANDS), len(STRATS)))
    wins = [10, 100, 190]  # rare (< 50 wins), balanced, rare (< 50 losses)
    for j, w in enumerate(wins):
        saving[rng.permutation(N)[:w], j, 1] *= -1
    st = rng.uniform(0, 1, (2, 3, len(DEMANDS), len(STRATS)))
    cost = rng.uniform(1e3, 1e4, (N, len(DEMANDS), len(STRATS)))
    be = rng.uniform(1e10, 1e15, (N, len(STRATS)))
    be[:20] = np.inf
    return xr.Dataset(
        {"saving": (("sample", "demand", "strategy"), saving),
         "cost": (("sample", "demand", "strategy"), cost),
         "ST": (("target", "input", "demand", "strategy"), st),
         "breakeven_demand": (("sample", "strategy"), be)},
        coords={"sample": np.arange(N), "demand": DEMANDS, "strategy": STRATS,
                "target": ["saving", "saving>0"], "input": ["a", "b", "c"]})


def test_indicator_by_demand_counts_the_wins_and_flags_the_rare_sides():
    ds = _file()
    out = shares.indicator_by_demand(ds, "buy")
    assert out["wins"].values.tolist() == [10, 100, 190]
    assert out["rare"].values.tolist() == [True, False, True]
    assert out.attrs["n"] == N
    # one demand by hand against the one-point count
    assert shares.indicator_counts(ds, 1e11, "buy") == (100, N)


def test_positive_count():
    assert shares.positive_count(np.array([1.0, -2.0, 0.0, 3.0, np.nan])) == (2, 5)


def test_sobol_by_demand_hides_the_indicator_where_it_is_rare():
    ds = _file()
    heat = indices.sobol_by_demand(ds, "buy")
    st = ds["ST"].sel(strategy="buy")
    np.testing.assert_array_equal(heat["ST_saving"], st.sel(target="saving"))
    ind = heat["ST_indicator"].transpose("input", "demand").values
    assert np.isnan(ind[:, [0, 2]]).all()
    np.testing.assert_array_equal(ind[:, 1], st.sel(target="saving>0", demand=1e11))
    assert int(heat["ranked"]) == 1


def test_median_api_bill_is_the_numpy_median():
    ds = _file()
    assert costs.median_api_bill(ds, 1e11) == pytest.approx(
        np.median(ds["cost"].sel(demand=1e11, strategy="api").values), rel=1e-15)


def test_cdf_demands_stretch_to_the_largest_finite_breakeven_at_most_100x():
    ds = _file()
    x = breakeven.cdf_demands(ds)
    assert x.size == 400 and x[0] == 1e10
    assert x[-1] == pytest.approx(100 * 1e12)  # finite break-evens reach 1e15 > 100 x 1e12
    low = ds.assign(breakeven_demand=ds["breakeven_demand"].where(
        ds["breakeven_demand"] < 5e13, np.inf))
    be = low["breakeven_demand"].sel(strategy=STRATS[1:]).values
    top = be[np.isfinite(be)].max()
    assert 1e12 < top < 5e13
    assert breakeven.cdf_demands(low)[-1] == pytest.approx(top)
    # the API's own break-even (not a strategy) does not stretch the axis
    lower = low.assign(breakeven_demand=low["breakeven_demand"].where(
        low["breakeven_demand"] < 1e12, np.inf))
    lower["breakeven_demand"].loc[{"strategy": "api"}] = 4e13
    assert breakeven.cdf_demands(lower)[-1] == pytest.approx(1e12)
    none = ds.assign(breakeven_demand=ds["breakeven_demand"] * np.inf)
    assert breakeven.cdf_demands(none)[-1] == pytest.approx(1e12)
    np.testing.assert_allclose(np.diff(np.log(x)), np.log(x[1] / x[0]))  # log-spaced


def test_cash_bands_are_the_quantiles_over_the_scenarios():
    rng = np.random.default_rng(1)
    cash = xr.DataArray(rng.normal(size=(101, 6, 2)), dims=("sample", "month", "strategy"),
                        coords={"month": np.arange(6), "strategy": ["buy", "hybrid"]})
    b = timeaxis.cash_bands(cash)
    assert b.dims == ("strategy", "quantile", "month") and b.attrs["units"] == "USD"
    v = cash.sel(strategy="hybrid").values
    # 101 samples: the 5%, 25%, 50%, 75%, 95% quantiles are order statistics 5, 25, ...
    expected = np.sort(v, axis=0)[[5, 25, 50, 75, 95]]
    np.testing.assert_allclose(b.sel(strategy="hybrid").values, expected, rtol=0, atol=1e-15)


def test_payback_shares_are_the_empirical_cdf_with_never_and_nan():
    pay = xr.DataArray(np.array([[0, np.nan], [2, 5], [2, np.nan], [np.inf, np.nan]]),
                       dims=("sample", "strategy"), coords={"strategy": ["buy", "hybrid"]})
    s = timeaxis.payback_shares(pay, 3)
    assert s["month"].values.tolist() == [0, 1, 2, 3]
    np.testing.assert_allclose(s.sel(strategy="buy"), [0.25, 0.25, 0.75, 0.75])
    np.testing.assert_allclose(s.sel(strategy="hybrid"), [0, 0, 0, 0])  # only NaN and 5
    empty = timeaxis.payback_shares(pay.where(False), 2)
    np.testing.assert_array_equal(empty.sel(strategy="buy"), [0, 0, 0])


@pytest.mark.parametrize(("y", "hi", "lo", "flat"), [
    ([1.0, 3.0, 2.0], 1, 0, False),
    ([np.nan, 1.0, 4.0], 2, 1, False),
    ([2.0, 2.0, 2.0], 0, 0, True),
    ([np.nan, np.nan], None, None, False),
])
def test_curve_extremes(y, hi, lo, flat):
    e = voi.curve_extremes(y)
    assert (e.highest, e.lowest, e.flat, e.size) == (hi, lo, flat, len(y))


def test_evpi_half_width_is_z_se_or_half_the_replicate_interval():
    curve = xr.DataArray([1.0, 2.0, 3.0], dims="volume",
                         coords={"volume": [1, 2, 3], "evpi_se": ("volume", [0.1, 0.2, 0.3])},
                         attrs={"units": "USD"})
    z = stats.norm.ppf(0.95)  # a 90% level
    np.testing.assert_allclose(information.evpi_half_width(curve, 0.9), z * np.array(
        [0.1, 0.2, 0.3]), rtol=1e-12)
    rq = curve.assign_coords(evpi_lower=("volume", [0.5, np.nan, 2.0]),
                             evpi_upper=("volume", [1.7, np.nan, 3.0]))
    half = information.evpi_half_width(rq, 0.9)
    np.testing.assert_allclose(half, [0.6, z * 0.2, 0.5], rtol=1e-12)
    assert half.dims == ("volume",) and half.attrs["units"] == "USD"


def test_leader_and_by_value_keep_the_first_on_a_tie():
    from mc_tco.decision.choice import by_value, leader

    v = {"api": 0.2, "buy": 0.5, "rent": 0.5, "hybrid": 0.1}
    assert leader(v) == "buy"
    assert by_value(v) == ["buy", "rent", "api", "hybrid"]


def _shapley_file(everywhere: bool) -> xr.Dataset:
    sh = np.array([[0.1, 0.5, np.nan, 0.3, 0.5]]).repeat(3, 0).T  # (input, demand)
    if not everywhere:
        sh = sh.copy()
        sh[:, [0, 2]] = np.nan  # estimated at 1e11 only (--shapley-at report)
    conf = np.full_like(sh, 0.02)
    dims = ("target", "input", "demand", "strategy")
    return xr.Dataset(
        {"shapley": (dims, sh[None, :, :, None].repeat(2, -1)),
         "shapley_conf": (dims, conf[None, :, :, None].repeat(2, -1))},
        coords={"target": ["saving"], "input": list("abcde"), "demand": DEMANDS,
                "strategy": ["buy", "rent"]})


def test_shapley_leaders_are_the_largest_effects_book_order_on_a_tie():
    out = indices.shapley_leaders(_shapley_file(True), 1e12, "buy", "saving", top=3)
    assert out["input"].values.tolist() == ["b", "e", "d"]
    np.testing.assert_array_equal(out["shapley"], [0.5, 0.5, 0.3])
    np.testing.assert_array_equal(out["shapley_conf"], [0.02] * 3)
    assert out.attrs["demand"] == 1e12


def test_shapley_leaders_move_to_the_nearest_estimated_demand():
    out = indices.shapley_leaders(_shapley_file(False), 1e12, "buy", "saving", top=2)
    assert out.attrs["demand"] == 1e11
    assert out["input"].values.tolist() == ["b", "e"]


def test_no_shapley_leader_where_no_effect_is_finite():
    ds = _shapley_file(True)
    ds["shapley"][:] = np.nan
    assert indices.shapley_leaders(ds, 1e11, "buy", "saving").sizes["input"] == 0
