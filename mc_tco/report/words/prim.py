"""Words for scenario discovery (PRIM): the terminal text of ``mc-tco explain`` and the
memo's section "Under which conditions does buy pay off?", from one
:class:`~mc_tco.decision.discovery.Discovery` (or
:class:`~mc_tco.decision.discovery.Scenarios`) each."""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.decision.boxes import FoundBox
from mc_tco.decision.discovery import Discovery, Scenarios, discover_nearest
from mc_tco.decision.prim import MIN_CASES
from mc_tco.report.fmt import fmt_pct, fmt_prob_ci, fmt_tokens, fmt_value, rounded
from mc_tco.report.words.common import at_text, point_text, table, wrap

__all__ = [
    "box_sentence",
    "fmt_bound",
    "prim_text",
    "rule_text",
    "scenario_markdown",
    "scenario_section",
    "too_few_sentence",
]


def fmt_bound(x: float, unit: str = "") -> str:
    """A box bound with 3 significant digits and its unit: ``476,000 USD``, ``0.417``."""
    text = fmt_tokens(x) if unit == "tokens/month" else rounded(x, 3)
    return f"{text} {unit}" if unit and unit != "1" else text


def rule_text(box: FoundBox, units: dict[str, str]) -> str:
    """``a > 0.9 and b < 0.42`` for the restricted inputs of a box."""
    parts = []
    for name, (lo, hi) in box.rules().items():
        unit = units.get(name, "")
        if lo is not None and hi is not None:
            parts.append(f"{fmt_bound(lo)} < {name} < {fmt_bound(hi, unit)}")
        elif lo is not None:
            parts.append(f"{name} > {fmt_bound(lo, unit)}")
        elif hi is not None:
            parts.append(f"{name} < {fmt_bound(hi, unit)}")
    if not parts:
        return "any inputs"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _units(disc: Discovery) -> dict[str, str]:
    data = disc.data
    return dict(zip(data.inputs, data.units, strict=True))


def _who(disc: Discovery) -> tuple[str, str]:
    """(subject, verb phrase): ('buy', 'beats the API') or ('saving', 'is positive')."""
    data = disc.data
    if data.has_strategy:
        label = data.label if data.label != "> 0" else f"has {data.target} > 0"
        return disc.option, label
    return data.target, "is positive"


def box_sentence(disc: Discovery, box: FoundBox) -> str:
    """'buy wins in 71% (62-79) of scenarios with ... (these hold 58% (52-63) of all
    winning scenarios)': every share with its Monte Carlo interval
    (:meth:`~mc_tco.decision.boxes.FoundBox.density_ci`, over the run's scrambles)."""
    who, _ = _who(disc)
    lo, hi = box.density_ci()
    verb = "wins" if disc.data.has_strategy else "is positive"
    return (
        f"{who} {verb} in {fmt_prob_ci(box.density, lo, hi)} of the scenarios with "
        f"{rule_text(box, _units(disc))} (these hold "
        f"{fmt_prob_ci(box.coverage, *box.coverage_ci())} of all winning scenarios)"
    )


def _mass(box: FoundBox) -> str:
    """'12.5% (11.9-13.1)': the box's share of all scenarios with its interval."""
    return fmt_prob_ci(box.mass, *box.mass_ci())


def too_few_sentence(disc: Discovery, ds: xr.Dataset | None, command: str | None) -> str:
    """Why there is no box: too few winning (or losing) scenarios, and where there are enough."""
    who, verb = _who(disc)
    lo, hi = disc.p_win_ci()
    few = disc.wins if disc.status == "too few winners" else disc.n - disc.wins
    what = "winning" if disc.status == "too few winners" else "losing"
    text = (
        f"{who} {verb} in {disc.wins:,} of {disc.n:,} scenarios, "
        f"{fmt_prob_ci(disc.p_win, lo, hi)}: too few {what} scenarios to say where. PRIM "
        f"needs at least {disc.min_cases} winning and {disc.min_cases} losing scenarios; a "
        f"box fitted to {few:,} would describe noise."
    )
    s = disc.suggestion
    if s:
        unit = ds[s["dim"]].attrs.get("units", "") if ds is not None else ""
        text += (f" The nearest {s['dim']} with enough is {fmt_value(s['value'], unit)}"
                 f"{' ' + unit if unit else ''} ({s['winners']:,} of {s['scenarios']:,} win)")
        if command and s["dim"] == "demand":
            text += f": {command} --demand {fmt_tokens(s['value'])}"
        text += "."
    else:
        text += " No grid point has enough; raise --samples."
    return text


def _trajectory_table(box: FoundBox, max_rows: int = 12) -> list[str]:
    steps = box.trajectory
    idx = set(np.linspace(0, len(steps) - 1, min(max_rows, len(steps))).round().astype(int))
    idx |= {0, box.chosen, len(steps) - 1}
    rows = []
    for i in sorted(idx):
        s = steps[i]
        rows.append([
            f"{i}{' *' if i == box.chosen else ''}",
            fmt_pct(s.coverage, 0 if s.coverage >= 0.1 else None),
            fmt_pct(s.density),
            fmt_pct(s.mass),
            str(s.n_restricted),
        ])
    rows.append(["box", fmt_pct(box.coverage, 0), fmt_pct(box.density), fmt_pct(box.mass),
                 str(box.n_restricted)])
    return table(["step", "coverage", "density", "mass", "inputs"], rows)


