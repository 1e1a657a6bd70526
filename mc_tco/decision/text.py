"""Words and tables for the decision analyses: the terminal, JSON, and memo sections.

Everything here formats results computed by :mod:`~mc_tco.decision.prim`,
:mod:`~mc_tco.decision.voi` and :mod:`~mc_tco.engine.family`; the ``*_section``
functions compute them from a results dataset (from the stored samples only, no model run)
and return Markdown whose sentences are built from the numbers.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from ..text import fmt_pct, fmt_prob_ci, fmt_tokens, fmt_value
from .data import point_text
from .prim import MIN_CASES, Discovery, FoundBox
from .voi import VoiResult

__all__ = [
    "explain_dict",
    "explain_text",
    "family_section",
    "family_text",
    "scenario_section",
    "voi_section",
]

Z95 = 1.959963984540054
WIDTH = 100


def _wrap(text: str, indent: str = "  ", hanging: str | None = None) -> list[str]:
    """A paragraph wrapped to :data:`WIDTH` columns."""
    import textwrap

    return textwrap.wrap(text, WIDTH, initial_indent=indent,
                         subsequent_indent=indent if hanging is None else hanging,
                         break_on_hyphens=False) or [indent]


# ----------------------------------------------------------------------------- numbers


def fmt_money(x: float) -> str:
    """USD amounts: 1,152 / 77.1 / 0.88 / 0."""
    if not math.isfinite(x):
        return "n/a"
    ax = abs(x)
    if ax == 0:
        return "0"
    if ax >= 1000:
        return f"{x:,.0f}"
    if ax >= 10:
        return f"{x:.0f}"
    return f"{x:.2g}"


def fmt_pm(value: float, se: float) -> str:
    """``1,152 ± 187``: a value with its 95% Monte Carlo half-width."""
    return f"{fmt_money(value)} ± {fmt_money(Z95 * se)}"


def _u(unit: str) -> str:
    """' USD/month' after a number, or nothing for a unitless target."""
    return f" {unit}" if unit and unit != "1" else ""


def _at(point: dict, ds) -> str:
    """' at demand 500B tokens/month', or nothing when the target has no grid dims."""
    where = point_text(point, ds)
    return f" at {where}" if where else ""


def fmt_bound(x: float, unit: str = "") -> str:
    """A box bound with 3 significant digits and its unit: ``476,000 USD``, ``0.417``."""
    v = float(f"{x:.3g}")
    text = f"{v:,.0f}" if abs(v) >= 1e4 else f"{v:.3g}"
    if unit in ("tokens/month",):
        text = fmt_tokens(x)
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
        else:
            parts.append(f"{name} < {fmt_bound(hi, unit)}")
    if not parts:
        return "any inputs"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _units(disc_or_voi) -> dict[str, str]:
    data = disc_or_voi.data
    return dict(zip(data.inputs, data.units, strict=True))


def _who(disc: Discovery) -> tuple[str, str]:
    """(subject, verb phrase): ('buy', 'beats the API') or ('saving', 'is positive')."""
    data = disc.data
    if data.has_strategy:
        label = data.label if data.label != "> 0" else f"has {data.target} > 0"
        return disc.option, label
    return data.target, "is positive"


def _table(header: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    out = []
    for r in [header, *rows]:
        cells = [c.ljust(w) if i < left else c.rjust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
    return out


def _md_table(header: list[str], rows: list[list[str]], align: str | None = None) -> list[str]:
    align = align or "l" + "r" * (len(header) - 1)
    sep = ["---" if a == "l" else "--:" for a in align]
    return ["| " + " | ".join(r) + " |" for r in [header, sep, *rows]]


# ----------------------------------------------------------------------------- PRIM


def box_sentence(disc: Discovery, box: FoundBox) -> str:
    """'buy wins in 71% (62-79%) of scenarios with ... (these hold 58% of all winning
    scenarios)'."""
    who, _ = _who(disc)
    lo, hi = box.density_ci()
    verb = "wins" if disc.data.has_strategy else "is positive"
    return (
        f"{who} {verb} in {fmt_prob_ci(box.density, lo, hi)} of the scenarios with "
        f"{rule_text(box, _units(disc))} (these hold {fmt_pct(box.coverage, 0)} of all "
        f"winning scenarios)"
    )


