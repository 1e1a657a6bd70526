"""Why the recommendation is what it is: the gap between two options in cost components,
the components that decide, each tested by a counterfactual.

The gap is the level monthly saving of ``strategy`` against ``against`` (``saving[s] -
saving[against]``, USD/month, per scenario; the API's saving is 0). Its verdict is that
of the decision rule (:mod:`mc_tco.decision.rule`): ``strategy`` beats ``against`` when
the *mean* gap is > 0 (``stat="mean"``, the default, the memo's); ``stat="median"`` reads
the median scenario instead (the memo's "why" used it until the one rule, issue 24: a
verdict in medians beside a recommendation in means named a cost that "decides" the median
while the mean had long been decided).

* **Decomposition.** The model's ``cost_component`` output (buy's level monthly cost in
  nine components that add up to ``cost[buy]``) gives buying's gap against the API exactly
  in means: ``mean(cost[buy]) - mean(cost[api]) = sum_c mean(component_c) - mean(API
  bill)``. Means add up; medians do not: the decomposition is in means, and so is the
  verdict by default.
* **Counterfactual.** "Without X" is *not* the stored saving plus the stored component:
  the components are before the tax they change (engineers are deductible; servers are
  depreciated), and the hybrid's fleet rule reacts to its costs. So every counterfactual
  re-evaluates the model on the stored base rows (:mod:`mc_tco.decision.stored_rows`) with
  the input that makes the component zero (:data:`REMOVALS`; servers at a millionth of a
  dollar, since a node price must be positive), both options recomputed. With the tax
  rate at 0 the re-evaluated removal of buy's staff, power, colocation, upkeep, network or
  storage equals the stored component to rounding (a test pins it), which checks the map.
* **What decides.** A component decides alone when removing it alone flips the verdict.
  When none does, the deciding set is built greedily: remove the component whose
  removal moves the gap's statistic most towards the other verdict, then the next, re-evaluating
  the set together, until the verdict flips (the smallest such set along that order).

"Even without X, ``strategy`` still loses" is printed only when the re-evaluated
counterfactual says so (:meth:`Reason.holds_without`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from mc_tco.decision.costs import median_of
from mc_tco.decision.stored_rows import Rows, stored_rows
from mc_tco.models.tco_inputs import NEVER

__all__ = ["FREE_NODE", "REMOVALS", "STATS", "Reason", "Removal", "derive", "reason",
           "statistic"]

#: the statistics a verdict can be read in
STATS = ("mean", "median")


def statistic(values: np.ndarray, stat: str = "mean") -> float:
    """The mean (or the median, ``inverted_cdf``) of ``values``, NaN left out; NaN when
    nothing is left."""
    if stat not in STATS:
        raise ValueError(f"stat must be one of {STATS}, got {stat!r}")
    v = np.asarray(values, dtype=float).ravel()
    v = v[~np.isnan(v)]
    if not v.size:
        return math.nan
    return float(v.mean()) if stat == "mean" else median_of(xr.DataArray(v))

#: the node price of "free servers" (the model requires a positive price), USD
FREE_NODE = 1e-6
#: each removable cost: the components it removes and the inputs that remove it
REMOVALS: dict[str, tuple[tuple[str, ...], dict[str, float]]] = {
    "staff": (("staff",), {"staff_fte": 0.0}),
    "servers": (("hardware", "network", "upkeep"), {"node_price": FREE_NODE}),
    "storage": (("storage",), {"ssd_price_per_tb": 0.0}),
    "power": (("power",), {"electricity_price": 0.0}),
    "colocation": (("colocation",), {"colocation_per_kw_month": 0.0}),
    "network": (("network",), {"network_capex_fraction": 0.0}),
    "upkeep": (("upkeep",), {"maintenance_fraction": 0.0}),
    "setup_api": (("setup_api",), {"setup_months": 0.0, "stop_month": NEVER}),
    "tax": (("tax",), {"tax_rate": 0.0}),
}


@dataclass(frozen=True)
class Removal:
    """One counterfactual: the gap's statistic (USD/month; the mean, or the median) with
    ``keys`` removed together, and whether ``strategy`` then beats ``against``."""

    keys: tuple[str, ...]
    value: float

    @property
    def wins(self) -> bool:
        """``strategy`` beats ``against`` without ``keys``."""
        return self.value > 0


@dataclass(frozen=True)
class Reason:
    """Why ``strategy`` does (or does not) beat ``against`` at ``demand``.

    ``value`` is the stored gap's statistic ``stat`` (the mean, or the median; USD/month);
    ``ties`` the share of scenarios where
    the gap is exactly 0 (the hybrid that never buys a server is the API); ``components``
    buy's mean cost by component and ``api_bill`` the mean API bill (USD/month; empty
    unless ``strategy`` is buy against the API); ``removals`` each single removal of
    :data:`REMOVALS`; ``decisive`` the removals that decide (:attr:`alone`: each decides
    by itself; else together, with ``joint`` their counterfactual).
    """

    strategy: str
    against: str
    demand: float
    value: float
    ties: float
    removals: dict[str, Removal]
    decisive: tuple[str, ...]
    alone: bool
    joint: Removal | None = None
    components: dict[str, float] = field(default_factory=dict)
    api_bill: float = float("nan")
    stat: str = "mean"

    @property
    def wins(self) -> bool:
        """``strategy`` beats ``against`` (its gap's statistic is > 0)."""
        return self.value > 0

    def holds_without(self, key: str) -> bool:
        """Whether the verdict still holds with ``key`` removed (the counterfactual that
        licenses "even without ...")."""
        return self.removals[key].wins == self.wins

    def top_components(self, n: int = 4) -> list[tuple[str, float]]:
        """The ``n`` largest positive components (mean USD/month), largest first."""
        pos = [(k, v) for k, v in self.components.items() if v > 0]
        return sorted(pos, key=lambda kv: -kv[1])[:n]

    def others(self, n: int = 2) -> list[str]:
        """The ``n`` removals outside :attr:`decisive` that move the gap most towards
        the other verdict (the candidates for "even without ..."; a removal that moves it
        away, such as the tax a loss saves, is not one)."""
        towards = -1.0 if self.wins else 1.0
        keys = [k for k in self.removals
                if k not in self.decisive and towards * self.effect(k) > 0]
        return sorted(keys, key=lambda k: -abs(self.effect(k)))[:n]

    def effect(self, key: str) -> float:
        """How far removing ``key`` moves the gap's statistic (USD/month, > 0: towards
        ``strategy``)."""
        return self.removals[key].value - self.value


def derive(base: np.ndarray, gap_without: Callable[[dict[str, float]], np.ndarray],
           removals: Mapping[str, tuple[tuple[str, ...], dict[str, float]]] = REMOVALS,
           stat: str = "mean") -> tuple[dict[str, Removal], tuple[str, ...], bool, Removal | None]:
    """The counterfactuals and the deciding removals, for any model.

    Parameters
    ----------
    base : ndarray, (n,)
        The gap per scenario as stored.
    gap_without : callable
        ``fixed inputs -> gap per scenario`` (re-evaluated with those inputs).
    removals : mapping
        ``key -> (components, fixed inputs)``.
    stat : {"mean", "median"}
        The statistic of the gap a verdict reads (:func:`statistic`).

    Returns
    -------
    (dict, tuple, bool, Removal or None)
        Each single :class:`Removal`; the deciding keys; whether each decides alone; the
        joint counterfactual of a deciding set (None when they decide alone or nothing
        does).
    """
    med = statistic(base, stat)
    wins = med > 0
    single = {k: Removal((k,), statistic(gap_without(fixed), stat))
              for k, (_, fixed) in removals.items()}
    flips = [k for k, r in single.items() if r.wins != wins]
    towards = -1.0 if wins else 1.0  # the direction that flips the verdict

    def pull(k: str) -> float:
        return towards * (single[k].value - med)

    if flips:
        return single, tuple(sorted(flips, key=lambda k: -pull(k))), True, None
    order = sorted((k for k in removals if pull(k) > 0), key=lambda k: -pull(k))
    chosen: list[str] = []
    fixed: dict[str, float] = {}
    for k in order:
        chosen.append(k)
        fixed.update(removals[k][1])
        joint = Removal(tuple(chosen), statistic(gap_without(dict(fixed)), stat))
        if joint.wins != wins:
            return single, tuple(chosen), False, joint
    return single, (), False, None


def reason(ds: xr.Dataset, demand: float, strategy: str, against: str = "api",
           rows: Rows | None = None, stat: str = "mean") -> Reason:
    """:class:`Reason` of ``strategy`` against ``against`` at ``demand`` (a grid point),
    each counterfactual re-evaluated on the stored base rows, the verdict read in ``stat``
    (the mean: the decision rule's)."""
    from mc_tco.models.tco import STRATEGIES

    rows = rows if rows is not None else stored_rows(ds)
    i, j = STRATEGIES.index(strategy), STRATEGIES.index(against)
    saving = ds["saving"].sel(demand=demand)
    base = (saving.sel(strategy=strategy) - saving.sel(strategy=against)).values

    def gap_without(fixed: dict[str, float]) -> np.ndarray:
        s = rows.evaluate(demand, fixed, ("saving",))["saving"]
        return s[:, i] - s[:, j]

    single, decisive, alone, joint = derive(base, gap_without, stat=stat)
    comps: dict[str, float] = {}
    bill = float("nan")
    if strategy == "buy" and against == "api" and "cost_component" in ds:
        c = ds["cost_component"].sel(demand=demand)
        comps = {str(k): float(c.sel(component=k).mean()) for k in c["component"].values}
        bill = float(ds["cost"].sel(demand=demand, strategy="api").mean())
    return Reason(strategy, against, float(demand), statistic(base, stat),
                  float(np.mean(base == 0)), single, decisive, alone, joint, comps, bill, stat)
