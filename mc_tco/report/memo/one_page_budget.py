"""The summary's budget (issue 24, point 2): the nominal cash by year of the recommended
option and of each alternative (P10 / P50 / P90), and the decision request in one sentence.

The numbers come from :mod:`mc_tco.decision.budget` (``cash_by_year``, ``cash_gap``) and
:func:`mc_tco.decision.one_page.quantiles_of`; they are only worded here.
"""

from __future__ import annotations

from dataclasses import dataclass

import xarray as xr

from mc_tco.decision.rule import Decision
from mc_tco.report.memo.fmt import money, prob

__all__ = ["Budget", "budget_lines", "request_sentence"]

#: each option as the budget table and the request name it
NAMES = {"api": "the API", "buy": "buy the servers", "rent": "rent GPUs on demand",
         "reserved": "reserve GPUs (12-month terms)", "hybrid": "hybrid"}
#: the request's verb for funding an option
FUND = {"api": "Keep the API", "buy": "Buy the servers", "rent": "Rent GPUs on demand",
        "reserved": "Reserve GPUs on 12-month terms",
        "hybrid": "Fund the hybrid (servers that pay for themselves, peaks to the API)"}
#: what not funding an alternative means
NOT_FUND = {"buy": "do not fund servers", "rent": "do not rent GPUs",
            "reserved": "do not reserve GPUs", "hybrid": "do not fund the hybrid's servers",
            "api": "do not stay on the API alone"}


@dataclass(frozen=True)
class Budget:
    """The budget numbers of the summary (raw).

    ``cash``: :func:`mc_tco.decision.budget.cash_by_year` of the options in order (the
    recommended first); ``gap``: :func:`mc_tco.decision.budget.cash_gap` of the best
    alternative against the recommended option; ``npv``: P10 / P50 / P90 of the NPV
    against the API of whichever of the two is not the API; ``choice``, ``best``;
    ``decision`` the one rule's numbers (:func:`mc_tco.decision.rule.decide`), for the
    request's expected NPV and its chance of a loss.
    """

    cash: xr.Dataset
    gap: xr.Dataset
    npv: tuple[float, ...]
    choice: str
    best: str
    decision: Decision | None = None


def _span(lo: float, hi: float, what: str = "") -> str:
    """"$a to $b{what}, P10 to P90", or "$a{what} from P10 to P90" when both round alike."""
    if money(lo) == money(hi):
        return f"{money(lo)}{what} from P10 to P90"
    return f"{money(lo)} to {money(hi)}{what}, P10 to P90"


def _band(q: xr.DataArray) -> str:
    lo, mid, hi = (money(float(q.sel(quantile=v))) for v in (0.1, 0.5, 0.9))
    return mid if lo == mid == hi else f"{mid} ({lo} to {hi})"


def budget_lines(b: Budget) -> list[str]:
    """The budget table, as Markdown lines: per option each year's P50 (P10 to P90) and the
    horizon's total, in nominal dollars."""
    years = [int(y) for y in b.cash["year"].values]
    head = ["nominal cash, P50 (P10 to P90)", *(f"year {y}" for y in years),
            f"{len(years)} years"]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * (len(years) + 1)]
    for s in b.cash["strategy"].values:
        est = b.cash["estimate"].sel(strategy=s)
        label = NAMES.get(str(s), str(s)) + (" (recommended)" if s == b.choice else "")
        cells = [_band(est.sel(year=y)) for y in years]
        cells.append(_band(b.cash["total_estimate"].sel(strategy=s)))
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def request_sentence(b: Budget) -> str:
    """The decision request: what to budget in year 1 for the recommended option (P50 and
    P90), what the other side of the choice (the best alternative, or the API when an
    alternative is recommended) would spend more over the horizon in nominal cash (median
    scenario), and the NPV against the API from P10 to P90."""
    first = b.cash["estimate"].sel(strategy=b.choice, year=int(b.cash["year"].values[0]))
    years = b.cash.sizes["year"]
    mid, hi = float(first.sel(quantile=0.5)), float(first.sel(quantile=0.9))
    lo_gap, gap, hi_gap = (float(b.gap["estimate"].sel(quantile=q)) for q in (0.1, 0.5, 0.9))
    lo_npv, _, hi_npv = b.npv
    npv = (f"NPV against the API {money(lo_npv)} to {money(hi_npv)} (P10 to P90)"
           if money(lo_npv) != money(hi_npv) else
           f"NPV against the API {money(lo_npv)} from P10 to P90")
    if b.decision is not None:
        side = b.choice if b.choice != "api" else b.best
        o = b.decision.outcomes[side]
        npv += (f", {money(o.mean)} expected; it costs more than the API in "
                f"{prob(o.loses.p)} of the scenarios")
    mostly_api = (b.choice == "hybrid" and b.decision is not None
                  and b.decision.outcomes["hybrid"].same.p >= 0.5)
    fund = ("Keep the API and adopt the hybrid's rule (a server only when it pays for itself)"
            if mostly_api else FUND[b.choice])
    head = f"**Decision requested: {fund}: budget {money(mid)} in year 1 (P90 " \
           f"{money(hi)});"
    band = f"{money(lo_gap)} to {money(hi_gap)} more, P10 to P90; negative: less"
    if b.choice == "api":
        they = "they" if b.best == "buy" else "it"
        spend = (f"{they} would cost {money(gap)} more over {years} years in nominal cash "
                 f"in the median scenario ({band})" if gap > 0 else
                 f"{they} would save {money(-gap)} over {years} years in nominal cash in the "
                 f"median scenario ({band})" if gap < 0 else
                 f"in the median scenario {they} would buy no server and spend what the API "
                 f"does over {years} years in nominal cash ({band})")
        return f"{head} {NOT_FUND[b.best]}: {spend}; {npv}.**"
    saved = _span(lo_gap, hi_gap, " saved")
    if b.choice == "hybrid" and money(gap) == money(0):
        spend = (f"in the median scenario it buys no server and spends what the API does "
                 f"over {years} years in nominal cash ({saved} against the API)")
    elif gap >= 0:
        spend = (f"against the API it saves {money(gap)} over {years} years in nominal cash "
                 f"in the median scenario ({saved})")
    else:
        spend = (f"against the API it spends {money(-gap)} more over {years} years in "
                 f"nominal cash in the median scenario ({saved}; negative: spent more)")
    return f"{head} {spend}; {npv}.**"
