"""The article's five claims (shared/MODEL.md, version 3) evaluated on a results dataset, as numbers
and verdicts: the share of scenarios where each part is true, with its Monte Carlo
interval (:func:`mc_tco.decision.shares.share_with_interval`), the quantiles the evidence
quotes, and the fixed rules that turn shares into verdicts.

The words (the claims' statements, readings and evidence) are the memo's
(:mod:`mc_tco.report.memo.claims`). The verdicts are categories, the values of
:data:`VERDICTS`:

* a part **holds** when it is true in at least :data:`HOLDS_AT` of scenarios, **does not
  hold** when it is true in at most :data:`FAILS_AT`, and **holds only in part** in between;
* a claim holds when all its parts hold, does not hold when none holds or when its
  substantive part fails, and holds only in part otherwise;
* a part is **borderline** when its interval crosses either threshold;
* a part stated at a demand (:data:`CLAIM_DEMANDS`) is read at exactly that demand; a grid
  without it leaves the part, and its claim, **not evaluated**.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import xarray as xr

from mc_tco.decision.breakeven import BreakevenBand, breakeven_band
from mc_tco.decision.shares import Share, share_with_interval
from mc_tco.decision.tco_data import TOKENS_PER_USER
from mc_tco.results.points import point_index

__all__ = [
    "ARTICLE_BAND",
    "BREAKEVEN_SCALE",
    "CLAIM_DEMANDS",
    "DOES_NOT_HOLD",
    "FAILS_AT",
    "FEW_HUNDRED_USERS",
    "HOLDS",
    "HOLDS_AT",
    "HOLDS_IN_PART",
    "NOT_EVALUATED",
    "NOT_TESTABLE",
    "AtDemand",
    "ClaimNumbers",
    "borderline",
    "claim_demand",
    "claim_numbers",
    "claim_verdict",
    "part_verdict",
    "spread",
]

HOLDS = "holds"
HOLDS_IN_PART = "holds only in part"
DOES_NOT_HOLD = "does not hold"
#: a part (and its claim) whose demand is not on the results' grid: no verdict is given
NOT_EVALUATED = "not evaluated"
#: a part with no applicable scenario
NOT_TESTABLE = "not testable"
VERDICTS = (HOLDS, HOLDS_IN_PART, DOES_NOT_HOLD, NOT_EVALUATED, NOT_TESTABLE)

#: a part holds when true in at least this share of scenarios
HOLDS_AT = 0.9
#: a part does not hold when true in at most this share of scenarios
FAILS_AT = 0.1

#: "a few hundred users" (the article) at 100M tokens each: 300 users
FEW_HUNDRED_USERS = 300 * TOKENS_PER_USER
#: the top of the article's break-even band, "~300-500B tokens/month"
BREAKEVEN_SCALE = 5e11
ARTICLE_BAND = (3e11, 5e11)
#: the demands the claims are read at, exactly (the TCO model's spec adds them to every grid)
CLAIM_DEMANDS = (FEW_HUNDRED_USERS, BREAKEVEN_SCALE)


def part_verdict(p: float) -> str:
    """The verdict of a part that is true in a share ``p`` of scenarios."""
    if math.isnan(p):
        return NOT_TESTABLE
    if p >= HOLDS_AT:
        return HOLDS
    if p <= FAILS_AT:
        return DOES_NOT_HOLD
    return HOLDS_IN_PART


def borderline(p: float, lower: float, upper: float) -> bool:
    """Whether the interval ``[lower, upper]`` of a part's share crosses a verdict's
    threshold (:data:`HOLDS_AT`, :data:`FAILS_AT`): more samples could change its verdict."""
    if math.isnan(p):
        return False
    return any(lower <= t <= upper for t in (HOLDS_AT, FAILS_AT))


def claim_verdict(verdicts: list[str], substantive: list[bool] | None = None) -> str:
    """The verdict of a claim from the verdicts of its parts.

    A claim whose substantive part does not hold does not hold, whatever its other parts
    say (a part that is true only because the substance fails cannot rescue it). A claim
    with a part that was not evaluated gets no verdict (:data:`NOT_EVALUATED`).
    """
    substantive = substantive or [False] * len(verdicts)
    if NOT_EVALUATED in verdicts:
        return NOT_EVALUATED
    if any(s and v == DOES_NOT_HOLD for v, s in zip(verdicts, substantive, strict=True)):
        return DOES_NOT_HOLD
    if verdicts and all(v == HOLDS for v in verdicts):
        return HOLDS
    if verdicts and all(v == DOES_NOT_HOLD for v in verdicts):
        return DOES_NOT_HOLD
    return HOLDS_IN_PART


def claim_demand(ds: xr.Dataset, demand: float) -> float | None:
    """The grid value equal to ``demand`` (:func:`mc_tco.results.points.point_index`), or
    None: a claim's demand is read exactly or not at all."""
    grid = np.asarray(ds["demand"].values, dtype=float)
    i = point_index(grid, demand)
    return None if i is None else float(grid[i])