def too_few_sentence(disc: Discovery, ds: xr.Dataset | None, command: str | None) -> str:
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


def _trajectory_rows(box: FoundBox, max_rows: int = 12) -> list[list[str]]:
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
    return rows


def prim_text(disc: Discovery, ds: xr.Dataset | None = None, command: str | None = None,
              trajectory: bool = True) -> list[str]:
    who, verb = _who(disc)
    data = disc.data
    out = _wrap(f"Where does {who} win? PRIM scenario discovery{_at(data.point, ds)} "
                f"(case: {data.target}{'[' + who + ']' if data.has_strategy else ''} > 0)",
                indent="")
    if disc.status.startswith("too few"):
        out += _wrap(too_few_sentence(disc, ds, command))
        return out
    lo, hi = disc.p_win_ci()
    out += _wrap(f"{who} {verb} in {disc.wins:,} of {disc.n:,} scenarios: "
                 f"{fmt_prob_ci(disc.p_win, lo, hi)}; shares in %, with their 95% Monte Carlo "
                 "interval in brackets.")
    if not disc.boxes:
        out += _wrap("No box: no restriction of the inputs raises the share of winners "
                     "significantly; the winners are spread over the whole input space.")
        return out
    for k, box in enumerate(disc.boxes, 1):
        extra = (f"; {fmt_pct(box.coverage_new, 0)} of the winners are in no earlier box"
                 if k > 1 else "")
        out += _wrap(f"Box {k}: {box_sentence(disc, box)}. It holds {fmt_pct(box.mass)} of "
                     f"all scenarios and restricts {box.n_restricted} "
                     f"input{'s' if box.n_restricted != 1 else ''}{extra}.",
                     hanging="         ")
    if trajectory:
        box = disc.boxes[0]
        out += _wrap("Peeling trajectory of box 1 (coverage falls as density rises). * = the "
                     "step chosen (the largest box within one standard error of the densest "
                     f"that holds {fmt_pct(disc.min_coverage, 0)} of the winners); 'box' = that "
                     "step after pasting and after dropping the restrictions that do not "
                     "matter, as reported above:")
        out += ["    " + r for r in _trajectory_rows_table(box)]
    return out


def _trajectory_rows_table(box: FoundBox) -> list[str]:
    return _table(["step", "coverage", "density", "mass", "inputs"], _trajectory_rows(box))


# ----------------------------------------------------------------------------- VOI


def _decision_line(voi: VoiResult) -> str:
    data = voi.data
    if data.has_strategy:
        others = [f"{k} {fmt_money(v)}" for k, v in voi.expected.items()]
        return (f"  Deciding among {', '.join(data.options)}. Best on average: {voi.best} "
                f"(expected {data.target}: {', '.join(others)}{_u(voi.unit)}).")
    mean = voi.expected["act"]
    return (f"  Act if the expected {data.target} is positive: it is {fmt_money(mean)}"
            f"{_u(voi.unit)}, so {'act' if mean > 0 else 'do not act'}.")


