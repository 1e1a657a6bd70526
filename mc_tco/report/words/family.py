"""Words for the family check: what ``mc-tco run --family-check`` prints after the run's
table, and the memo's section "Does the answer depend on the shape of the distributions?",
both from one :class:`~mc_tco.decision.family_findings.FamilyFindings`."""

from __future__ import annotations

import xarray as xr

from mc_tco.decision.family_findings import BreakevenRow, FamilyFindings, FamilyRow, family_findings
from mc_tco.report.fmt import fmt_pct, fmt_value
from mc_tco.report.words.common import md_table, table, wrap
from mc_tco.results.points import point_index

__all__ = ["family_markdown", "family_section", "family_text"]

_FAMILIES = ("uniform", "triangular", "pert")


def _point_label(fs: FamilyFindings, point: dict) -> str:
    """'buy, 500B': the labels and grid values of a point, with the grid's units."""
    return ", ".join(v if isinstance(v, str) else fmt_value(float(v), fs.dim_units.get(k, ""))
                     for k, v in point.items())


def _variant_name(label: str) -> str:
    """'as written', 'all PERT', 'staff_fte uniform'."""
    if label == "book":
        return "as written"
    what, _, fam = label.partition(":")
    fam = "PERT" if fam == "pert" else fam
    return f"all {fam}" if what == "all" else f"{what} {fam}"


def _alls(r: FamilyRow) -> list[str]:
    return [fmt_pct(r.all.get(f, float("nan"))) for f in _FAMILIES]


def _unmoved(fs: FamilyFindings) -> str:
    """'rent 0% at 100B, 300B, 500B, 1T, 3T; buy 0% at 100B' for rows no variant moves."""
    groups: dict[tuple, list[str]] = {}
    for r in fs.rows:
        if r.moved:
            continue
        rest = {k: v for k, v in r.point.items() if isinstance(v, str)}
        nums = {k: v for k, v in r.point.items() if not isinstance(v, str)}
        key = (_point_label(fs, rest), fmt_pct(r.book))
        groups.setdefault(key, []).append(_point_label(fs, nums))
    parts = []
    for (who, p), where in groups.items():
        at = f" at {', '.join(w for w in where if w)}" if any(where) else ""
        parts.append(f"{who + ' ' if who else ''}{p}{at}")
    return "; ".join(parts)


def _breakeven_cells(fs: FamilyFindings, b: BreakevenRow) -> list[str]:
    """[output[point], variant, 5%, median, 95%, share never]."""
    label = f"{b.name}[{_point_label(fs, b.point)}]" if b.point else b.name
    return [label, _variant_name(b.variant),
            *(fmt_value(v, b.unit) for v in (b.q05, b.q50, b.q95)), fmt_pct(b.never)]


def family_text(fs: FamilyFindings | None) -> str:
    """What ``mc-tco run --family-check`` prints after the run's table ('' without a check)."""
    if fs is None:
        return ""
    head = (f"Family check: {fs.variants - 1} variants of the base sample, {len(fs.swapped)} "
            "bounded inputs swapped among uniform, triangular and PERT over the same range "
            f"({fs.seconds:.1f} s)"
            + (f"; unchanged (unbounded): {', '.join(fs.unchanged)}" if fs.unchanged else ""))
    out = ["", *wrap(head, indent="")]
    what = ("strategy beats the API" if fs.indicator_label == "beats the API"
            else "target > 0")
    out += wrap(f"P({what}) as written, with every bounded input uniform / triangular / PERT, "
                "and the one input whose shape alone moves it most:", indent="")
    body = []
    for r in fs.rows:
        if not r.moved:
            continue
        mm = r.most_moving
        body.append([
            _point_label(fs, r.point), fmt_pct(r.book), *_alls(r),
            f"{_variant_name(mm[0])} {fmt_pct(mm[2])}" if mm and mm[2] != r.book else "-",
        ])
    if body:
        out += table(["", "as written", "all uniform", "all triangular", "all PERT",
                      "most moved by"], body)
    still = _unmoved(fs)
    if still:
        out += wrap(f"The same under every variant: {still}.", indent="")
    big = fs.widest
    if big:
        out += wrap(f"Largest spread: {_point_label(fs, big.point)}, from "
                    f"{fmt_pct(big.min)} ({_variant_name(big.argmin)}) to "
                    f"{fmt_pct(big.max)} ({_variant_name(big.argmax)}); "
                    f"{len(big.beyond_mc_error)} of {fs.variants - 1} "
                    "variants move it beyond its Monte Carlo interval.", indent="")
    if fs.flips:
        for r in fs.flips:
            names = ", ".join(_variant_name(v) for v in r.flips[:3])
            more = f" and {len(r.flips) - 3} more" if len(r.flips) > 3 else ""
            out += wrap(f"The answer flips with the shape at {_point_label(fs, r.point)}: "
                        f"P is {fmt_pct(r.book)} as written, on the other side of 50% "
                        f"(beyond its Monte Carlo error) under {names}{more}.", indent="")
    else:
        out += wrap("No answer flips: under every variant each strategy stays on the same "
                    "side of 50% at every reported demand.", indent="")
    if fs.breakeven:
        out.append("")
        out.append("Break-even demand under the all-at-once variants: 5% / median / 95%, "
                   "share never")
        out += table(["", "variant", "5%", "median", "95%", "never"],
                     [_breakeven_cells(fs, b) for b in fs.breakeven], left=2)
    return "\n".join(out)


def _at(point: dict, focus: dict) -> bool:
    """Whether a row's ``point`` is the ``focus`` point (labels equal, grid values within
    the grid tolerance)."""
    for k, v in point.items():
        if k not in focus:
            return False
        f = focus[k]
        if isinstance(v, str) or isinstance(f, str):
            if str(v) != str(f):
                return False
        elif point_index([float(f)], float(v)) is None:
            return False
    return True


