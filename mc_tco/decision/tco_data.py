"""What the TCO memo reads from a results file, checked once: that it is a run of the TCO
model with every output the memo needs, its decision demand and the demand grid's points.

Nothing here computes a statistic; it checks and selects (:mod:`mc_tco.decision.data`
does the same for the decision analyses of any model).
"""

from __future__ import annotations

import math

import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.results import points
from mc_tco.results.points import match_point, parse_amount

__all__ = [
    "CHOICES",
    "STRATEGIES",
    "TCO_MODEL",
    "TOKENS_PER_USER",
    "check_results",
    "focus_demand",
    "grid_point",
    "is_tco_model",
    "nearest_point",
]

#: tokens a month of one heavy user (the article: "100 million tokens per heavy user")
TOKENS_PER_USER = 1e8

_NEEDED = (
    "saving", "cost", "breakeven_demand", "cost_component", "gpu_share",
    "storage_to_gpu_ratio", "node_api_revenue_per_hour", "rent_per_node_hour",
    "input_value", "ST", "ST_conf", "S1", "p_positive", "p_positive_ci", "target_quantile",
    "npv", "payback_months", "peak_cash_need", "irr", "investment", "cash_path",
    "cash_by_year", "cost_per_mtok",
)
#: the self-hosting strategies set against the API
STRATEGIES = ("buy", "rent", "reserved", "owned", "hybrid")
#: the strategies a company can choose between (owned GPUs are a different premise)
CHOICES = ("api", "buy", "rent", "reserved", "hybrid")

#: ``model`` attribute of a run of the TCO model
TCO_MODEL = "mc_tco.models.tco:model"


def check_results(ds: xr.Dataset, path: str = "results") -> None:
    """Raise :class:`OptionError` unless ``ds`` holds the TCO model's results.

    The memo reads the outputs of :mod:`mc_tco.models.tco` version 3 (strategies
    api/buy/rent/reserved/owned/hybrid over ``demand``, the target ``saving``, the
    cash-flow outputs, the cash by year and the cost per million tokens); a run of another
    model, or of version 2, cannot be memo'd.
    """
    missing = [v for v in _NEEDED if v not in ds.variables]
    if not missing:
        dims_ok = "demand" in ds.dims and "strategy" in ds.dims
        strategies = set(map(str, ds["strategy"].values)) if "strategy" in ds.coords else set()
        targets = set(map(str, ds["target"].values)) if "target" in ds.coords else set()
        if not dims_ok or not {"api", *STRATEGIES} <= strategies:
            missing = ["the dims demand and strategy (api, buy, rent, reserved, owned, "
                       "hybrid)"]
        elif not {"saving", "saving>0"} <= targets:
            missing = ["the target 'saving'"]
    if missing:
        raise OptionError(
            f"{path}: not a results file of the TCO model (it lacks {', '.join(missing[:4])}); "
            "the memo reads the outputs of mc_tco.models.tco: run a book that uses it with "
            "'mc-tco run BOOK'"
        )


def is_tco_model(ds: xr.Dataset, path: str = "results") -> bool:
    """Whether ``ds`` is a run of the TCO model (the investment memo) or another model's
    (the generic memo). A TCO run that kept only its targets (``--keep-samples targets``)
    lacks what the investment memo reads: an OptionError says to rerun with
    ``--keep-samples all``."""
    run = ds.mc_tco.run
    tco = run.is_tco_model
    if tco and run.keep_samples == "targets":
        book = run.book_path or "BOOK"
        raise OptionError(
            f"{path}: the memo needs every output of every sample, but this run kept only "
            f"its targets (--keep-samples targets); rerun with --keep-samples all: mc-tco run "
            f"{book} -n {run.samples} --seed {run.seed} --keep-samples all"
        )
    return tco


def grid_point(ds: xr.Dataset, demand, option: str = "--demand") -> float:
    """The demand grid value at ``demand`` (``5e11``, ``500B``; one tolerance everywhere:
    :func:`mc_tco.results.points.match_point`), or an OptionError.

    Numbers at a demand are read from the stored grid, never interpolated: a demand that is
    not on the grid must be added to the book (``include``) and the book rerun.
    """
    value = parse_amount(demand, option)
    if not (math.isfinite(value) and value > 0):
        raise OptionError(f"{option} must be a positive number of tokens/month, got {demand}")
    return match_point(ds["demand"].values, value, dim="demand", flag=option,
                       unit=ds["demand"].attrs.get("units", ""))


def focus_demand(ds: xr.Dataset) -> float:
    """The decision demand of the TCO memo: the focus demand of the book the results were
    run from (``[analysis] focus``); when the book's focus names none, the model's shipped
    default (``mc_tco.models.tco.SPEC.focus``, the only place it is written)."""
    demand = ds.mc_tco.focus.get("demand")
    if demand is None:
        from mc_tco.models.tco import SPEC

        demand = SPEC.focus["demand"]
    return float(demand)


def nearest_point(ds: xr.Dataset, demand: float) -> float:
    """The demand grid value nearest ``demand`` on a log scale
    (:func:`mc_tco.results.points.nearest_point`)."""
    return points.nearest_point(ds["demand"].values, demand, points.scale_of("demand"))
