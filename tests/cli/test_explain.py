"""``mc-tco explain`` and ``mc-tco run --family-check`` through click's CliRunner, and the
memo sections and figure on small runs of the shipped books."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.results.io import open_results, write_results
from tests.paths import ARTICLE_BOOK


@pytest.fixture(scope="module")
def results_files(tmp_path_factory, result_files, default_run):
    """The session's results files, and the default run without its inputs' values."""
    folder = tmp_path_factory.mktemp("decision")
    paths = {name: str(path) for name, path in result_files.items()}
    no_inputs = default_run.drop_vars("input_value")
    paths["no_inputs"] = str(write_results(no_inputs, folder / "no_inputs.nc"))
    return paths


def invoke(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    return result


@pytest.mark.slow
def test_explain_prints_boxes_and_value_of_information(results_files, tmp_path):
    out = tmp_path / "explain.json"
    r = invoke("explain", results_files["article"], "--demand", "3T", "--json", out,
               "--draws", "50")
    assert r.exit_code == 0, r.output
    text = " ".join(r.output.split())  # the terminal width decides where lines wrap
    assert "Where does buy win? PRIM scenario discovery at demand 3T tokens/month" in text
    assert "Box 1: buy wins in" in text and "of all winning scenarios" in text
    assert "Peeling trajectory of box 1" in text and "\n    box " in r.output
    # version 3's hybrid is the best option in every scenario of the article's narrow
    # ranges (EVPI 0 at every demand); the default book's uncertainty gives it a value
    assert "Nothing is worth measuring first" in text
    payload = json.loads(out.read_text())
    out2 = tmp_path / "explain-default.json"
    r2 = invoke("explain", results_files["default"], "--demand", "1T", "--json", out2,
                "--draws", "50")
    assert r2.exit_code == 0, r2.output
    text2 = " ".join(r2.output.split())
    assert "EVPI" in text2 and "EVPPI by group (USD/month), ranked:" in text2
    voi = json.loads(out2.read_text())
    assert {"evpi", "evpi_se", "evppi", "evppi_se", "evppi_groups", "evppi_groups_se",
            "boxes"} <= set(voi)
    from mc_tco.results.io import open_results

    with open_results(results_files["default"]) as ds:
        assert set(voi["evppi"]) == {str(v) for v in ds["input"].values}
    assert f"EVPI {voi['evpi']:,.0f}" in text2  # the printed EVPI is the JSON's
    box = payload["boxes"][0]
    assert 0 < box["coverage"] <= 1 and 0 < box["density"] <= 1
    assert box["density_ci"][0] <= box["density"] <= box["density_ci"][1]
    # issue 14: the box shares' intervals are the scrambles' (shown), Wilson's only as fallback
    import re

    assert re.search(r"these hold [\d.]+% \([\d.]+-[\d.]+\) of all winning scenarios", text)
    assert re.search(r"It holds [\d.]+% \([\d.]+-[\d.]+\) of all scenarios", text)
    assert "interval in brackets (from the spread of the run's scrambles)" in text
    rq = box["shares_rqmc"]
    for name in ("coverage", "density", "mass"):
        assert box[f"{name}_ci"] == rq[name]["ci"]
    assert box["ci_method"].startswith("randomized-QMC")
    # every restriction is [low, high] with null for an open side, e.g. throughput < 14
    for low, high in box["rules"].values():
        assert low is not None or high is not None
    assert box["rules"]["throughput_multiple"][0] is None
    assert payload["unit"] == "USD/month" and payload["point"] == {"demand": 3e12}


def test_explain_too_few_winners_suggests_a_demand(results_files):
    r = invoke("explain", results_files["article"], "--strategy", "buy", "--demand", "5e11",
               "--only", "boxes")
    assert r.exit_code == 0, r.output
    flat = " ".join(r.output.split())
    assert "too few winning scenarios to say where" in flat
    assert "at least 50 winning and 50 losing scenarios" in flat
    assert "The nearest demand with enough is" in flat
    assert "Box 1" not in r.output


@pytest.mark.parametrize(("args", "message"), [
    (["--strategy", "bye"], "unknown strategy 'bye'; the results have api, buy, rent, reserved"),
    (["--inputs", "node_prise"], "unknown input 'node_prise'; did you mean 'node_price'?"),
    (["--demand", "2e13"], "--demand 2e+13 is outside the grid"),
    (["--demand", "4.5e11"], "--demand 4.5e+11 is not a grid point; the nearest are"),
    (["--demand", "lots"], "--demand lots: not a number"),
    (["--among", "api,lease"], "unknown strategy 'lease'"),
    (["--target", "savings"], "--target savings: no such per-sample output"),
    (["--alpha", "0.7"], "--alpha must lie in (0, 0.5)"),
    (["--group", "bad"], "--group bad: write NAME=INPUT1,INPUT2"),
])
def test_explain_errors_are_one_line(results_files, args, message):
    r = invoke("explain", results_files["default"], *args)
    assert r.exit_code == 2, r.output
    assert message in r.output
    assert len(r.output.strip().splitlines()) == 1 and "Traceback" not in r.output


def test_explain_missing_or_wrong_file(results_files, tmp_path):
    r = invoke("explain", tmp_path / "nope.nc")
    assert r.exit_code == 2 and "no such results file; make one with 'mc-tco run'" in r.output
    r = invoke("explain", results_files["no_inputs"])
    assert r.exit_code == 2 and "no 'input_value'" in r.output


@pytest.mark.slow
def test_explain_custom_group_and_owned(results_files):
    r = invoke("explain", results_files["default"], "--demand", "1T", "--only", "voi",
               "--among", "api,buy,rent,owned", "--group", "price and speed=api_price_level,"
               "reference_tokens_per_gpu_hour", "--draws", "20")
    assert r.exit_code == 0, r.output
    assert "Deciding among api, buy, rent, owned" in r.output
    assert "price and speed" in r.output or "0 for" in r.output


USER_MODEL = '''
import numpy as np
import xarray as xr


def run(inputs):
    """Acting pays 1 where a > 0.7 and b < 0.4, else costs 1; c plays no part."""
    win = (inputs.a > 0.7) & (inputs.b < 0.4)
    return xr.Dataset({"margin": xr.where(win, 1.0, -1.0) + 0 * inputs.c})
'''

USER_BOOK = '''
[book]
name = "a user's model"
model = "decision_user_model:run"

[analysis]
targets = ["margin"]

[inputs.a]
dist = "uniform"
low = 0
high = 1

[inputs.b]
dist = "uniform"
low = 0
high = 1

[inputs.c]
dist = "uniform"
low = 0
high = 1
'''


@pytest.mark.slow
def test_explain_a_users_own_model_with_target(tmp_path):
    (tmp_path / "decision_user_model.py").write_text(textwrap.dedent(USER_MODEL))
    book = tmp_path / "user.toml"
    book.write_text(USER_BOOK)
    nc = tmp_path / "user.nc"
    r = invoke("run", book, "--samples", "1024", "--out", nc, "--quiet")
    assert r.exit_code == 0, r.output
    js = tmp_path / "user.json"
    r = invoke("explain", nc, "--target", "margin", "--json", js, "--draws", "20",
               "--group", "ab=a,b")
    assert r.exit_code == 0, r.output
    assert "Act if the expected margin is positive" in r.output
    payload = json.loads(js.read_text())
    rules = payload["boxes"][0]["rules"]
    assert set(rules) == {"a", "b"}
    assert abs(rules["a"][0] - 0.7) < 0.05 and rules["a"][1] is None
    assert rules["b"][0] is None and abs(rules["b"][1] - 0.4) < 0.05
    # E[margin] = 2 * 0.12 - 1 < 0: do not act. Learning a alone never changes that
    # (E[margin | a > 0.7] = 2 * 0.4 - 1 < 0), nor b alone: EVPPI 0. Learning a and b
    # tells whether acting wins: EVPPI = EVPI = P(win), which the polynomial smoother,
    # blurring the step at the box's edges, underestimates somewhat.
    assert payload["best_option"] == "don't act"
    for name in ("a", "b", "c"):  # 0, up to the regression's noise
        assert payload["evppi"][name] <= 2 * payload["evppi_se"][name] + 1e-3, name
    evpi = payload["evpi"]
    wins = (open_results(nc)["margin"] > 0).mean().item()
    assert evpi == pytest.approx(wins)
    assert 0.6 * evpi < payload["evppi_groups"]["ab"] <= evpi + 2 * payload["evppi_groups_se"][
        "ab"]
    assert "Value of information (net benefit: margin; ±" in " ".join(r.output.split())
    # a strategy flag makes no sense without a strategy dim
    r = invoke("explain", nc, "--target", "margin", "--strategy", "buy")
    assert r.exit_code == 2 and "has no strategy dim" in r.output


@pytest.mark.slow
def test_run_family_check_stores_and_prints(tmp_path):
    out = tmp_path / "article.nc"
    r = invoke("run", ARTICLE_BOOK, "--samples", "256", "--bootstrap", "0", "--out", out,
               "--family-check")
    assert r.exit_code == 0, r.output
    assert "Family check: 19 variants of the base sample, 8 bounded inputs" in r.output
    assert "answer flips" in r.output
    ds = open_results(out)
    assert ds["family_check_p_positive"].dims == ("family_variant", "target", "demand",
                                                 "strategy")
    assert "family_check_breakeven_demand_quantile" in ds
    assert list(ds["family_variant"].values[:4]) == ["book", "all:uniform", "all:triangular",
                                                     "all:pert"]


@pytest.mark.slow
def test_memo_sections_and_figure(article_run, default_run):
    from mc_tco.decision.family_findings import family_findings
    from mc_tco.decision.information import evpi_by_demand
    from mc_tco.report.decision_figures import evpi_figure
    from mc_tco.report.words.family import family_section, family_text
    from mc_tco.report.words.prim import scenario_section
    from mc_tco.report.words.voi import voi_section

    md = scenario_section(article_run, demand=3e12)
    assert md.startswith("## Under which conditions does buy pay off?")
    assert "buy wins in" in md and "of all winning scenarios" in md
    md = voi_section(article_run, demand=3e12)  # the hybrid always best: nothing to learn
    assert "Nothing is worth measuring first at this demand" in md
    md = voi_section(default_run, demand=1e12)
    assert "EVPI" in md and "| group | inputs | EVPPI (USD/month) | share of EVPI |" in md
    md = family_section(default_run)
    assert "family check was not run" in md
    assert family_findings(default_run) is None and family_text(None) == ""
    fig = evpi_figure(default_run)
    line = fig.axes[0].lines[0]
    e = evpi_by_demand(default_run)
    np.testing.assert_allclose(line.get_ydata(), e.values)
    assert fig.axes[0].get_xscale() == "log"


def test_explain_moment_independent_beside_shapley(results_files, tmp_path):
    out = tmp_path / "moment.json"
    r = invoke("explain", results_files["default"], "--only", "moment", "--json", out)
    assert r.exit_code == 0, r.output
    assert "Moment-independent indices of saving>0 (demand = 5e+11)" in r.output
    assert "Moment-independent indices of saving (demand = 5e+11)" in r.output
    assert "Shapley" in r.output and "PAWN median" in r.output
    assert "Where does buy win?" not in r.output
    payload = json.loads(out.read_text())
    first = payload["moment_independent"][0]
    assert first["attrs"]["target"] == "saving>0"
    assert len(first["data_vars"]["delta"]["data"]) == len(first["coords"]["input"]["data"]) > 20
    bad = invoke("explain", results_files["default"], "--only", "moment", "--slices", "1")
    assert bad.exit_code != 0 and "--slices 1" in bad.output
