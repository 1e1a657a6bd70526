"""Words for the value of information: the terminal text of ``mc-tco explain`` (one
:class:`~mc_tco.decision.information.VoiResult`) and the memo's section "What is it worth to
know more before deciding?" (one :class:`~mc_tco.decision.information.VoiSummary`)."""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.decision.information import VoiResult, VoiSummary, voi_summary
from mc_tco.report.fmt import fmt_money, fmt_value
from mc_tco.report.words.common import at_text, md_table, pm, share, table, unit_suffix, wrap
from mc_tco.uncertainty.scrambles import z_value

__all__ = ["voi_markdown", "voi_point_markdown", "voi_section", "voi_text"]


def _decision_line(voi: VoiResult) -> str:
    data = voi.data
    if data.has_strategy:
        others = [f"{k} {fmt_money(v)}" for k, v in voi.expected.items()]
        return (f"Deciding among {', '.join(data.options)}. Best on average: {voi.best} "
                f"(expected {data.target}: {', '.join(others)}{unit_suffix(voi.unit)}).")
    mean = voi.expected["act"]
    return (f"Act if the expected {data.target} is positive: it is {fmt_money(mean)}"
            f"{unit_suffix(voi.unit)}, so {'act' if mean > 0 else 'do not act'}.")


def voi_text(voi: VoiResult, ds: xr.Dataset | None = None, top: int = 10) -> list[str]:
    """The terminal lines: the decision, EVPI, and EVPPI by input and by group, ranked."""
    data = voi.data
    unit = voi.unit
    u = unit_suffix(unit)
    out = wrap(f"What is it worth to know more? Value of information{at_text(data.point, ds)} "
               f"(net benefit: {data.target}{',' + u if u else ''}; ± = {voi.conf_level:.0%} "
               "Monte Carlo error)", indent="")
    out += wrap(_decision_line(voi))
    evpi_text = pm(voi.evpi, voi.evpi_se, voi.conf_level)
    out += wrap(f"EVPI {evpi_text}{u}: what knowing every input "
                "before deciding is worth here, the ceiling on any measurement.")
    singles, groups = voi.ranked(), voi.ranked(groups=True)
    if not any(v > 0 for _, v, _ in singles + groups):
        out += wrap("EVPPI is 0 for every input and group: no single input or group, "
                    "learnt alone, can change the decision in expectation. Nothing is worth "
                    "measuring first here.")
        return out
    if singles and not any(v > 0 for _, v, _ in singles):
        out += wrap("EVPPI is 0 for every single input: no input, learnt alone, can change "
                    "the decision in expectation; only learning several together can.")
    elif singles:
        shown = [r for r in singles[:top] if r[1] > 0]
        rest = len(singles) - len(shown)
        out.append(f"  EVPPI by input{' (' + unit + ')' if u else ''}, ranked:")
        rows = [[f"{i}. {name}", pm(v, s, voi.conf_level), share(v, voi.evpi)]
                for i, (name, v, s) in enumerate(shown, 1)]
        out += ["    " + r for r in table(["input", "EVPPI", "of EVPI"], rows)]
        if rest:
            zero = sum(1 for _, v, _ in singles if v <= 0)
            out.append(f"    ({zero} other input{'s' if zero != 1 else ''}: 0"
                       + (f"; {rest - zero} more below the top {top}" if rest > zero else "")
                       + ")")
    if groups:
        shown = [r for r in groups if r[1] > 0]
        out.append(f"  EVPPI by group{' (' + unit + ')' if u else ''}, ranked:")
        rows = [[f"{i}. {name}", str(len(voi.group_members[name])),
                 pm(v, s, voi.conf_level),
                 share(v, voi.evpi)]
                for i, (name, v, s) in enumerate(shown, 1)]
        out += ["    " + r for r in table(["group", "inputs", "EVPPI", "of EVPI"], rows)]
        nil = [name for name, v, _ in groups if v <= 0]
        if nil:
            out += wrap(f"(0 for {', '.join(nil)})", indent="    ")
    return out


