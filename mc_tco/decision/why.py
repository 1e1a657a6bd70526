"""The numbers behind the memo's "why", "revisit when" and "run the pilot?" sentences at
one demand, gathered once: the derived reason (:mod:`mc_tco.decision.reason`), the
watchable triggers (:func:`mc_tco.decision.triggers.watch_triggers`) and the pilot's EVSI
(:mod:`mc_tco.decision.evsi`), all on the same stored base rows.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import xarray as xr

from mc_tco.decision.evsi import Pilot, PilotValue, pilot_value
from mc_tco.decision.reason import Reason, reason
from mc_tco.decision.rule import Decision, decide
from mc_tco.decision.stored_rows import stored_rows
from mc_tco.decision.triggers import WatchTrigger, watch_triggers

__all__ = ["MAX_ROWS", "Why", "pilot_at", "rows_view", "why_numbers"]

#: results computed once per results dataset and key (the memo's body and its Appendix C
#: read the same pilot): id(ds) -> {key: value}, dropped when the dataset is collected
_CACHE: dict[int, dict[tuple, Any]] = {}
#: the most stored scenarios these re-evaluations use: the first ``MAX_ROWS`` samples of a
#: larger file (every scramble equally, as samples interleave them). They re-run the model
#: on the rows for each trigger value and removed cost, so their time and memory grow with
#: the rows; on a 2^18-sample file the memo ran out of memory (23 GB) without this bound.
MAX_ROWS = 16384


def rows_view(ds: xr.Dataset) -> xr.Dataset:
    """``ds``, or its first :data:`MAX_ROWS` samples when it holds more (a lazy view)."""
    return ds if ds.sizes["sample"] <= MAX_ROWS else ds.isel(sample=slice(0, MAX_ROWS))


def _cached(ds: xr.Dataset, key: tuple, make: Callable[[], Any]) -> Any:
    """``make()`` once per live dataset ``ds`` and ``key``."""
    slot = _CACHE.get(id(ds))
    if slot is None:
        slot = _CACHE[id(ds)] = {}
        weakref.finalize(ds, _CACHE.pop, id(ds), None)
    if key not in slot:
        slot[key] = make()
    return slot[key]


def pilot_at(ds: xr.Dataset, demand: float, pilot: Pilot | None = None) -> PilotValue:
    """:func:`mc_tco.decision.evsi.pilot_value` at ``demand``, computed once per results
    dataset (and pilot)."""
    pilot = pilot or Pilot()
    return _cached(ds, ("pilot", float(demand), pilot),
                   lambda: pilot_value(rows_view(ds), demand, pilot))


@dataclass(frozen=True)
class Why:
    """At ``demand``: the recommended option ``choice`` and the best alternative to the
    API ``best`` by the one rule (``decision``, :func:`mc_tco.decision.rule.decide`: the
    largest expected NPV against the API, on the whole file); ``reasons`` the gap of each
    option that explains the choice, its verdict in means as the rule's (the recommended
    or best alternative's, then buying's when that is another one: buying is the option
    whose costs the model splits into components); ``triggers`` and ``pilot``."""

    demand: float
    choice: str
    best: str
    reasons: tuple[Reason, ...]
    triggers: tuple[WatchTrigger, ...]
    pilot: PilotValue
    rows: int = 0  #: the stored scenarios used (:data:`MAX_ROWS` at most)
    scenarios: int = 0  #: the file's
    decision: Decision | None = None


def why_numbers(ds: xr.Dataset, demand: float, pilot: Pilot | None = None) -> Why:
    """:class:`Why` at ``demand`` (a grid point of the results), computed once per
    results dataset, demand and pilot."""
    pilot = pilot or Pilot()
    return _cached(ds, ("why", float(demand), pilot),
                   lambda: _why(rows_view(ds), demand, pilot, ds))


def _why(ds: xr.Dataset, demand: float, pilot: Pilot, whole: xr.Dataset) -> Why:
    # the recommendation and the best alternative are the file's (every scenario: what the
    # summary names), the re-evaluations run on the first MAX_ROWS rows
    dec = decide(whole, demand)
    rows = stored_rows(ds)
    shown = [dec.choice] if dec.choice != "api" else [dec.best_self]
    if "buy" not in shown:
        shown.append("buy")
    reasons = tuple(reason(ds, demand, s, "api", rows=rows) for s in shown)
    found = sorted(watch_triggers(ds, demand, rows=rows), key=lambda t: not t.found)
    return Why(float(demand), dec.choice, dec.best_self, reasons, tuple(found),
               pilot_at(whole, demand, pilot), int(ds.sizes["sample"]),
               int(whole.sizes["sample"]), dec)
