"""The generic memo's section "What drives the answer?": the inputs ranked by their Sobol'
indices (and Shapley effects) for every target at the memo's point, and the tornado of the
focus target. See :mod:`mc_tco.report.memo.generic`."""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.report.fmt import tokens
from mc_tco.report.memo import figures as F
from mc_tco.report.memo.generic_context import GenericContext, pm
from mc_tco.report.memo.generic_figures import tornado_generic_figure
from mc_tco.report.memo.render import Block, Figure, Paragraph, Section, Table

__all__ = ["ranking_table", "section_ranking"]


def ranking_table(ctx: GenericContext) -> tuple[Paragraph, Table, xr.Dataset, np.ndarray]:
    """The ranking of ``ctx.target``'s inputs at the point (for ``ctx.option``).

    Returns
    -------
    Paragraph, Table
        What the table shows and who comes first; one row per input with its rank, the
        ranks its interval allows, ST and S1 (± half-width, unit 1), the Shapley effect
        when the file has it, and the ST of 'target > 0' when both sides have enough
        scenarios.
    xr.Dataset
        ``ds.mc_tco.ranking`` at the point (``ST``, ``ST_conf``, ... over ``input``).
    np.ndarray
        The target's samples at the point (sample,), in its unit.
    """
    from mc_tco.decision.indices import rank_intervals
    from mc_tco.decision.shares import MIN_EVENTS, positive_count, rare_indicator

    at = ctx.at(ctx.option)
    # a run estimates its Shapley effects at the report points only (--shapley-at report)
    missing = "shapley" in ctx.ds and ctx.ds.mc_tco.shapley_point(**at) != ctx.ds.mc_tco.point(
        **at)
    # the file's rule (ds.mc_tco.ranking_index); ST where it ranks no single input here
    st_here = missing or ctx.ds.mc_tco.ranking_index in ("ST_group", "none")
    r = ctx.ds.mc_tco.ranking(ctx.target, index="ST" if st_here else None, **at)
    index = r.attrs["index"]
    rank, best, worst = rank_intervals(r[index].values, r[f"{index}_conf"].values)
    ind = f"{ctx.target}>0"
    y = ctx.ds[ctx.target].sel({k: v for k, v in at.items()
                                if k in ctx.ds[ctx.target].dims}).values
    k, n = positive_count(y)
    show_ind = not rare_indicator(k, n)
    if show_ind:
        ri = ctx.ds.mc_tco.ranking(ind, index="ST", **at)  # its ST column
    header = ["rank", "input", "possible ranks", "ST", "S1"]
    has_shapley = "shapley" in r and not missing
    if has_shapley:
        header.append("Shapley")
    if show_ind:
        header.append(f"ST of '{ctx.label()}'")
    rows = []
    for j, name in enumerate(map(str, r["input"].values)):
        sel = r.sel(input=name)
        row = [str(rank[j]), name, f"{best[j]}-{worst[j]}" if best[j] != worst[j]
               else str(best[j]), pm(float(sel["ST"]), float(sel["ST_conf"])),
               pm(float(sel["S1"]), float(sel["S1_conf"]))]
        if has_shapley:
            row.append(pm(float(sel["shapley"]), float(sel["shapley_conf"])))
        if show_ind:
            s = ri.sel(input=name)
            row.append(pm(float(s["ST"]), float(s["ST_conf"])))
        rows.append(row)
    top = [str(n) for n, b in zip(r["input"].values, best, strict=True) if b == 1]
    by = "Shapley effect" if index == "shapley" else "total Sobol' index ST"
    words = (f"Ranked by {by}"
             f" of {_who(ctx)}{' at ' + ctx.where if ctx.where else ''}: the share of its "
             "variance each input explains (ST with its interactions, S1 alone), ± the "
             f"half-width of its {ctx.level} interval. ")
    words += (f"**{top[0]}** comes first, clearly." if len(top) == 1 else
              f"{', '.join(top)} could each be first: their intervals overlap.")
    if missing:
        words += (f" The run estimated its Shapley effects at {ctx.ds.mc_tco.shapley_where()}"
                  " only, not at this "
                  "point: rerun with --shapley-at grid to rank by them here.")
    if not show_ind:
        from mc_tco.decision.targets import rare_ranking

        flag = rare_ranking(ctx.ds, ind, ctx.ds.mc_tco.point(**at))
        near = flag["nearest_demand"] if flag else None
        words += (f" The indices of '{ctx.label()}' are not shown: {min(k, n - k):,} "
                  f"scenarios on its rarer side, fewer than {MIN_EVENTS}"
                  + (f"; the nearest demand with enough is {tokens(near)}"
                     if near is not None else "") + ".")
    return Paragraph(words), Table(header, rows, "rlr" + "r" * (len(header) - 3)), r, y


def _who(ctx: GenericContext) -> str:
    return f"{ctx.target} of {ctx.option}" if ctx.option else ctx.target


def section_ranking(ctx: GenericContext) -> Section:
    """The inputs ranked for every target, and the tornado of the focus target."""
    from mc_tco.decision.tornado import tornado_swing

    words, table, r, y = ranking_table(ctx)
    blocks: list[Block] = [words, table]
    x = ctx.ds["input_value"].transpose("sample", "input").values
    sw = tornado_swing(y, x, ctx.ds["input"].values, conf_level=ctx.ds.mc_tco.conf_level,
                       units=ctx.unit)
    ctx.tornado = sw
    title = f"Median {_who(ctx)}, one input at its low or high end"
    fig = tornado_generic_figure(sw, r, ctx.target, ctx.unit, title)
    blocks.append(Figure("tornado", F.png(fig), title,
                         "Each input's lowest and highest 10% of scenarios, the others "
                         "keeping their spread; right: its ST."))
    for t in ctx.targets[1:]:
        words, table, _, _ = ranking_table(ctx.for_target(t))
        blocks += [Paragraph(f"**{t}**: {words.text}"), table]
    if len(ctx.targets) > 1:
        other = ctx.targets[1]
        blocks.append(Paragraph(
            f"The scenario discovery, the value of information and the family check below "
            f"are for **{ctx.target}**, the focus target (set `[analysis] focus = "
            f"{{ target = \"{other}\" }}` in the book to put {other} first)."))
    return Section("What drives the answer?", blocks, "drivers")