def voi_text(voi: VoiResult, ds: xr.Dataset | None = None, top: int = 10) -> list[str]:
    data = voi.data
    unit = voi.unit
    out = _wrap(f"What is it worth to know more? Value of information{_at(data.point, ds)} "
                f"(net benefit: {data.target}{',' + _u(unit) if _u(unit) else ''}; ± = 95% "
                "Monte Carlo error)", indent="")
    out += _wrap(_decision_line(voi).strip())
    out += _wrap(f"EVPI {fmt_pm(voi.evpi, voi.evpi_se)}{_u(unit)}: what knowing every input "
                 "before deciding is worth here, the ceiling on any measurement.")
    singles, groups = voi.ranked(), voi.ranked(groups=True)
    if not any(v > 0 for _, v, _ in singles + groups):
        out += _wrap("EVPPI is 0 for every input and group: no single input or group, "
                     "learnt alone, can change the decision in expectation. Nothing is worth "
                     "measuring first here.")
        return out
    if singles and not any(v > 0 for _, v, _ in singles):
        out += _wrap("EVPPI is 0 for every single input: no input, learnt alone, can change "
                     "the decision in expectation; only learning several together can.")
    elif singles:
        shown = [r for r in singles[:top] if r[1] > 0]
        rest = len(singles) - len(shown)
        out.append(f"  EVPPI by input{' (' + unit + ')' if _u(unit) else ''}, ranked:")
        rows = [[f"{i}. {name}", fmt_pm(v, s), _share(v, voi.evpi)]
                for i, (name, v, s) in enumerate(shown, 1)]
        out += ["    " + r for r in _table(["input", "EVPPI", "of EVPI"], rows)]
        if rest:
            zero = sum(1 for _, v, _ in singles if v <= 0)
            out.append(f"    ({zero} other input{'s' if zero != 1 else ''}: 0"
                       + (f"; {rest - zero} more below the top {top}" if rest > zero else "")
                       + ")")
    if groups:
        shown = [r for r in groups if r[1] > 0]
        out.append(f"  EVPPI by group{' (' + unit + ')' if _u(unit) else ''}, ranked:")
        rows = [[f"{i}. {name}", str(len(voi.group_members[name])), fmt_pm(v, s),
                 _share(v, voi.evpi)]
                for i, (name, v, s) in enumerate(shown, 1)]
        out += ["    " + r for r in _table(["group", "inputs", "EVPPI", "of EVPI"], rows)]
        zero = [name for name, v, _ in groups if v <= 0]
        if zero:
            out += _wrap(f"(0 for {', '.join(zero)})", indent="    ")
    return out


def _share(v: float, total: float) -> str:
    return fmt_pct(v / total, 0) if total > 0 else "-"


# ----------------------------------------------------------------------------- explain


def explain_text(disc: Discovery | None, voi: VoiResult | None, ds: xr.Dataset,
                 path: str = "", command: str | None = None) -> str:
    """What ``mc-tco explain`` prints."""
    data = (disc or voi).data
    a = ds.attrs
    out = [f"{path} ({a.get('book_name', '')}): {data.n:,} scenarios, "
           f"{len(data.inputs)} uncertain inputs"]
    if disc is not None:
        out += ["", *prim_text(disc, ds, command)]
    if voi is not None:
        out += ["", *voi_text(voi, ds)]
    return "\n".join(out)


def explain_dict(disc: Discovery | None, voi: VoiResult | None, path: str = "") -> dict:
    """What ``mc-tco explain --json`` writes: the printed numbers and their errors."""
    data = (disc or voi).data
    out: dict = {
        "results": path,
        "target": data.target,
        "unit": data.unit,
        "point": data.point,
        "scenarios": data.n,
    }
    if voi is not None:
        out.update(voi.to_dict())
    if disc is not None:
        d = disc.to_dict()
        out["boxes"] = d.pop("boxes")
        out["scenario_discovery"] = d
    return out


# ----------------------------------------------------------------------------- family


def _fc_present(ds: xr.Dataset) -> bool:
    return "family_check_p_positive" in ds


def _sel_point(da: xr.DataArray, point: dict) -> xr.DataArray:
    for k, v in point.items():
        da = da.sel({k: v}) if isinstance(v, str) else da.sel({k: v}, method="nearest")
    return da