def _point_markdown(voi: VoiResult, ds: xr.Dataset, top: int) -> str:
    """EVPI, what to measure first, and the EVPPI tables at one demand."""
    at = at_text(voi.data.point, ds)
    unit = voi.unit
    u = unit_suffix(unit)
    z = z_value(0.95)
    singles, groups = voi.ranked(), voi.ranked(True)
    lead = at.strip()
    first = (f"{lead + ', ' if at else ''}{voi.best} is best on average and "
             f"EVPI is {pm(voi.evpi, voi.evpi_se, voi.conf_level)}{u} "
             f"(± {voi.conf_level:.0%} Monte Carlo error).")
    lines = [first[:1].upper() + first[1:]]
    if not any(v > 0 for _, v, _ in singles + groups):
        lines.append("The partial EVPI (EVPPI) of every input and every group is 0: no "
                     "assumption, learnt alone, changes the decision in expectation. "
                     "Nothing is worth measuring first "
                     + ("at this demand." if "demand" in voi.data.point else "here."))
        return " ".join(lines)
    top_g = groups[0] if groups else None
    top_i = singles[0] if singles else None
    if top_g and top_g[1] > 0:
        members = ", ".join(voi.group_members[top_g[0]])
        if top_g[1] > z * top_g[2]:
            lines.append(f"Measure this first: the {top_g[0]} group ({members}), worth "
                         f"{pm(top_g[1], top_g[2], voi.conf_level)}{u} to know before deciding.")
        else:
            lines.append(f"The largest group value, {top_g[0]} ({members}: "
                         f"{pm(top_g[1], top_g[2], voi.conf_level)}{u}), is within its Monte Carlo "
                         "error of 0: no group is clearly worth measuring first.")
    if top_i and top_i[1] > 0:
        sure = "" if top_i[1] > z * top_i[2] else ", within its Monte Carlo error of 0"
        lines.append(f"The single input worth most is {top_i[0]} "
                     f"({pm(top_i[1], top_i[2], voi.conf_level)}{u}{sure}).")
    else:
        lines.append("No single input, learnt alone, is worth anything: only learning "
                     "several together can change the decision.")
    evppi_head = f"EVPPI ({unit})" if unit and unit != "1" else "EVPPI"
    rows = [[name, str(len(voi.group_members[name])), pm(v, s, voi.conf_level),
             share(v, voi.evpi)]
            for name, v, s in groups]
    text = " ".join(lines)
    if rows:
        text += "\n\n" + "\n".join(
            md_table(["group", "inputs", evppi_head, "share of EVPI"], rows))
    rows_i = [[name, pm(v, s, voi.conf_level), share(v, voi.evpi)]
              for name, v, s in singles[:top] if v > 0]
    if rows_i:
        text += "\n\n" + "\n".join(md_table(["input", evppi_head, "share of EVPI"],
                                            rows_i))
    return text


def voi_markdown(summary: VoiSummary, ds: xr.Dataset, heading: str = "##",
                 top: int = 5) -> str:
    """Markdown: EVPI over the demand grid (where it peaks), then EVPI and the ranked EVPPI
    at each demand of ``summary.points``."""
    e = summary.curve
    unit = e.attrs["units"]
    dunit = ds["demand"].attrs.get("units", "")
    i = int(np.argmax(e.values))
    out = [f"{heading} What is it worth to know more before deciding?", ""]
    lines = [
        f"The expected value of perfect information (EVPI) is what learning every input "
        f"before choosing among {e.attrs['options']} would be worth, in {unit}: the ceiling "
        "on what any measurement can be worth."
    ]
    peak_d = float(e["demand"].values[i])
    if e.values[i] <= 0:
        lines.append("It is 0 at every demand: one option is best in every scenario.")
    else:
        where = ("grows with demand up to the end of the grid" if i == e.sizes["demand"] - 1
                 else "peaks")
        zero = e["demand"].values[e.values == 0]
        lines.append(
            f"Over the demand grid it {where}, at {fmt_value(peak_d, dunit)} {dunit}: "
            f"{pm(float(e.values[i]), float(e.evpi_se.values[i]))} {unit}, where "
            f"{e.best_option.values[i]} is best on average"
            + (f"; it is 0 up to {fmt_value(float(zero.max()), dunit)} {dunit}, where "
               "every scenario picks the same option." if zero.size and zero.max() < peak_d
               else ".")
        )
    out.append("\n".join(lines))
    for voi in summary.points:
        out.append("")
        out.append(_point_markdown(voi, ds, top))
    return "\n".join(out) + "\n"


def voi_point_markdown(voi: VoiResult, ds: xr.Dataset, heading: str = "##",
                       top: int = 5) -> str:
    """Markdown: EVPI and the ranked EVPPI at one point (:func:`voi_markdown` without the
    curve over demand, for any model)."""
    data = voi.data
    among = ", ".join(data.options) if data.has_strategy else "acting and not acting"
    unit = voi.unit if voi.unit and voi.unit != "1" else f"units of {data.target}"
    return "\n".join([
        f"{heading} What is it worth to know more before deciding?", "",
        f"The expected value of perfect information (EVPI) is what learning every input "
        f"before choosing among {among} would be worth, in {unit}: the ceiling on what any "
        "measurement can be worth.", "",
        _point_markdown(voi, ds, top),
    ]) + "\n"


def voi_section(ds: xr.Dataset, *, demand: float | None = None, among=None,
                heading: str = "##", top: int = 5) -> str:
    """The memo's section: :func:`~mc_tco.decision.information.voi_summary` at ``demand``
    (default: the focus point), worded by :func:`voi_markdown`, then what a pilot that
    measures our throughput and cache-hit share is worth there
    (:func:`mc_tco.decision.why.pilot_at`, worded by
    :func:`mc_tco.report.words.why.pilot_sentence`; among the strategies but owned GPUs)."""
    from mc_tco.decision.why import pilot_at
    from mc_tco.report.words.why import pilot_sentence

    summary = voi_summary(ds, demand=demand, among=among)
    text = voi_markdown(summary, ds, heading, top)
    d = summary.points[0].data.point.get("demand")
    if d is None:
        return text
    return (text + "\nWhat measuring is worth, short of knowing an input exactly: "
            + pilot_sentence(pilot_at(ds, float(d))) + "\n")
