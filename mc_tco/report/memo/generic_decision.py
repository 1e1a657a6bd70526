"""The generic memo's value of information at its point (EVPI, EVPPI: the analysis of
:mod:`mc_tco.decision`, worded by its own Markdown renderer) with EVPI along a grid dim, and
the model's declared distributions (e.g. a break-even). See
:mod:`mc_tco.report.memo.generic`."""

from __future__ import annotations

from mc_tco.report.memo import figures as F
from mc_tco.report.memo.fmt import pct_range
from mc_tco.report.memo.generic_context import BANDS, GenericContext, in_unit
from mc_tco.report.memo.generic_figures import evpi_along_figure
from mc_tco.report.memo.render import Block, Figure, Paragraph, Section, Table
from mc_tco.report.memo.shared import decision_section

__all__ = ["section_distributions", "section_voi"]


def section_voi(ctx: GenericContext) -> Section:
    """EVPI and EVPPI at the point, via :mod:`mc_tco.decision`."""
    from mc_tco.decision.information import value_of_information
    from mc_tco.report.words.voi import voi_point_markdown

    def make():
        voi = value_of_information(ctx.ds, at=ctx.point, target=ctx.target,
                                   path=ctx.paths.get("results"))
        return voi_point_markdown(voi, ctx.ds)

    sec = decision_section("What is it worth to know more before deciding?",
                           "value-of-information", make)
    dim = ctx.grid_dim()
    if dim and not _not_computed(sec):
        sec.blocks += _evpi_along(ctx, dim)
    return sec


def _evpi_along(ctx: GenericContext, dim: str) -> list:
    """A sentence and a figure: EVPI along the target's first grid dim, the other dims at
    the point (:func:`mc_tco.decision.information.evpi_along`)."""
    from mc_tco.decision.information import evpi_along, evpi_half_width, file_replicates
    from mc_tco.decision.voi import curve_extremes
    from mc_tco.report.words.common import point_text

    level = ctx.ds.mc_tco.conf_level
    curve = evpi_along(ctx.ds, dim, at=ctx.point, target=ctx.target,
                       path=ctx.paths.get("results"), replicates=file_replicates(ctx.ds),
                       conf_level=level)
    # the half-width the value-of-information section prints: the scrambles' where defined
    half = evpi_half_width(curve, level).values
    curve = curve.assign_coords(evpi_half=(dim, half))
    u, du = curve.attrs.get("units", ""), str(ctx.ds[dim].attrs.get("units", ""))
    y, x = curve.values, curve[dim].values
    ext = curve_extremes(y)
    hi, lo = ext.highest, ext.lowest

    def at(i: int) -> str:
        return f"{dim} {in_unit(x[i], du)}{' ' + du if du and du != '1' else ''}"

    def val(i: int) -> str:
        return f"{in_unit(y[i], u)} ± {in_unit(half[i], u)}"

    rest = point_text({k: v for k, v in ctx.point.items() if k != dim}, ctx.ds)
    text = f"Along {dim}{' (at ' + rest + ')' if rest else ''}, EVPI "
    if hi is None:
        text += f"cannot be estimated at any {dim}."
    elif ext.flat:
        text += (f"is the same at every {dim}: {in_unit(y[hi], u)} ({dim} does not change what "
                 f"is at stake in the choice of {ctx.target}).")
    else:
        assert lo is not None  # None only with highest (CurveExtremes)
        text += (f"is largest at {at(hi)}: {val(hi)} ({curve['best_option'].values[hi]} "
                 f"best on average there), and smallest at {at(lo)}: {val(lo)}. It is largest "
                 "where more is at stake, or where the alternatives are close on average "
                 "and the uncertainty can reverse their order.")
    fig = evpi_along_figure(curve, du, ctx.level, ctx.point.get(dim))
    return [Paragraph(text), Figure("evpi", F.png(fig), f"EVPI along {dim}",
                                    f"Band: ± {ctx.level} Monte Carlo error; dotted: the "
                                    "memo's point.")]


def section_distributions(ctx: GenericContext) -> Section | None:
    """The model's declared distributions (e.g. a break-even), at the point."""
    names = [d for d in ctx.ds.mc_tco.distributions if f"{d}_quantile" in ctx.ds]
    if not names:
        return None
    blocks: list[Block] = []
    for d in names:
        q = ctx.ds[f"{d}_quantile"]
        sel = {k: v for k, v in ctx.at(ctx.option).items() if k in q.dims}
        q = q.sel(sel)
        u = str(ctx.ds[d].attrs.get("units", q.attrs.get("units", ""))) if d in ctx.ds else ""
        others = [x for x in q.dims if x != "quantile"]
        groups = [(str(v), q.sel({others[0]: v})) for v in q[others[0]].values] \
            if others else [(d, q)]
        rows = []
        for name, sub in groups:
            row = [name, *[in_unit(float(sub.sel(quantile=lv)), u) for lv in BANDS]]
            if f"{d}_p_never" in ctx.ds:
                pn = ctx.ds[f"{d}_p_never"].sel({k: v for k, v in sel.items()
                                                 if k in ctx.ds[f"{d}_p_never"].dims})
                pci = ctx.ds[f"{d}_p_never_ci"].sel(
                    {k: v for k, v in sel.items() if k in ctx.ds[f"{d}_p_never_ci"].dims})
                if others:
                    pn, pci = pn.sel({others[0]: name}), pci.sel({others[0]: name})
                row.append(pct_range(float(pn), *(float(v) for v in pci.values)))
            rows.append(row)
        header = [str(others[0]) if others else "output", *[f"{lv:.0%}" for lv in BANDS]]
        if f"{d}_p_never" in ctx.ds:
            header.append("P(never)")
        blocks += [Paragraph(f"Quantiles of **{d}**{' (' + u + ')' if u else ''}, which the "
                             "model declares as a distribution (inf: never)."),
                   Table(header, rows, "l" + "r" * (len(header) - 1))]
    return Section("The model's distributions", blocks, "distributions")


def _not_computed(sec: Section) -> bool:
    """Whether ``sec`` (of :func:`~mc_tco.report.memo.shared.decision_section`) says its
    numbers could not be computed."""
    first = sec.blocks[0]
    return isinstance(first, Paragraph) and first.text.startswith("Not computed")
