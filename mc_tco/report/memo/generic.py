"""The memo of any model's results (``mc-tco memo`` on a file not of the TCO model).

What every results file of ``mc-tco run`` holds is enough for a decision memo: the answer
at one grid point (P(target > 0) for each alternative with its Monte Carlo interval, and
the alternative best on average), the bands of the target, the inputs ranked by their
Sobol' indices, a tornado, scenario discovery (PRIM) and the value of information (the
analyses of :mod:`mc_tco.decision` with their Markdown renderers), EVPI along the first
grid dim, the family check when the run made one, the model's declared distributions (e.g.
a break-even) and the provenance. Nothing here re-runs the model.

The memo is :data:`SECTIONS`, functions of a
:class:`~mc_tco.report.memo.generic_context.GenericContext`: the sections every memo has
(:mod:`mc_tco.report.memo.shared`: the answer, the scenarios, the family check, the
provenance) with this memo's words for them, and its own (:mod:`.generic_answer`,
:mod:`.generic_ranking`, :mod:`.generic_decision`, :mod:`.generic_family`).
"""

from __future__ import annotations

import xarray as xr

from mc_tco.report.memo import shared
from mc_tco.report.memo.base import SectionFn, run_sections
from mc_tco.report.memo.generic_answer import answer_blocks, section_bands
from mc_tco.report.memo.generic_context import GenericContext, check_generic, generic_context
from mc_tco.report.memo.generic_decision import section_distributions, section_voi
from mc_tco.report.memo.generic_family import family_blocks
from mc_tco.report.memo.generic_ranking import section_ranking
from mc_tco.report.memo.render import Bullets, Section
from mc_tco.report.memo.sections_curves import section_curves
from mc_tco.report.memo.shared import section_scenarios

__all__ = ["GENERIC_TABLES", "SECTIONS", "GenericContext", "check_generic", "generic_context",
           "generic_sections", "generic_tables"]

#: CSV files of the generic memo (stems), removed from a folder whose new memo lacks them
GENERIC_TABLES = ("p_positive", "quantiles", "sobol_indices", "tornado", "family_check")


def section_answer(ctx: GenericContext) -> Section:
    """P(target > 0) for each alternative at the point, and the best on average."""
    return shared.section_answer(ctx, answer_blocks(ctx))


def section_family(ctx: GenericContext) -> Section | None:
    """The family check at the point (left out without one in the file)."""
    return shared.section_family(ctx, family_blocks(ctx))


def section_provenance(ctx: GenericContext) -> Section:
    """How the results were made, with the model's ``module:function``."""
    return shared.section_provenance(ctx, [Bullets([
        "Every number above is read from the results file: the memo never re-runs the "
        "model.",
        "The claims, the cost breakdown and the break-even of the TCO memo need the TCO "
        "model's outputs; a model that declares per-sample distributions has them "
        "summarised above.",
        "The tables are also in the CSV files next to this memo.",
    ])], model=True)


#: The generic memo, in order.
SECTIONS: list[SectionFn] = [
    section_answer,
    section_bands,
    section_ranking,
    section_scenarios,
    section_voi,
    section_family,
    section_distributions,
    section_curves,
    section_provenance,
]


def generic_sections(ctx: GenericContext) -> list[Section]:
    """The memo's sections, in order (:data:`SECTIONS`, without those left out)."""
    return run_sections(ctx, SECTIONS)


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