def _report_points(ds: xr.Dataset, da: xr.DataArray, skip=("family_variant", "ci_bound",
                                                             "quantile")) -> list[dict]:
    """Every combination of the report points (or up to 5 grid values) of ``da``'s dims."""
    from itertools import product

    report = ds.mc_tco.report
    dims = [d for d in da.dims if d not in skip]
    # label dims (strategy) first, so rows read strategy by strategy
    dims.sort(key=lambda d: 0 if not np.issubdtype(da[d].dtype, np.number) else 1)
    choices = []
    for d in dims:
        if d in report:
            choices.append(list(report[d]))
        else:
            vals = list(da[d].values)
            if len(vals) > 5:
                vals = [vals[i] for i in np.linspace(0, len(vals) - 1, 5).astype(int)]
            choices.append([v.item() if hasattr(v, "item") else v for v in vals])
    return [dict(zip(dims, c, strict=True)) for c in product(*choices)]


def family_summary(ds: xr.Dataset) -> list[dict]:
    """One row per reported point (strategy and demand): P(target > 0) as written
    (``book``), under the all-at-once variants (``all``), its range over every variant, the
    one-at-a-time variant that moves it most, the variants whose change lies beyond its
    Monte Carlo interval, and the variants that put it on the other side of 50% (``flips``).
    """
    targets = ds.mc_tco.targets
    p = ds["family_check_p_positive"]
    change = ds["family_check_p_positive_change_ci"]
    ind = f"{targets[0]}>0" if targets else str(p["target"].values[-1])
    p, change = p.sel(target=ind), change.sel(target=ind)
    fam = ds["family_variant_family"].values
    inp = ds["family_variant_input"].values
    labels = [str(v) for v in ds["family_variant"].values]
    rows = []
    for point in _report_points(ds, p):
        vals = _sel_point(p, point).transpose("family_variant").values
        cv = _sel_point(change, point).transpose("family_variant", "ci_bound").values
        book = float(vals[0])
        alls = {str(fam[i]): float(vals[i]) for i in range(len(vals)) if inp[i] == "all"}
        singles = [(labels[i], str(inp[i]), float(vals[i]))
                   for i in range(len(vals)) if inp[i] not in ("", "all")]
        moved = max(singles, key=lambda t: abs(t[2] - book)) if singles else None
        rows.append({
            "point": point,
            "strategy": point.get("strategy"),
            "demand": point.get("demand"),
            "book": book,
            "all": alls,
            "singles": singles,
            "min": float(vals.min()),
            "max": float(vals.max()),
            "argmin": labels[int(vals.argmin())],
            "argmax": labels[int(vals.argmax())],
            "most_moving": moved,
            "beyond_mc_error": [labels[i] for i in range(1, len(vals))
                                if cv[i, 0] > 0 or cv[i, 1] < 0],
            # the majority answer changes, by more than the Monte Carlo error of the change
            "flips": [labels[i] for i in range(1, len(vals))
                      if (vals[i] > 0.5) != (book > 0.5) and (cv[i, 0] > 0 or cv[i, 1] < 0)],
        })
    return rows


def _point_label(ds: xr.Dataset, point: dict) -> str:
    parts = []
    for k, v in point.items():
        if isinstance(v, str):
            parts.append(v)
        else:
            parts.append(fmt_value(float(v), ds[k].attrs.get("units", "") if k in ds else ""))
    return ", ".join(parts)


