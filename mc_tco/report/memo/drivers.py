"""What drives the answer: the dollar tornado with plain labels (body) and the Sobol'
heat map (appendix)."""

from __future__ import annotations

import math

import xarray as xr

from mc_tco.decision.at_demand import indexed_demands
from mc_tco.decision.costs import median_api_bill
from mc_tco.decision.indices import input_order, sobol_by_demand
from mc_tco.decision.shares import MIN_EVENTS
from mc_tco.report.fmt import number
from mc_tco.report.memo import figures as F
from mc_tco.report.memo import figures_drivers as FD
from mc_tco.report.memo.context import (
    VERB,
    MemoContext,
    _target_words,
    dependence_sentences,
    ranking_sentences,
)
from mc_tco.report.memo.fmt import money, prob, tokens
from mc_tco.report.memo.labels import plain
from mc_tco.report.memo.render import Block, Figure, Paragraph, Section, Table

#: the inputs the heat map shows (the ranking's top ones)
HEAT_ROWS = 15


def section_sobol(ctx: MemoContext) -> Section:
    """Appendix: the Sobol' ranking (table, heat map) behind 'Which assumptions matter'."""
    ds, d, s = ctx.ds, ctx.demand, ctx.strategy
    r = ctx.ranking
    order = input_order(ds, s)
    groups = dict(zip(map(str, ds["input"].values), map(str, ds["input_group"].values),
                      strict=True))
    heat = sobol_by_demand(ds, s)
    own = indexed_demands(ds)
    if own is not None:  # an added demand, or one not estimated (--sobol-at), is no column
        heat = heat.sel(demand=own)
    # the body shows the inputs ranked highest; every input is in sobol_indices.csv
    top_names = {str(v) for v in r.table["input"].values[:HEAT_ROWS]}
    order = [x for x in order if x in top_names]
    st_s, st_i = heat["ST_saving"], heat["ST_indicator"]
    ranked_cols = int(heat["ranked"])
    if ctx.added:
        nearest = [f"These indices are at {tokens(r.demand)}, the nearest demand where the "
                   f"run estimated them, to your {tokens(d)}: they need the design's mixed "
                   "rows, which the results file does not keep, so they are not "
                   "re-estimated at a demand the grid lacks (every other number of the memo "
                   f"is computed at exactly {tokens(d)})."]
    elif r.demand != d:
        nearest = [f"These indices are at {tokens(r.demand)}, the nearest demand where the "
                   f"run estimated its Sobol' indices ({ds.mc_tco.sobol_where()}: the report "
                   "points; rerun with --sobol-at grid for every grid point); every other "
                   f"number of the memo is at {tokens(d)}."]
    else:
        nearest = []
    blocks: list[Block] = [Paragraph(" ".join(ranking_sentences(r, ctx.n, ctx.level)
                                 + nearest + dependence_sentences(ctx)))]
    shapley = _shapley_table(ctx)
    if shapley is not None:
        blocks.append(shapley)
    rows = []
    t = r.table
    for name in [str(v) for v in t["input"].values][:10]:
        row = t.sel(input=name)
        rank, best, worst = int(row["rank"]), int(row["rank_best"]), int(row["rank_worst"])
        rows.append([
            str(rank), f"{best}-{worst}" if best != worst else str(best),
            f"{plain(name)} (`{name}`)",
            groups.get(name, "") or "-",
            f"{float(row['ST']):.3f} ± {float(row['ST_conf']):.3f}",
            f"{float(row['S1']):.3f} ± {float(row['S1_conf']):.3f}",
        ])
    blocks.append(Table(
        ["rank", "possible ranks", "input", "group", f"ST ± {ctx.level}",
         f"S1 ± {ctx.level}"], rows, "rrllrr",
        caption=f"Top inputs for {_target_words(r)} at {tokens(r.demand)}. 'Possible ranks': "
                "the ranks"
                " its interval allows against the others' (overlapping intervals can swap)."
    ))
    blocks.append(Figure(
        "sobol_heatmap", F.png(FD.sobol_heatmap(st_s, st_i, order, groups, demand=d,
                                               strategy=VERB[s],
                                               labels={n: plain(n) for n in order},
                                               correlated=bool(ds.mc_tco.correlations))),
        "Which inputs drive the outcome, by demand",
        f"Total Sobol' index ST of each input (rows, grouped by the book's groups, most "
        f"influential first) at every demand where the run estimated it (columns): left "
        f"for the monthly saving of {VERB[s]}, right for 'beats the API'. Hatched cells are "
        f"not ranked: fewer than {MIN_EVENTS} scenarios win (or lose) there; {ranked_cols} "
        f"of {heat.sizes['demand']} demands can be ranked for the indicator. The "
        f"{len(order)} inputs ranked highest at {tokens(r.demand)} are shown; every input is in "
        "sobol_indices.csv."
    ))
    return Section("Sobol' indices: which inputs drive the outcome", blocks, "sobol")


