"""Cumulative curves, scatter data and the conditional answer (``ds.mc_tco.cdf``,
``ds.mc_tco.scatter``, ``ds.mc_tco.given``; issue 25, items 2 to 4) against closed forms on
``y = v (x1 - x2) - c`` with independent normal inputs: Φ for the curves, the bivariate
normal of ``(y, x1)`` (scipy) for the probabilities and bands given ``x1`` in a range."""

from __future__ import annotations

import json
import math
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from mc_tco.cli import main
from mc_tco.decision.curves import dkw_halfwidth, parse_given
from mc_tco.errors import OptionError
from mc_tco.results.io import open_results

MODEL = '''
import xarray as xr

def run(inputs):
    """y = volume * (x1 - x2) - c: normal with mean volume * 0.8 - c."""
    return xr.Dataset({"y": (inputs["volume"] * (inputs["x1"] - inputs["x2"])
                             - inputs["c"]).transpose("sample", "volume")})
'''

BOOK = '''
[book]
name = "normal inputs, curves"
model = "curves_normal_model:run"

[analysis]
targets = ["y"]
focus = { volume = 1 }

[grid.volume]
values = [1, 2]

[inputs.x1]
dist = "normal"
mean = 1.0
sd = 0.5

[inputs.x2]
dist = "normal"
mean = 0.2
sd = 0.3

[inputs.c]
dist = "constant"
value = 0.3
'''

M1, S1, M2, S2, C = 1.0, 0.5, 0.2, 0.3, 0.3
N = 2048


@pytest.fixture(scope="module")
def normal_ds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("curves")
    (folder / "curves_normal_model.py").write_text(textwrap.dedent(MODEL))
    (folder / "normal.toml").write_text(BOOK)
    nc = folder / "normal.nc"
    r = CliRunner().invoke(main, ["run", str(folder / "normal.toml"), "--samples", str(N),
                                  "--out", str(nc), "--quiet", "--no-shapley"])
    assert r.exit_code == 0, r.output
    return open_results(nc)


def _y(v: float):
    return v * (M1 - M2) - C, v * math.hypot(S1, S2)


# ---------------------------------------------------------------- cumulative curves


@pytest.mark.parametrize("volume", [1, 2])
def test_cdf_matches_phi_and_p_exceeds(normal_ds, volume):
    mu, sd = _y(volume)
    xs = mu + sd * np.array([-1.5, -0.5, 0.0, 0.7, 1.6])
    res = normal_ds.mc_tco.cdf("y", xs, volume=volume)
    assert res["cdf"].dims == ("x",) and res["cdf_ci"].dims == ("x", "ci_bound")
    exact = stats.norm.cdf(xs, mu, sd)
    lo, hi = res["cdf_ci"].values.T
    assert (lo <= res["cdf"].values).all() and (res["cdf"].values <= hi).all()
    # the pointwise 95% band covers Φ at each of the five thresholds (at this seed)
    assert ((lo <= exact) & (exact <= hi)).all(), (res["cdf"].values, exact, lo, hi)
    assert ((hi - lo) / 2 < 1.96 * np.sqrt(exact * (1 - exact) / N) + 2e-3).all()
    np.testing.assert_allclose(res["ccdf"].values, 1 - res["cdf"].values)
    np.testing.assert_allclose(res["ccdf_ci"].values, 1 - res["cdf_ci"].values[:, ::-1])
    # P(y > x) is the target probability of item 1, interval included
    for i, x in enumerate(xs):
        p = normal_ds.mc_tco.p_exceeds("y", float(x), volume=volume)
        assert float(res["ccdf"][i]) == pytest.approx(float(p["p"]), abs=1e-12)
        np.testing.assert_allclose(res["ccdf_ci"][i].values, p["p_ci"].values, atol=1e-12)
    assert int(res["rows"]) == N and res["x"].attrs["units"] == normal_ds["y"].attrs.get(
        "units", "")


