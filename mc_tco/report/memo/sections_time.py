"""The memo's section on time (cost model version 3): the cash position month by month,
when self-hosting pays back, how deep the hole is, and what return it earns.

Called from :data:`mc_tco.report.memo.sections.SECTIONS`; every number comes from
:mod:`mc_tco.decision.timeaxis` (replicate intervals of the run).
"""

from __future__ import annotations

import math

from mc_tco.decision.finance import Finance, finance_numbers
from mc_tco.decision.timeaxis import (
    Estimate,
    TimeNumbers,
    cash_bands,
    payback_curves,
    time_numbers,
)
from mc_tco.report.memo import figures as F
from mc_tco.report.memo.figures_time import cash_fan_figure, payback_figure
from mc_tco.report.memo.fmt import and_list, money, prob, prob_ci, tokens
from mc_tco.report.memo.render import Block, Figure, Paragraph, Section, Table
from mc_tco.results.points import nearest_point, point_index, scale_of

__all__ = ["months_text", "time_section"]

#: the options whose cash position the section follows: the two that buy servers, and
#: reserving, which commits to a year of rent at a time instead
TIME_STRATEGIES = ("buy", "reserved", "hybrid")


def months_text(x: float) -> str:
    """'14 months', 'never (within the horizon)'."""
    if math.isinf(x):
        return "never (within the horizon)"
    if math.isnan(x):
        return "n/a"
    return f"{x:.0f} month{'s' if round(x) != 1 else ''}"


def _months_short(x: float) -> str:
    return "never" if math.isinf(x) else ("n/a" if math.isnan(x) else f"{x:.0f}")



def time_sentences(t: TimeNumbers, verb: str, conf: float, f: Finance | None = None) -> str:
    """What the payback, peak cash need and IRR of one strategy say, computed and rounded
    for the body (:mod:`mc_tco.report.memo.fmt`'s rules; the intervals are in time.csv): a
    median's interval is shown only when it spans different whole months. With ``f``
    (:func:`mc_tco.decision.finance.finance_numbers`) the nominal twins are said beside the
    discounted numbers, and an IRR that contradicts the NPV is left out, with why.

    With ``t.held`` (:func:`mc_tco.decision.timeaxis.time_numbers`'s ``where_held``: a
    strategy that may buy no server) the share that buys none is said first (those
    scenarios are the API itself: nothing to pay back), and the numbers are those of the
    scenarios that buy one; ``f`` then has to be computed over the same scenarios."""
    lead, scen = "", "scenarios"
    if t.held is not None and t.held.value < 1.0:
        none = Estimate(1.0 - t.held.value, 1.0 - t.held.upper, 1.0 - t.held.lower)
        which = ("every scenario" if t.held.value == 0.0 else
                 f"{prob_ci(none.value, none.lower, none.upper, level=conf)} of scenarios")
        lead = (f"In {which} {verb} buys no server: it is the API itself (NPV $0, nothing "
                "to pay back)")
        if t.held.value == 0.0 or math.isnan(t.payback.value):
            return lead + "."
        share = prob_ci(t.held.value, t.held.lower, t.held.upper, level=conf)
        lead += f". Among the {share} of scenarios where it buys one: "
        scen = "those scenarios"
    out = _time_body(t, verb, conf, f, scen)
    return lead + out if not lead else lead + out[0].lower() + out[1:]


def _time_body(t: TimeNumbers, verb: str, conf: float, f: Finance | None, scen: str) -> str:
    """:func:`time_sentences` over the scenarios named ``scen``."""
    pay = t.payback
    simple = ("" if f is None else
              f" (simple payback, undiscounted: {months_text(f.simple_payback.value)})")
    if math.isinf(pay.value):
        first = (f"In the median scenario {verb} never pays back within the "
                 f"{t.horizon_months} months (discounted){simple}")
    else:
        span = _months_short(pay.lower) != _months_short(pay.upper)
        first = (f"The median scenario of {verb} pays back in {months_text(pay.value)}"
                 + (f" ({conf:.0%} MC interval {_months_short(pay.lower)}-"
                    f"{_months_short(pay.upper)})" if span else "")
                 + f", discounted{simple}")
    out = [first + f"; it never pays back within the horizon in {prob(t.never.value)} of "
           f"{scen}."]
    nominal = ("" if f is None else
               f" ({money(f.peak_nominal.value)} in nominal cash, the amount to finance)")
    out.append(f"The deepest cumulative hole in discounted cash is "
               f"{money(t.peak.value)} in the median "
               f"{'scenario' if scen == 'scenarios' else 'of ' + scen}{nominal}; 90% of {scen} lie "
               f"between {money(t.peak_spread[0])} and {money(t.peak_spread[1])}.")
    if t.irr_defined > 0 and math.isfinite(t.irr.value):
        if f is not None and not f.irr_agrees:
            out.append(f"Its internal rate of return is left out: its median "
                       f"({t.irr.value:.0%} a year, where the flows change sign) sits on "
                       f"the other side of the cost of capital ({f.cost_of_capital:.0%}) "
                       f"from what its NPV says (median {money(f.npv)}), because its "
                       "investment is small and late, or its flows change sign more than "
                       f"once ({prob(f.disagree)} of the scenarios with an IRR disagree "
                       "with their NPV); read the NPV.")
        else:
            out.append(f"Where its flows change sign ({prob(t.irr_defined)} of {scen}) "
                       f"the median internal rate of return is {t.irr.value:.0%} a year.")
    elif not t.irr_modelled:
        out.append("It buys no servers, so the model gives it no internal rate of return "
                   "(there is no investment to earn one on).")
    else:
        out.append("Its flows never change sign, so it has no internal rate of return.")
    return " ".join(out)