def _breakeven_rows(ds: xr.Dataset) -> list[tuple[str, str, list[str]]]:
    """(output[point], variant, [5%, median, 95%, share never]) for the book and the
    all-at-once variants of every per-sample distribution of the family check."""
    names = [k[len("family_check_"):-len("_quantile")] for k in ds.data_vars
             if k.startswith("family_check_") and k.endswith("_quantile")]
    out = []
    keep = [i for i, v in enumerate(ds["family_variant_input"].values) if v in ("", "all")]
    for name in names:
        q = ds[f"family_check_{name}_quantile"]
        never = ds[f"family_check_{name}_p_never"]
        unit = q.attrs.get("units", "")
        for point in _report_points(ds, q):
            qs, ns = _sel_point(q, point), _sel_point(never, point)
            label = f"{name}[{_point_label(ds, point)}]" if point else name
            for i in keep:
                qq = qs.isel(family_variant=i)
                out.append((label, str(ds["family_variant"].values[i]), [
                    fmt_value(float(qq.sel(quantile=0.05)), unit),
                    fmt_value(float(qq.sel(quantile=0.5)), unit),
                    fmt_value(float(qq.sel(quantile=0.95)), unit),
                    fmt_pct(float(ns.isel(family_variant=i))),
                ]))
    return out


def _unmoved(ds: xr.Dataset, rows: list[dict]) -> str:
    """'rent 0% at 100B, 300B, 500B, 1T, 3T; buy 0% at 100B' for rows no variant moves."""
    groups: dict[tuple, list[str]] = {}
    for r in rows:
        if r["min"] != r["max"]:
            continue
        rest = {k: v for k, v in r["point"].items() if isinstance(v, str)}
        nums = {k: v for k, v in r["point"].items() if not isinstance(v, str)}
        key = (_point_label(ds, rest), fmt_pct(r["book"]))
        groups.setdefault(key, []).append(_point_label(ds, nums))
    parts = []
    for (who, p), where in groups.items():
        at = f" at {', '.join(w for w in where if w)}" if any(where) else ""
        parts.append(f"{who + ' ' if who else ''}{p}{at}")
    return "; ".join(parts)


def _variant_name(label: str) -> str:
    if label == "book":
        return "as written"
    what, _, fam = label.partition(":")
    fam = "PERT" if fam == "pert" else fam
    return f"all {fam}" if what == "all" else f"{what} {fam}"


def family_text(ds: xr.Dataset) -> str:
    """What ``mc-tco run --family-check`` prints after the run's table."""
    if not _fc_present(ds):
        return ""
    a = ds.attrs
    swapped = ds.mc_tco.family_swapped
    unchanged = ds.mc_tco.family_unchanged
    n_var = ds.sizes["family_variant"]
    head = (f"Family check: {n_var - 1} variants of the base sample, {len(swapped)} bounded "
            "inputs swapped among uniform, triangular and PERT over the same range "
            f"({float(a.get('family_check_seconds', float('nan'))):.1f} s)"
            + (f"; unchanged (unbounded): {', '.join(unchanged)}" if unchanged else ""))
    out = ["", *_wrap(head, indent="")]
    rows = family_summary(ds)
    label = a.get("indicator_label", "> 0")
    what = "strategy beats the API" if label == "beats the API" else "target > 0"
    out += _wrap(f"P({what}) as written, with every bounded input uniform / triangular / PERT, "
                 "and the one input whose shape alone moves it most:", indent="")
    header = ["", "as written", "all uniform", "all triangular", "all PERT", "most moved by"]
    body = []
    for r in rows:
        if r["min"] == r["max"]:
            continue
        mm = r["most_moving"]
        body.append([
            _point_label(ds, r["point"]), fmt_pct(r["book"]),
            *(fmt_pct(r["all"].get(f, float("nan"))) for f in ("uniform", "triangular", "pert")),
            f"{_variant_name(mm[0])} {fmt_pct(mm[2])}" if mm and mm[2] != r["book"] else "-",
        ])
    if body:
        out += _table(header, body)
    still = _unmoved(ds, rows)
    if still:
        out += _wrap(f"The same under every variant: {still}.", indent="")
    big = max(rows, key=lambda r: r["max"] - r["min"]) if rows else None
    if big and big["max"] > big["min"]:
        out += _wrap(f"Largest spread: {_point_label(ds, big['point'])}, from "
                     f"{fmt_pct(big['min'])} ({_variant_name(big['argmin'])}) to "
                     f"{fmt_pct(big['max'])} ({_variant_name(big['argmax'])}); "
                     f"{len(big['beyond_mc_error'])} of {len(ds['family_variant']) - 1} "
                     "variants move it beyond its Monte Carlo interval.", indent="")
    flips = [r for r in rows if r["flips"]]
    if flips:
        for r in flips:
            names = ", ".join(_variant_name(v) for v in r["flips"][:3])
            more = f" and {len(r['flips']) - 3} more" if len(r["flips"]) > 3 else ""
            out += _wrap(f"The answer flips with the shape at {_point_label(ds, r['point'])}: "
                         f"P is {fmt_pct(r['book'])} as written, on the other side of 50% "
                         f"(beyond its Monte Carlo error) under {names}{more}.", indent="")
    else:
        out += _wrap("No answer flips: under every variant each strategy stays on the same "
                     "side of 50% at every reported demand.", indent="")
    be = _breakeven_rows(ds)
    if be:
        out.append("")
        out.append("Break-even demand under the all-at-once variants: 5% / median / 95%, "
                   "share never")
        out += _table(["", "variant", "5%", "median", "95%", "never"],
                      [[n, _variant_name(v), *vals] for n, v, vals in be], left=2)
    return "\n".join(out)


