"""The generic memo's answer: P(target > 0) for each alternative at the memo's point with
the mean of the target (:func:`answer_blocks`), and how wide the target's range is
(:func:`section_bands`). See :mod:`mc_tco.report.memo.generic`."""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.decision.choice import by_value
from mc_tco.report.memo import figures as F
from mc_tco.report.memo.fmt import pct_range
from mc_tco.report.memo.generic_context import BANDS, GenericContext, in_unit, mean_of, p_of
from mc_tco.report.memo.generic_figures import bands_figure, p_positive_figure
from mc_tco.report.memo.render import Block, Figure, Paragraph, Section, Table

__all__ = ["answer_blocks", "section_bands"]


def _each_option(ctx: GenericContext) -> list[str | None]:
    """The alternatives, or [None] for a model without them."""
    options: list[str | None] = [*ctx.options]
    return options or [None]


def answer_blocks(ctx: GenericContext) -> list:
    """The body of "The answer" (:func:`mc_tco.report.memo.shared.section_answer`):
    P(target > 0) for each alternative at the point, and the best on average."""
    u = ctx.unit
    rows = []
    for opt in _each_option(ctx):
        p, lo, hi = p_of(ctx, opt)
        m, mlo, mhi = mean_of(ctx, opt)
        mean = in_unit(m, u) + (f" ({in_unit(mlo, u)} to {in_unit(mhi, u)})" if np.isfinite(mlo)
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
        cells = [[o or t, pct_range(*p_of(sub, o))] for o in _each_option(sub)]
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
        blocks.append(Figure("p_positive", F.png(fig), f"P({ctx.label()}) along {dim}",
                             f"Shaded: the {ctx.level} Monte Carlo interval; dotted: the "
                             "memo's point."))
    return blocks


def _best_words(ctx: GenericContext) -> str:
    u = ctx.unit
    if not ctx.alt:
        m, lo, hi = mean_of(ctx, None)
        sure = np.isfinite(lo) and (lo > 0 or hi < 0)
        return (f"the expected {ctx.target} is {in_unit(m, u)}{' ' + u if u and u != '1' else ''}"
                f": **{'act' if m > 0 else 'do not act'}** on average"
                + ("" if sure or not np.isfinite(lo) else
                   f" (its {ctx.level} Monte Carlo interval reaches both signs: the sample "
                   "cannot tell)"))
    means = {o: mean_of(ctx, o) for o in ctx.options}
    order = by_value({o: means[o][0] for o in ctx.options})
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
    u = ctx.unit
    table, q = _bands_table(ctx)
    unit = f", {u}" if u and u != "1" else ""
    blocks: list[Block] = [
        Paragraph(f"How far {ctx.target} spreads over the scenarios{unit}: the middle 90% "
                  "lies between the 5% and the 95% quantile. This spread comes from the "
                  "inputs' ranges; the brackets hold each quantile's "
                  f"{ctx.level} Monte Carlo interval (how much it could move with other "
                  "samples)."),
        table,
    ]
    qq = q.rename({ctx.alt: "option"}) if ctx.alt else q
    blocks.append(Figure("bands", F.png(bands_figure(qq, ctx.target, u, ctx.where)),
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
    for opt in _each_option(ctx):
        sel: dict = {ctx.alt: opt} if opt is not None else {}
        cells = []
        for lv in BANDS:
            v = float(q.sel(quantile=lv, **sel))
            text = in_unit(v, u)
            if ci is not None:
                lo, hi = (float(x) for x in ci.sel(quantile=lv, **sel).values)
                if not lo == hi == v:
                    text += f" ({in_unit(lo, u)} to {in_unit(hi, u)})"
            cells.append(text)
        rows.append([opt or ctx.target, *cells])
    return Table(["alternative" if ctx.alt else "output", *[f"{lv:.0%}" for lv in BANDS]], rows,
                 "l" + "r" * len(BANDS)), q
