"""The investment memo: files, numbers traced to the results, claims' rules, errors."""

from __future__ import annotations

import base64
import json
import re
import shutil

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from click.testing import CliRunner
from scipy import stats

from mc_tco.cli import main
from mc_tco.decision.at_demand import indexed_demands
from mc_tco.decision.breakeven import breakeven_cdf
from mc_tco.decision.indices import rank_intervals, ranking
from mc_tco.decision.shares import MIN_EVENTS, indicator_counts
from mc_tco.decision.tco_data import grid_point
from mc_tco.decision.tornado import tornado
from mc_tco.errors import OptionError
from mc_tco.models.tco import COMPONENTS
from mc_tco.report.memo.claims import (
    DOES_NOT_HOLD,
    HOLDS,
    HOLDS_IN_PART,
    claim_verdict,
    evaluate_claims,
    part_verdict,
)
from mc_tco.report.memo.render import (
    Document,
    Figure,
    Paragraph,
    Section,
    Table,
    to_html,
    to_markdown,
)
from mc_tco.results.io import open_results, write_results
from tests.paths import ARTICLE_BOOK, DEFAULT_BOOK

FIGURES = ["budget", "fan_chart", "acceptability", "breakeven_cdf", "cost_breakdown",
           "cash_position", "payback", "sobol_heatmap", "tornado", "evpi", "compare"]
CSV_COLUMNS = {
    "p_beats_api.csv": ["book", "demand_tokens_per_month", "heavy_users", "strategy",
                        "p_beats_api", "ci_lower", "ci_upper", "winning_scenarios",
                        "scenarios", "conf_level"],
    "saving_quantiles.csv": ["book", "demand_tokens_per_month", "heavy_users", "strategy",
                             "mean_usd_per_month", "q05_usd_per_month", "q25_usd_per_month",
                             "q50_usd_per_month", "q75_usd_per_month", "q95_usd_per_month"],
    "breakeven_demand.csv": ["book", "strategy", "q05_tokens_per_month", "q25_tokens_per_month",
                             "q50_tokens_per_month", "q75_tokens_per_month",
                             "q95_tokens_per_month", "p_never", "p_never_lower",
                             "p_never_upper"],
    "claims.csv": ["claim", "quote", "part", "share_true", "ci_lower", "ci_upper",
                   "scenarios_true", "scenarios", "part_verdict", "substantive", "borderline",
                   "claim_verdict"],
    "assumptions.csv": ["input", "group", "family", "distribution", "q05", "q50", "q95", "unit",
                        "source", "is_assumption", "ST", "ST_conf", "S1", "S1_conf", "shapley",
                        "shapley_conf", "rank", "rank_best", "rank_worst",
                        "flag_weak_source_top5", "ranked_target",
                        "ranked_at_demand_tokens_per_month", "ranked_strategy", "ranked_by"],
    "sobol_indices.csv": ["input", "target", "demand_tokens_per_month", "heavy_users",
                          "strategy", "S1", "S1_conf", "ST", "ST_conf", "ranked"],
    "tornado.csv": ["input", "low_value", "high_value", "median_saving_low_usd_per_month",
                    "median_saving_high_usd_per_month", "swing_usd_per_month", "swing_lower",
                    "swing_upper", "median_saving_all_usd_per_month", "demand_tokens_per_month",
                    "strategy", "scenarios_per_end"],
    "cost_breakdown.csv": ["demand_tokens_per_month", "heavy_users",
                           *(f"buy_{c}_median_usd_per_month" for c in COMPONENTS),
                           "buy_total_q05_usd_per_month",
                           "buy_total_q50_usd_per_month", "buy_total_q95_usd_per_month",
                           "api_total_q05_usd_per_month", "api_total_q50_usd_per_month",
                           "api_total_q95_usd_per_month"],
    "cash_by_year.csv": ["book", "demand_tokens_per_month", "heavy_users", "strategy", "year",
                         *(f"q{q}_usd{end}" for q in ("10", "50", "90")
                           for end in ("", "_lower", "_upper"))],
    "cost_per_mtok.csv": ["book", "demand_tokens_per_month", "heavy_users", "strategy",
                          "scenarios",
                          *(f"q{q}_usd_per_mtok{end}" for q in ("10", "50", "90")
                            for end in ("", "_lower", "_upper"))],
}


def test_memo_writes_every_figure_table_and_both_formats(compared_memo):
    out, res, _, _ = compared_memo
    assert f"wrote {out / 'memo.md'}" in res.output
    md = (out / "memo.md").read_text()
    for name in FIGURES:
        png = out / "figures" / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert f"(figures/{name}.png)" in md
    for name in CSV_COLUMNS:
        assert (out / name).exists(), name
    assert not list(out.rglob("*.tmp"))
    for title in ("The answer", "The budget: cash by year and cost per million tokens",
                  "Saving and odds by demand", "Which assumptions matter",
                  "Appendix E. The article's claims", "The assumptions",
                  "Compared with another book", "Provenance"):
        assert f"## {title}" in md
    # the body is the decision; the article's claims come after the appendix's analyses
    assert md.index("## Appendix D.") < md.index("## Appendix E. The article's claims")