# ----------------------------------------------------------------------------- memo sections


def scenario_section(ds: xr.Dataset, *, strategy: str | None = None,
                     demand: float | None = None, heading: str = "##",
                     min_cases: int = MIN_CASES) -> str:
    """Markdown: under which conditions does ``strategy`` beat the API (PRIM)?

    At ``demand`` (default: the file's focus point); when there are too few winners there,
    the section says so and describes the nearest demand with enough winners instead.
    """
    from .prim import discover

    at = {"demand": demand} if demand is not None else None
    disc = discover(ds, strategy=strategy, at=at, min_cases=min_cases)
    who, verb = _who(disc)
    out = [f"{heading} Under which conditions does {who} pay off?", ""]
    paras = []
    if disc.status.startswith("too few"):
        where = point_text(disc.data.point, ds)
        paras.append((f"At {where}, " if where else "") + too_few_sentence(disc, ds, None))
        if disc.suggestion and disc.suggestion["dim"] == "demand":
            disc = discover(ds, strategy=strategy, at={"demand": disc.suggestion["value"]},
                            min_cases=min_cases)
    if not disc.status.startswith("too few"):
        lo, hi = disc.p_win_ci()
        at = _at(disc.data.point, ds)
        overall = f"against {fmt_prob_ci(disc.p_win, lo, hi)} of all {disc.n:,} scenarios{at}"
        if disc.boxes:
            intro = (f"Scenario discovery (PRIM; Friedman & Fisher 1999){at} finds the "
                     f"conditions under which {who} {verb}:")
            items = [f"{box_sentence(disc, box)}" for box in disc.boxes]
            b = disc.boxes[0]
            if len(items) == 1:
                paras.append(f"{intro} {items[0]}, {overall}.")
            else:
                paras.append(intro + "\n\n" + "\n".join(f"- {t};" for t in items)
                             + f"\n\n{overall[0].upper() + overall[1:]}.")
            paras.append(
                f"The first box restricts {b.n_restricted} of the {len(disc.data.inputs)} "
                f"uncertain inputs and holds {fmt_pct(b.mass)} of all scenarios; its share of "
                "winners is measured on the scenarios that chose the box, so it is slightly "
                "optimistic. Shares in %, with their 95% Monte Carlo interval in brackets.")
        else:
            paras.append(f"{who} {verb} in {fmt_prob_ci(disc.p_win, lo, hi)} of the "
                         f"scenarios{at}, spread over the whole input space: no box "
                         "of inputs raises that share significantly.")
    out.append("\n\n".join(paras))
    return "\n".join(out) + "\n"


