"""The time questions of cost model version 3, computed from a results file: when does
self-hosting pay back, how deep is the hole before it does, and what return it earns.

Every median comes with the replicate interval of the run (the spread of its independent
scrambles, :func:`mc_tco.uncertainty.scrambles.quantiles_with_interval`), every share with
:func:`mc_tco.decision.shares.share_with_interval`: the same intervals as the numbers
stored in the file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
import xarray as xr

from mc_tco.decision.shares import share_with_interval
from mc_tco.results.held import held_mask, holds_server
from mc_tco.uncertainty.scrambles import quantiles_with_interval

__all__ = ["BANDS", "Estimate", "TimeNumbers", "cash_bands", "holds_server", "median_ci",
           "median_with_interval", "payback_curves", "payback_medians",
           "payback_shares", "share_ci", "time_numbers"]

#: the quantiles of the cash-position figure: 5-95% and 25-75% of scenarios, the median
BANDS = (0.05, 0.25, 0.5, 0.75, 0.95)


@dataclass(frozen=True)
class Estimate:
    """A number and its Monte Carlo interval."""

    value: float
    lower: float
    upper: float

    def __iter__(self):
        return iter((self.value, self.lower, self.upper))


def median_with_interval(ds: xr.Dataset, da: xr.DataArray, q: float = 0.5) -> xr.Dataset:
    """The ``q`` quantile over ``sample`` of ``da`` (any other dims kept), NaN left out,
    ``inf`` kept (a median of ``inf`` reads "never"), with the replicate interval of the
    run ``ds`` (:func:`mc_tco.uncertainty.scrambles.quantiles_with_interval`).

    Returns
    -------
    xr.Dataset
        ``estimate`` (the dims of ``da`` without ``sample``) and ``ci`` (..., ci_bound),
        in the unit of ``da``.
    """
    run = ds.mc_tco.run
    res = quantiles_with_interval(da, [q], replicates=run.scrambles,
                                  conf_level=run.conf_level)
    return res[["estimate", "ci"]].squeeze("quantile", drop=True)


def median_ci(ds: xr.Dataset, da: xr.DataArray, q: float = 0.5) -> Estimate:
    """:func:`median_with_interval` of a 1-d per-sample DataArray, as an :class:`Estimate`."""
    res = median_with_interval(ds, da, q)
    lo, hi = (float(v) for v in res["ci"].values.ravel())
    return Estimate(float(res["estimate"].values.ravel()[0]), lo, hi)


def share_ci(ds: xr.Dataset, event: xr.DataArray) -> Estimate:
    """The share of samples where ``event`` (1-d over ``sample``, NaN = not applicable)
    is true, with the run's interval (:func:`mc_tco.decision.shares.share_with_interval`)."""
    run = ds.mc_tco.run
    s = share_with_interval(event, run.conf_level, run.replicates)
    return Estimate(s.p, s.lower, s.upper)


@dataclass(frozen=True)
class TimeNumbers:
    """The time-axis numbers of one strategy at one demand.

    payback : median payback month (``inf`` = never within the horizon)
    never : share of scenarios that never pay back within the horizon
    peak : median peak cash need (USD); ``peak_spread`` its 5% and 95% quantiles
    irr : median yearly internal rate of return over the scenarios where it exists
    irr_defined : share of scenarios with an IRR
    irr_modelled : whether the model gives the strategy an IRR at all (at any demand: the
        TCO model gives one to the strategies that invest, buy and hybrid)
    held : with ``where_held`` (:func:`time_numbers`), the share of scenarios in which the
        strategy buys a server (:func:`holds_server`); every other number is then over
        those scenarios only. None: over every scenario.
    """

    strategy: str
    demand: float
    horizon_months: int
    payback: Estimate
    never: Estimate
    peak: Estimate
    peak_spread: tuple[float, float]
    irr: Estimate
    irr_defined: float
    irr_modelled: bool = True
    held: Estimate | None = None