def test_dkw_band_covers_phi_everywhere(normal_ds):
    mu, sd = _y(1)
    res = normal_ds.mc_tco.cdf("y", band="dkw")  # the focus, volume = 1; 201 thresholds
    x = res["x"].values
    assert x.size == 201 and res.attrs["point"] == {"volume": 1.0}
    eps = math.sqrt(math.log(2 / 0.05) / (2 * N))  # Massart's constant, by hand
    assert float(dkw_halfwidth(N)) == pytest.approx(eps)
    lo, hi = res["cdf_ci"].values.T
    np.testing.assert_allclose(hi - lo, np.minimum(res["cdf"].values + eps, 1)
                               - np.maximum(res["cdf"].values - eps, 0))
    exact = stats.norm.cdf(x, mu, sd)
    assert ((lo <= exact) & (exact <= hi)).all()
    # the simultaneous band is wider than the pointwise one inside the curve
    point = normal_ds.mc_tco.cdf("y", x[50:151:50])["cdf_ci"].values
    assert ((point[:, 1] - point[:, 0]) < 2 * eps).all()


def test_cdf_per_strategy_on_the_default_book(result_files):
    ds = open_results(result_files["default"])
    res = ds.mc_tco.cdf("saving", demand=5e11, points=41)
    labels = [s for s in map(str, ds["strategy"].values) if s != "api"]
    assert list(res["strategy"].values) == labels and res["cdf"].dims == ("strategy", "x")
    assert (np.diff(res["cdf"].values, axis=1) >= 0).all()
    buy = ds["saving"].sel(demand=5e11, strategy="buy").values
    x = res["x"].values
    np.testing.assert_allclose(res["cdf"].sel(strategy="buy").values,
                               (buy[:, None] <= x[None, :]).mean(axis=0))
    one = ds.mc_tco.cdf("saving", [0], strategy="buy", demand="500B")
    assert float(one["ccdf"].sel(strategy="buy", x=0)) == pytest.approx(
        float(ds.mc_tco.p_beats("buy", demand=5e11)["p"]))
    for kwargs, message in [({"strategy": "lease"}, "not one of"),
                            ({"band": "sup"}, "choose 'scrambles'"),
                            ({"demand": 4e11}, "not a grid point")]:
        with pytest.raises(OptionError, match=message):
            ds.mc_tco.cdf("saving", **kwargs)


# ---------------------------------------------------------------- scatter


def test_scatter_shows_the_runs_ranking(result_files):
    ds = open_results(result_files["default"])
    sc = ds.mc_tco.scatter("saving", strategy="buy", demand=1e12, top=3)
    rk = ds.mc_tco.ranking(sc.attrs["ranking_target"], index=sc.attrs["ranked_by"],
                           **sc.attrs["ranking_point"])
    assert list(sc["input"].values) == [str(v) for v in rk["input"].values[:3]]
    np.testing.assert_allclose(sc["score"].values, rk[sc.attrs["ranked_by"]].values[:3])
    y = ds["saving"].sel(demand=1e12, strategy="buy").values
    np.testing.assert_array_equal(sc["y"].values, y)
    np.testing.assert_array_equal(sc["wins"].values, y > 0)
    np.testing.assert_array_equal(
        sc["x"].values, ds["input_value"].sel(input=sc["input"].values).transpose(
            "sample", "input").values)
    assert float(sc["p_win"]) == pytest.approx((y > 0).mean())
    lo, hi = sc["p_win_ci"].values
    assert lo <= float(sc["p_win"]) <= hi
    mine = ds.mc_tco.scatter("saving", strategy="buy", demand=1e12,
                             inputs=["node_price", "utilization"], threshold="5k")
    np.testing.assert_array_equal(mine["wins"].values, y > 5e3)
    with pytest.raises(OptionError, match="did you mean 'node_price'"):
        ds.mc_tco.scatter("saving", inputs=["node_prize"])


# ---------------------------------------------------------------- conditional answer


def _joint_sf(t: float, a: float, v: float) -> float:
    """P(y > t, x1 > a): (y, x1) is bivariate normal with cov(y, x1) = v S1^2."""
    mu, sd = _y(v)
    if math.isinf(a):
        return float(stats.norm.sf(t, mu, sd)) if a < 0 else 0.0
    cov = [[sd**2, v * S1**2], [v * S1**2, S1**2]]
    return float(stats.multivariate_normal(mean=[-mu, -M1], cov=cov).cdf([-t, -a]))


def _conditional_sf(t: float, a: float, b: float, v: float) -> float:
    """P(y > t | a < x1 < b)."""
    p = stats.norm.cdf(b, M1, S1) - stats.norm.cdf(a, M1, S1)
    return (_joint_sf(t, a, v) - _joint_sf(t, b, v)) / p


