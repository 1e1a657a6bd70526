"""The finance conventions of the memo (issue 24, point 8): beside the discounted payback
and peak cash need of :mod:`mc_tco.decision.timeaxis`, their undiscounted (nominal) twins,
and whether an option's internal rate of return tells the same story as its NPV.

An IRR above the cost of capital goes with a positive NPV when the flows change sign once
(an investment, then returns); with several sign changes, or an investment that is small
and late (the hybrid's), the two can disagree, and the NPV is the one to read. Medians are
over the scenarios, each with the run's Monte Carlo interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import xarray as xr

from mc_tco.decision.costs import component_input, median_of
from mc_tco.decision.timeaxis import Estimate, holds_server, median_ci

__all__ = ["Finance", "finance_numbers"]


@dataclass(frozen=True)
class Finance:
    """The nominal twins and the IRR check of one strategy at one demand.

    simple_payback : median undiscounted payback month (inf: never within the horizon)
    peak_nominal : median deepest hole in undiscounted cumulative cash (USD)
    npv : median NPV against the API (USD)
    irr : median IRR where defined (1/year; NaN where never)
    cost_of_capital : median discount rate of the scenarios (1/year)
    irr_agrees : whether the median IRR's side of the median cost of capital matches the
        median NPV's sign (an IRR above it with an NPV above zero, or both below); False
        when there is no IRR
    disagree : share of the scenarios with an IRR whose IRR and NPV disagree (IRR above
        that scenario's own cost of capital with NPV below zero, or the reverse)
    """

    simple_payback: Estimate
    peak_nominal: Estimate
    npv: float
    irr: float
    cost_of_capital: float
    irr_agrees: bool
    disagree: float


def finance_numbers(ds: xr.Dataset, demand: float, strategy: str,
                    where_held: bool = False) -> Finance:
    """:class:`Finance` of ``strategy`` at ``demand`` (a point of ``ds``'s grid).

    ``where_held``: over the scenarios in which the strategy buys a server
    (:func:`mc_tco.decision.timeaxis.holds_server`; every scenario for a strategy that
    always does), as :func:`~mc_tco.decision.timeaxis.time_numbers`: the hybrid's median
    NPV over every scenario is the API's $0 wherever most of them buy none, which an IRR
    (defined only where it buys) then seems to contradict."""
    sel = {"demand": demand, "strategy": strategy}
    npv = ds["npv"].sel(sel)
    irr = ds["irr"].sel(sel)
    simple = ds["simple_payback_months"].sel(sel)
    nominal = ds["peak_cash_need_nominal"].sel(sel)
    mask = holds_server(ds, demand, strategy) if where_held else None
    if mask is not None:
        npv, irr = npv.where(mask), irr.where(mask)
        simple, nominal = simple.where(mask), nominal.where(mask)
    try:
        rate = component_input(ds, "discount_rate")
    except KeyError:
        rate = math.nan
    rate_da = rate if isinstance(rate, xr.DataArray) else xr.full_like(npv, float(rate))
    ok = np.isfinite(irr.values)
    med_npv = median_of(npv)  # (NaN left out)
    med_irr = median_of(irr.where(np.isfinite(irr))) if ok.any() else math.nan
    med_rate = median_of(rate_da if mask is None else rate_da.where(mask))
    agrees = bool(ok.any() and math.isfinite(med_rate)
                  and (med_irr > med_rate) == (med_npv > 0))
    with np.errstate(invalid="ignore"):
        bad = (irr.values > rate_da.values) != (npv.values > 0)
    disagree = float(bad[ok].mean()) if ok.any() else math.nan
    some = bool((~np.isnan(simple.values)).any())
    nan = Estimate(math.nan, math.nan, math.nan)
    return Finance(median_ci(ds, simple) if some else nan,
                   median_ci(ds, nominal) if some else nan,
                   med_npv, med_irr, med_rate, agrees, disagree)