def _flip_lines(fs: FamilyFindings, focus: dict | None) -> list[str]:
    """The sentences on answers that flip with the shape.

    Without ``focus`` every flip is stated in bold. With ``focus`` (the decision's point,
    e.g. ``{"strategy": "hybrid", "demand": 5e11}``) only a flip there is the bold
    "the answer flips with the shape"; the point is also said when it does not flip or
    was not checked, and flips at other points are listed plainly, as what they are: not
    the answer the memo gives.
    """
    def variants(r: FamilyRow) -> str:
        return ", ".join(_variant_name(v) for v in r.flips[:3])

    if focus is None:
        if not fs.flips:
            return ["No answer flips: every strategy stays on the same side of 50% at every "
                    "reported demand under every variant."]
        return [f"**The answer flips with the shape** at {_point_label(fs, r.point)}: "
                f"P = {fmt_pct(r.book)} as written, and {variants(r)} put it on the other "
                "side of 50%." for r in fs.flips]
    label = _point_label(fs, focus)
    here = [r for r in fs.rows if _at(r.point, focus)]
    if not here:
        pts = dict.fromkeys(_point_label(fs, {k: v}) for r in fs.rows
                            for k, v in r.point.items() if not isinstance(v, str))
        lines = [f"The family check has no point at the decision ({label}): it was run at "
                 f"{', '.join(pts)} only."]
    elif here[0].flips:
        r = here[0]
        lines = [f"**The answer flips with the shape** at the decision, {label}: P = "
                 f"{fmt_pct(r.book)} as written, and {variants(r)} put it on the other side "
                 "of 50%."]
    else:
        r = here[0]
        span = f"from {fmt_pct(r.min)} to {fmt_pct(r.max)}"
        stays = (f"stays {'above' if r.book > 0.5 else 'below'} 50% under every variant "
                 f"({span})" if (r.min > 0.5) == (r.max > 0.5) else
                 f"no variant moves it across 50% beyond its Monte Carlo error ({span})")
        lines = [f"At the decision, {label}, the answer does not flip with the shape: P = "
                 f"{fmt_pct(r.book)} as written and {stays}."]
    others = [r for r in fs.flips if not _at(r.point, focus)]
    if others:
        listed = "; ".join(f"{_point_label(fs, r.point)} ({fmt_pct(r.book)} as written; "
                           f"{variants(r)})" for r in others)
        lines.append(f"Elsewhere the shape moves P across 50% at {listed}: not the answer "
                     "at the decision.")
    return lines


def family_markdown(fs: FamilyFindings | None, heading: str = "##",
                    focus: dict | None = None) -> str:
    """Markdown: does the answer depend on the shape of the distributions?

    ``focus`` is the decision's point (e.g. ``{"strategy": "hybrid", "demand": 5e11}``):
    the bold "the answer flips with the shape" is then said of that point only
    (:func:`_flip_lines`).
    """
    out = [f"{heading} Does the answer depend on the shape of the distributions?", ""]
    if fs is None:
        out.append("The family check was not run for these results "
                   "(`mc-tco run BOOK --family-check`).")
        return "\n".join(out) + "\n"
    unchanged = fs.unchanged
    lines = [
        f"The article gives ranges, not shapes. The base sample was rerun with the "
        f"{len(fs.swapped)} bounded inputs swapped among uniform, triangular and PERT over the "
        "same range: all at once (the total effect of the choice) and one at a time (which "
        "input's shape matters), on the same Sobol' points"
        + (f"; {', '.join(unchanged)} kept {'its' if len(unchanged) == 1 else 'their'} "
           "unbounded distribution" if unchanged else "") + ".",
        *_flip_lines(fs, focus),
    ]
    big = fs.widest
    if big:
        mm = big.most_moving
        lines.append(
            f"The largest spread is at {_point_label(fs, big.point)}: P(beats the API) "
            f"from {fmt_pct(big.min)} ({_variant_name(big.argmin)}) to "
            f"{fmt_pct(big.max)} ({_variant_name(big.argmax)})"
            + ("" if big.book in (big.min, big.max) else f", {fmt_pct(big.book)} as written")
            + (f"; of the single inputs, {mm[1]}'s shape moves it most "
               f"({_variant_name(mm[0])}: {fmt_pct(mm[2])})." if mm else "."))
    out.append(" ".join(lines))
    body = []
    for r in fs.rows:
        if not r.moved:
            continue
        singles = [v for _, _, v in r.singles]
        body.append([
            _point_label(fs, r.point), fmt_pct(r.book), *_alls(r),
            f"{fmt_pct(min(singles))} - {fmt_pct(max(singles))}" if singles else "-",
        ])
    out.append("")
    if body:
        out += md_table(["point", "as written", "all uniform", "all triangular", "all PERT",
                         "one at a time: range"], body)
    still = _unmoved(fs)
    if still:
        out += ["", f"The same under every variant: {still}."]
    if fs.breakeven:
        out.append("")
        out += md_table(["break-even", "variant", "5%", "median", "95%", "share never"],
                        [_breakeven_cells(fs, b) for b in fs.breakeven], "llrrrr")
    out.append("")
    # (its run time stays in the file's attrs: the memo's text depends on the data only)
    out.append("(P in %, from the same base samples as the run.)")
    return "\n".join(out) + "\n"


def family_section(ds: xr.Dataset, *, heading: str = "##", focus: dict | None = None) -> str:
    """The memo's section: :func:`~mc_tco.decision.family_findings.family_findings` of ``ds``,
    worded by :func:`family_markdown` (``focus``: the decision's point)."""
    return family_markdown(family_findings(ds), heading, focus)