def test_html_is_self_contained_with_the_figures_embedded(compared_memo):
    out, _, _, _ = compared_memo
    page = (out / "memo.html").read_text()
    for name in FIGURES:
        data = base64.b64encode((out / "figures" / f"{name}.png").read_bytes()).decode()
        assert f"data:image/png;base64,{data}" in page, name
    assert "<style>" in page
    # nothing is fetched: no external images, scripts, stylesheets or fonts
    assert not re.search(r"""(src|href)=["'](https?:)?//""", page)
    assert "<script" not in page and "<link" not in page and "@import" not in page


def _rounded(text: str, value: float) -> bool:
    """``text`` is ``value`` by the body's rounding rules (mc_tco.report.memo.fmt.prob)."""
    from mc_tco.report.memo.fmt import prob

    return text == prob(value)


def test_first_paragraph_numbers_equal_the_dataset(compared_memo):
    out, _, ds, _ = compared_memo
    md = (out / "memo.md").read_text()
    first = md.split("## The answer\n\n", 1)[1].split("\n\n", 1)[0]
    n = ds.sizes["sample"]
    share = r"((?:below |above )?\d+%)"
    found = re.findall(r"beats the API in " + share
                       + r"(?: \(95% MC interval ([<>\d]+)-([<>\d]+)%\))?"
                       r" of scenarios(?: \((none|all) (?:of )?([\d,]+)\))?\.", first)
    assert len(found) == 5  # buy, rent, reserved, owned, hybrid, in that order
    for (p, lo, hi, k, total), s in zip(found, ("buy", "rent", "reserved", "owned", "hybrid"),
                                        strict=True):
        sel = {"target": "saving>0", "strategy": s, "demand": 5e11}
        want = float(ds.p_positive.sel(sel))
        want_lo, want_hi = ds.p_positive_ci.sel(sel).values
        assert _rounded(p, want), (s, p, want)
        if lo:  # the interval is shown only when its ends round differently
            assert lo.strip("<>") in _pct_digits(want_lo) and hi.strip("<>") in \
                _pct_digits(want_hi)
        # a count only for none or all (issue 24: no more digits than the MC error supports)
        wins = int((ds.saving.sel(demand=5e11, strategy=s) > 0).sum())
        assert k == ("none" if wins == 0 else "all" if wins == n else "")
        assert total == (f"{n:,}" if k else "")
    # the headline: the one rule, the largest expected NPV against the API (issue 24)
    from mc_tco.report.memo.answer import ACTION
    from mc_tco.report.memo.fmt import money
    from mc_tco.report.memo.one_page import MOSTLY_API

    npv = ds.npv.sel(demand=5e11)
    means = {s: float(npv.sel(strategy=s).mean()) for s in ("buy", "rent", "reserved",
                                                            "hybrid")}
    top = max(means, key=means.get)
    if means[top] > 0:
        # the hybrid that buys no server in most scenarios is worded as the API with a rule
        same = float((npv.sel(strategy=top) == 0).mean())
        action = MOSTLY_API if top == "hybrid" and same >= 0.5 else ACTION[top]
        assert first.startswith(f"**{action}.**") and money(means[top]) in first
    else:
        assert first.startswith("**Keep paying the API.**")
    # then the cheapest scenario by scenario, a tie counted as a tie (by hand)
    cost = ds.cost.sel(demand=5e11, strategy=["api", "buy", "rent", "reserved", "hybrid"]).values
    at_min = cost <= cost.min(axis=1, keepdims=True) * (1 + 1e-12)
    sets, counts = np.unique(at_min, axis=0, return_counts=True)
    m = re.search(r"Scenario by scenario, the cheapest is (.+?) of scenarios\.", first)
    assert m and m.group(1).count(" in ") == len(sets)
    assert _rounded(re.search(share, m.group(1)).group(1), counts.max() / n)


def _pct_digits(v: float) -> str:
    from mc_tco.report.memo.fmt import prob

    return prob(v).removeprefix("below ").removeprefix("above ").removesuffix("%") + \
        ("<1" if v < 0.01 else "") + (">99" if v > 0.99 else "")


def test_csv_tables_have_the_expected_columns(compared_memo):
    out, _, ds, other = compared_memo
    for name, columns in CSV_COLUMNS.items():
        df = pd.read_csv(out / name)
        assert list(df.columns) == columns, name
    p = pd.read_csv(out / "p_beats_api.csv")
    assert set(p.book) == {"deepseek-v4.1-flash", "article"}
    row = p[(p.book == "article") & (p.strategy == "owned") & (p.demand_tokens_per_month == 1e12)]
    assert row.p_beats_api.item() == pytest.approx(
        float(other.p_positive.sel(target="saving>0", strategy="owned", demand=1e12)))
    claims = pd.read_csv(out / "claims.csv")
    for _, group in claims.groupby("claim"):
        assert group.claim_verdict.iloc[0] == claim_verdict(list(group.part_verdict),
                                                            list(group.substantive))
        for share, verdict in zip(group.share_true, group.part_verdict, strict=True):
            assert verdict == part_verdict(share)
    a = pd.read_csv(out / "assumptions.csv")
    assert len(a) == ds.sizes["input"] + len(json.loads(ds.attrs["constants"]))
    assert a["rank"].notna().sum() == ds.sizes["input"]


