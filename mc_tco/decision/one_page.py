"""The numbers of the one-page summary for a CFO: P10, P50 and P90 over the scenarios of
what each option costs a year at a demand and at half and twice it, the expected NPV and
the stored P(beats the API), and the recommendation by the one decision rule
(:func:`mc_tco.decision.rule.decide`: the largest expected NPV against the API).

Quantiles are over the scenarios (``inverted_cdf``: one scenario's own value, NaN left out):
the spread of the assumptions, not Monte Carlo error. Money in USD (a year, or once),
payback in months (inf: never), shares in 1 (the shares with their Monte Carlo interval:
``(p, lower, upper)``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.decision.at_demand import MULTIPLES, inside_grid
from mc_tco.decision.rule import Decision, decide, expected_npv
from mc_tco.decision.tco_data import nearest_point
from mc_tco.decision.timeaxis import holds_server, share_ci

__all__ = ["IN_HOUSE", "LEVELS", "PRICED_BY", "QUANTITIES", "SELF", "SHARES", "PageNumbers",
           "p_beats", "page_numbers", "priced_risks", "prices", "quantiles_of"]

#: the self-hosting options a company can choose
SELF = ("buy", "rent", "reserved", "hybrid")
#: the options that keep every token in house, the only ones a value of data sovereignty
#: counts for (cost model version 3: not the hybrid, whose peaks go to the API)
IN_HOUSE = ("buy", "rent", "reserved")
#: the rows of the table, in order: quantity -> (strategies, unit). Money and months are
#: P10 / P50 / P90 (:data:`LEVELS`); the shares one number. ``peak_cash_need_nominal`` is
#: the deepest hole in undiscounted cash, ``npv`` and ``payback`` discounted,
#: ``simple_payback`` undiscounted; ``never_buys`` the share of scenarios in which the
#: hybrid holds no server (it is then the API itself)
QUANTITIES = {
    "api_bill_year": (("api",), "USD/year"),
    "cost_year": (SELF, "USD/year"),
    "investment": (("buy",), "USD"),
    "peak_cash_need_nominal": (("buy", "hybrid"), "USD"),
    "npv": (("buy", "hybrid"), "USD"),
    "mean_npv": (SELF, "USD"),
    "payback": (("buy", "hybrid"), "month"),
    "simple_payback": (("buy", "hybrid"), "month"),
    "never_buys": (("hybrid",), "1"),
    "p_beats_api": (SELF, "1"),
}
#: the quantities that are one number, not a band of the scenarios: a share, or the mean
#: over the scenarios with its Monte Carlo interval (mean, lower, upper)
SHARES = ("never_buys", "p_beats_api", "mean_npv")
#: the quantiles of a band
LEVELS = (0.1, 0.5, 0.9)


def quantiles_of(da: xr.DataArray, levels=LEVELS) -> tuple[float, ...]:
    """The ``levels`` quantiles over every entry of ``da``, NaN left out (``inverted_cdf``:
    each one scenario's own value; inf, "never", sorts last); NaNs when nothing is left."""
    v = np.asarray(da.values, dtype=float).ravel()
    v = v[~np.isnan(v)]
    if not v.size:
        return tuple(float("nan") for _ in levels)
    return tuple(float(x) for x in np.quantile(v, list(levels), method="inverted_cdf"))


def p_beats(ds: xr.Dataset, strategy: str, demand: float) -> float:
    """The stored P(strategy beats the API) at a grid demand."""
    return float(ds["p_positive"].sel(target="saving>0", strategy=strategy, demand=demand))


@dataclass(frozen=True)
class PageNumbers:
    """The summary's numbers at ``demand`` (raw, unrounded).

    ``points``: ``(factor, demand)`` for half, one and twice the demand
    (:data:`~mc_tco.decision.at_demand.MULTIPLES`; the nearest grid points, exact after
    :func:`~mc_tco.decision.at_demand.with_demands`), a multiple past the grid's end left
    out; ``table``: ``(quantity, strategy) -> value per point``, the rows of
    :data:`QUANTITIES` in order; ``decision`` the one rule at ``demand``
    (:func:`~mc_tco.decision.rule.decide`), ``choice`` its recommendation; ``best_self``
    the self-hosting strategy with the largest expected NPV against the API,
    ``best_in_house`` the one of :data:`IN_HOUSE` with the largest.
    """

    demand: float
    points: tuple[tuple[float, float], ...]
    table: dict[tuple[str, str], tuple[Any, ...]]
    choice: str
    decision: Decision
    best_self: str
    best_in_house: str


def _value(ds: xr.Dataset, quantity: str, strategy: str, d: float
           ) -> float | tuple[float, ...]:
    if quantity == "p_beats_api":  # (p, MC lower, MC upper): the stored interval
        ci = ds["p_positive_ci"].sel(target="saving>0", strategy=strategy, demand=d).values
        return (p_beats(ds, strategy, d), float(ci[0]), float(ci[1]))
    if quantity == "mean_npv":  # (mean, MC lower, MC upper), as the rule computes it
        return expected_npv(ds, d, strategy)
    if quantity == "never_buys":  # (the hybrid's fleet; an older file: its served share)
        held = holds_server(ds, d, "hybrid")  # (p, MC lower, MC upper), the run's interval
        if held is None:
            return (float("nan"),) * 3
        e = share_ci(ds, (~held).astype(float))
        return (e.value, e.lower, e.upper)
    if quantity == "investment":
        return quantiles_of(ds["investment"].sel(demand=d))
    if quantity in ("api_bill_year", "cost_year"):
        return tuple(12 * v for v in quantiles_of(ds["cost"].sel(demand=d, strategy=strategy)))
    var = {"peak_cash_need_nominal": "peak_cash_need_nominal", "npv": "npv",
           "payback": "payback_months", "simple_payback": "simple_payback_months"}
    return quantiles_of(ds[var[quantity]].sel(demand=d, strategy=strategy))


def page_numbers(ds: xr.Dataset, demand: float) -> PageNumbers:
    """:class:`PageNumbers` at ``demand`` (a grid point)."""
    pts = tuple((f, demand if f == 1.0 else nearest_point(ds, f * demand))
                for f in MULTIPLES if f == 1.0 or inside_grid(ds, f * demand))
    table = {(q, s): tuple(_value(ds, q, s, d) for _, d in pts)
             for q, (strategies, _) in QUANTITIES.items() for s in strategies}
    dec = decide(ds, demand)
    house = max(IN_HOUSE, key=lambda s: dec.outcomes[s].mean)
    return PageNumbers(demand, pts, table, dec.choice, dec, dec.best_self, house)


#: the risks version 3 of the cost model can price, each by the inputs that price it
PRICED_BY = {
    "stop": ("stop_month",),
    "cancel": ("cancel_month",),
    "demand": ("demand_realization",),
    "hardware": ("spare_fraction",),
}


def prices(ds: xr.Dataset, name: str) -> bool:
    """Whether the results' book prices what input ``name`` stands for: it samples it, or
    fixes it at a value other than the one that leaves the mechanism off
    (:data:`mc_tco.models.tco_inputs.NEUTRAL`; an event month counts only inside the
    horizon). False for an input the book does not have."""
    from mc_tco.models.tco_inputs import NEUTRAL

    if "input" in ds.coords and name in map(str, ds["input"].values):
        return True
    constants = ds.mc_tco.constants
    if name not in constants:
        return False
    value = float(constants[name])
    if name.endswith("_month"):
        return value < 12 * float(constants.get("horizon_years", 4.0))
    return value != NEUTRAL.get(name, value)


def priced_risks(ds: xr.Dataset) -> dict[str, bool]:
    """For each risk of :data:`PRICED_BY`, whether the results' book prices it
    (:func:`prices` of any of its inputs)."""
    return {risk: any(prices(ds, n) for n in names) for risk, names in PRICED_BY.items()}