def time_section(ctx) -> Section:
    """The section 'When does it pay back?' of the memo (``ctx``: a MemoContext)."""
    from mc_tco.report.memo.context import VERB

    ds = ctx.ds
    d = ctx.demand
    cd = ds["cash_demand"].values
    cash_d = nearest_point(cd, d, scale_of("cash_demand"))
    # the hybrid's numbers where it buys a server (a median over every scenario is the
    # API's 0 wherever most buy none), with the share that does
    nums = {s: time_numbers(ds, d, s, where_held=True) for s in TIME_STRATEGIES}
    fin = {s: finance_numbers(ds, d, s, where_held=True) for s in TIME_STRATEGIES}
    blocks: list[Block] = [Paragraph(
        "The cost model follows the cash month by month: demand ramps up and grows, prices "
        "move, nodes are bought when needed and sold at the end of the horizon (or in the "
        "month the project is cancelled or self-hosting must stop), reservations are paid "
        "a 12-month term at a time, taxes are paid on the difference, and the API serves "
        "the traffic until the self-hosted stack is set up. The cash position is the "
        "running total, discounted and after tax, of what each option saves against paying "
        "the API; it starts below zero (hardware bought, or a term reserved, up front) and "
        "pays back when it turns positive.")]
    for s in TIME_STRATEGIES:
        blocks.append(Paragraph(f"**{VERB[s].capitalize()}** at {tokens(d)}: "
                                + time_sentences(nums[s], VERB[s], ctx.conf, fin[s])))
    cash = ds["cash_path"].sel(cash_demand=cash_d)
    note = "" if point_index([cash_d], d) is not None else (
        f" The file keeps month-by-month cash at {', '.join(tokens(x) for x in cd)} "
        f"tokens/month only; the nearest, {tokens(cash_d)}, is shown.")
    blocks.append(Figure(
        "cash_position", F.png(cash_fan_figure(cash_bands(cash, TIME_STRATEGIES), cash_d,
                                           TIME_STRATEGIES)),
        f"Cash position against the API, month by month, at {tokens(cash_d)}",
        f"Cumulative discounted cash of {and_list([VERB[s] for s in TIME_STRATEGIES])} "
        "against paying the API: the median, 25-75% and 5-95% of scenarios. Below zero the "
        "company is still earning back what it spent; the jump in the last month is the "
        "resale of the hardware (reserving has none to sell)." + note))
    horizon = nums["buy"].horizon_months
    # the hybrid over the scenarios where it buys a server, as the text and the table
    curves = payback_curves(ds, d, TIME_STRATEGIES, horizon)
    held = {str(s): float(v) for s, v in zip(curves["strategy"].values,
                                             curves["held"].values, strict=True) if v < 1.0}
    among = "".join(
        f" {VERB[s].capitalize()} buys no server in any scenario at this demand (it is the "
        "API itself): it has no curve." if v == 0.0 else
        f" {VERB[s].capitalize()}'s curve is over the {prob(v)} of scenarios where it buys a "
        "server (in the others it is the API itself: nothing to pay back)."
        for s, v in held.items())
    blocks.append(Figure(
        "payback", F.png(payback_figure(curves, TIME_STRATEGIES, held=held)),
        f"When self-hosting pays back, at {tokens(d)}",
        "Share of scenarios whose cash position has turned positive by each month; the "
        "curve stops short of 100% by the share that never pays back within the "
        f"{horizon}-month horizon." + among + " The step in the last month is the resale "
        "of the hardware."))
    rows = []
    for s in TIME_STRATEGIES:
        t, f = nums[s], fin[s]
        irr = (("left out (contradicts the NPV)" if not f.irr_agrees else f"{t.irr.value:.0%}")
               if math.isfinite(t.irr.value) else "n/a")
        who = VERB[s] if t.held is None or t.held.value >= 1.0 else (
            f"{VERB[s]} (no scenario buys a server)" if t.held.value == 0.0 else
            f"{VERB[s]} (the {prob(t.held.value)} of scenarios where it buys a server)")
        rows.append([
            who, _months_short(t.payback.value), _months_short(f.simple_payback.value),
            prob(t.never.value), money(t.peak.value), money(f.peak_nominal.value), irr,
        ])
    blocks.append(Table(["strategy", "median payback, discounted (months)",
                         "median simple payback, nominal (months)", "never pays back",
                         "median peak cash need, discounted", "median peak cash need, nominal",
                         "median IRR (where defined)"], rows,
                        "lrrrrrr", caption=f"At {tokens(d)} tokens/month; full precision in "
                        "time.csv (its rows 'where it buys a server' are the hybrid's here)."))
    return Section("When does it pay back?", blocks, "time")
