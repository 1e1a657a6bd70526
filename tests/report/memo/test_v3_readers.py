"""The readers of cost model version 3: the memo's budget section (cash by year and cost per
million tokens traced to the results file by numpy, their CSV files), reserved named and
coloured wherever the other strategies are, the time section's IRR and the risks a book prices."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from mc_tco.models.tco import COMPONENTS, STRATEGIES
from mc_tco.report.fmt import money
from tests.paths import ROOT


def _q(v, q):
    v = np.asarray(v, dtype=float)
    return float(np.quantile(v[~np.isnan(v)], q, method="inverted_cdf"))


def _table(section: str, first_header: str) -> dict[str, list[str]]:
    """The rows of the Markdown table whose header starts with ``first_header``."""
    lines = section.split(f"| {first_header} |", 1)[1].split("\n\n", 1)[0].splitlines()
    rows = {}
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return rows


@pytest.fixture(scope="module")
def section(compared_memo):
    md = (compared_memo[0] / "memo.md").read_text()
    return md.split("## The budget: cash by year and cost per million tokens", 1)[1] \
        .split("\n## ", 1)[0]


NAMES = {"api": "the API (today's budget line)", "buy": "buy the servers",
         "rent": "rent GPUs on demand", "reserved": "reserve GPUs (12-month terms)",
         "owned": "GPUs already owned", "hybrid": "hybrid (servers that pay, peaks to the API)"}


def test_the_cash_table_is_each_years_quantiles_of_the_nominal_cash(compared_memo, section):
    ds = compared_memo[2]
    rows = _table(section, "option")
    assert list(rows) == [NAMES[s] for s in STRATEGIES]  # the API first, reserved included
    cash = ds["cash_by_year"].sel(cash_demand=5e11)
    for s in STRATEGIES:
        cells = rows[NAMES[s]]
        years = [cash.sel(strategy=s, year=y).values for y in (1, 2, 3, 4)]
        years.append(cash.sel(strategy=s).sum("year").values)  # each scenario's total
        assert len(cells) == 5
        for cell, v in zip(cells, years, strict=True):
            lo, mid, hi = (money(_q(v, q)) for q in (0.1, 0.5, 0.9))
            # P10 - P90 below the median, unless both round to it
            assert cell == (mid if lo == mid == hi else f"{mid}<br>{lo} – {hi}"), (s, cell)


def test_the_cash_tables_monte_carlo_sentence_reads_the_csv(compared_memo, section):
    out = compared_memo[0]
    df = pd.read_csv(out / "cash_by_year.csv", dtype={"year": str})
    mine = df[(df.book == "deepseek-v4.1-flash") & (df.demand_tokens_per_month == 5e11)]
    med = mine[mine.q50_usd != 0]
    rel = np.maximum(med.q50_usd_upper - med.q50_usd, med.q50_usd - med.q50_usd_lower) \
        / med.q50_usd.abs()
    assert f"each median is within ±{rel.max():.0%} of it" in section
    assert set(df.book) == {"deepseek-v4.1-flash", "article"}
    assert set(df.year) == {"1", "2", "3", "4", "1-4"}
    assert set(df.strategy) == set(STRATEGIES)
    # every interval holds its estimate
    for q in ("q10", "q50", "q90"):
        assert (df[f"{q}_usd_lower"] <= df[f"{q}_usd"] + 1e-9).all()
        assert (df[f"{q}_usd"] <= df[f"{q}_usd_upper"] + 1e-9).all()


def test_cost_per_mtok_is_each_options_median_with_its_interval(compared_memo, section):
    out, _, ds, _ = compared_memo
    second = section.split("| option | median", 1)[1]
    rows = _table("| option | median" + second, "option")
    assert list(rows) == ["the API"] + [NAMES[s] for s in STRATEGIES[1:]]
    df = pd.read_csv(out / "cost_per_mtok.csv")
    at = df[(df.book == "deepseek-v4.1-flash") & (df.demand_tokens_per_month == 5e11)]
    for s in STRATEGIES:
        v = ds["cost_per_mtok"].sel(demand=5e11, strategy=s).values
        row = at[at.strategy == s].iloc[0]
        assert row.q50_usd_per_mtok == pytest.approx(_q(v, 0.5), rel=1e-5)
        name = "the API" if s == "api" else NAMES[s]
        med, p10, p90 = rows[name]
        assert med == (f"{money(_q(v, 0.5), digits=3)} "
                       f"({money(row.q50_usd_per_mtok_lower, digits=3)}–"
                       f"{money(row.q50_usd_per_mtok_upper, digits=3)})")
        assert (p10, p90) == (money(_q(v, 0.1), digits=3), money(_q(v, 0.9), digits=3))


def test_every_strategy_and_component_is_named_and_coloured():
    from mc_tco.report.memo import figures as F
    from mc_tco.report.memo.answer import ACTION
    from mc_tco.report.memo.context import STRATEGY_TEXT, VERB
    from mc_tco.report.memo.one_page import NAMES as PAGE_NAMES
    from mc_tco.report.memo.one_page import RECOMMEND
    from mc_tco.report.memo.sections_budget import OPTION_NAMES

    for table in (F.COLORS, F.SHORT, F.LABELS, VERB, OPTION_NAMES):
        assert set(STRATEGIES) <= set(table), table
    others = [s for s in STRATEGIES if s != "api"]
    assert set(others) <= set(STRATEGY_TEXT)
    assert set(F.STRATEGIES) == set(others)
    for table in (ACTION, PAGE_NAMES, RECOMMEND):  # the options a company can choose
        assert {"api", "buy", "rent", "reserved", "hybrid"} <= set(table)
    assert len(set(F.COLORS.values())) == len(F.COLORS)  # reserved apart from rent
    assert set(F.COMPONENT_COLORS) == set(COMPONENTS)
    # the explorer draws each strategy in the memo's colour
    js = (ROOT / "mc_tco" / "app" / "static" / "app.js").read_text()
    colors = dict(re.findall(r'(\w+): "(#[0-9a-f]{6})"',
                             js.split("const COLORS = {", 1)[1].split("}", 1)[0]))
    assert colors == {s: F.COLORS[s] for s in others}


def test_a_strategy_that_buys_no_servers_has_no_irr_to_report():
    import math

    from mc_tco.decision.timeaxis import Estimate, TimeNumbers
    from mc_tco.report.memo.sections_time import time_sentences

    nan = Estimate(math.nan, math.nan, math.nan)
    never = Estimate(math.inf, math.inf, math.inf)
    peak = Estimate(1e6, 9e5, 1.1e6)
    kw = dict(strategy="reserved", demand=5e11, horizon_months=48, payback=never,
              never=Estimate(0.9, 0.88, 0.92), peak=peak, peak_spread=(1e5, 2e6), irr=nan,
              irr_defined=0.0)
    reserved = time_sentences(TimeNumbers(**kw, irr_modelled=False), "reserving", 0.95)
    assert "buys no servers, so the model gives it no internal rate of return" in reserved
    buy = time_sentences(TimeNumbers(**kw), "buying", 0.95)  # its flows never change sign
    assert "Its flows never change sign" in buy and "buys no servers" not in buy


def test_the_risks_a_book_prices_are_said_as_what_is_left_of_them(compared_memo):
    from mc_tco.decision.one_page import priced_risks
    from mc_tco.report.memo.one_page import RISKS, risks

    _, _, default, article = compared_memo
    assert priced_risks(default) == {"stop": True, "cancel": True, "demand": True,
                                     "hardware": True}
    assert priced_risks(article) == dict.fromkeys(("stop", "cancel", "demand", "hardware"),
                                                  False)
    # version 2's list: nothing priced; each risk with its mitigation and owning role
    # (issue 24)
    theirs = risks(priced_risks(article))
    assert [r.split(" Mitigation: ")[0] for r in theirs] == RISKS
    assert all(re.search(r" Mitigation: .+; owner: [^;]+\.$", r) for r in theirs)
    mine = risks(priced_risks(default))
    assert len(mine) == len(RISKS)
    assert "priced only as a higher discount rate" not in " ".join(mine)
    assert any("prices a forced stop as an event" in r for r in mine)
    assert any("prices a cancelled project" in r for r in mine)
    summary = (compared_memo[0] / "summary.md").read_text()
    assert all(r in summary for r in mine)


def test_a_cell_the_assumptions_do_not_move_shows_one_amount():
    import xarray as xr

    from mc_tco.report.memo.sections_budget import _band, _spread_words

    q = xr.DataArray([3.38e6, 3.40e6, 3.41e6], dims="quantile",
                     coords={"quantile": [0.1, 0.5, 0.9]})
    assert _band(q) == ["$3.4M"]
    assert _spread_words(q) == ("$3.4M in the median scenario, and the same to two digits "
                                "from P10 to P90")
    wide = q.copy(data=[1.7e5, 3.4e5, 7.0e5])
    assert _band(wide) == ["$340k", "$170k – $700k"]
    assert _spread_words(wide) == "$340k in the median scenario ($170k to $700k from P10 to P90)"
