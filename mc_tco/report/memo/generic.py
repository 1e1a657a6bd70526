"""The memo of any model's results (``mc-tco memo`` on a file not of the TCO model).

What every results file of ``mc-tco run`` holds is enough for a decision memo: the answer
at one grid point (P(target > 0) for each alternative with its Monte Carlo interval, and
the alternative best on average), the bands of the target, the inputs ranked by their
Sobol' indices, a tornado, scenario discovery (PRIM) and the value of information (the
analyses of :mod:`mc_tco.decision` with their Markdown renderers), EVPI along the first
grid dim, the family check when the run made one (:mod:`.generic_family`), the model's
declared distributions (e.g. a break-even) and the provenance. Nothing here re-runs the
model.

Every target gets its P(target > 0), bands and ranking; the tornado, PRIM, the value of
information and the family check are for the focus target (``[analysis] focus = { target =
"..." }``, else the first of ``targets``).

The point is the file's focus point; a grid dim without a focus takes ``at`` (``--at
DIM=VALUE``) or the middle of its grid, and the memo says so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.report.fmt import fmt_value
from mc_tco.report.memo.fmt import pct_range
from mc_tco.report.memo.render import Paragraph, Section, Table

__all__ = ["GENERIC_TABLES", "GenericContext", "check_generic", "generic_context",
           "generic_sections", "generic_tables"]

#: CSV files of the generic memo (stems), removed from a folder whose new memo lacks them
GENERIC_TABLES = ("p_positive", "quantiles", "sobol_indices", "tornado", "family_check")
_NEEDED = ("input_value", "p_positive", "p_positive_ci", "target_quantile", "target_mean",
           "ST", "ST_conf", "S1", "S1_conf")
_Q = [0.05, 0.25, 0.5, 0.75, 0.95]


def check_generic(ds: xr.Dataset, path: str = "results") -> None:
    """Raise :class:`OptionError` unless ``ds`` is a results file of ``mc-tco run``."""
    missing = [v for v in _NEEDED if v not in ds.variables]
    if not ds.mc_tco.targets:
        missing.insert(0, "the attribute 'targets'")
    if missing:
        raise OptionError(
            f"{path}: not a results file of 'mc-tco run' (it lacks {', '.join(missing[:4])}); "
            "the memo reads what 'mc-tco run BOOK' writes: run your book with it"
        )


@dataclass
class GenericContext:
    """A results file, its point and what the memo says about which alternative."""

    ds: xr.Dataset
    target: str
    alt: str | None
    options: list[str]
    point: dict
    chosen: list[str]
    option: str | None
    command: str = ""
    paths: dict = field(default_factory=dict)
    created: str = field(
        default_factory=lambda: datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"))
    #: the tornado of :func:`section_ranking` (for its CSV table)
    tornado: xr.Dataset | None = None
    #: every target, the one this context explains (the focus target) first
    targets: list[str] = field(default_factory=list)
    #: grid dims of the stored summaries that the target lacks (its values are the same
    #: along them): the value used to select the summaries, not part of :attr:`where`
    broadcast: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.ds.sizes["sample"])

    @property
    def level(self) -> str:
        return f"{self.ds.mc_tco.conf_level:.0%}"

    @property
    def unit(self) -> str:
        return str(self.ds[self.target].attrs.get("units", ""))

    @property
    def baseline(self) -> str | None:
        return self.ds.mc_tco.baseline

    @property
    def where(self) -> str:
        from mc_tco.report.words.common import point_text

        return point_text(self.point, self.ds)

    def at(self, option: str | None = None) -> dict:
        """The point, with the alternative when there is one."""
        return {**self.broadcast, **self.point,
                **({self.alt: option} if self.alt and option else {})}

    def label(self) -> str:
        return f"{self.target} > 0"

    def grid_dim(self) -> str | None:
        """The target's first numeric grid dim with more than one value (its curves'
        x axis), if any."""
        dims = [d for d in self.ds[self.target].dims if d not in ("sample", self.alt)
                and self.ds.sizes[d] > 1 and np.issubdtype(self.ds[d].dtype, np.number)]
        return dims[0] if dims else None

    def for_target(self, target: str) -> GenericContext:
        """The same point for another target (its own dims, its own best alternative)."""
        if target == self.target:
            return self
        dims = self.ds[target].dims
        here = {**self.broadcast, **self.point}
        return _context(self.ds, target, {k: v for k, v in here.items() if k in dims},
                        self.paths.get("results", "results"), command=self.command,
                        paths=self.paths, created=self.created, targets=self.targets,
                        fill={k: v for k, v in here.items() if k not in dims})


def generic_context(ds: xr.Dataset, *, at: dict | None = None, command: str = "",
                    paths: dict | None = None, created: str | None = None) -> GenericContext:
    """Check ``ds`` and choose the memo's point (focus, ``at``, else the grid's middle) and
    its focus target (``[analysis] focus.target``, else the first target)."""
    paths = dict(paths or {})
    where = paths.get("results", "results")
    check_generic(ds, where)
    targets = ds.mc_tco.targets
    first = ds.mc_tco.focus.get("target")
    if first in targets:  # [analysis] focus = { target = "..." } puts it first
        targets = [first, *(t for t in targets if t != first)]
    at, own = dict(at or {}), ds[targets[0]].dims
    others = {d for t in targets[1:] for d in ds[t].dims}
    fill = {k: at.pop(k) for k in list(at) if k not in own and k in others}
    return _context(ds, targets[0], at, where, command=command, paths=paths,
                    created=created, targets=targets, fill=fill)


def _context(ds: xr.Dataset, target: str, at: dict | None, where: str, *, command: str,
             paths: dict, created: str | None, targets: list[str],
             fill: dict | None = None) -> GenericContext:
    """The context of ``target`` at ``at`` (the focus, else the grid's middle); ``fill``:
    values of the summaries' grid dims that ``target`` lacks (default their first)."""
    from mc_tco.decision.data import decision_spec, select_point

    alt = decision_spec(ds).alternatives
    da = ds[target]
    alt = alt if alt in da.dims else None
    focus = ds.mc_tco.focus
    at = dict(at or {})
    chosen = []
    for dim in da.dims:
        if dim in ("sample", alt) or dim in at:
            continue
        if dim in focus:
            at[dim] = focus[dim]
        elif ds.sizes[dim] > 1:
            at[dim] = ds[dim].values[(ds.sizes[dim] - 1) // 2].item()
            chosen.append(dim)
    point = select_point(ds, da, at, where, alternatives=alt)
    options = [str(v) for v in ds[alt].values] if alt else []
    fill = dict(fill or {})
    for d in ds["target_mean"].dims:
        if d in ("target", alt) or d in point or d in fill:
            continue
        v = focus.get(d)
        fill[d] = v if v is not None else ds[d].values[(ds.sizes[d] - 1) // 2].item()
    broadcast = ds.mc_tco.point(**{d: v for d, v in fill.items()
                                   if d in ds["target_mean"].dims and d not in point})
    ctx = GenericContext(ds, target, alt, options, point, chosen, None, command, paths,
                         targets=list(targets), broadcast=broadcast,
                         **({"created": created} if created else {}))
    ctx.option = _explained(ctx, focus)
    return ctx


def _mean(ctx: GenericContext, option: str | None) -> tuple[float, float, float]:
    sel = {"target": ctx.target, **ctx.at(option)}
    m = float(ctx.ds["target_mean"].sel(sel))
    if "target_mean_ci" in ctx.ds:
        lo, hi = (float(v) for v in ctx.ds["target_mean_ci"].sel(sel).values)
        return m, lo, hi
    return m, np.nan, np.nan


def _explained(ctx: GenericContext, focus: dict) -> str | None:
    """The alternative the ranking, tornado and PRIM explain: the focus one, else the best
    on average that is not the baseline."""
    if not ctx.alt:
        return None
    if str(focus.get(ctx.alt)) in ctx.options and focus.get(ctx.alt) != ctx.baseline:
        return str(focus[ctx.alt])
    others = [o for o in ctx.options if o != ctx.baseline] or ctx.options
    return max(others, key=lambda o: _mean(ctx, o)[0])


def _p(ctx: GenericContext, option: str | None, target: str | None = None):
    p = ctx.ds.mc_tco.p_beats(option, target or ctx.target,
                              **{**ctx.broadcast, **ctx.point})
    return float(p["p"]), float(p["lower"]), float(p["upper"])


def _pm(v: float, c: float) -> str:
    """An index with its half-width: '0.412 ± 0.031'."""
    return "n/a" if not np.isfinite(v) else f"{v:.3f} ± {c:.3f}"


def _v(x: float, unit: str) -> str:
    return fmt_value(float(x), unit)


# ----------------------------------------------------------------------------- sections


def section_answer(ctx: GenericContext) -> Section:
    """P(target > 0) for each alternative at the point, and the best on average."""
    from mc_tco.report.memo import figures as F
    from mc_tco.report.memo.generic_figures import p_positive_figure
    from mc_tco.report.memo.render import Figure

    u = ctx.unit
    rows = []
    for opt in ctx.options or [None]:
        p, lo, hi = _p(ctx, opt)
        m, mlo, mhi = _mean(ctx, opt)
        mean = _v(m, u) + (f" ({_v(mlo, u)} to {_v(mhi, u)})" if np.isfinite(mlo)
                           and not mlo == mhi == m else "")
        name = opt if opt is not None else ctx.target
        rows.append([f"{name} (baseline)" if opt == ctx.baseline and opt else name,
                     pct_range(p, lo, hi), mean])
    unit = f" ({u})" if u and u != "1" else ""
    table = Table(["alternative" if ctx.alt else "output", f"P({ctx.label()})",
                   f"mean {ctx.target}{unit}"], rows, "lrr",
                  f"Each with its {ctx.level} Monte Carlo interval in brackets; "
                  f"{ctx.n:,} scenarios.")
    at = f"At {ctx.where}" if ctx.where else "Over the whole sample"
    if ctx.chosen:
        at += (" (" + ", ".join(f"{d}: the middle of the grid, not a declared focus; choose "
                                f"another with --at {d}=VALUE" for d in ctx.chosen) + ")")
    blocks = [Paragraph(at + ", " + _best_words(ctx) + "."), table]
    if ctx.baseline and ctx.alt:
        blocks.append(Paragraph(
            f"Each alternative's {ctx.target} is measured against the baseline "
            f"**{ctx.baseline}** (its own is "
            f"0): P({ctx.label()}) is the share of scenarios in which an alternative does "
            f"better than {ctx.baseline}."))
    for t in ctx.targets[1:]:
        sub = ctx.for_target(t)
        cells = [[o or t, pct_range(*_p(sub, o))] for o in sub.options or [None]]
        blocks.append(Table(["alternative" if sub.alt else "output", f"P({t} > 0)"], cells,
                            "lr", f"The book's other target {t}"
                            + (f", at {sub.where}." if sub.where else ".")))
    dim = ctx.grid_dim()
    if dim:
        rest = {k: v for k, v in {**ctx.broadcast, **ctx.point}.items() if k != dim}
        p = ctx.ds.mc_tco.p_beats(None, ctx.target, **rest)
        if ctx.alt:
            p = p.rename({ctx.alt: "option"}) if ctx.alt in p.dims else p
        fig = p_positive_figure(p, dim, str(ctx.ds[dim].attrs.get("units", "")),
                                ctx.label(), ctx.level, ctx.point.get(dim))
        blocks.append(Figure("p_positive", F.to_png(fig), f"P({ctx.label()}) along {dim}",
                             f"Shaded: the {ctx.level} Monte Carlo interval; dotted: the "
                             "memo's point."))
    return Section("The answer", blocks, "answer")


def _best_words(ctx: GenericContext) -> str:
    u = ctx.unit
    if not ctx.alt:
        m, lo, hi = _mean(ctx, None)
        sure = np.isfinite(lo) and (lo > 0 or hi < 0)
        return (f"the expected {ctx.target} is {_v(m, u)}{' ' + u if u and u != '1' else ''}"
                f": **{'act' if m > 0 else 'do not act'}** on average"
                + ("" if sure or not np.isfinite(lo) else
                   f" (its {ctx.level} Monte Carlo interval reaches both signs: the sample "
                   "cannot tell)"))
    means = {o: _mean(ctx, o) for o in ctx.options}
    order = sorted(ctx.options, key=lambda o: -means[o][0])
    best, text = order[0], f"**{order[0]}** is best on average"
    if len(order) > 1:
        second = order[1]
        if np.isfinite(means[best][1]) and means[best][1] <= means[second][2]:
            text += (f", but the Monte Carlo intervals of its mean and of {second}'s "
                     "overlap: more samples may reverse them")
        else:
            text += f", ahead of {second}"
    return text


def section_bands(ctx: GenericContext) -> Section:
    """Quantiles of the target for each alternative, with their intervals."""
    from mc_tco.report.memo import figures as F
    from mc_tco.report.memo.generic_figures import bands_figure
    from mc_tco.report.memo.render import Figure

    u = ctx.unit
    table, q = _bands_table(ctx)
    unit = f", {u}" if u and u != "1" else ""
    blocks = [
        Paragraph(f"How far {ctx.target} spreads over the scenarios{unit}: the middle 90% "
                  "lies between the 5% and the 95% quantile. This spread comes from the "
                  "inputs' ranges; the brackets hold each quantile's "
                  f"{ctx.level} Monte Carlo interval (how much it could move with other "
                  "samples)."),
        table,
    ]
    qq = q.rename({ctx.alt: "option"}) if ctx.alt else q
    blocks.append(Figure("bands", F.to_png(bands_figure(qq, ctx.target, u, ctx.where)),
                         f"The range of {ctx.target}",
                         "Quantiles over the scenarios; dashed: 0."))
    for t in ctx.targets[1:]:
        sub = ctx.for_target(t)
        unit = f" ({sub.unit})" if sub.unit and sub.unit != "1" else ""
        blocks += [Paragraph(f"The book's other target **{t}**{unit}"
                             + (f", at {sub.where}:" if sub.where else ":")),
                   _bands_table(sub)[0]]
    names = ctx.targets
    title = (f"How wide is the range of {ctx.target}?" if len(names) == 1 else
             f"How wide are the ranges of {', '.join(names[:-1])} and {names[-1]}?")
    return Section(title, blocks, "bands")


def _bands_table(ctx: GenericContext) -> tuple[Table, xr.DataArray]:
    """The quantiles of ``ctx.target`` per alternative, with their intervals, as a table,
    and the quantiles themselves (quantile and, with alternatives, the alternatives' dim)."""
    u = ctx.unit
    q = ctx.ds["target_quantile"].sel(target=ctx.target, **ctx.at())
    ci = (ctx.ds["target_quantile_ci"].sel(target=ctx.target, **ctx.at())
          if "target_quantile_ci" in ctx.ds else None)
    rows = []
    for opt in ctx.options or [None]:
        sel = {ctx.alt: opt} if opt is not None else {}
        cells = []
        for lv in _Q:
            v = float(q.sel(quantile=lv, **sel))
            text = _v(v, u)
            if ci is not None:
                lo, hi = (float(x) for x in ci.sel(quantile=lv, **sel).values)
                if not lo == hi == v:
                    text += f" ({_v(lo, u)} to {_v(hi, u)})"
            cells.append(text)
        rows.append([opt or ctx.target, *cells])
    return Table(["alternative" if ctx.alt else "output", *[f"{lv:.0%}" for lv in _Q]], rows,
                 "l" + "r" * len(_Q)), q


def generic_sections(ctx: GenericContext) -> list[Section]:
    """The memo's sections, in order (the last ones in :mod:`.generic_more`)."""
    from mc_tco.report.memo import generic_more as M
    from mc_tco.report.memo.generic_family import section_family
    from mc_tco.report.memo.generic_ranking import section_ranking

    sections = [section_answer, section_bands, section_ranking, M.section_scenarios,
                M.section_voi, section_family, M.section_distributions,
                M.section_provenance]
    return [sec for f in sections if (sec := f(ctx)) is not None]


def generic_tables(ctx: GenericContext) -> dict[str, str]:
    """The memo's CSV tables (:func:`mc_tco.report.memo.generic_more.generic_tables`)."""
    from mc_tco.report.memo.generic_more import generic_tables as tables

    return tables(ctx)