def test_compare_section_states_the_books_difference(compared_memo):
    out = compared_memo[0]
    md = (out / "memo.md").read_text()
    section = md.split("## Compared with another book", 1)[1].split("## Provenance")[0]
    assert "The article's ranges" in section
    # the inputs the default book adds are named in plain words (issue 15), e.g.
    # api_price_level
    assert "API price level (× today's list price)" in section.split("\n\n", 2)[1]
    assert "figures/compare.png" in section
    assert "mc-tco memo" in md.split("## Provenance")[1]
    # the article's book: the hybrid's saving at 500B is 0 in every one of these scenarios
    # (6 of 8,192 in the committed memo's run, where its ST read 1.083 ± nan): not ranked,
    # and said why, instead of noise shown as a ranking
    _, _, a, b = compared_memo
    r = ranking(b, 5e11, "hybrid")
    varied = int(np.count_nonzero(b["saving"].sel(demand=5e11, strategy="hybrid").values))
    assert not r.ranked and r.unranked_varied == varied
    assert ranking(a, 5e11, "hybrid").ranked
    assert "| not ranked (below) |" in section and "± nan" not in md
    assert (f"The article's ranges: not ranked, the monthly saving of the hybrid is not 0 in "
            f"only {varied:,} of {b.sizes['sample']:,} scenarios at 500B") in section


@pytest.mark.slow
def test_memo_without_compare_replaces_an_older_memo(compared_memo, tmp_path, default_run,
                                                     no_png):
    from mc_tco.report.memo import build_memo, write_memo

    out = tmp_path / "memo"
    shutil.copytree(compared_memo[0], out)
    memo = build_memo(default_run, demand=1e12)
    assert "Compared with another book" not in memo.sections
    write_memo(memo, out)
    assert not (out / "figures" / "compare.png").exists()  # stale figure removed
    assert set(pd.read_csv(out / "p_beats_api.csv").book) == {"deepseek-v4.1-flash"}
    assert "At 1T tokens/month" in (out / "memo.md").read_text()


def test_a_failed_write_leaves_the_previous_memo(compared_memo, tmp_path, monkeypatch,
                                                 default_run):
    from pathlib import Path

    from mc_tco.report.memo import Memo, write_memo

    out = tmp_path / "memo"
    shutil.copytree(compared_memo[0], out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    memo = Memo("new md", "new html", {"fan_chart": b"new png"}, {"claims.csv": "x\n1\n"})
    calls = {"n": 0}
    real = Path.write_bytes

    def flaky(self, data):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device")
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", flaky)
    with pytest.raises(OSError):
        write_memo(memo, out)
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before  # nothing replaced, no temporary file left


# ----------------------------------------------------------------------------- errors


@pytest.mark.parametrize("case", ["missing", "not_netcdf", "not_tco", "past_grid",
                                  "out_is_file"])
def test_bad_input_is_one_line_exit_2_nothing_written(case, tmp_path, result_files):
    a = result_files["default"]
    out = tmp_path / "memo_out"
    args = ["memo", str(a), "--out-dir", str(out)]
    fragment = ""
    if case == "missing":
        args[1], fragment = str(tmp_path / "nope.nc"), "no such results file"
    elif case == "not_netcdf":
        bad = tmp_path / "bad.nc"
        bad.write_text("not a netCDF file")
        args[1], fragment = str(bad), "not a readable netCDF results file"
    elif case == "not_tco":
        other = tmp_path / "other.nc"
        ds = xr.Dataset({"margin": ("sample", np.arange(4.0))}, attrs={"book_sha256": "x"})
        write_results(ds, other)
        args[1], fragment = str(other), "not a results file of 'mc-tco run'"
    elif case == "past_grid":  # any demand inside the grid's range is taken (issue 24)
        args += ["--demand", "20T"]
        fragment = "--demand 2e+13 is outside the grid"
    else:
        out.write_text("a file")
        fragment = "is a file"
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2, res.output
    assert fragment in res.output
    assert "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    if case != "out_is_file":
        assert not out.exists()


@pytest.mark.slow
def test_report_runs_both_books_and_writes_the_compared_memo(tmp_path, monkeypatch, no_png):
    (tmp_path / "distributions").mkdir()
    for book in (DEFAULT_BOOK, ARTICLE_BOOK):
        shutil.copy(book, tmp_path / "distributions")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["report", "--samples", "256", "--seed", "2"])
    assert res.exit_code == 0, res.output
    assert "[1/3] ran distributions/deepseek-v4.1-flash.toml" in res.output
    assert "[2/3] ran distributions/article.toml" in res.output
    assert "[3/3] wrote results/deepseek-v4.1-flash/memo.md" in res.output
    for f in ("results/deepseek-v4.1-flash.nc", "results/article.nc",
              "results/deepseek-v4.1-flash/memo.html",
              "results/deepseek-v4.1-flash/figures/compare.png"):
        assert (tmp_path / f).exists(), f
    md = (tmp_path / "results/deepseek-v4.1-flash/memo.md").read_text()
    assert "`mc-tco report --samples 256 --seed 2`" in md
    ds = open_results(tmp_path / "results/article.nc")
    assert ds.attrs["samples"] == 256 and ds.attrs["seed"] == 2
    # issue 10: every product of the report (the family check too) is in run_options, so
    # the file reruns to the same numbers
    assert ds.mc_tco.options["family_check"] is True
    again = CliRunner().invoke(main, ["rerun", "results/article.nc"])
    assert again.exit_code == 0, again.output
    assert "every variable matches exactly" in again.output


# ----------------------------------------------------------------------------- claims' rules