def _shapley_table(ctx: MemoContext) -> Table | None:
    """The ranking by Shapley effects (the one that is a share when the book correlates
    inputs, as ``mc-tco run`` prints it), or None for independent inputs."""
    ds, r = ctx.ds, ctx.ranking
    if "shapley" not in ds or not ds.mc_tco.correlations:
        return None
    at = ds.mc_tco.shapley_point(demand=r.demand, strategy=r.strategy)
    ranked = ds.mc_tco.ranking(r.target, index="shapley", **at)
    rows = []
    for i, name in enumerate(map(str, ranked["input"].values[:10]), 1):
        row = ranked.sel(input=name)
        rows.append([str(i), f"{plain(name)} (`{name}`)",
                     f"{float(row['shapley']):.3f} ± {float(row['shapley_conf']):.3f}"])
    return Table(["rank", "input", f"Shapley effect ± {ctx.level}"], rows, "rlr",
                 caption=f"The ranking of {_target_words(r)} at {tokens(at['demand'])} "
                         "by Shapley effects: each input's share of the variance, the "
                         "correlations included (the effects sum to 1). This is the "
                         "ranking to read; the ST table below describes each input moved "
                         "on its own.")


def _tornado_labels(ctx: MemoContext, tor: xr.Dataset) -> dict[str, str]:
    """'plain label (low - high unit)' per input of the tornado."""
    units = dict(zip(map(str, ctx.ds["input"].values),
                     map(str, ctx.ds["input_unit"].values), strict=True)) \
        if "input_unit" in ctx.ds.coords else {}
    out = {}
    for name in map(str, tor["input"].values):
        lo, hi = (float(tor[k].sel(input=name)) for k in ("low_value", "high_value"))
        unit = units.get(name, "")
        if unit == "1/year":
            out[name] = f"{plain(name)}: {lo:+.0%} to {hi:+.0%} a year"
            continue
        unit = "" if unit in ("1", "") else " " + unit
        out[name] = f"{plain(name)}: {_compact(lo)} to {_compact(hi)}{unit}"
    return out


def _compact(v: float) -> str:
    """A value of an input for a label: '500M', '1.4B', '173k', '5,000', '0.63'."""
    return number(float(v), 3, k_from=1e4)