@pytest.mark.parametrize("given, a, b", [
    ("x1>1.2", 1.2, math.inf),
    ("0.4<x1<0.9", 0.4, 0.9),
    ("x1 in p10..p50", None, None),
])
@pytest.mark.parametrize("volume", [1, 2])
def test_given_matches_the_bivariate_normal(normal_ds, given, a, b, volume):
    res = normal_ds.mc_tco.given(given, volume=volume, threshold=0.5)
    (cond,) = json.loads(res.attrs["conditions"])
    if a is None:  # the percentiles of the stored rows of x1
        a, b = cond["low"], cond["high"]
        x1 = normal_ds["input_value"].sel(input="x1").values
        assert a == pytest.approx(np.quantile(x1, 0.1)) and b == pytest.approx(
            np.quantile(x1, 0.5))
    exact = _conditional_sf(0.5, a, b, volume)
    p = float(res["p"])
    lo, hi = res["p_ci"].values
    assert lo <= p <= hi
    # within 1.5 half-widths (about 3.5 standard errors): the 95% intervals covered the
    # closed form in 102 of 108 such cells over 12 seeds (94%), here in 4 of these 6
    assert abs(p - exact) <= 1.5 * (hi - lo) / 2, (p, exact, lo, hi)
    x1 = normal_ds["input_value"].sel(input="x1").values
    rows = int(((x1 > a) & (x1 < b)).sum()) if not cond["low_closed"] else int(
        ((x1 >= a) & (x1 <= b)).sum())
    assert res.attrs["rows_given"] == rows == int(res["rows"]) == cond["rows"]
    assert res.attrs["rows_total"] == N
    # unconditionally it is Φ's, as item 1
    mu, sd = _y(volume)
    assert float(res["p_all"]) == pytest.approx(stats.norm.sf(0.5, mu, sd), abs=0.02)
    # the bands: the closed-form conditional cdf at each band is its level
    for q in res["quantile"].values:
        band = float(res["bands"].sel(quantile=q))
        assert 1 - _conditional_sf(band, a, b, volume) == pytest.approx(q, abs=0.035)
        blo, bhi = res["bands_ci"].sel(quantile=q).values
        assert blo <= band <= bhi


def test_given_refuses_too_few_rows_and_bad_conditions(normal_ds):
    x1 = normal_ds["input_value"].sel(input="x1").values
    few = int((x1 > np.quantile(x1, 0.99)).sum())
    with pytest.raises(OptionError) as err:
        normal_ds.mc_tco.given("x1>p99")
    msg = str(err.value)
    assert "\n" not in msg and f"holds in only {few} of {N:,} scenarios, fewer than 100" in msg
    assert normal_ds.mc_tco.given("x1>p99", min_rows=few).attrs["rows_given"] == few
    for text, message in [("x1=3", "write NAME>X"), ("x_1>1", "did you mean 'x1'"),
                          ("x1 in 2..1", "swap them"), ("x1>p120", "must lie in 0..100"),
                          ("x1>lots", "not a number")]:
        with pytest.raises(OptionError, match=message):
            normal_ds.mc_tco.given(text)


def test_parse_given_forms():
    (c,) = parse_given("api_price_annual_change>-0.05")
    assert (c.input, c.low, c.high, c.low_closed) == ("api_price_annual_change", "-0.05",
                                                       None, False)
    a, b = parse_given("-0.2 <= x <-0.05, node_price in p10..p50")
    assert (a.input, a.low, a.high, a.low_closed, a.high_closed) == ("x", "-0.2", "-0.05",
                                                                     True, False)
    assert (b.input, b.low, b.high, b.low_closed, b.high_closed) == ("node_price", "p10",
                                                                     "p50", True, True)
    (d,) = parse_given(["y<=400k"])
    assert (d.low, d.high, d.high_closed) == (None, "400k", True)


def test_given_two_inputs_on_the_default_book(result_files):
    ds = open_results(result_files["default"])
    res = ds.mc_tco.given(["api_price_annual_change>-0.05", "node_price in p0..p50"],
                          demand=5e11, min_rows=50)  # 512 rows in the session's run
    x = ds["input_value"]
    keep = ((x.sel(input="api_price_annual_change") > -0.05)
            & (x.sel(input="node_price") <= float(x.sel(input="node_price").quantile(0.5))))
    assert res.attrs["rows_given"] == int(keep.sum())
    y = ds["saving"].sel(demand=5e11, strategy="buy").values[keep.values]
    assert float(res["p"].sel(strategy="buy")) == pytest.approx((y > 0).mean())
    assert "api" not in res["strategy"].values