def voi_section(ds: xr.Dataset, *, demand: float | None = None, among=None,
                heading: str = "##", top: int = 5) -> str:
    """Markdown: what is it worth to pin down each assumption before deciding?

    EVPI over the demand grid (where it peaks), then EVPI and the ranked EVPPI of the
    inputs and groups at ``demand`` (default: the focus point) and, when nothing is worth
    learning there, at the reported demand where EVPI is largest.
    """
    from .voi import evpi_by_demand, value_of_information

    e = evpi_by_demand(ds, among=among)
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
            f"{fmt_pm(float(e.values[i]), float(e.evpi_se.values[i]))} {unit}, where "
            f"{e.best_option.values[i]} is best on average"
            + (f"; it is 0 up to {fmt_value(float(zero.max()), dunit)} {dunit}, where "
               "every scenario picks the same option." if zero.size and zero.max() < peak_d
               else ".")
        )
    focus = ds.mc_tco.focus
    d0 = demand if demand is not None else focus.get("demand", peak_d)
    points = [d0]
    voi = value_of_information(ds, at={"demand": d0}, among=among)
    if all(v <= 0 for _, v, _ in voi.ranked() + voi.ranked(True)):
        report = ds.mc_tco.report.get("demand", [])
        cands = [d for d in report if d != d0]
        if cands:
            best = max(cands, key=lambda d: float(e.sel(demand=d, method="nearest")))
            if float(e.sel(demand=best, method="nearest")) > 0:
                points.append(best)
    out.append("\n".join(lines))
    for k, d in enumerate(points):
        v = voi if k == 0 else value_of_information(ds, at={"demand": d}, among=among)
        out.append("")
        out.append(_voi_markdown(v, ds, top))
    return "\n".join(out) + "\n"


def _voi_markdown(voi: VoiResult, ds: xr.Dataset, top: int) -> str:
    at = _at(voi.data.point, ds)
    unit = voi.unit
    singles, groups = voi.ranked(), voi.ranked(True)
    lead = at.strip()
    lines = [f"{lead[:1].upper() + lead[1:] + ', ' if at else ''}{voi.best} is best on average and "
             f"EVPI is {fmt_pm(voi.evpi, voi.evpi_se)}{_u(unit)} (± 95% Monte Carlo error)."]
    if not any(v > 0 for _, v, _ in singles + groups):
        lines.append("The partial EVPI (EVPPI) of every input and every group is 0: no "
                     "assumption, learnt alone, changes the decision in expectation. "
                     "Nothing is worth measuring first at this demand.")
        return " ".join(lines)
    top_g = groups[0] if groups else None
    top_i = singles[0] if singles else None
    if top_g and top_g[1] > 0:
        members = ", ".join(voi.group_members[top_g[0]])
        if top_g[1] > Z95 * top_g[2]:
            lines.append(f"Measure this first: the {top_g[0]} group ({members}), worth "
                         f"{fmt_pm(top_g[1], top_g[2])}{_u(unit)} to know before deciding.")
        else:
            lines.append(f"The largest group value, {top_g[0]} ({members}: "
                         f"{fmt_pm(top_g[1], top_g[2])}{_u(unit)}), is within its Monte Carlo "
                         "error of 0: no group is clearly worth measuring first.")
    if top_i and top_i[1] > 0:
        sure = "" if top_i[1] > Z95 * top_i[2] else ", within its Monte Carlo error of 0"
        lines.append(f"The single input worth most is {top_i[0]} "
                     f"({fmt_pm(top_i[1], top_i[2])}{_u(unit)}{sure}).")
    else:
        lines.append("No single input, learnt alone, is worth anything: only learning "
                     "several together can change the decision.")
    rows = [[name, str(len(voi.group_members[name])), fmt_pm(v, s), _share(v, voi.evpi)]
            for name, v, s in groups]
    table = _md_table(["group", "inputs", f"EVPPI ({unit})", "share of EVPI"], rows)
    rows_i = [[name, fmt_pm(v, s), _share(v, voi.evpi)]
              for name, v, s in singles[:top] if v > 0]
    text = " ".join(lines) + "\n\n" + "\n".join(table)
    if rows_i:
        text += "\n\n" + "\n".join(_md_table(["input", f"EVPPI ({unit})", "share of EVPI"],
                                             rows_i))
    return text


