"""Words for the derived reason, the triggers a person can watch and the pilot's worth
(:class:`mc_tco.decision.why.Why`): one function per sentence, so that the summary can
call them where it wants them (:func:`reason_text`, :func:`trigger_lines`,
:func:`pilot_sentence`), and :func:`why_markdown`, the memo's section of all three.

Every number comes from :mod:`mc_tco.decision`; the words that compare ("still loses",
"would win", "run it") are chosen by the counterfactuals and comparisons computed there.
"""

from __future__ import annotations

import math

from mc_tco.decision.evsi import PilotValue
from mc_tco.decision.reason import Reason
from mc_tco.decision.triggers import MAPPING, WatchTrigger
from mc_tco.decision.why import Why
from mc_tco.report.fmt import money, prob, rounded, tokens

__all__ = ["even_without", "pilot_sentence", "reason_text", "trigger_line", "trigger_lines",
           "why_markdown"]

NAMES = {"api": "the API", "buy": "buying the servers", "rent": "renting the GPUs",
         "reserved": "reserving the GPUs", "hybrid": "the hybrid", "owned": "owned GPUs"}
#: each removable cost (:data:`mc_tco.decision.reason.REMOVALS`) as "without ..." names it
WITHOUT = {"staff": "engineers", "servers": "server costs (free servers, network gear and "
           "upkeep)", "storage": "KV-cache storage", "power": "power",
           "colocation": "colocation", "network": "network gear",
           "upkeep": "support and spares", "setup_api": "the API bill during setup",
           "tax": "tax"}
#: buy's cost components (mc_tco.models.tco.COMPONENTS) as a list names them
COMPONENT = {"hardware": "servers less resale", "network": "network gear", "power": "power",
             "colocation": "colocation", "upkeep": "support and spares",
             "storage": "KV-cache storage", "staff": "engineers",
             "setup_api": "API bill during setup", "tax": "extra tax"}
#: the watched quantities as "revisit when ..." names them
WATCHED_WORDS = {"invoice_price": "the price on the API invoice",
                 "cache_hit_share": "the cache-hit share on the API invoice",
                 "tokens_per_gpu_hour": "a pilot's tokens per GPU-hour",
                 "monthly_volume": "the monthly volume",
                 "server_quote": "a vendor's quote for one 8-GPU server"}


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


def _year(v: float) -> str:
    return money(12 * v, " a year", digits=2)


def _value(v: float, unit: str) -> str:
    if unit == "USD/Mtok":
        return money(v, "/Mtok", digits=3)
    if unit == "USD":
        return money(v, digits=3)
    if unit == "1":
        return f"{v:.0%}"
    if unit == "tokens/month":
        return f"{tokens(v)} tokens/month"
    if unit == "tokens/GPU-hour":
        return f"{tokens(v)} tokens/GPU-hour"
    return f"{rounded(v, 3)} {unit}"


def _on(r: Reason) -> str:
    """Where the verdict is read: "on average" (the decision rule's mean) or "in the
    median scenario"."""
    return "on average" if r.stat == "mean" else "in the median scenario"


def even_without(r: Reason, key: str) -> str:
    """"Even without X, S still loses (wins) on average", or "" when the counterfactual
    does not bear it out (:meth:`Reason.holds_without`)."""
    if not r.holds_without(key):
        return ""
    verdict = "still beats" if r.wins else (
        "still does not beat" if r.removals[key].value == 0 else "still loses to")
    return (f"Even without {WITHOUT[key]}, {NAMES[r.strategy]} {verdict} "
            f"{NAMES[r.against]} {_on(r)} "
            f"({_year(r.removals[key].value)} against it, recomputed).")


def _verdict(r: Reason) -> str:
    s = _cap(NAMES[r.strategy])
    if r.ties >= 0.5:  # the hybrid that buys no server is the API: say so first
        head = (f"{s} never buys a server in {prob(r.ties)} of the scenarios (there it is "
                "the API); ")
        s = "it"
    else:
        head = ""
    if r.value == 0:
        return f"{head}{s} spends what {NAMES[r.against]} does {_on(r)}."
    if r.wins:
        return f"{head}{s} saves {_year(r.value)} against {NAMES[r.against]} {_on(r)}."
    return f"{head}{s} costs {_year(-r.value)} more than {NAMES[r.against]} {_on(r)}."


def _components(r: Reason) -> str:
    if not r.components:
        return ""
    parts = [f"{COMPONENT[k]} {_year(v)}" for k, v in r.top_components(4)]
    return (f"On average its cost is {', '.join(parts)} (and more), against an API bill of "
            f"{_year(r.api_bill)}.")


def _decides(r: Reason) -> str:
    if not r.decisive and r.wins:
        return ""  # a winner's costs are all counted; removing one only widens its lead
    if not r.decisive:
        return "No cost component, alone or together with others, decides it."
    if r.alone:
        k = r.decisive[0]
        flipped = "would beat" if not r.wins else "would no longer beat"
        return (f"What decides is {WITHOUT[k]}: without them alone, {NAMES[r.strategy]} "
                f"{flipped} {NAMES[r.against]} {_on(r)} "
                f"({_year(r.removals[k].value)}, recomputed).")
    assert r.joint is not None  # a deciding set found together has its counterfactual
    names = [WITHOUT[k] for k in r.decisive]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return (f"No single cost decides; {listed} together do: without all of them, "
            f"{NAMES[r.strategy]} would {'beat' if not r.wins else 'lose to'} "
            f"{NAMES[r.against]} {_on(r)} ({_year(r.joint.value)}).")


