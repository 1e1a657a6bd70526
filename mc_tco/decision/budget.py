"""The money a CFO budgets, read from a results file (cost model version 3): the nominal
cash each option spends in each year of the horizon, and its level cost per million
tokens set against the API's.

Both are quantiles over the scenarios (P10, P50 and P90 by default: the spread of the
assumptions), each with the run's Monte Carlo interval (the spread of its independent
scrambles, :func:`mc_tco.uncertainty.interval_datasets.quantiles_with_interval`, as the
medians of :mod:`mc_tco.decision.timeaxis`). A quantile is one scenario's own value
(``inverted_cdf``), never an interpolation.

* :func:`cash_by_year` reads ``cash_by_year`` (sample, cash_demand, year, strategy): USD
  spent each year, undiscounted and before tax, API included, at the report demand
  nearest the one asked for (the file keeps the yearly cash at the book's report demands
  only). The API's row is the budget line a CFO approves today; each other row is what
  that option would put in the budget instead. ``total`` is the horizon's sum per
  scenario, then its quantiles (not the sum of the yearly quantiles).
* :func:`cost_per_mtok` reads ``cost_per_mtok`` (sample, demand, strategy): the level cost
  of serving a million tokens (discounted cost over discounted tokens, after tax), the
  unit price self-hosting must beat; NaN scenarios (no demand ever arrives) left out.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.decision.tco_data import STRATEGIES
from mc_tco.results.points import nearest_point, scale_of
from mc_tco.uncertainty.interval_datasets import quantiles_with_interval

__all__ = ["LEVELS", "cash_by_year", "cash_demand_of", "cash_gap", "cost_per_mtok", "widest_error"]

#: the quantiles of the budget tables: P10, P50, P90 of the scenarios
LEVELS = (0.1, 0.5, 0.9)
#: the options of the tables by default: the API first (the comparison), then the others
OPTIONS = ("api", *STRATEGIES)


def cash_demand_of(ds: xr.Dataset, demand: float) -> float:
    """The report demand of ``cash_by_year`` nearest ``demand`` (tokens/month, on a log
    scale; ``demand`` itself when the file keeps it)."""
    return nearest_point(ds["cash_demand"].values, float(demand), scale_of("cash_demand"))


def _options(ds: xr.Dataset, strategies) -> list[str]:
    have = [str(s) for s in ds["strategy"].values]
    return [s for s in (strategies or OPTIONS) if s in have]


def _quantiles(ds: xr.Dataset, da: xr.DataArray, levels) -> xr.Dataset:
    run = ds.mc_tco.run
    return quantiles_with_interval(da, list(levels), replicates=run.scrambles,
                                   conf_level=run.conf_level)


def cash_by_year(ds: xr.Dataset, demand: float, strategies=None,
                 levels=LEVELS) -> xr.Dataset:
    """Quantiles over the scenarios of the nominal cash each option spends a year.

    Parameters
    ----------
    ds : xr.Dataset
        Results of the TCO model, version 3 (``cash_by_year``).
    demand : float
        The demand (tokens/month); the nearest report demand is read
        (:func:`cash_demand_of`).
    strategies : sequence of str, optional
        The options, in order (default the API, then every other strategy of the file).
    levels : sequence of float
        The quantiles (default :data:`LEVELS`).

    Returns
    -------
    xr.Dataset
        ``estimate`` (strategy, year, quantile) and ``ci`` (strategy, year, quantile,
        ci_bound) in USD a year; ``total_estimate`` (strategy, quantile) and ``total_ci``
        (strategy, quantile, ci_bound), the quantiles of the horizon's total; attrs
        ``demand`` (the report demand read), ``requested_demand``, ``conf_level``,
        ``units`` "USD".
    """
    d = cash_demand_of(ds, demand)
    options = _options(ds, strategies)
    cash = ds["cash_by_year"].sel(cash_demand=d, strategy=options, drop=True)
    years = _quantiles(ds, cash, levels)
    total = _quantiles(ds, cash.sum("year"), levels)
    out = xr.Dataset({
        "estimate": years["estimate"].transpose("strategy", "year", "quantile"),
        "ci": years["ci"].transpose("strategy", "year", "quantile", "ci_bound"),
        "total_estimate": total["estimate"].transpose("strategy", "quantile"),
        "total_ci": total["ci"].transpose("strategy", "quantile", "ci_bound"),
    })
    for v in out.data_vars:
        out[v].attrs["units"] = "USD"
    out.attrs.update(demand=d, requested_demand=float(demand),
                     conf_level=ds.mc_tco.run.conf_level, units="USD")
    return out


def cost_per_mtok(ds: xr.Dataset, demand: float, strategies=None,
                  levels=LEVELS) -> xr.Dataset:
    """Quantiles over the scenarios of each option's level cost per million tokens.

    Parameters
    ----------
    ds : xr.Dataset
        Results of the TCO model, version 3 (``cost_per_mtok``).
    demand : float
        A point of the demand grid (tokens/month).
    strategies : sequence of str, optional
        The options, in order (default the API, then every other strategy of the file).
    levels : sequence of float
        The quantiles (default :data:`LEVELS`).

    Returns
    -------
    xr.Dataset
        ``estimate`` (strategy, quantile) and ``ci`` (strategy, quantile, ci_bound) in
        USD/Mtok; ``scenarios`` (strategy), the scenarios with a cost (NaN left out);
        attrs ``demand``, ``conf_level``, ``units`` "USD/Mtok".
    """
    options = _options(ds, strategies)
    cpm = ds["cost_per_mtok"].sel(demand=demand, strategy=options, drop=True)
    q = _quantiles(ds, cpm, levels)
    out = xr.Dataset({
        "estimate": q["estimate"].transpose("strategy", "quantile"),
        "ci": q["ci"].transpose("strategy", "quantile", "ci_bound"),
        "scenarios": cpm.notnull().sum("sample"),
    })
    out["estimate"].attrs["units"] = out["ci"].attrs["units"] = "USD/Mtok"
    out.attrs.update(demand=float(demand), conf_level=ds.mc_tco.run.conf_level,
                     units="USD/Mtok")
    return out


def widest_error(estimate: xr.DataArray, ci: xr.DataArray, relative: bool = True) -> float:
    """The widest Monte Carlo half-width of a table's cells: the largest ``max(upper -
    estimate, estimate - lower)``, over ``|estimate|`` when ``relative`` (unit 1; cells
    whose estimate is 0 left out), else in the table's unit. NaN when no cell has a
    finite interval."""
    est = estimate.values
    lo = ci.sel(ci_bound="lower").values
    hi = ci.sel(ci_bound="upper").values
    ok = np.isfinite(est) & np.isfinite(lo) & np.isfinite(hi)
    if relative:
        ok &= est != 0
    if not ok.any():
        return float("nan")
    half = np.maximum(hi - est, est - lo)[ok]
    return float(np.max(half / np.abs(est[ok]) if relative else half))


def cash_gap(ds: xr.Dataset, demand: float, option: str, against: str,
             levels=LEVELS) -> xr.Dataset:
    """Quantiles over the scenarios of how much more nominal cash ``option`` spends than
    ``against`` over the horizon (each scenario's total of ``cash_by_year``, then the
    difference, then its quantiles; negative: it spends less).

    Returns
    -------
    xr.Dataset
        ``estimate`` (quantile) and ``ci`` (quantile, ci_bound) in USD; attrs ``demand``
        (the report demand read, :func:`cash_demand_of`), ``option``, ``against``.
    """
    d = cash_demand_of(ds, demand)
    cash = ds["cash_by_year"].sel(cash_demand=d, drop=True).sum("year")
    gap = cash.sel(strategy=option, drop=True) - cash.sel(strategy=against, drop=True)
    q = _quantiles(ds, gap, levels)
    out = xr.Dataset({"estimate": q["estimate"], "ci": q["ci"]})
    out.attrs.update(demand=d, option=option, against=against, units="USD")
    return out
