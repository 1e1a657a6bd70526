"""The memo's appendix of cumulative curves and scatter plots (issue 25, items 2 and 3):
the target's ascending and descending cumulative curves per strategy at the memo's point
with their Monte Carlo band, and the top inputs (by the ranking the run prints) against
the target, winners and losers coloured.

One function of any memo's context (``ctx.ds``, ``ctx.target``, ``ctx.option``,
``ctx.point``, ``ctx.level``: :class:`~mc_tco.report.memo.base.PointMemo`), so the TCO
memo and the generic memo each list it once. Every number comes from
:meth:`ds.mc_tco.cdf <mc_tco.results.accessor.ResultsAccessor.cdf>` and
:meth:`ds.mc_tco.scatter <mc_tco.results.accessor.ResultsAccessor.scatter>`.
"""

from __future__ import annotations

from mc_tco.errors import OptionError
from mc_tco.report.fmt import fmt_value
from mc_tco.report.memo import figures as F
from mc_tco.report.memo.figures_cdf import cdf_figure, scatter_figure
from mc_tco.report.memo.fmt import and_list, pct_ci, tokens
from mc_tco.report.memo.render import Block, Figure, Paragraph, Section

__all__ = ["section_curves"]

#: inputs shown in the scatter plots
TOP = 4


def _where(point: dict) -> str:
    parts = [f"{tokens(float(v))} tokens/month" if d == "demand" else
             (f"{d} = {fmt_value(float(v))}" if isinstance(v, float) else f"{d} = {v}")
             for d, v in point.items()]
    return "at " + ", ".join(parts) if parts else ""


def section_curves(ctx) -> Section | None:
    """'Cumulative curves and the top inputs against the target' (None when the file kept
    no per-sample target)."""
    ds, target = ctx.ds, ctx.target
    point = {k: v for k, v in ctx.point.items() if k != ds.mc_tco.alternatives}
    try:
        curves = ds.mc_tco.cdf(target, **point)
    except OptionError:
        return None  # the target's samples were not kept: nothing to draw
    where = _where(curves.attrs["point"])
    unit = curves.attrs.get("units", "")
    blocks: list[Block] = [Paragraph(
        f"The curves below are read from the {ds.sizes['sample']:,} stored scenarios, as "
        "@RISK's cumulative graphs: the ascending curve gives, for each "
        f"amount x, the share of scenarios whose {target} is at most x, the descending one "
        f"the share above it (the chance it exceeds x; at x = 0, the chance of beating "
        f"the baseline). The shaded band around each curve is its {ctx.level} Monte Carlo "
        "interval, point by point, from the spread of the run's independent scrambles: "
        "where the band is narrow, more scenarios would not move the curve.")]
    blocks.append(Figure(
        "cumulative_curves", F.png(cdf_figure(curves, where)),
        f"Cumulative curves of the {target} {where}",
        f"Left: P({target} <= x); right: P({target} > x)"
        + (f", x in {unit}" if unit else "")
        + (f", per {curves.attrs['option_dim']}" if curves.attrs["option_dim"] else "")
        + f", with the {ctx.level} pointwise Monte Carlo band; the dotted line is 0."))
    option = ctx.option
    try:
        sc = ds.mc_tco.scatter(target, strategy=option, top=TOP, **point)
    except OptionError:
        return Section("Cumulative curves and the top inputs against the target", blocks,
                       "curves")
    p, (lo, hi) = float(sc["p_win"]), (float(v) for v in sc["p_win_ci"].values)
    by = {"shapley": "Shapley effect", "ST": "total Sobol' index ST"}.get(
        sc.attrs["ranked_by"], sc.attrs["ranked_by"])
    ranked = sc.attrs["ranking_target"]
    what = (f"'{ranked[:-2]} > 0'" if ranked.endswith(">0") else f"the {ranked} itself")
    names = [f"`{n}`" for n in map(str, sc["input"].values)]
    who = f" of {option}" if option else ""
    blocks.append(Paragraph(
        f"The scatter plots set each of the {len(names)} most influential inputs, ranked "
        f"by their {by} for {what} as the run prints them ({and_list(names)}), against "
        f"the {target}{who}: one dot per scenario, green where the {target} is above "
        f"{fmt_value(float(sc.attrs['threshold']))} ({pct_ci(p, lo, hi, ds.mc_tco.conf_level)} of "
        f"{int(sc['rows']):,} scenarios), grey where it is not. A clear slope or a "
        "green region says where the input decides; a cloud says it matters only with "
        "others."))
    blocks.append(Figure(
        "scatter_top_inputs", F.png(scatter_figure(sc, f"{who.strip()} {where}".strip())),
        f"The top inputs against the {target}{who} {where}",
        f"Each panel: one input's sampled value (x) against the {target} ({unit}) of "
        f"{option or 'the target'}; green: above the dashed line; the title gives the "
        f"input's rank and its {by} with its {ctx.level} half-width."))
    return Section("Cumulative curves and the top inputs against the target", blocks,
                   "curves")
