"""The memo's budget section (cost model version 3): the nominal cash each option spends
in each year of the horizon, the API's row being the budget line a CFO approves, and the
level cost per million tokens of each option against the API's.

Called from :data:`mc_tco.report.memo.sections.SECTIONS`; every number comes from
:mod:`mc_tco.decision.budget` (quantiles over the scenarios with the run's Monte Carlo
intervals), and is only rounded here (:mod:`mc_tco.report.memo.fmt`).
"""

from __future__ import annotations

import math

import xarray as xr

from mc_tco.decision.budget import widest_error
from mc_tco.report.memo.fmt import money, tokens
from mc_tco.report.memo.render import Block, Paragraph, Section, Table
from mc_tco.results.points import point_index

__all__ = ["OPTION_NAMES", "budget_section", "cash_rows", "cost_per_mtok_rows"]

#: each option as the budget tables name it
OPTION_NAMES = {"api": "the API (today's budget line)", "buy": "buy the servers",
                "rent": "rent GPUs on demand", "reserved": "reserve GPUs (12-month terms)",
                "owned": "GPUs already owned", "hybrid": "hybrid (servers that pay, peaks "
                                                          "to the API)"}


def _band(q: xr.DataArray, per: str = "", digits: int = 2) -> list[str]:
    """A cell of two lines: the median, then 'P10 - P90'; the median alone when P10 and P90
    round to it (an amount the assumptions do not move)."""
    lo, mid, hi = (money(float(q.sel(quantile=v)), digits=digits) for v in (0.1, 0.5, 0.9))
    head = money(float(q.sel(quantile=0.5)), per, digits=digits)
    return [head] if lo == mid == hi else [head, f"{lo} – {hi}"]


def _spread_words(q: xr.DataArray) -> str:
    """'$1.7M in the median scenario ($590k to $4M from P10 to P90)', or '$14M in the
    median scenario, and the same to two digits from P10 to P90'."""
    lo, mid, hi = (money(float(q.sel(quantile=v))) for v in (0.1, 0.5, 0.9))
    if lo == mid == hi:
        return f"{mid} in the median scenario, and the same to two digits from P10 to P90"
    return f"{mid} in the median scenario ({lo} to {hi} from P10 to P90)"


def cash_rows(table: xr.Dataset) -> list[list]:
    """The rows of the cash-by-year table (:func:`mc_tco.decision.budget.cash_by_year`):
    per option its name, each year's median over 'P10 - P90', and the horizon's total."""
    rows = []
    for s in table["strategy"].values:
        est = table["estimate"].sel(strategy=s)
        cells = [_band(est.sel(year=y)) for y in table["year"].values]
        rows.append([OPTION_NAMES.get(str(s), str(s)), *cells,
                     _band(table["total_estimate"].sel(strategy=s))])
    return rows


def cost_per_mtok_rows(table: xr.Dataset, names: dict | None = None) -> list[list]:
    """The rows of the cost-per-million-tokens table
    (:func:`mc_tco.decision.budget.cost_per_mtok`): per option its name, the median with
    its Monte Carlo interval, and P10 and P90 (``names``: each option's name, default
    :data:`OPTION_NAMES`)."""
    names = OPTION_NAMES if names is None else names
    rows = []
    for s in table["strategy"].values:
        est = table["estimate"].sel(strategy=s)
        lo, hi = (float(v) for v in table["ci"].sel(strategy=s, quantile=0.5).values)
        med = float(est.sel(quantile=0.5))
        rows.append([names.get(str(s), str(s)),
                     f"{money(med, digits=3)} ({money(lo, digits=3)}–{money(hi, digits=3)})",
                     money(float(est.sel(quantile=0.1)), digits=3),
                     money(float(est.sel(quantile=0.9)), digits=3)])
    return rows


def _within(x: float) -> str:
    """'±4%' of a relative half-width; '±<1%' below a percent."""
    if math.isnan(x):
        return "n/a"
    return "±<1%" if x < 0.005 else f"±{x:.0%}"


def budget_section(ctx) -> Section:
    """The section 'The budget' of the memo (``ctx``: a MemoContext)."""
    cash, cpm = ctx.cash_by_year, ctx.cost_per_mtok
    d, cash_d = ctx.demand, float(cash.attrs["demand"])
    years = [int(y) for y in cash["year"].values]
    note = "" if point_index([cash_d], d) is not None else (
        f" The results keep the yearly cash at the book's report demands only; the nearest "
        f"to {tokens(d)}, {tokens(cash_d)}, is shown.")
    api_total = cash["total_estimate"].sel(strategy="api")
    blocks: list[Block] = [Paragraph(
        f"What each option would put in the budget at {tokens(cash_d)} tokens/month, in "
        "nominal dollars a year (undiscounted, before tax): running costs and purchases, "
        "the API bill of the traffic it does not serve in house, less the resale of "
        "servers in the year it comes in. The API's row is the budget line a CFO approves "
        "if nothing changes: over the "
        f"{len(years)} years it comes to {_spread_words(api_total)}." + note)]
    med = widest_error(cash["estimate"].sel(quantile=0.5), cash["ci"].sel(quantile=0.5))
    tails = widest_error(cash["estimate"].sel(quantile=[0.1, 0.9]),
                         cash["ci"].sel(quantile=[0.1, 0.9]), relative=False)
    blocks.append(Table(
        ["option", *(f"year {y}" for y in years), f"{len(years)} years"], cash_rows(cash),
        "l" + "r" * (len(years) + 1),
        caption=f"Nominal cash a year at {tokens(cash_d)} tokens/month: the median scenario, "
                "and below it P10 – P90 of the scenarios (the spread of the assumptions). "
                f"The {ctx.level} Monte Carlo interval of each median is within "
                f"{_within(med)} of it, of each P10 and P90 within ±{money(tails)} "
                "(every interval in cash_by_year.csv). Tax, and the resale value already-"
                "owned GPUs give up, are not cash and are left out."))
    blocks.append(Paragraph(
        f"What a million tokens costs with each option at {tokens(d)} tokens/month: the "
        "level cost over the horizon (discounted cost, after tax, over the discounted "
        "tokens demanded, whether served in house or through the API): the unit price "
        "self-hosting must beat. The API's row is its price list as the scenarios move it "
        "over the horizon."))
    blocks.append(Table(
        ["option", f"median ({ctx.level} MC interval)", "P10", "P90"],
        cost_per_mtok_rows(cpm, {**OPTION_NAMES, "api": "the API"}), "lrrr",
        caption=f"USD per million tokens at {tokens(d)} tokens/month; full precision in "
                "cost_per_mtok.csv."))
    return Section("The budget: cash by year and cost per million tokens", blocks, "budget")
