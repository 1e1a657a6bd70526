"""The generic memo's last sections: scenario discovery and the value of information (the
analyses of :mod:`mc_tco.decision`, worded by their own Markdown renderers), the model's
declared distributions, the provenance, and the CSV tables. See :mod:`.generic`."""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.report.memo.fmt import pct_range
from mc_tco.report.memo.generic import _Q, GenericContext, _v
from mc_tco.report.memo.render import Bullets, Paragraph, Section, Table

__all__ = ["generic_tables", "section_distributions", "section_provenance",
           "section_scenarios", "section_voi"]


def _decision(ctx: GenericContext, what: str, anchor: str, make) -> Section:
    from mc_tco.report.memo.render import markdown_section

    try:
        return markdown_section(make(), anchor)
    except OptionError as exc:
        return Section(what, [Paragraph(f"Not computed: {exc}")], anchor)


def section_scenarios(ctx: GenericContext) -> Section:
    """Scenario discovery (PRIM) at the point, via :mod:`mc_tco.decision`."""
    from mc_tco.decision.discovery import Scenarios, discover
    from mc_tco.report.words.prim import scenario_markdown

    def make():
        first = discover(ctx.ds, strategy=ctx.option, at=ctx.point, target=ctx.target,
                         path=ctx.paths.get("results"))
        s, nearest = first.suggestion, None
        if first.status.startswith("too few") and s:
            nearest = discover(ctx.ds, strategy=ctx.option, target=ctx.target,
                               at={**ctx.point, s["dim"]: s["value"]})
        return scenario_markdown(Scenarios(first, nearest), ctx.ds)

    return _decision(ctx, "Under which conditions?", "scenarios", make)


def section_voi(ctx: GenericContext) -> Section:
    """EVPI and EVPPI at the point, via :mod:`mc_tco.decision`."""
    from mc_tco.decision.information import value_of_information
    from mc_tco.report.words.voi import voi_point_markdown

    def make():
        voi = value_of_information(ctx.ds, at=ctx.point, target=ctx.target,
                                   path=ctx.paths.get("results"))
        return voi_point_markdown(voi, ctx.ds)

    sec = _decision(ctx, "What is it worth to know more before deciding?",
                    "value-of-information", make)
    dim = ctx.grid_dim()
    if dim and not sec.blocks[0].text.startswith("Not computed"):
        sec.blocks += _evpi_along(ctx, dim)
    return sec


def _evpi_along(ctx: GenericContext, dim: str) -> list:
    """A sentence and a figure: EVPI along the target's first grid dim, the other dims at
    the point (:func:`mc_tco.decision.information.evpi_along`)."""
    from mc_tco.decision.information import evpi_along, file_replicates
    from mc_tco.report.memo import figures as F
    from mc_tco.report.memo.generic_figures import evpi_along_figure
    from mc_tco.report.memo.render import Figure
    from mc_tco.report.words.common import point_text
    from mc_tco.uncertainty.scrambles import z_value

    level = ctx.ds.mc_tco.conf_level
    curve = evpi_along(ctx.ds, dim, at=ctx.point, target=ctx.target,
                       path=ctx.paths.get("results"), replicates=file_replicates(ctx.ds),
                       conf_level=level)
    z = z_value(level)
    # the half-width the value-of-information section prints: the scrambles' where defined
    half = z * curve["evpi_se"].values
    if "evpi_lower" in curve.coords:
        rq = (curve["evpi_upper"].values - curve["evpi_lower"].values) / 2
        half = np.where(np.isfinite(rq), rq, half)
    curve = curve.assign_coords(evpi_half=(dim, half))
    u, du = curve.attrs.get("units", ""), str(ctx.ds[dim].attrs.get("units", ""))
    y, x = curve.values, curve[dim].values
    hi, lo = int(np.argmax(y)), int(np.argmin(y))

    def at(i: int) -> str:
        return f"{dim} {_v(x[i], du)}{' ' + du if du and du != '1' else ''}"

    def val(i: int) -> str:
        return f"{_v(y[i], u)} ± {_v(half[i], u)}"

    rest = point_text({k: v for k, v in ctx.point.items() if k != dim}, ctx.ds)
    text = f"Along {dim}{' (at ' + rest + ')' if rest else ''}, EVPI "
    if np.allclose(y, y[hi], rtol=1e-9, atol=0):
        text += (f"is the same at every {dim}: {_v(y[hi], u)} ({dim} does not change what "
                 f"is at stake in the choice of {ctx.target}).")
    else:
        text += (f"is largest at {at(hi)}: {val(hi)} ({curve['best_option'].values[hi]} "
                 f"best on average there), and smallest at {at(lo)}: {val(lo)}. It is largest "
                 "where more is at stake, or where the alternatives are close on average "
                 "and the uncertainty can reverse their order.")
    fig = evpi_along_figure(curve, du, ctx.level, ctx.point.get(dim))
    return [Paragraph(text), Figure("evpi", F.to_png(fig), f"EVPI along {dim}",
                                    f"Band: ± {ctx.level} Monte Carlo error; dotted: the "
                                    "memo's point.")]