def _claims_dataset(n=100, rent_be=np.inf, buy_be=np.inf, ratio_users=0.05, ratio_scale=0.05,
                    api_hour=30.0, rent_hour=56.8, reserved_be=np.inf):
    """A results-like Dataset holding only what the claims read, with set values."""
    demand = np.array([1e9, 3e10, 5e11, 1e13])

    def per_demand(at_users, at_scale):
        v = np.empty((n, demand.size))
        v[:, :2] = np.asarray(at_users).reshape(-1, 1) if np.ndim(at_users) else at_users
        v[:, 2:] = np.asarray(at_scale).reshape(-1, 1) if np.ndim(at_scale) else at_scale
        return (("sample", "demand"), v)

    be = np.full((n, 5), np.nan)
    be[:, 1] = buy_be
    be[:, 2] = rent_be
    be[:, 3] = reserved_be
    be[:, 4] = 1e12
    ratio = per_demand(ratio_users, ratio_scale)
    return xr.Dataset(
        {
            "breakeven_demand": (("sample", "strategy"), be),
            "storage_to_gpu_ratio": ratio,
            "gpu_share": (ratio[0], 1 / (1 + ratio[1])),
            "storage_tb": per_demand(10.0, 100.0),
            "node_api_revenue_per_hour": ("sample", np.full(n, api_hour)),
            "rent_per_node_hour": ("sample", np.full(n, rent_hour)),
        },
        coords={"demand": demand, "strategy": ["api", "buy", "rent", "reserved", "owned"]},
        attrs={"conf_level": 0.95},
    )


def _verdicts(ds):
    return {c.number: c.verdict for c in evaluate_claims(ds)}


def test_claim_1_renting_never_breaks_even():
    assert _verdicts(_claims_dataset(rent_be=np.inf))[1] == HOLDS
    half = np.where(np.arange(100) < 50, 2e12, np.inf)
    assert _verdicts(_claims_dataset(rent_be=half))[1] == HOLDS_IN_PART
    assert _verdicts(_claims_dataset(rent_be=2e12))[1] == DOES_NOT_HOLD
    # version 3: P(reserved breaks even) is a part too, but the claim's substance is the
    # article's on-demand rent: reserving that pays turns "holds" into "holds only in part"
    # and cannot rescue a claim whose on-demand part fails
    assert _verdicts(_claims_dataset(reserved_be=2e12))[1] == HOLDS_IN_PART
    assert _verdicts(_claims_dataset(rent_be=2e12, reserved_be=np.inf))[1] == DOES_NOT_HOLD
    claim = evaluate_claims(_claims_dataset(reserved_be=half))[0]
    assert [p.p for p in claim.parts] == [1.0, 0.5]
    assert [p.substantive for p in claim.parts] == [True, False]


@pytest.mark.parametrize(("buy_be", "verdict"), [
    (4e11, HOLDS),            # not below 300B, and by 500B: the article's band
    (1e11, HOLDS_IN_PART),    # breaks even, but already below 300B
    # never below 300B, but never by 500B either: the substance fails (issue 15)
    (np.inf, DOES_NOT_HOLD),
])
def test_claim_2_breakeven_band(buy_be, verdict):
    assert _verdicts(_claims_dataset(buy_be=buy_be))[2] == verdict


@pytest.mark.parametrize(("users", "scale", "verdict"), [
    (0.05, 0.05, HOLDS), (0.5, 0.5, DOES_NOT_HOLD), (0.05, 0.5, HOLDS_IN_PART),
])
def test_claims_3_and_4_storage_share_at_both_scales(users, scale, verdict):
    v = _verdicts(_claims_dataset(ratio_users=users, ratio_scale=scale))
    assert v[4] == verdict
    assert v[3] == verdict  # gpu share > 90% <=> ratio < 1/9: the same split here


def test_claim_5_api_bill_against_rent():
    assert _verdicts(_claims_dataset(api_hour=30.0))[5] == HOLDS
    # under 100 USD/h but above the rent: the claim's substance (API below rent) fails
    assert _verdicts(_claims_dataset(api_hour=80.0, rent_hour=56.8))[5] == DOES_NOT_HOLD
    half = np.where(np.arange(100) < 50, 30.0, 80.0)
    assert _verdicts(_claims_dataset(api_hour=half))[5] == HOLDS_IN_PART
    assert _verdicts(_claims_dataset(api_hour=150.0))[5] == DOES_NOT_HOLD


def test_part_verdict_thresholds_and_borderline():
    assert part_verdict(0.9) == HOLDS and part_verdict(0.8999) == HOLDS_IN_PART
    assert part_verdict(0.1) == DOES_NOT_HOLD and part_verdict(0.1001) == HOLDS_IN_PART
    assert claim_verdict([HOLDS, DOES_NOT_HOLD]) == HOLDS_IN_PART
    # a claim whose substantive part fails does not hold, whatever its other parts say
    assert claim_verdict([HOLDS, DOES_NOT_HOLD], [False, True]) == DOES_NOT_HOLD
    assert claim_verdict([HOLDS_IN_PART, HOLDS], [False, True]) == HOLDS_IN_PART
    # 45 of 50 scenarios: 90% exactly, but its interval crosses 90%: borderline
    few = np.where(np.arange(50) < 45, 2e12, np.inf)
    claim = evaluate_claims(_claims_dataset(n=50, rent_be=few))[0]
    assert claim.parts[0].p == pytest.approx(0.1) and claim.parts[0].borderline