def prim_text(disc: Discovery, ds: xr.Dataset | None = None, command: str | None = None,
              trajectory: bool = True) -> list[str]:
    """The terminal lines of a scenario discovery: the boxes and the peeling trajectory."""
    who, verb = _who(disc)
    data = disc.data
    out = wrap(f"Where does {who} win? PRIM scenario discovery{at_text(data.point, ds)} "
               f"(case: {data.target}{'[' + who + ']' if data.has_strategy else ''} > 0)",
               indent="")
    if disc.status.startswith("too few"):
        out += wrap(too_few_sentence(disc, ds, command))
        return out
    lo, hi = disc.p_win_ci()
    out += wrap(f"{who} {verb} in {disc.wins:,} of {disc.n:,} scenarios: "
                f"{fmt_prob_ci(disc.p_win, lo, hi)}; shares in %, with their "
                f"{disc.conf_level:.0%} Monte Carlo interval in brackets"
                + (" (from the spread of the run's scrambles)." if disc.p_win_rqmc else "."))
    if not disc.boxes:
        out += wrap("No box: no restriction of the inputs raises the share of winners "
                    "significantly; the winners are spread over the whole input space.")
        return out
    for k, box in enumerate(disc.boxes, 1):
        extra = (f"; {fmt_pct(box.coverage_new, 0)} of the winners are in no earlier box"
                 if k > 1 else "")
        out += wrap(f"Box {k}: {box_sentence(disc, box)}. It holds {_mass(box)} of "
                    f"all scenarios and restricts {box.n_restricted} "
                    f"input{'s' if box.n_restricted != 1 else ''}{extra}.",
                    hanging="         ")
    if trajectory:
        out += wrap("Peeling trajectory of box 1 (coverage falls as density rises). * = the "
                    "step chosen (the largest box within one standard error of the densest "
                    f"that holds {fmt_pct(disc.min_coverage, 0)} of the winners); 'box' = that "
                    "step after pasting and after dropping the restrictions that do not "
                    "matter, as reported above:")
        out += ["    " + r for r in _trajectory_table(disc.boxes[0])]
        out += wrap(dropped_sentence(disc.boxes[0]))
    return out


def dropped_sentence(box: FoundBox) -> str:
    """What pasting and dropping the restrictions that do not matter did to the chosen
    step, said plainly (issue 24): the box reported above is the one after them."""
    step = box.trajectory[box.chosen]
    if step.n_restricted == box.n_restricted and abs(step.density - box.density) < 0.005:
        return "The box reported above is the step marked *."
    change = box.density / step.density - 1 if step.density > 0 else 0.0
    fell = change < -0.2
    return (f"The box reported above is not the step marked *: that step restricts "
            f"{step.n_restricted} inputs (density {fmt_pct(step.density)}, coverage "
            f"{fmt_pct(step.coverage, 0)}); pasting and dropping the restrictions that do not "
            f"matter leaves {box.n_restricted} (density {fmt_pct(box.density)}, coverage "
            f"{fmt_pct(box.coverage, 0)})"
            + (f": the dropped restrictions carried {fmt_pct(-change, 0)} of the step's "
               "density, so the simpler box is much less pure." if fell else "."))


def scenario_markdown(found: Scenarios, ds: xr.Dataset, heading: str = "##") -> str:
    """Markdown: under which conditions does the strategy beat the API?

    Says so when the requested point has too few winners (or losers), then describes the
    boxes of ``found.described`` (the nearest demand with enough, if there is one).
    """
    who, verb = _who(found.requested)
    out = [f"{heading} Under which conditions does {who} pay off?", ""]
    paras = []
    if found.requested.status.startswith("too few"):
        where = point_text(found.requested.data.point, ds)
        paras.append((f"At {where}, " if where else "")
                     + too_few_sentence(found.requested, ds, None))
    disc = found.described
    if not disc.status.startswith("too few"):
        lo, hi = disc.p_win_ci()
        at = at_text(disc.data.point, ds)
        overall = f"against {fmt_prob_ci(disc.p_win, lo, hi)} of all {disc.n:,} scenarios{at}"
        if disc.boxes:
            intro = (f"Scenario discovery (PRIM; Friedman & Fisher 1999){at} finds the "
                     f"conditions under which {who} {verb}:")
            items = [box_sentence(disc, box) for box in disc.boxes]
            b = disc.boxes[0]
            if len(items) == 1:
                paras.append(f"{intro} {items[0]}, {overall}.")
            else:
                paras.append(intro + "\n\n" + "\n".join(f"- {t};" for t in items)
                             + f"\n\n{overall[0].upper() + overall[1:]}.")
            paras.append(
                f"The first box restricts {b.n_restricted} of the {len(disc.data.inputs)} "
                f"uncertain inputs and holds {_mass(b)} of all scenarios; its share of "
                "winners is measured on the scenarios that chose the box, so it is slightly "
                f"optimistic. Shares in %, with their {disc.conf_level:.0%} Monte Carlo "
                "interval in brackets.")
        else:
            paras.append(f"{who} {verb} in {fmt_prob_ci(disc.p_win, lo, hi)} of the "
                         f"scenarios{at}, spread over the whole input space: no box "
                         "of inputs raises that share significantly.")
    out.append("\n\n".join(paras))
    return "\n".join(out) + "\n"


def scenario_section(ds: xr.Dataset, *, strategy: str | None = None,
                     demand: float | None = None, heading: str = "##",
                     min_cases: int = MIN_CASES) -> str:
    """The memo's section: :func:`~mc_tco.decision.discovery.discover_nearest` at ``demand``
    (default: the file's focus point), worded by :func:`scenario_markdown`."""
    found = discover_nearest(ds, strategy=strategy, demand=demand, min_cases=min_cases)
    return scenario_markdown(found, ds, heading)
