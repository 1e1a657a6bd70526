"""The numbers behind the memo's "why", "revisit when" and "run the pilot?" sentences at
one demand, gathered once: the derived reason (:mod:`mc_tco.decision.reason`), the
watchable triggers (:func:`mc_tco.decision.triggers.watch_triggers`) and the pilot's EVSI
(:mod:`mc_tco.decision.evsi`), all on the same stored base rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import xarray as xr

from mc_tco.decision.evsi import Pilot, PilotValue, pilot_value
from mc_tco.decision.one_page import page_numbers
from mc_tco.decision.reason import Reason, reason
from mc_tco.decision.stored_rows import stored_rows
from mc_tco.decision.triggers import WatchTrigger, watch_triggers

__all__ = ["Why", "why_numbers"]


@dataclass(frozen=True)
class Why:
    """At ``demand``: the recommended option ``choice`` (cheapest in most scenarios) and
    the best alternative ``best`` (most likely to beat the API); ``reasons`` the gap of
    each option that explains the choice (the best alternative's, then buying's when the
    best alternative is another one: buying is the option whose costs the model splits
    into components); ``triggers`` and ``pilot``."""

    demand: float
    choice: str
    best: str
    reasons: tuple[Reason, ...]
    triggers: tuple[WatchTrigger, ...]
    pilot: PilotValue


def why_numbers(ds: xr.Dataset, demand: float, pilot: Pilot | None = None) -> Why:
    """:class:`Why` at ``demand`` (a grid point of the results)."""
    nums = page_numbers(ds, demand)
    rows = stored_rows(ds)
    shown = [nums.choice] if nums.choice != "api" else [nums.best_self]
    if "buy" not in shown:
        shown.append("buy")
    reasons = tuple(reason(ds, demand, s, "api", rows=rows) for s in shown)
    found = sorted(watch_triggers(ds, demand, rows=rows), key=lambda t: not t.found)
    return Why(float(demand), nums.choice, nums.best_self, reasons, tuple(found),
               pilot_value(ds, demand, pilot, rows=rows))