# ----------------------------------------------------------------------------- analysis


def test_rank_intervals_overlap_means_tied():
    rank, best, worst = rank_intervals(np.array([0.5, 0.45, 0.1, np.nan]),
                                         np.array([0.1, 0.1, 0.01, np.nan]))
    assert list(rank) == [1, 2, 3, 4]
    assert list(best[:3]) == [1, 1, 3] and list(worst[:3]) == [2, 2, 3]


def _linear_dataset(n=4000, seed=0):
    """saving = 1000 * x0 (x0 ~ U(0, 1)); x1 irrelevant."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, 2))
    saving = np.zeros((n, 1, 4))
    saving[:, 0, 1] = 1000 * x[:, 0]
    return xr.Dataset(
        {"saving": (("sample", "demand", "strategy"), saving),
         "input_value": (("sample", "input"), x)},
        coords={"demand": [5e11], "strategy": ["api", "buy", "rent", "owned"],
                "input": ["x0", "x1"]},
    )


def test_tornado_recovers_a_known_swing():
    t = tornado(_linear_dataset(), 5e11, resamples=200)
    assert list(t.input.values) == ["x0", "x1"]
    # lowest 10% of x0 has median ~0.05, highest ~0.95: swing ~ 900 USD/month
    assert t.swing.sel(input="x0") == pytest.approx(900, abs=15)
    lo, hi = t.swing_ci.sel(input="x0").values
    assert lo < 900 < hi
    lo, hi = t.swing_ci.sel(input="x1").values
    assert lo < 0 < hi  # the irrelevant input's swing is zero within its interval
    assert t.low_value.sel(input="x0") == pytest.approx(0.05, abs=0.01)


def test_ranking_uses_the_saving_when_the_indicator_is_rare(default_run, article_run):
    ds = default_run  # version 2: buying wins rarely at 100B (about 0.1% of scenarios)
    wins, n = indicator_counts(ds, 1e11)
    r = ranking(ds, 1e11)
    assert wins < MIN_EVENTS and r.target == "saving" and r.indicator_rare
    d = float(indexed_demands(article_run)[-1])  # the largest demand with Sobol' indices
    wins, n = indicator_counts(article_run, d)
    assert min(wins, n - wins) >= MIN_EVENTS
    assert ranking(article_run, d).target == "saving>0"


def test_breakeven_cdf_counts_and_caps_at_never(default_run):
    x = np.array([1e11, 1e12, 1e20])
    cdf = breakeven_cdf(default_run, x)
    be = default_run.breakeven_demand.sel(strategy="owned").values
    np.testing.assert_allclose(cdf.cdf.sel(strategy="owned").values,
                               [(be <= v).mean() for v in x])
    never = float(default_run.breakeven_demand_p_never.sel(strategy="owned"))
    assert float(cdf.cdf.sel(strategy="owned")[-1]) == pytest.approx(1 - never)


def test_grid_point_is_exact_or_an_error(default_run):
    assert grid_point(default_run, 5e11) == 5e11
    with pytest.raises(OptionError, match=r"the nearest are .*include"):
        grid_point(default_run, 4.5e11)


# ----------------------------------------------------------------------------- render


def test_render_escapes_and_marks_up_the_same_text():
    doc = Document("T <1>", "sub", [Section("S", [
        Paragraph("a **bold** `x<y` <script>"),
        Table(["h|1", "h2"], [["a|b", ["l1", "l2"]]], "lr"),
        Figure("f", b"\x89PNG", "Title", "Caption."),
    ])])
    md, page = to_markdown(doc), to_html(doc)
    assert "a **bold** `x<y` <script>" in md and "a\\|b" in md and "l1<br>l2" in md
    assert "![Title](figures/f.png)" in md and "**Figure 1. Title.**" in md
    assert "<strong>bold</strong>" in page and "<code>x&lt;y</code>" in page
    assert "&lt;script&gt;" in page and "<script>" not in page
    assert base64.b64encode(b"\x89PNG").decode() in page


# ----------------------------------------------------------------------- summary (issue 15)


def _med(da):
    v = np.asarray(da.values, dtype=float)
    v = v[~np.isnan(v)]
    return float(np.quantile(v, 0.5, method="inverted_cdf"))


def _q(da, scale=1.0):
    """P10, P50, P90 of the scenarios (inverted_cdf: each one scenario's own value)."""
    v = np.asarray(da.values, dtype=float).ravel()
    v = v[~np.isnan(v)]
    return [scale * float(x) for x in np.quantile(v, [0.1, 0.5, 0.9], method="inverted_cdf")]


def _band(values, show):
    lo, mid, hi = (show(x) for x in values)
    return mid if lo == mid == hi else f"{mid} ({lo} to {hi})"


def test_summary_is_first_and_every_number_traces_to_the_dataset(compared_memo):
    """Issue 24 points 2, 4 and 8: P10 / P50 / P90 in every money row, nominal and
    discounted labelled, simple payback beside the discounted one, "no server" where the
    hybrid buys none; the budget by year and the decision request from cash_by_year."""
    from mc_tco.report.memo.fmt import money, months, prob, prob_ci

    out, _, ds, _ = compared_memo
    page = (out / "summary.md").read_text()
    assert "<table" in (out / "summary.html").read_text()
    md = (out / "memo.md").read_text()
    assert md.split("\n## ", 1)[1].startswith("Summary\n")
    assert page.split("\n## ", 1)[1].split("\n## ")[0] in md  # the same section
    pts = [2.5e11, 5e11, 1e12]  # on the grid (the claims' and report points)
    cost = lambda s, d: _q(ds.cost.sel(demand=d, strategy=s), 12)  # noqa: E731
    p = lambda s, d: float(ds.p_positive.sel(target="saving>0", strategy=s, demand=d))  # noqa
    want = {"API bill a year (level, discounted)":
                [_band(cost("api", d), money) for d in pts],
            "servers, network and SSDs bought over 4 years (buy; nominal)":
                [_band(_q(ds.investment.sel(demand=d)), money) for d in pts]}
    for s in ("buy", "rent", "reserved", "hybrid"):
        want[f"cost a year (level, discounted): {s}"] = [_band(cost(s, d), money) for d in pts]
        # with the stored interval where it changes the rounded figure
        want[f"chance of beating the API: {s}"] = [
            prob_ci(p(s, d), *ds.p_positive_ci.sel(target="saving>0", strategy=s,
                                                   demand=d).values, short=True)
            for d in pts]
    for s in ("buy", "hybrid"):
        sel = {"strategy": s}
        pay = (lambda x: "no server" if x == 0 else months(x)) if s == "hybrid" else months
        want[f"peak funding need (nominal cash): {s}"] = [
            _band(_q(ds.peak_cash_need_nominal.sel(sel).sel(demand=d)), money) for d in pts]
        want[f"4-year NPV against the API (discounted): {s}"] = [
            _band(_q(ds.npv.sel(sel).sel(demand=d)), money) for d in pts]
        want[f"payback (discounted): {s}"] = [
            _band(_q(ds.payback_months.sel(sel).sel(demand=d)), pay) for d in pts]
        want[f"simple payback (nominal): {s}"] = [
            _band(_q(ds.simple_payback_months.sel(sel).sel(demand=d)), pay) for d in pts]
    reps = ds.mc_tco.run.replicates

    def expected(s, d):  # the mean ± the scrambles' t half-width, by hand (scipy's t)
        x = ds.npv.sel(demand=d, strategy=s).values
        m_r = np.array([x[ds.sample.values % reps == r].mean() for r in range(reps)])
        half = stats.t.ppf(0.975, reps - 1) * m_r.std(ddof=1) / np.sqrt(reps)
        return f"{money(x.mean())} ± {money(half)}"

    for s in ("buy", "rent", "reserved", "hybrid"):
        want[f"expected 4-year NPV against the API (mean; the decision rule): {s}"] = [
            expected(s, d) for d in pts]
    def none_share(d):  # the share and its scrambles' t interval, by hand (scipy's t)
        x = (ds.hybrid_nodes.sel(demand=d) == 0).values.astype(float)
        m_r = np.array([x[ds.sample.values % reps == r].mean() for r in range(reps)])
        half = stats.t.ppf(0.975, reps - 1) * m_r.std(ddof=1) / np.sqrt(reps)
        return prob_ci(x.mean(), x.mean() - half, x.mean() + half, short=True)

    want["share of scenarios where it never buys a server: hybrid"] = [
        none_share(d) for d in pts]
    rows = {}
    for line in page.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and cells[0] in want:
            rows[cells[0]] = cells[1:]
    assert rows == want
    # the budget by year at 500B (a report demand): P50 (P10 to P90) of cash_by_year
    cash = ds.cash_by_year.sel(cash_demand=5e11)
    budget = {}
    for line in page.split("| nominal cash, P50 (P10 to P90) |", 1)[1].splitlines()[2:]:
        if not line.startswith("| "):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        budget[cells[0]] = cells[1:]
    names = {"api": "the API", "buy": "buy the servers", "rent": "rent GPUs on demand",
             "reserved": "reserve GPUs (12-month terms)", "hybrid": "hybrid"}
    # the one rule, by hand: the largest expected NPV against the API (the API's is 0)
    mean = {s: float(ds.npv.sel(demand=5e11, strategy=s).mean())
            for s in ("buy", "rent", "reserved", "hybrid")}
    best = max(mean, key=mean.get)
    choice = best if mean[best] > 0 else "api"
    assert next(iter(budget)) == names[choice] + " (recommended)"
    for s, name in names.items():
        label = name + (" (recommended)" if s == choice else "")
        by_year = [_band(_q(cash.sel(strategy=s, year=y)), money) for y in cash.year.values]
        assert budget[label] == [*by_year, _band(_q(cash.sel(strategy=s).sum("year")), money)]
    request = page.split("**Decision requested: ", 1)[1].split("**")[0]
    year1 = _q(cash.sel(strategy=choice, year=1))
    assert f"budget {money(year1[1])} in year 1 (P90 {money(year1[2])})" in request
    side = best if choice == "api" else choice
    npv = _q(ds.npv.sel(demand=5e11, strategy=side))
    assert f"NPV against the API {money(npv[0])} to {money(npv[2])} (P10 to P90)" in request
    loses = float((ds.npv.sel(demand=5e11, strategy=side) < 0).mean())
    assert (f"{money(mean[side])} expected; it costs more than the API in {prob(loses)} of "
            "the scenarios") in request
    gap = _q((cash.sel(strategy=best if choice == "api" else "api")
              - cash.sel(strategy=choice)).sum("year"))
    tail = ("more, P10 to P90; negative: less" if choice == "api" else "saved, P10 to P90")
    assert f"({money(gap[0])} to {money(gap[2])} {tail}" in request
    # the head: the rule's option, its expected NPV, how often it saves, ties and loses
    head = page.split("**Recommendation: ", 1)[1].split("\n")[0]
    o = ds.npv.sel(demand=5e11, strategy=side).values
    assert f"{money(mean[side])} (Monte Carlo interval" in head

    def said(share: float, before: str, after: str = "") -> None:
        """The share said as prob gives it, with an MC interval that holds it when there
        is one ("33% (95% MC interval 32-34%)")."""
        found = re.search(re.escape(before) + r" (\S+%)(?: \(95% MC interval (\d+)-(\d+)%"
                          r"[;)])?" + re.escape(after), head)
        assert found, (before, head)
        assert found.group(1) == prob(share)
        if found.group(2):
            assert int(found.group(2)) <= round(100 * share) <= int(found.group(3))

    said(float((o > 0).mean()), "saves money in", " of the scenarios")
    said(float((o < 0).mean()), "costs more in")
    if choice == "api":
        assert head.startswith("Keep paying the API**")
    else:
        assert not head.startswith("Keep paying the API**")
    if side == "hybrid" and (o == 0).any():
        said(float((o == 0).mean()), "spends exactly what the API does in")
    # what sovereignty would have to be worth: -saving a year of the option with the largest
    # expected NPV among those that keep every token in house (version 3: not the hybrid,
    # whose peaks go to the API)
    house = max(("buy", "rent", "reserved"), key=mean.get)
    need = np.maximum(-12 * ds.saving.sel(demand=5e11, strategy=house).values, 0)
    sov = page.split("**What data sovereignty would have to be worth**", 1)[1]
    assert f"at least {money(np.quantile(need, 0.5, method='inverted_cdf'))} a year" in sov
    assert ("cannot keep the data in house" in sov) == (best == "hybrid")
    pays = float((ds.saving.sel(demand=5e11, strategy=house) > 0).mean())
    assert f"in {prob(pays)} of scenarios it pays" in sov
    # the reason is the one derived from the cost components and tested by its
    # counterfactuals (mc_tco.decision.reason), the words of the section "Why, what to watch"
    from mc_tco.decision.why import why_numbers
    from mc_tco.report.words.why import reason_text, trigger_lines

    reason = page.split("**Why:**", 1)[1].split("\n")[0]
    why = why_numbers(ds, 5e11)
    assert reason.strip() == reason_text(why).strip()
    assert all(line in page for line in trigger_lines(why))


def test_summary_says_your_demand_and_never_plainly(compared_memo):
    out = compared_memo[0]
    page = (out / "summary.md").read_text()
    assert "your demand of 500B tokens/month" in page and "--demand" in page
    # the first screen: the demand is the book's assumption, and the command that replaces
    # it names the results file (issue 24, point 1)
    first = page.split("**Recommendation", 1)[0]
    assert "**Your demand is an assumption: replace it.**" in first
    assert re.search(r"`mc-tco memo \S+deepseek-v4\.1-flash\.nc --demand 800B`", first)
    assert "What would change this" in page and "Risks the model does not price" in page
    for word in ("Sobol", "EVPI", "PRIM", "RQMC", "Wilson", "valley_price_factor"):
        assert word not in page, word


def test_no_paragraph_appears_twice(compared_memo):
    md = (compared_memo[0] / "memo.md").read_text()
    paragraphs = [p for p in md.split("\n\n") if len(p) > 80 and not p.startswith(("|", "!"))]
    dup = {p for p in paragraphs if paragraphs.count(p) > 1}
    assert not dup, dup


def test_evpi_caption_matches_the_curve():
    from mc_tco.report.memo.sections import evpi_peak_words

    d = np.array([1e9, 1e10, 1e11, 1e12])
    rising = xr.DataArray([0.0, 1.0, 5.0, 9.0], coords={"demand": d}, dims="demand")
    inside = xr.DataArray([0.0, 7.0, 5.0, 1.0], coords={"demand": d}, dims="demand")
    assert "end of the grid, 1T" in evpi_peak_words(rising)
    assert "peaks at 10B" in evpi_peak_words(inside)
    assert "peaks" not in evpi_peak_words(rising)


def test_heavy_user_mapping_is_the_articles_with_the_correction(compared_memo):
    from mc_tco.report.memo.evidence import heavy_user_note

    note = heavy_user_note()
    assert "2,000-4,000 heavy users" in note and "3,000-5,000 users" in note
    assert note in (compared_memo[0] / "memo.md").read_text()


def test_nonmonotone_saving_is_explained_where_it_shows():
    from mc_tco.report.memo.answer import nonmonotone_note

    n = 4
    ds = xr.Dataset(
        {"breakeven_demand": (("sample", "strategy"), np.array([[1e11], [np.inf], [4e11],
                                                                [6e11]])),
         "saving": (("sample", "demand", "strategy"),
                    np.array([-1.0, -1.0, 2.0, -3.0]).reshape(n, 1, 1))},
        coords={"strategy": ["buy"], "demand": [5e11]})
    note = nonmonotone_note(ds, 5e11, "buy")
    assert "In 1 of 4 scenarios" in note and "nodes come whole" in note
    ds["saving"][:] = 1.0
    ds["saving"][1] = -1.0
    assert nonmonotone_note(ds, 5e11, "buy") == ""


def test_time_section_numbers(compared_memo):
    from mc_tco.decision.timeaxis import time_numbers

    out, _, ds, _ = compared_memo
    md = (out / "memo.md").read_text()
    section = md.split("## When does it pay back?", 1)[1].split("\n## ")[0]
    for name in ("cash_position", "payback"):
        assert f"figures/{name}.png" in section
    t = time_numbers(ds, 5e11, "hybrid")
    never = float(np.isinf(ds.payback_months.sel(demand=5e11, strategy="hybrid")).mean())
    assert t.never.value == pytest.approx(never)
    assert t.never.lower <= never <= t.never.upper
    pay = ds.payback_months.sel(demand=5e11, strategy="hybrid").values
    assert t.payback.value == np.quantile(pay, 0.5, method="inverted_cdf")
    # the prose and the table say the hybrid's numbers where it buys a server, after the
    # share that buys none (a median over every scenario read "pays back in 0 months")
    import pandas as pd

    held = time_numbers(ds, 5e11, "hybrid", where_held=True)
    assert 0 < held.held.value < 1 and "pays back in 0 months" not in section
    assert "the hybrid buys no server: it is the API itself" in section
    assert "of scenarios where it buys a server)" in section  # the table's row
    csv = pd.read_csv(out / "time.csv")
    row = csv[(csv.strategy == "hybrid") & (csv.scenarios == "where it buys a server")
              & np.isclose(csv.demand_tokens_per_month, 5e11)]
    assert len(row) == 1 and float(row.p_buys_server.iloc[0]) == pytest.approx(held.held.value)
    assert float(row.payback_months_median.iloc[0]) == held.payback.value


def test_conf_level_is_the_level_in_the_words(no_png):
    """Issue 11 item 5: with --conf-level 0.8 no caption says '95% Monte Carlo'."""
    from mc_tco.book import load_book
    from mc_tco.engine import run
    from mc_tco.report.memo import build_memo

    ds = run(load_book(ARTICLE_BOOK), samples=256, conf_level=0.8)
    md = build_memo(ds).markdown
    assert "95% Monte Carlo" not in md and "ST ± 95%" not in md
    assert "80% Monte Carlo interval" in md


def test_the_assumption_table_ranks_by_the_runs_index(compared_memo):
    """With the default book's correlations the assumption table is ordered and labelled by
    the Shapley effects (the file's ranking_index), the values those of the ranking the
    memo names, not ST's in Shapley order (issue 25, item 11)."""
    import pandas as pd

    from mc_tco.decision.indices import ranking

    out, _, ds, _ = compared_memo
    assert ds.mc_tco.ranking_index == "shapley"
    md = (out / "memo.md").read_text()
    table = md.split("## The assumptions", 1)[1].split("\n## ", 1)[0]
    assert "| Shapley rank |" in table and "ST rank" not in table
    csv = pd.read_csv(out / "assumptions.csv")
    assert set(csv["ranked_by"]) == {"shapley"}
    top = csv.dropna(subset=["rank"]).iloc[0]
    r = ranking(ds, float(top["ranked_at_demand_tokens_per_month"]),
                str(top["ranked_strategy"]))
    assert r.index == "shapley" and str(r.table["input"].values[0]) == top["input"]
    first = float(r.table["shapley"].values[0])
    assert top["shapley"] == pytest.approx(first, rel=1e-5)  # (the CSV keeps 6 digits)
    assert f"1 ({first:.3f} ± " in table


def test_the_drivers_numbers_carry_their_errors(compared_memo):
    """"Which assumptions matter": the largest swing a year with its bootstrap interval
    (the caption's, times 12), and the EVPI a year with the Monte Carlo error Appendix C
    gives it (the scrambles' half-width, times 12); both were bare."""
    from mc_tco.decision.information import evpi_by_demand, evpi_half_width, file_replicates
    from mc_tco.report.memo.fmt import money

    out, _, ds, _ = compared_memo
    md = (out / "memo.md").read_text()
    section = md.split("\n## Which assumptions matter\n", 1)[1].split("\n## ", 1)[0]
    swing = re.search(r"by (\$[\d.,]+k?) a year \(95% bootstrap interval (\$[\d.,]+k?) to "
                      r"(\$[\d.,]+k?) a year\)", section)
    caption = re.search(r"\(95% bootstrap interval (-?\$[\d.,]+k?) to (-?\$[\d.,]+k?)\)\.",
                        section)
    if swing is None:  # an interval across 0 is said as the change's
        assert "bootstrap interval of the change" in section
    else:
        assert caption is not None

        def usd(text):
            v = float(text.replace("$", "").replace(",", "").removesuffix("k"))
            return v * (1e3 if text.endswith("k") else 1)

        lo, hi = sorted(abs(12 * usd(c)) for c in caption.groups())
        assert usd(swing.group(2)) == pytest.approx(lo, rel=0.02)
        assert usd(swing.group(3)) == pytest.approx(hi, rel=0.02)
    curve = evpi_by_demand(ds, replicates=file_replicates(ds))
    d = 5e11
    half = float(evpi_half_width(curve).sel(demand=d))
    assert f"(± {money(12 * half, digits=2)}, 95% Monte Carlo error)" in section