def time_numbers(ds: xr.Dataset, demand: float, strategy: str,
                 where_held: bool = False) -> TimeNumbers:
    """Payback, peak cash need and IRR of ``strategy`` at ``demand`` (a grid point).

    ``where_held``: for a strategy that may buy no server (:func:`holds_server`), the
    numbers over the scenarios in which it buys one, with that share (``held``): a median
    over every scenario is that of a mixture (the hybrid at 500B: "pays back in 0
    months", where 58% of its scenarios are the API itself)."""
    sel = {"demand": demand, "strategy": strategy}
    pay = ds["payback_months"].sel(sel)
    peak = ds["peak_cash_need"].sel(sel)
    irr = ds["irr"].sel(sel)
    mask = holds_server(ds, demand, strategy) if where_held else None
    held = None
    if mask is not None:
        held = share_ci(ds, mask.astype(float))
        pay, peak, irr = pay.where(mask), peak.where(mask), irr.where(mask)
    horizon = int(ds.sizes.get("month", 0)) or round(
        12 * float(_constant(ds, "horizon_years", 4.0)))
    with np.errstate(invalid="ignore"):
        spread = (np.nanquantile(peak.values, [0.05, 0.95]) if np.isfinite(peak.values).any()
                  else np.full(2, np.nan))
    base = ~np.isnan(pay.values)  # the scenarios counted
    defined = float(np.isfinite(irr.values[base]).mean()) if base.any() else 0.0
    modelled = bool(np.isfinite(ds["irr"].sel(strategy=strategy).values).any())
    nan = Estimate(math.nan, math.nan, math.nan)
    irr_est = median_ci(ds, irr.where(np.isfinite(irr))) if defined > 0 else nan
    # a DataArray: numpy's stubs do not know xarray's __array_ufunc__
    never = cast(xr.DataArray, np.isinf(pay)).astype(float)
    if mask is not None:
        never = never.where(mask)  # (NaN: not counted)
    some = bool(base.any())
    return TimeNumbers(
        strategy, float(demand), horizon,
        median_ci(ds, pay) if some else nan,
        share_ci(ds, never) if some else nan, median_ci(ds, peak) if some else nan,
        (float(spread[0]), float(spread[1])), irr_est, defined, modelled, held,
    )


def cash_bands(cash: xr.DataArray, strategies=("buy", "hybrid"),
               quantiles=BANDS) -> xr.DataArray:
    """Quantiles over the scenarios of the cumulative discounted cash position, by month.

    Parameters
    ----------
    cash : xr.DataArray
        ``cash_path`` at one demand, dims (sample, month, strategy), USD.
    strategies : sequence of str
        The strategies to keep.
    quantiles : sequence of float
        The levels (default :data:`BANDS`; linear interpolation between samples).

    Returns
    -------
    xr.DataArray
        Dims (strategy, quantile, month), USD, with ``cash``'s ``month`` coordinate.
    """
    q = [np.quantile(cash.sel(strategy=s).transpose("sample", "month").values,
                     list(quantiles), axis=0) for s in strategies]
    return xr.DataArray(np.stack(q), dims=("strategy", "quantile", "month"),
                        coords={"strategy": list(strategies), "quantile": list(quantiles),
                                "month": cash["month"].values},
                        name="cash_band", attrs={"units": "USD"})


def payback_shares(payback: xr.DataArray, horizon_months: int,
                   strategies=("buy", "hybrid")) -> xr.DataArray:
    """Share of scenarios paid back by each month ``0 .. horizon_months`` (the payback
    month at or before it; ``inf`` = never), NaN scenarios (not applicable) left out.

    Parameters
    ----------
    payback : xr.DataArray
        ``payback_months`` at one demand, dims (sample, strategy).
    horizon_months : int
        The horizon (months).

    Returns
    -------
    xr.DataArray
        Dims (strategy, month), unit 1; 0 everywhere for a strategy with no scenario left.
        It stays below 1 by the share that never pays back within the horizon.
    """
    months = np.arange(0, horizon_months + 1)
    out = []
    for s in strategies:
        v = payback.sel(strategy=s).values
        v = v[~np.isnan(v)]
        out.append(np.array([(v <= m).mean() for m in months]) if v.size
                   else np.zeros(months.size))
    return xr.DataArray(np.stack(out), dims=("strategy", "month"),
                        coords={"strategy": list(strategies), "month": months},
                        name="paid_back", attrs={"units": "1"})


