"""Which scenarios a strategy that may buy no server buys one in (:func:`holds_server`),
and the outputs that mean nothing where it buys none (:data:`INVESTMENT_OUTPUTS`).

The hybrid buys a node only where one pays for itself at the margin; where none does, it
is the API itself: its payback 0 months, its peak cash need 0, its IRR NaN. Read over
every scenario, "P(payback < 24 months)" then counts each of those as a payback (the
hybrid at 500B tokens/month: 67.7%, of which 58 points are scenarios that buy nothing
and so have nothing to pay back); the API's are 0 in every scenario.
:func:`mc_tco.results.targets.p_exceeds` and :func:`mc_tco.results.curves.cdf` leave them
out of these outputs' probabilities and curves and say how many; the memo's time section,
its payback figure and the terminal's payback table read the hybrid over the scenarios
that buy a server (:mod:`mc_tco.decision.timeaxis`).

Here, in the results layer, because the accessor's ``p_exceeds`` needs it and results may
not import :mod:`mc_tco.decision` (which re-exports :func:`holds_server`).
"""

from __future__ import annotations

import xarray as xr

__all__ = ["INVESTMENT_OUTPUTS", "held_mask", "holds_server", "no_server"]

#: outputs of an investment: where the hybrid buys no server they are 0 (or NaN) by
#: definition, not a payback in month 0 or a cash need of 0 that was earned
INVESTMENT_OUTPUTS = ("payback_months", "simple_payback_months", "peak_cash_need",
                      "peak_cash_need_nominal", "irr")

#: the reference, which buys nothing ever: its payback is 0 months in every scenario
REFERENCE = "api"

#: the strategy whose rule may buy no server (every other strategy that self-hosts buys
#: its fleet for the busiest hour, at least one node)
MAY_BUY_NONE = "hybrid"


def _fleet(ds: xr.Dataset) -> xr.DataArray | None:
    """Per scenario and demand, whether the hybrid buys a server: ``hybrid_nodes > 0``
    (its largest fleet), or in an older file without it ``hybrid_served_share > 0`` (a
    node bought during a setup that an event ends before it is done serves nothing: that
    file counts it as no server). None for a file with neither (a user's model)."""
    for name in ("hybrid_nodes", "hybrid_served_share"):
        if name in ds and "sample" in ds[name].dims:
            return ds[name] > 0
    return None


def held_mask(ds: xr.Dataset, strategy: str) -> xr.DataArray | None:
    """Per scenario and demand (sample, demand), whether ``strategy`` buys a server, for a
    strategy that may buy none: the hybrid. None for the other strategies, and for a file
    without the hybrid's fleet."""
    return _fleet(ds) if strategy == MAY_BUY_NONE else None


def holds_server(ds: xr.Dataset, demand: float, strategy: str) -> xr.DataArray | None:
    """:func:`held_mask` at ``demand`` (a grid point): per scenario, whether ``strategy``
    buys a server there (a hybrid with none is the API itself: its payback 0, its peak
    cash need 0, its NPV 0)."""
    mask = held_mask(ds, strategy)
    return None if mask is None else mask.sel(demand=demand)


def no_server(ds: xr.Dataset, target: str, y: xr.DataArray,
              point: dict) -> xr.DataArray | None:
    """Where ``y`` (``ds[target]`` at ``point``) is an investment output
    (:data:`INVESTMENT_OUTPUTS`) of a scenario that buys no server: the hybrid's where its
    rule buys none, and the API's (the reference) in every scenario. A boolean aligned
    with ``y`` (False at every other strategy), or None where there is none to leave out
    (another output, neither strategy, a file without the hybrid's fleet: a user's
    model)."""
    if target not in INVESTMENT_OUTPUTS or "sample" not in y.dims:
        return None
    fleet = _fleet(ds)
    if fleet is None:
        return None
    strategy = point.get("strategy")
    if "strategy" in y.dims:
        names = y["strategy"].values
        if MAY_BUY_NONE not in names and REFERENCE not in names:
            return None
        is_hybrid = y["strategy"] == MAY_BUY_NONE
        is_api = y["strategy"] == REFERENCE
    elif strategy in (MAY_BUY_NONE, REFERENCE):
        is_hybrid = xr.DataArray(strategy == MAY_BUY_NONE)
        is_api = xr.DataArray(strategy == REFERENCE)
    else:
        return None
    if "demand" in point:
        fleet = fleet.sel(demand=point["demand"])
    elif "demand" not in y.dims:
        return None
    return ((~fleet & is_hybrid) | is_api).broadcast_like(y).transpose(*y.dims)