def section_distributions(ctx: GenericContext) -> Section | None:
    """The model's declared distributions (e.g. a break-even), at the point."""
    names = [d for d in ctx.ds.mc_tco.distributions if f"{d}_quantile" in ctx.ds]
    if not names:
        return None
    blocks = []
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
            row = [name, *[_v(float(sub.sel(quantile=lv)), u) for lv in _Q]]
            if f"{d}_p_never" in ctx.ds:
                pn = ctx.ds[f"{d}_p_never"].sel({k: v for k, v in sel.items()
                                                 if k in ctx.ds[f"{d}_p_never"].dims})
                pci = ctx.ds[f"{d}_p_never_ci"].sel(
                    {k: v for k, v in sel.items() if k in ctx.ds[f"{d}_p_never_ci"].dims})
                if others:
                    pn, pci = pn.sel({others[0]: name}), pci.sel({others[0]: name})
                row.append(pct_range(float(pn), *(float(v) for v in pci.values)))
            rows.append(row)
        header = [others[0] if others else "output", *[f"{lv:.0%}" for lv in _Q]]
        if f"{d}_p_never" in ctx.ds:
            header.append("P(never)")
        blocks += [Paragraph(f"Quantiles of **{d}**{' (' + u + ')' if u else ''}, which the "
                             "model declares as a distribution (inf: never)."),
                   Table(header, rows, "l" + "r" * (len(header) - 1))]
    return Section("The model's distributions", blocks, "distributions")


def section_provenance(ctx: GenericContext) -> Section:
    from mc_tco.report.memo.provenance import provenance_rows

    rows = provenance_rows(ctx.ds.mc_tco.run, results=ctx.paths.get("results", ""),
                           level=ctx.level, created=ctx.created, model=True)
    return Section("Provenance", [
        Table(["", ""], rows, "ll"),
        Paragraph(f"Regenerate this memo with: `{ctx.command}`" if ctx.command else
                  "Regenerate the results with `mc-tco run` and the memo with `mc-tco memo`."),
        Bullets([
            "Every number above is read from the results file: the memo never re-runs the "
            "model.",
            "The claims, the cost breakdown and the break-even of the TCO memo need the TCO "
            "model's outputs; a model that declares per-sample distributions has them "
            "summarised above.",
            "The tables are also in the CSV files next to this memo.",
        ]),
    ], "provenance")


def generic_tables(ctx: GenericContext) -> dict[str, str]:
    """The memo's CSV tables over the whole grid (file name -> text): P(target > 0) with
    its interval, the quantiles, the Sobol' indices, the tornado at the point and, with a
    family check, P(target > 0) under each variant with its interval and the paired
    change's."""
    ds = ctx.ds
    names = ds.mc_tco.targets
    ind = [f"{t}>0" for t in names]
    ci = ds["p_positive_ci"].sel(target=ind)
    frames = {
        "p_positive": xr.Dataset({"p": ds["p_positive"].sel(target=ind),
                                  "lower": ci.sel(ci_bound="lower", drop=True),
                                  "upper": ci.sel(ci_bound="upper", drop=True)}),
        "quantiles": ds[["target_quantile"]].sel(target=names),
        "sobol_indices": ds[[v for v in ("ST", "ST_conf", "S1", "S1_conf", "shapley",
                                         "shapley_conf") if v in ds]],
    }
    if "family_check_p_positive" in ds:
        fci = ds["family_check_p_positive_ci"].sel(target=ind)
        cci = ds["family_check_p_positive_change_ci"].sel(target=ind)
        frames["family_check"] = xr.Dataset({
            "p": ds["family_check_p_positive"].sel(target=ind),
            "lower": fci.sel(ci_bound="lower", drop=True),
            "upper": fci.sel(ci_bound="upper", drop=True),
            "change_lower": cci.sel(ci_bound="lower", drop=True),
            "change_upper": cci.sel(ci_bound="upper", drop=True),
            **{k: ds[f"family_check_p_positive_{k}"].sel(target=ind)
               for k in ("fallback", "change_fallback")
               if f"family_check_p_positive_{k}" in ds},
        })
    out = {f"{k}.csv": v.to_dataframe().reset_index() for k, v in frames.items()}
    if ctx.tornado is not None:
        t = ctx.tornado
        df = t.drop_vars(["swing_ci", "ci_bound"]).to_dataframe().reset_index()
        df["swing_lower"] = t["swing_ci"].sel(ci_bound="lower").values
        df["swing_upper"] = t["swing_ci"].sel(ci_bound="upper").values
        out["tornado.csv"] = df
    return {k: v.to_csv(index=False, float_format="%.6g") for k, v in out.items()}