def _over_held(ds: xr.Dataset, pay: xr.DataArray) -> tuple[xr.DataArray, dict]:
    """``pay`` (sample, strategy, and demand or a demand coordinate; grid demands) with NaN
    where a strategy that may buy no server (:func:`held_mask`: the hybrid) buys none, and
    per such strategy its mask (True where it buys one)."""
    held: dict[str, xr.DataArray] = {}
    for s in (str(v) for v in pay["strategy"].values):
        mask = held_mask(ds, s)
        if mask is None:
            continue
        held[s] = mask = mask.sel(demand=pay["demand"])
        pay = pay.where((pay["strategy"] != s) | mask)
    return pay, held


def payback_curves(ds: xr.Dataset, demand: float, strategies, horizon_months: int
                   ) -> xr.DataArray:
    """:func:`payback_shares` of ``strategies`` at ``demand`` (a grid point), a strategy
    that may buy no server (:func:`holds_server`: the hybrid) over the scenarios where it
    buys one, as :func:`time_numbers` with ``where_held`` reads its payback (counted as
    paid back at month 0, its no-server scenarios drew a curve from 58% at 500B, "never
    within 48 months: 9%" beside the 21% of the scenarios that buy one).

    Returns
    -------
    xr.DataArray
        Dims (strategy, month), unit 1, with the coordinate ``held`` (strategy): the share
        of all scenarios each curve is over (1 for a strategy that always buys).
    """
    pay, masks = _over_held(ds, ds["payback_months"].sel(demand=demand,
                                                         strategy=list(strategies)))
    held = [float(masks[s].mean()) if s in masks else 1.0 for s in strategies]
    out = payback_shares(pay, horizon_months, strategies)
    return out.assign_coords(held=("strategy", np.asarray(held)))


def payback_medians(ds: xr.Dataset, demands, strategies) -> xr.Dataset:
    """The median payback month of ``strategies`` at ``demands`` (grid points) with its
    Monte Carlo interval (:func:`median_with_interval`), a strategy that may buy no server
    (the hybrid) over the scenarios where it buys one (its median over every scenario
    was the API's 0 at 500B, where 58% of them buy none), and the share of scenarios
    that buy none with its interval (:func:`share_ci`; NaN for a strategy that always
    buys).

    Returns
    -------
    xr.Dataset
        Over (strategy, demand): ``estimate`` and ``ci`` (ci_bound), ``no_server`` and
        ``no_server_ci`` (ci_bound); ``where_held`` (strategy, bool): the median is over
        the scenarios that buy a server.
    """
    pay, masks = _over_held(ds, ds["payback_months"].sel(strategy=list(strategies),
                                                        demand=list(demands)))
    med = median_with_interval(ds, pay)
    none = np.full((len(strategies), len(demands), 3), np.nan)
    for i, s in enumerate(strategies):
        if s in masks:
            for j, d in enumerate(pay["demand"].values):
                e = share_ci(ds, (~masks[s].sel(demand=d)).astype(float))
                none[i, j] = (e.value, e.lower, e.upper)
    coords = {"strategy": list(strategies), "demand": pay["demand"].values,
              "ci_bound": ["lower", "upper"]}
    out = xr.Dataset({
        "estimate": med["estimate"].transpose("strategy", "demand"),
        "ci": med["ci"].transpose("strategy", "demand", "ci_bound"),
        "no_server": (("strategy", "demand"), none[:, :, 0], {"units": "1"}),
        "no_server_ci": (("strategy", "demand", "ci_bound"), none[:, :, 1:], {"units": "1"}),
        "where_held": ("strategy", [s in masks for s in strategies]),
    }, coords=coords)
    return out


def _constant(ds: xr.Dataset, name: str, default: float) -> float:
    try:
        return float(ds.mc_tco.constants.get(name, default))
    except (TypeError, ValueError):  # an OptionError (not JSON) is a ValueError
        return default
