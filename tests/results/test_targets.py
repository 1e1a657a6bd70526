"""Target probabilities P(target > x), P(target < x) (``ds.mc_tco.p_exceeds``, ``mc-tco
target``) against the closed form Φ on ``y = v (x1 - x2) - c`` with normal inputs, and the
flag on a ranking of the decision indicator that rests on too few events (issue 25, items
1 and 6)."""

from __future__ import annotations

import json
import math
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from mc_tco.cli import main
from mc_tco.errors import OptionError
from mc_tco.results.io import open_results

NORMAL_MODEL = '''
import xarray as xr

def run(inputs):
    """y = volume * (x1 - x2) - c: normal with mean volume * 0.8 - c."""
    return xr.Dataset({"y": (inputs["volume"] * (inputs["x1"] - inputs["x2"])
                             - inputs["c"]).transpose("sample", "volume")})
'''

NORMAL_BOOK = '''
[book]
name = "normal inputs"
model = "target_normal_model:run"

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

MU, SD, C = 1.0 - 0.2, math.hypot(0.5, 0.3), 0.3


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def normal_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("targets")
    (folder / "target_normal_model.py").write_text(textwrap.dedent(NORMAL_MODEL))
    (folder / "normal.toml").write_text(NORMAL_BOOK)
    nc = folder / "normal.nc"
    r = invoke("run", folder / "normal.toml", "--samples", "2048", "--out", nc, "--quiet",
               "--no-shapley")
    assert r.exit_code == 0, r.output
    return nc


def _exact(x: float, volume: float) -> float:
    return float(stats.norm.sf(x, loc=volume * MU - C, scale=volume * SD))


@pytest.mark.parametrize("x", [-0.5, 0.0, 0.5, 1.2, 1.8])
@pytest.mark.parametrize("volume", [1, 2])
def test_p_exceeds_matches_phi(normal_file, x, volume):
    ds = open_results(normal_file)
    res = ds.mc_tco.p_exceeds("y", x, volume=volume)
    exact = _exact(x, volume)
    p = float(res["p"])
    lo, hi = (float(v) for v in res["p_ci"].values)
    half = (hi - lo) / 2
    assert lo <= p <= hi
    # the 95% interval covers Φ (at this seed, every one of the ten cells)
    assert lo <= exact <= hi, (p, exact, lo, hi)
    assert half < 1.96 * math.sqrt(exact * (1 - exact) / 2048) + 2e-3  # no wider than iid
    assert int(res["rows"]) == 2048
    assert int(res["events"]) == round(p * 2048)
    assert res["p"].attrs["units"] == "1" and res.attrs["side"] == ">"
    below = ds.mc_tco.p_below("y", x, volume=volume)
    assert float(below["p"]) == pytest.approx(1 - p)  # a continuous y: no ties at x
    assert below.attrs["side"] == "<"


def test_p_exceeds_over_the_grid_and_at_zero(normal_file):
    ds = open_results(normal_file)
    res = ds.mc_tco.p_exceeds("y", "0.5")
    assert res["p"].dims == ("volume",) and res["p_ci"].dims == ("volume", "ci_bound")
    exact = [_exact(0.5, v) for v in (1, 2)]
    np.testing.assert_allclose(res["p"].values, exact, atol=0.03)
    # at 0 it is the run's stored P(y > 0), with the same interval
    zero = ds.mc_tco.p_exceeds("y", 0)
    stored = ds.mc_tco.p_beats(target="y")
    np.testing.assert_allclose(zero["p"].values, stored["p"].values)
    np.testing.assert_allclose(zero["p_ci"].sel(ci_bound="lower").values,
                               stored["lower"].values)


def test_p_exceeds_refuses(normal_file):
    ds = open_results(normal_file)
    with pytest.raises(OptionError, match="not a grid point; the nearest are 1 and 2"):
        ds.mc_tco.p_exceeds("y", 0, volume=1.5)
    with pytest.raises(OptionError, match="not an output of the file; choose one of y"):
        ds.mc_tco.p_exceeds("z", 0)
    with pytest.raises(OptionError, match="not a number"):
        ds.mc_tco.p_exceeds("y", "much")


def test_cli_target(normal_file, tmp_path):
    js = tmp_path / "p.json"
    r = invoke("target", normal_file, "y>1.2", "--json", js)
    assert r.exit_code == 0, r.output
    line = r.output.splitlines()[0]
    assert line.startswith("P(y > 1.2) at volume = 1: ") and "of 2048 scenarios" in line
    assert "95% MC interval" in line
    payload = json.loads(js.read_text())
    (cell,) = payload["results"]
    assert cell["point"] == {"volume": 1.0} and cell["rows"] == 2048
    assert abs(cell["p"] - _exact(1.2, 1)) < 0.02
    assert cell["lower"] <= cell["p"] <= cell["upper"]
    r = invoke("target", normal_file, "y<1.2", "--all-points", "--json", "-")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.output)["results"]
    assert [c["point"]["volume"] for c in rows] == [1.0, 2.0]
    assert rows[0]["p"] == pytest.approx(1 - cell["p"])
    for args, message in [(("y>>1",), "write the condition as TARGET>X"),
                          (("y>1", "--at", "volume=3"), "outside the grid"),
                          (("y>1", "--strategy", "buy"), "has no strategy dim")]:
        r = invoke("target", normal_file, *args)
        assert r.exit_code != 0 and message in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1


def test_a_target_undefined_in_some_scenarios_says_how_many_are_left_out(normal_file):
    """The IRR is NaN where the flows never change sign: P(irr > x) is over the others, and
    the line says how many it left out (it read '2674 of 3445 scenarios' with no word of
    the 4,747 without an IRR)."""
    from mc_tco.report.words.target import target_lines

    ds = open_results(normal_file).load()
    y = ds["y"].values
    y[:300] = np.nan  # (every volume)
    ds["y"] = ds["y"].copy(data=y)
    res = ds.mc_tco.p_exceeds("y", 0.5, volume=1)
    assert int(res["rows"]) == 2048 - 300 and int(res["samples"]) == 2048
    valid = y[300:, 0] if ds["y"].dims[0] == "sample" else y[0, 300:]
    assert float(res["p"]) == pytest.approx(np.mean(valid > 0.5), abs=1e-12)
    (line,) = target_lines(res)
    assert f"of {2048 - 300} scenarios (300 of the 2,048 have no y (NaN): left out" in line
    (full,) = target_lines(open_results(normal_file).mc_tco.p_exceeds("y", 0.5, volume=1))
    assert "left out" not in full


def test_target_help_teaches():
    r = invoke("target", "--help")
    assert r.exit_code == 0
    assert "npv>1e6" in r.output and "--all-points" in r.output


def test_rare_indicator_ranking_is_flagged(result_files):
    ds = open_results(result_files["default"])
    wins = int((ds["saving"].sel(demand=1e11, strategy="buy") > 0).sum())
    assert wins < 50  # the default book at 1e11: buying rarely wins
    rk = ds.mc_tco.ranking("saving>0", demand=1e11, strategy="buy", index="ST")
    assert rk.attrs["too_few_events"] is True
    assert rk.attrs["rare_events"] == wins and rk.attrs["rare_rows"] == ds.sizes["sample"]
    assert "\n" not in rk.attrs["note"] and "not ranked" in rk.attrs["note"]
    near = rk.attrs["rare_nearest_demand"]
    # the nearest demand (by ratio) where both sides have at least 50 scenarios
    counts = (ds["saving"].sel(strategy="buy") > 0).sum("sample")
    ok = np.minimum(counts, ds.sizes["sample"] - counts) >= 50
    # (among the demands with Sobol' indices: --sobol-at report, the report points)
    ok &= np.isin(ds["demand"].values, [3e10, 1e11, 3e11, 5e11, 1e12, 3e12])
    grid = ds["demand"].values[ok.values]
    assert near == grid[np.argmin(np.abs(np.log(grid / 1e11)))]
    assert f"{near:.4g}" in rk.attrs["note"]
    assert ds.mc_tco.ranking("saving>0", demand=near, strategy="buy",
                             index="ST").attrs["too_few_events"] is False
    # the target itself is not an indicator: never flagged
    assert ds.mc_tco.ranking("saving", demand=1e11, strategy="buy",
                             index="ST").attrs["too_few_events"] is False


def test_without_scrambles_the_interval_is_wilsons(normal_file):
    ds = open_results(normal_file)
    ds.attrs["ci"] = "bootstrap"  # a run without independent scrambles
    assert not ds.mc_tco.run.replicates
    res = ds.mc_tco.p_exceeds("y", 1.2, volume=1)
    k, n = int(res["events"]), int(res["rows"])
    z = stats.norm.ppf(0.975)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    np.testing.assert_allclose(res["p_ci"].values, [centre - half, centre + half])
    assert bool(res["fallback"]) and "Wilson" in res.attrs["method"]


def test_a_hybrid_without_a_server_is_not_a_payback(result_files):
    """The hybrid buys no server where none pays for itself: there its payback is 0
    months and its peak cash need 0, nothing having been invested. P(payback < 24) over
    every scenario counted each of those as a payback (the default book at 500B: 67.7%,
    58 points of it scenarios that buy nothing); now they are left out, counted apart
    (``no_server``), and said. Checked against a count from the raw arrays."""
    from mc_tco.report.words.target import target_dict, target_lines

    ds = open_results(result_files["default"])
    demand = float(ds["demand"].sel(demand=5e11, method="nearest"))
    pay = ds["payback_months"].sel(demand=demand, strategy="hybrid").values
    held = ds["hybrid_nodes"].sel(demand=demand).values > 0
    assert 0 < held.sum() < held.size  # (both kinds of scenario at this point)
    assert (pay[~held] == 0).all()  # what made the old count wrong
    res = ds.mc_tco.p_exceeds("payback_months", 24, below=True, strategy="hybrid",
                              demand=demand)
    assert int(res["no_server"]) == int((~held).sum())
    assert int(res["rows"]) == int(held.sum())
    assert int(res["events"]) == int((pay[held] < 24).sum())
    assert float(res["p"]) == pytest.approx(np.mean(pay[held] < 24), abs=0.02)
    lo, hi = (float(v) for v in res["p_ci"].values)
    assert lo <= float(res["p"]) <= hi
    # the old reading, every scenario with its 0, on request only
    every = ds.mc_tco.p_exceeds("payback_months", 24, below=True, strategy="hybrid",
                                demand=demand, where_held=False)
    assert int(every["rows"]) == held.size and int(every["no_server"]) == 0
    assert int(every["events"]) == int((pay < 24).sum())
    (line,) = target_lines(res)
    assert (f"{int(held.sum())} scenarios ({int((~held).sum()):,} of the {held.size:,} buy "
            "no server") in line
    assert target_dict(res)["results"][0]["no_server"] == int((~held).sum())
    # the IRR (NaN without a server): the same scenarios, said once, not as NaN
    irr = ds.mc_tco.p_exceeds("irr", 0.2, strategy="hybrid", demand=demand)
    (irr_line,) = target_lines(irr)
    assert "buy no server" in irr_line
    nan_held = int(np.isnan(ds["irr"].sel(demand=demand, strategy="hybrid").values[held]).sum())
    assert ("(NaN)" in irr_line) == (nan_held > 0)
    # the API buys nothing ever: no payback to count; buy's count is untouched
    api = ds.mc_tco.p_exceeds("payback_months", 24, below=True, strategy="api", demand=demand)
    assert int(api["rows"]) == 0 and np.isnan(float(api["p"]))
    assert "none of the" in target_lines(api)[0]
    buy = ds.mc_tco.p_exceeds("payback_months", 24, below=True, strategy="buy", demand=demand)
    assert int(buy["no_server"]) == 0 and int(buy["rows"]) == held.size
    # the NPV of a hybrid without a server is a true 0 (the API's): every scenario counts
    npv = ds.mc_tco.p_exceeds("npv", 0, strategy="hybrid", demand=demand)
    assert int(npv["rows"]) == held.size and int(npv["no_server"]) == 0
    # over every strategy at once, the same per strategy
    grid = ds.mc_tco.p_exceeds("payback_months", 24, below=True, demand=demand)
    assert int(grid["no_server"].sel(strategy="hybrid")) == int((~held).sum())
    assert int(grid["no_server"].sel(strategy="buy")) == 0
    assert float(grid["p"].sel(strategy="hybrid")) == float(res["p"])


def test_the_cumulative_curve_of_a_payback_leaves_out_the_hybrids_without_a_server(
        result_files):
    """``mc-tco cdf --target payback_months`` drew the hybrid's curve starting at 58% at
    0 months (its scenarios that buy no server); now it rests on the others, and the
    header says how many it left out."""
    from mc_tco.report.words.curves import cdf_lines

    ds = open_results(result_files["default"])
    demand = float(ds["demand"].sel(demand=5e11, method="nearest"))
    pay = ds["payback_months"].sel(demand=demand, strategy="hybrid").values
    held = ds["hybrid_nodes"].sel(demand=demand).values > 0
    res = ds.mc_tco.cdf("payback_months", [0, 24, 36], demand=demand)
    assert int(res["rows"].sel(strategy="hybrid")) == int(held.sum())
    assert int(res["no_server"].sel(strategy="hybrid")) == int((~held).sum())
    assert int(res["no_server"].sel(strategy="buy")) == 0
    for x in (0, 24, 36):
        got = float(res["cdf"].sel(strategy="hybrid", x=x))
        assert got == pytest.approx(np.mean(pay[held] <= x), abs=0.02)
    assert float(res["cdf"].sel(strategy="hybrid", x=0)) < 0.01
    head = cdf_lines(res, ascending=True)[0]
    assert f"left out: {int((~held).sum()):,} hybrid scenarios that buy no server" in head
    old = ds.mc_tco.cdf("payback_months", [0], demand=demand, where_held=False)
    assert float(old["cdf"].sel(strategy="hybrid", x=0)) == pytest.approx(
        np.mean(pay <= 0), abs=0.02)
    # the saving is untouched: a hybrid without a server saves exactly 0, a true value
    saving = ds.mc_tco.cdf("saving", [0], demand=demand)
    assert int(saving["rows"].sel(strategy="hybrid")) == held.size


def test_the_scatter_of_a_payback_draws_only_the_hybrids_that_buy(result_files):
    """``mc-tco scatter --target payback_months -s hybrid`` said "of 3,445 scenarios" (its
    share from p_exceeds) but drew all 8,192, the no-server ones at 0 months."""
    ds = open_results(result_files["default"])
    demand = float(ds["demand"].sel(demand=5e11, method="nearest"))
    held = ds["hybrid_nodes"].sel(demand=demand).values > 0
    sc = ds.mc_tco.scatter("payback_months", strategy="hybrid", demand=demand,
                           inputs=["node_price"], threshold=24)
    y = sc["y"].values
    assert np.isnan(y[~held]).all() and not np.isnan(y[held]).all()
    assert not sc["wins"].values[~held].any()
    assert int(sc["rows"]) == int((~np.isnan(y)).sum()) == int(held.sum())  # (inf: never)
    # the saving keeps every scenario
    assert np.isfinite(ds.mc_tco.scatter("saving", strategy="hybrid", demand=demand,
                                         inputs=["node_price"])["y"].values).all()