def spread(da: xr.DataArray, qs=(0.05, 0.5, 0.95)) -> tuple[float, ...]:
    """Quantiles ``qs`` of a per-sample quantity over the scenarios (linear), its unit."""
    return tuple(float(v) for v in np.quantile(da.values, qs))


@dataclass(frozen=True)
class AtDemand:
    """Claims 3 and 4 at one claim demand (None everywhere when it is not on the grid).

    ``gpu_over_90``: share where the GPU nodes are over 90% of the investment;
    ``ssd_under_10``: share where the SSDs cost under 10% of the GPUs; ``gpu_share``,
    ``ssd_ratio``: their (5%, 50%, 95%) quantiles (unit 1); ``storage_tb`` the quantiles
    of the KV-cache storage (TB), at the few-hundred-users demand only.
    """

    demand: float
    grid_demand: float | None
    gpu_over_90: Share | None = None
    gpu_share: tuple[float, ...] | None = None
    ssd_under_10: Share | None = None
    ssd_ratio: tuple[float, ...] | None = None
    storage_tb: tuple[float, ...] | None = None


@dataclass(frozen=True)
class ClaimNumbers:
    """Every number the five claims' evaluation reads (:func:`claim_numbers`)."""

    #: claim 1: renting never breaks even, on demand and (version 3) reserved for 12 months
    rent_never: Share
    reserved_never: Share
    #: claims 1 and 5: the API bill of a fully used node is below the rent of its GPUs
    api_below_rent: Share
    #: claim 2: buying does not break even below 300B / breaks even by 500B
    buy_not_below: Share
    buy_by: Share
    buy_breakeven: BreakevenBand
    #: claims 3 and 4 at a few hundred users and at break-even scale
    at_users: AtDemand
    at_scale: AtDemand
    #: claim 5: the API bill of a full node under 100 USD/hour; quantiles (USD/hour)
    api_under_100: Share
    rent_hour: tuple[float, ...]
    api_hour: tuple[float, ...]


def _at(ds: xr.Dataset, demand: float, run, storage: bool) -> AtDemand:
    d = claim_demand(ds, demand)
    if d is None:
        return AtDemand(demand, None)
    share = _share_of(run)
    gpu = ds["gpu_share"].sel(demand=d)
    ratio = ds["storage_to_gpu_ratio"].sel(demand=d)
    tb = spread(ds["storage_tb"].sel(demand=d)) if storage else None
    return AtDemand(demand, d, share(gpu > 0.9), spread(gpu), share(ratio < 0.1),
                    spread(ratio), tb)


def _share_of(run):
    """``event -> Share`` with the interval of the run ``run`` (``ds.mc_tco.run``)."""
    return lambda event: share_with_interval(event, run.conf_level, run.replicates)


def claim_numbers(ds: xr.Dataset) -> ClaimNumbers:
    """The shares and quantiles of the five claims on the scenarios of ``ds``.

    "At a few hundred users" is 300 users x 100M tokens (3e10 tokens/month); "at break-even
    scale" is 500B tokens/month, the top of the article's break-even band. Both are read at
    exactly that demand.
    """
    share = _share_of(ds.mc_tco.run)
    be = ds["breakeven_demand"]
    buy_be = be.sel(strategy="buy")
    api_h = ds["node_api_revenue_per_hour"]
    rent_h = ds["rent_per_node_hour"]
    return ClaimNumbers(
        rent_never=share(np.isinf(be.sel(strategy="rent"))),
        reserved_never=share(np.isinf(be.sel(strategy="reserved"))),
        api_below_rent=share(api_h < rent_h),
        buy_not_below=share(buy_be >= ARTICLE_BAND[0]),
        buy_by=share(buy_be <= ARTICLE_BAND[1]),
        buy_breakeven=breakeven_band(ds, "buy"),
        at_users=_at(ds, FEW_HUNDRED_USERS, ds.mc_tco.run, storage=True),
        at_scale=_at(ds, BREAKEVEN_SCALE, ds.mc_tco.run, storage=False),
        api_under_100=share(api_h < 100),
        rent_hour=spread(rent_h),
        api_hour=spread(api_h),
    )
