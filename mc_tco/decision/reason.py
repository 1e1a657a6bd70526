"""Why the recommendation is what it is: the gap between two options in cost components,
the components that decide, each tested by a counterfactual.

The gap is the level monthly saving of ``strategy`` against ``against`` (``saving[s] -
saving[against]``, USD/month, per scenario; the API's saving is 0). Its verdict is that
of the median scenario: ``strategy`` beats ``against`` there when the median gap is > 0.

* **Decomposition.** The model's ``cost_component`` output (buy's level monthly cost in
  nine components that add up to ``cost[buy]``) gives buying's gap against the API exactly
  in means: ``mean(cost[buy]) - mean(cost[api]) = sum_c mean(component_c) - mean(API
  bill)``. Means add up; medians do not, so the decomposition is in means and the verdict
  in medians.
* **Counterfactual.** "Without X" is *not* the stored saving plus the stored component:
  the components are before the tax they change (engineers are deductible; servers are
  depreciated), and the hybrid's fleet rule reacts to its costs. So every counterfactual
  re-evaluates the model on the stored base rows (:mod:`mc_tco.decision.stored_rows`) with
  the input that makes the component zero (:data:`REMOVALS`; servers at a millionth of a
  dollar, since a node price must be positive), both options recomputed. With the tax
  rate at 0 the re-evaluated removal of buy's staff, power, colocation, upkeep, network or
  storage equals the stored component to rounding (a test pins it), which checks the map.
* **What decides.** A component decides alone when removing it alone flips the median
  verdict. When none does, the deciding set is built greedily: remove the component whose
  removal moves the median gap most towards the other verdict, then the next, re-evaluating
  the set together, until the verdict flips (the smallest such set along that order).

"Even without X, ``strategy`` still loses" is printed only when the re-evaluated
counterfactual says so (:meth:`Reason.holds_without`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from mc_tco.decision.costs import median_of
from mc_tco.decision.stored_rows import Rows, stored_rows
from mc_tco.models.tco_inputs import NEVER

__all__ = ["FREE_NODE", "REMOVALS", "Reason", "Removal", "derive", "reason"]

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
    """One counterfactual: the median gap (USD/month) with ``keys`` removed together, and
    whether ``strategy`` then beats ``against`` in the median scenario."""

    keys: tuple[str, ...]
    median: float

    @property
    def wins(self) -> bool:
        """``strategy`` beats ``against`` in the median scenario without ``keys``."""
        return self.median > 0


@dataclass(frozen=True)
class Reason:
    """Why ``strategy`` does (or does not) beat ``against`` at ``demand``.

    ``median`` is the stored median gap (USD/month); ``ties`` the share of scenarios where
    the gap is exactly 0 (the hybrid that never buys a server is the API); ``components``
    buy's mean cost by component and ``api_bill`` the mean API bill (USD/month; empty
    unless ``strategy`` is buy against the API); ``removals`` each single removal of
    :data:`REMOVALS`; ``decisive`` the removals that decide (:attr:`alone`: each decides
    by itself; else together, with ``joint`` their counterfactual).
    """

    strategy: str
    against: str
    demand: float
    median: float
    ties: float
    removals: dict[str, Removal]
    decisive: tuple[str, ...]
    alone: bool
    joint: Removal | None = None
    components: dict[str, float] = field(default_factory=dict)
    api_bill: float = float("nan")

    @property
    def wins(self) -> bool:
        """``strategy`` beats ``against`` in the median scenario."""
        return self.median > 0

    def holds_without(self, key: str) -> bool:
        """Whether the verdict still holds with ``key`` removed (the counterfactual that
        licenses "even without ...")."""
        return self.removals[key].wins == self.wins

    def top_components(self, n: int = 4) -> list[tuple[str, float]]:
        """The ``n`` largest positive components (mean USD/month), largest first."""
        pos = [(k, v) for k, v in self.components.items() if v > 0]
        return sorted(pos, key=lambda kv: -kv[1])[:n]

    def others(self, n: int = 2) -> list[str]:
        """The ``n`` removals outside :attr:`decisive` that move the median gap most towards
        the other verdict (the candidates for "even without ..."; a removal that moves it
        away, such as the tax a loss saves, is not one)."""
        towards = -1.0 if self.wins else 1.0
        keys = [k for k in self.removals
                if k not in self.decisive and towards * self.effect(k) > 0]
        return sorted(keys, key=lambda k: -abs(self.effect(k)))[:n]

    def effect(self, key: str) -> float:
        """How far removing ``key`` moves the median gap (USD/month, > 0: towards
        ``strategy``)."""
        return self.removals[key].median - self.median


def derive(base: np.ndarray, gap_without: Callable[[dict[str, float]], np.ndarray],
           removals: Mapping[str, tuple[tuple[str, ...], dict[str, float]]] = REMOVALS
           ) -> tuple[dict[str, Removal], tuple[str, ...], bool, Removal | None]:
    """The counterfactuals and the deciding removals, for any model.

    Parameters
    ----------
    base : ndarray, (n,)
        The gap per scenario as stored.
    gap_without : callable
        ``fixed inputs -> gap per scenario`` (re-evaluated with those inputs).
    removals : mapping
        ``key -> (components, fixed inputs)``.

    Returns
    -------
    (dict, tuple, bool, Removal or None)
        Each single :class:`Removal`; the deciding keys; whether each decides alone; the
        joint counterfactual of a deciding set (None when they decide alone or nothing
        does).
    """
    med = median_of(xr.DataArray(np.asarray(base, dtype=float)))
    wins = med > 0
    single = {k: Removal((k,), median_of(xr.DataArray(gap_without(fixed))))
              for k, (_, fixed) in removals.items()}
    flips = [k for k, r in single.items() if r.wins != wins]
    towards = -1.0 if wins else 1.0  # the direction that flips the verdict

    def pull(k: str) -> float:
        return towards * (single[k].median - med)

    if flips:
        return single, tuple(sorted(flips, key=lambda k: -pull(k))), True, None
    order = sorted((k for k in removals if pull(k) > 0), key=lambda k: -pull(k))
    chosen: list[str] = []
    fixed: dict[str, float] = {}
    for k in order:
        chosen.append(k)
        fixed.update(removals[k][1])
        joint = Removal(tuple(chosen), median_of(xr.DataArray(gap_without(dict(fixed)))))
        if joint.wins != wins:
            return single, tuple(chosen), False, joint
    return single, (), False, None


def reason(ds: xr.Dataset, demand: float, strategy: str, against: str = "api",
           rows: Rows | None = None) -> Reason:
    """:class:`Reason` of ``strategy`` against ``against`` at ``demand`` (a grid point),
    each counterfactual re-evaluated on the stored base rows."""
    from mc_tco.models.tco import STRATEGIES

    rows = rows if rows is not None else stored_rows(ds)
    i, j = STRATEGIES.index(strategy), STRATEGIES.index(against)
    saving = ds["saving"].sel(demand=demand)
    base = (saving.sel(strategy=strategy) - saving.sel(strategy=against)).values

    def gap_without(fixed: dict[str, float]) -> np.ndarray:
        s = rows.evaluate(demand, fixed, ("saving",))["saving"]
        return s[:, i] - s[:, j]

    single, decisive, alone, joint = derive(base, gap_without)
    comps: dict[str, float] = {}
    bill = float("nan")
    if strategy == "buy" and against == "api" and "cost_component" in ds:
        c = ds["cost_component"].sel(demand=demand)
        comps = {str(k): float(c.sel(component=k).mean()) for k in c["component"].values}
        bill = float(ds["cost"].sel(demand=demand, strategy="api").mean())
    return Reason(strategy, against, float(demand), median_of(xr.DataArray(base)),
                  float(np.mean(base == 0)), single, decisive, alone, joint, comps, bill)