def section_drivers(ctx: MemoContext) -> Section:
    """Which assumptions move the gap most, in dollars (details in Appendix A)."""
    d, s = ctx.demand, ctx.strategy
    tor = ctx.tornado
    labels = _tornado_labels(ctx, tor)
    top = str(tor["input"].values[0])
    sw = tor.sel(input=top)
    lo, hi = sw["swing_ci"].values
    swing = float(sw["swing"])
    direction = "raises" if swing > 0 else "lowers"
    # its interval, as the caption's, a year: of the size where it keeps the swing's sign
    if (lo > 0 and hi > 0) or (lo < 0 and hi < 0):
        a, b = sorted((abs(12 * lo), abs(12 * hi)))
        band = (f" ({ctx.level} bootstrap interval {money(a, digits=3)} to "
                f"{money(b, ' a year', digits=3)})")
    else:
        band = (f" ({ctx.level} bootstrap interval of the change {money(12 * lo, digits=3)} "
                f"to {money(12 * hi, ' a year', digits=3)}: it may not move it at all)")
    blocks: list[Block] = [Paragraph(
        f"The assumption that moves the gap between {VERB[s]} and the API most, in dollars, "
        f"is the {labels[top]}; from its low to its high end it {direction} the median "
        f"saving of {VERB[s]} by {money(abs(12 * swing), ' a year', digits=3)}{band}. The chart "
        "shows the twelve largest such swings; the variance-based ranking ("
        + ("Shapley effects, as the book correlates inputs" if ctx.ds.mc_tco.correlations
           else "Sobol' indices") + ") is in Appendix A."
    )]
    blocks.append(Figure(
        "tornado", F.png(FD.tornado_figure(tor, ctx.ranking.table, target_label=(
            "indicator" if ctx.ranking.by_indicator else "saving"), labels=labels,
            level=ctx.level, correlated=bool(ctx.ds.mc_tco.correlations))),
        f"What moves the saving of {VERB[s]} at {tokens(d)}",
        f"The median monthly saving of {VERB[s]} among the 10% of "
        f"scenarios where an assumption is lowest (around its 5% quantile) and the 10% where "
        f"it is highest (around 95%), the others left uncertain; linear dollar axis. The "
        f"largest swing is the {plain(top)}: {money(swing, '/month', digits=3)} from its low "
        "to its high "
        f"end ({ctx.level} bootstrap interval {money(lo, '', digits=3)} to "
        f"{money(hi, '', digits=3)})."
        + (f" The ST panel is at {tokens(ctx.rank_demand)}, the nearest demand where the "
           "run estimated its Sobol' indices." if ctx.rank_demand != d else "")
    ))
    blocks.append(Paragraph(_appendix_pointers(ctx)))
    return Section("Which assumptions matter", blocks, "drivers")


def _appendix_pointers(ctx: MemoContext) -> str:
    """One plain sentence each for the appendix's analyses, with the EVPI at your demand."""
    from mc_tco.decision.information import evpi_by_demand, evpi_half_width, file_replicates

    d = ctx.demand
    curve = evpi_by_demand(ctx.ds, replicates=file_replicates(ctx.ds))
    evpi = float(curve.sel(demand=d))
    # with its Monte Carlo error, as Appendix C gives it (the scrambles' half-width)
    half = float(evpi_half_width(curve).sel(demand=d))
    err = (f" (± {money(12 * half, digits=2)}, {ctx.level} Monte Carlo error)"
           if math.isfinite(half) and half > 0 else "")
    api_year = 12 * median_api_bill(ctx.ds, d)
    if evpi * 12 < 0.01 * api_year:
        voi = (f"knowing every assumption exactly before deciding would be worth about "
               f"{money(12 * evpi, ' a year', digits=3)}{err} on average, under 1% of the API "
               "bill: no study or pilot can change this answer at this volume")
    else:
        voi = (f"knowing every assumption exactly before deciding would be worth about "
               f"{money(12 * evpi, ' a year', digits=3)}{err} on average "
               f"({prob(12 * evpi / api_year)} of the API bill), the ceiling on what any "
               "study or pilot can be worth; which measurement, if any, is worth its cost "
               "is said there")
    return (f"At {tokens(d)}, {voi} (Appendix C). Appendix B lists the combinations of "
            f"assumptions under which {VERB[ctx.strategy]} wins (scenario discovery); "
            "Appendix D checks whether the answer depends on the shapes chosen for the "
            "distributions.")