def reason_text(why: Why) -> str:
    """The derived reason: each reason's verdict, its components, what decides and the
    "even without" sentences the counterfactuals bear out (at most three per option: the
    members of a set that decides only together, then the largest other removals)."""
    out = []
    for r in why.reasons:
        out += [_verdict(r), _components(r), _decides(r)]
        # the members of a set that decides only together each fail alone: say so first
        keys = [*(r.decisive if not r.alone else ()), *r.others(2)][:3]
        out += [s for s in (even_without(r, k) for k in keys) if s]
    return " ".join(s for s in out if s)


def trigger_line(t: WatchTrigger) -> str:
    """"Revisit when ..." for one watched quantity, with its threshold's interval."""
    what = WATCHED_WORDS[t.key]
    if not t.found:
        lo, hi = t.scanned
        return (f"{_cap(what)}: no value from {_value(lo, t.unit)} to {_value(hi, t.unit)} "
                f"changes the answer by itself (the book assumes about "
                f"{_value(t.now, t.unit)}, median).")
    move = "rises above" if t.rising else "falls below"
    if t.beyond == t.current:  # at its median the quantity gives another answer
        head = (f"**{_cap(what)}: the answer, {NAMES[t.current]}, holds only while it "
                f"{'stays below' if t.rising else 'stays above'} "
                f"{_value(t.threshold, t.unit)}**")
    else:
        head = f"**Revisit when {what} {move} {_value(t.threshold, t.unit)}**"
    # the interval is the threshold's: said beside it, before the book's median (it read
    # "the book assumes about $0.0778/Mtok, median, Monte Carlo interval $0.0124/Mtok to
    # $0.0187/Mtok", an interval that seemed to be the median's and did not hold it)
    ci = ("" if not (math.isfinite(t.lower) and math.isfinite(t.upper)) else
          f"that threshold's Monte Carlo interval: {_value(t.lower, t.unit)} to "
          f"{_value(t.upper, t.unit)}; ")
    now = f"the book assumes about {_value(t.now, t.unit)}, its median"
    then = ("the API is the best option on average (no alternative is expected to save "
            "against it)" if t.beyond == "api" else
            f"{NAMES[t.beyond]} has the largest expected NPV against the API, so the "
            "recommendation changes to it")
    return (f"{head} ({ci}{now}): "
            f"there {then}, the other assumptions as uncertain as now. Read as "
            f"{MAPPING[t.key]}.")


def trigger_lines(why: Why) -> list[str]:
    """:func:`trigger_line` of each trigger (those that flip the answer first)."""
    return [trigger_line(t) for t in why.triggers]


def pilot_sentence(p: PilotValue) -> str:
    """"A 3-week pilot costs $...; it is worth $... (...-...): run it / don't"."""
    w = p.worth
    ci = (f" ({money(w.lower, digits=2)} to {money(w.upper, digits=2)})"
          if math.isfinite(w.half) else "")
    pl = p.pilot
    tput = math.expm1(1.96 * pl.throughput_se)
    weeks = f"{pl.weeks:g}-week"
    verdict = "run it" if p.run_it else "don't run it"
    return (f"A {weeks} pilot ({pl.nodes} node{'s' if pl.nodes != 1 else ''} rented, "
            f"measuring our tokens per GPU-hour to ±{tput:.0%} and our cache-hit share to "
            f"±{1.96 * pl.cache_se * 100:.0f} points, 95%) costs about "
            f"{money(p.cost, digits=2)} (rent {money(p.rent, digits=2)}, the team's time "
            f"{money(p.team, digits=2)}); it is worth {money(w.value, digits=2)}{ci} "
            f"in present value over the horizon: {verdict}. Even measured exactly, these two "
            f"would be worth {money(p.ceiling.value, digits=2)}. (Expected value of sample "
            f"information, Strong et al. 2015; the decision valued is the memo's, by expected "
            f"NPV, where {NAMES[p.best]} is best on average.)"
            + (" The hybrid's rule, as modelled, sizes its servers with the throughput they "
               "will reach: in practice that figure comes from a measurement like this "
               "pilot's, so this is the pilot's worth to the choice of option, not to the "
               "hybrid's sizing, which needs it." if p.best == "hybrid" else ""))


def why_markdown(why: Why, heading: str = "##", in_summary: bool = False) -> str:
    """The memo's section: why, what to watch, and what a pilot is worth.

    ``in_summary``: the reason and the triggers are already on the first page (the memo's
    summary prints :func:`reason_text` and :func:`trigger_lines`): say how they were derived
    instead of printing them twice."""
    lines = [f"{heading} Why, what to watch, and what a pilot is worth", ""]
    if in_summary:
        lines += [f"The summary's **Why** and **What would change this** at "
                  f"{tokens(why.demand)} tokens/month are derived here: the gap between the "
                  "recommended option and the best alternative split into its cost "
                  "components (averages, which add up; the verdict is the average's, as "
                  "the decision rule's), each \"even without\" recomputed by "
                  "running the model on the stored scenarios with that cost removed, and "
                  "printed only when the recomputed case bears it out; each threshold is the "
                  "value of that one measured quantity, set in every scenario, at which the "
                  "recommendation changes (the decision rule: the option with the largest "
                  "expected NPV against the API), the other assumptions as uncertain as "
                  "now, with its Monte Carlo interval from the run's scrambles."
                  + (f" These use the first {why.rows:,} of the file's {why.scenarios:,} "
                     "scenarios (every scramble alike), which bounds their time and memory."
                     if 0 < why.rows < why.scenarios else ""), ""]
    else:
        lines += [f"**Why (at {tokens(why.demand)} tokens/month):** {reason_text(why)}", "",
                  "**What to watch**", ""]
        lines += [f"- {t}" for t in trigger_lines(why)]
        lines += [""]
    lines += [f"**Measure first?** {pilot_sentence(why.pilot)}"]
    return "\n".join(lines) + "\n"