def family_section(ds: xr.Dataset, *, heading: str = "##") -> str:
    """Markdown: does the answer depend on the shape of the distributions?"""
    out = [f"{heading} Does the answer depend on the shape of the distributions?", ""]
    if not _fc_present(ds):
        out.append("The family check was not run for these results "
                   "(`mc-tco run BOOK --family-check`).")
        return "\n".join(out) + "\n"
    swapped = ds.mc_tco.family_swapped
    unchanged = ds.mc_tco.family_unchanged
    rows = family_summary(ds)
    lines = [
        f"The article gives ranges, not shapes. The base sample was rerun with the "
        f"{len(swapped)} bounded inputs swapped among uniform, triangular and PERT over the "
        "same range: all at once (the total effect of the choice) and one at a time (which "
        "input's shape matters), on the same Sobol' points"
        + (f"; {', '.join(unchanged)} kept {'its' if len(unchanged) == 1 else 'their'} "
           "unbounded distribution" if unchanged else "") + "."
    ]
    flips = [r for r in rows if r["flips"]]
    if flips:
        for r in flips:
            lines.append(
                f"**The answer flips with the shape** at {_point_label(ds, r['point'])}: "
                f"P = {fmt_pct(r['book'])} as written, and "
                f"{', '.join(_variant_name(v) for v in r['flips'][:3])} put it on the other "
                "side of 50%.")
    else:
        lines.append("No answer flips: every strategy stays on the same side of 50% at every "
                     "reported demand under every variant.")
    big = max(rows, key=lambda r: r["max"] - r["min"]) if rows else None
    if big and big["max"] > big["min"]:
        mm = big["most_moving"]
        lines.append(
            f"The largest spread is at {_point_label(ds, big['point'])}: P(beats the API) "
            f"from {fmt_pct(big['min'])} ({_variant_name(big['argmin'])}) to "
            f"{fmt_pct(big['max'])} ({_variant_name(big['argmax'])})"
            + ("" if big["book"] in (big["min"], big["max"])
               else f", {fmt_pct(big['book'])} as written")
            + (f"; of the single inputs, {mm[1]}'s shape moves it most "
               f"({_variant_name(mm[0])}: {fmt_pct(mm[2])})." if mm else "."))
    out.append(" ".join(lines))
    header = ["point", "as written", "all uniform", "all triangular", "all PERT",
              "one at a time: range"]
    body = []
    for r in rows:
        if r["min"] == r["max"]:
            continue
        singles = [v for _, _, v in r["singles"]]
        body.append([
            _point_label(ds, r["point"]),
            fmt_pct(r["book"]),
            *(fmt_pct(r["all"].get(f, float("nan"))) for f in ("uniform", "triangular", "pert")),
            f"{fmt_pct(min(singles))} - {fmt_pct(max(singles))}" if singles else "-",
        ])
    out.append("")
    if body:
        out += _md_table(header, body)
    still = _unmoved(ds, rows)
    if still:
        out += ["", f"The same under every variant: {still}."]
    be = _breakeven_rows(ds)
    if be:
        out.append("")
        out += _md_table(["break-even", "variant", "5%", "median", "95%", "share never"],
                         [[n, _variant_name(v), *vals] for n, v, vals in be], "llrrrr")
    out.append("")
    # (its run time stays in the file's attrs: the memo's text depends on the data only)
    out.append("(P in %, from the same base samples as the run.)")
    return "\n".join(out) + "\n"
