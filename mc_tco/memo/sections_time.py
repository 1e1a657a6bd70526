"""The memo's section on time (cost model version 2): the cash position month by month,
when self-hosting pays back, how deep the hole is, and what return it earns.

Called from :data:`mc_tco.memo.sections.SECTIONS`; every number comes from
:mod:`mc_tco.memo.timeaxis` (replicate intervals of the run).
"""

from __future__ import annotations

import math

import numpy as np

from . import figures as F
from .figures_time import cash_fan_figure, payback_figure
from .fmt import pct, pct_ci, tokens, usd
from .render import Figure, Paragraph, Section, Table
from .timeaxis import TimeNumbers, time_numbers

__all__ = ["months_text", "time_section"]

TIME_STRATEGIES = ("buy", "hybrid")


def months_text(x: float) -> str:
    """'14 months', 'never (within the horizon)'."""
    if math.isinf(x):
        return "never (within the horizon)"
    if math.isnan(x):
        return "n/a"
    return f"{x:.0f} month{'s' if round(x) != 1 else ''}"


def _interval(lo: float, hi: float, fmt) -> str:
    return f"{fmt(lo)} to {fmt(hi)}"


def _months_short(x: float) -> str:
    return "never" if math.isinf(x) else ("n/a" if math.isnan(x) else f"{x:.0f}")


def time_sentences(t: TimeNumbers, verb: str, conf: float) -> str:
    """What the payback, peak cash need and IRR of one strategy say, computed."""
    lvl = f"{conf:.0%} MC interval"
    pay = t.payback
    if math.isinf(pay.value):
        first = (f"In the median scenario {verb} never pays back within the "
                 f"{t.horizon_months} months")
    else:
        first = (f"The median scenario of {verb} pays back in {months_text(pay.value)} ({lvl} "
                 f"{_months_short(pay.lower)}-{_months_short(pay.upper)})")
    out = [first + f"; it never pays back within the horizon in {pct_ci(*t.never, conf)} of "
           "scenarios."]
    out.append(f"The deepest cumulative hole the company must fund has a median of "
               f"{usd(t.peak.value, '')} ({lvl} "
               f"{_interval(t.peak.lower, t.peak.upper, lambda v: usd(v, ''))}); "
               f"90% of scenarios lie between {usd(t.peak_spread[0], '')} and "
               f"{usd(t.peak_spread[1], '')}.")
    if t.irr_defined > 0 and math.isfinite(t.irr.value):
        out.append(f"Where its flows change sign ({pct(t.irr_defined)} of scenarios) the "
                   f"median internal rate of return is {t.irr.value:.0%} a year ({lvl} "
                   f"{t.irr.lower:.0%} to {t.irr.upper:.0%}).")
    else:
        out.append("Its flows never change sign, so it has no internal rate of return.")
    return " ".join(out)


def time_section(ctx) -> Section:
    """The section 'When does it pay back?' of the memo (``ctx``: a MemoContext)."""
    from .sections import VERB

    ds = ctx.ds
    d = ctx.demand
    cd = ds["cash_demand"].values
    cash_d = float(cd[int(np.argmin(np.abs(np.log(cd / d))))])
    nums = {s: time_numbers(ds, d, s) for s in TIME_STRATEGIES}
    blocks = [Paragraph(
        "Version 2 of the cost model follows the cash month by month: demand ramps up and "
        "grows, prices move, nodes are bought when needed and sold at the end of the "
        "horizon, and the API serves the traffic until the self-hosted stack is set up. "
        "The cash position is the running total, discounted, of what self-hosting saves "
        "against paying the API; it starts below zero (hardware bought up front) and "
        "pays back when it turns positive.")]
    for s in TIME_STRATEGIES:
        blocks.append(Paragraph(f"**{VERB[s].capitalize()}** at {tokens(d)}: "
                                + time_sentences(nums[s], VERB[s], ctx.conf)))
    cash = ds["cash_path"].sel(cash_demand=cash_d)
    note = "" if np.isclose(cash_d, d, rtol=1e-6) else (
        f" The file keeps month-by-month cash at {', '.join(tokens(x) for x in cd)} "
        f"tokens/month only; the nearest, {tokens(cash_d)}, is shown.")
    blocks.append(Figure(
        "cash_position", F.to_png(cash_fan_figure(cash, cash_d, TIME_STRATEGIES)),
        f"Cash position against the API, month by month, at {tokens(cash_d)}",
        "Cumulative discounted cash of buying and of the hybrid against paying the API: "
        "the median, 25-75% and 5-95% of scenarios. Below zero the company is still "
        "earning back what it spent; the jump in the last month is the resale of the "
        "hardware." + note))
    horizon = nums["buy"].horizon_months
    pay = ds["payback_months"].sel(demand=d, strategy=list(TIME_STRATEGIES))
    blocks.append(Figure(
        "payback", F.to_png(payback_figure(pay, horizon, TIME_STRATEGIES)),
        f"When self-hosting pays back, at {tokens(d)}",
        "Share of scenarios whose cash position has turned positive by each month; the "
        "curve stops short of 100% by the share that never pays back within the "
        f"{horizon}-month horizon."))
    rows = []
    for s in TIME_STRATEGIES:
        t = nums[s]
        rows.append([
            VERB[s], _months_short(t.payback.value), pct(t.never.value),
            usd(t.peak.value, ""), (f"{t.irr.value:.0%}" if math.isfinite(t.irr.value)
                                    else "n/a"),
        ])
    blocks.append(Table(["strategy", "median payback (months)", "never pays back",
                         "median peak cash need", "median IRR (where defined)"], rows,
                        "lrrrr", caption=f"At {tokens(d)} tokens/month; full precision in "
                        "time.csv."))
    return Section("When does it pay back?", blocks, "time")
