"""What would change the answer, read from a results file: the demand from which a
self-hosting strategy beats the API in most scenarios, and the value of one input beyond
which it does.

Shares are of the stored scenarios (no model run); an input's threshold is found among the
scenarios sorted by that input.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr

from mc_tco.decision.costs import component_input
from mc_tco.decision.one_page import p_beats
from mc_tco.decision.shares import MIN_EVENTS

__all__ = ["DemandTrigger", "InputTrigger", "demand_trigger", "input_trigger"]


@dataclass(frozen=True)
class DemandTrigger:
    """The first grid demand above the decision demand where one of the strategies beats the
    API in at least half the scenarios (``found``), or, when none does, the largest grid
    demand and the strategy closest to it; ``p`` is that strategy's P(beats the API)."""

    found: bool
    demand: float
    strategy: str
    p: float


def demand_trigger(ds: xr.Dataset, demand: float,
                   strategies=("buy", "hybrid")) -> DemandTrigger | None:
    """:class:`DemandTrigger` of ``strategies`` above ``demand``; None when ``demand`` is the
    top of the grid and no larger demand wins."""
    grid = ds["demand"].values
    for d in grid[grid > demand]:
        winners = [s for s in strategies if p_beats(ds, s, d) >= 0.5]
        if winners:
            s = max(winners, key=lambda s: p_beats(ds, s, d))
            return DemandTrigger(True, float(d), s, p_beats(ds, s, d))
    if demand >= grid[-1]:
        return None
    top = max(strategies, key=lambda s: p_beats(ds, s, grid[-1]))
    return DemandTrigger(False, float(grid[-1]), top, p_beats(ds, top, grid[-1]))


@dataclass(frozen=True)
class InputTrigger:
    """The value of an input (its unit) beyond which a strategy beats the API in at least
    half of the scenarios, and the share of the scenarios beyond it (unit 1)."""

    name: str
    value: float
    share_beyond: float
    rising: bool


def input_trigger(ds: xr.Dataset, demand: float, strategy: str, name: str,
                  rising: bool = True, min_events: int = MIN_EVENTS) -> InputTrigger | None:
    """The least extreme value ``x`` of input ``name`` such that among the scenarios with
    the input beyond ``x`` (above when ``rising``, else below; at least ``min_events`` of
    them) ``strategy`` beats the API at ``demand`` in at least half.

    None when the input is not sampled (a constant, or not in the book) or no such value
    exists.
    """
    try:
        x = component_input(ds, name)
    except KeyError:
        return None
    if not isinstance(x, xr.DataArray):
        return None
    win = (ds["saving"].sel(demand=demand, strategy=strategy) > 0).values
    order = np.argsort(-x.values if rising else x.values, kind="stable")
    xs, ws = x.values[order], win[order]
    share = np.cumsum(ws) / np.arange(1, ws.size + 1)  # win rate among the most extreme k
    ok = np.flatnonzero((share >= 0.5) & (np.arange(1, ws.size + 1) >= min_events))
    if ok.size == 0:
        return None
    k = int(ok[-1])
    return InputTrigger(name, float(xs[k]), (k + 1) / ws.size, rising)
