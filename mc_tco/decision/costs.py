"""What the options cost, read from a results file: buying's monthly cost by component
against the API bill, the band of the monthly saving, the economics of one busy node and
what keeping data in house would have to be worth.

Medians and quantiles are over the scenarios (the spread of the assumptions, not Monte
Carlo error); money in USD.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import xarray as xr

__all__ = [
    "Sovereignty",
    "component_input",
    "cost_breakdown",
    "largest_component",
    "median_api_bill",
    "median_of",
    "node_hour",
    "saving_band",
    "sovereignty",
    "top_components",
]


def cost_breakdown(ds: xr.Dataset) -> xr.Dataset:
    """Buy's monthly cost by component and the API bill, at the median, over demand.

    Returns
    -------
    xr.Dataset
        ``component_median`` (demand, component), ``buy_quantile`` and ``api_quantile``
        (quantile, demand) with quantiles 0.05, 0.5, 0.95; all USD/month. The medians of
        the components need not add up to the median of the total.
    """
    q = [0.05, 0.5, 0.95]
    comp = ds["cost_component"]
    # one demand at a time: the median copies what it sorts (sample x demand x component
    # held twice was 1.8 GB on a 2^18-row file)
    median = (xr.concat([comp.isel(demand=i).median("sample")
                         for i in range(comp.sizes["demand"])], dim="demand")
              if "demand" in comp.dims else comp.median("sample"))
    out = xr.Dataset({
        "component_median": median,
        "buy_quantile": _quantiles(ds["cost"].sel(strategy="buy", drop=True), q),
        "api_quantile": _quantiles(ds["cost"].sel(strategy="api", drop=True), q),
    })
    for v in out.data_vars:
        out[v].attrs["units"] = "USD/month"
    return out.transpose("quantile", "demand", "component")


def _quantiles(da: xr.DataArray, q: list[float]) -> xr.DataArray:
    """``da.quantile(q, dim="sample")``, one demand at a time (the same numbers: each
    demand's quantiles are its own; the quantile copies what it sorts)."""
    if "demand" not in da.dims:
        return da.quantile(q, dim="sample")
    return xr.concat([da.isel(demand=i).quantile(q, dim="sample")
                      for i in range(da.sizes["demand"])], dim="demand") \
        .transpose("quantile", "demand", ...)


def largest_component(breakdown: xr.Dataset, demand: float) -> tuple[str, float]:
    """The component with the largest median cost at ``demand`` (of :func:`cost_breakdown`)
    and its share (unit 1) of the sum of the component medians."""
    comp = breakdown["component_median"].sel(demand=demand)
    biggest = str(comp["component"].values[int(np.argmax(comp.values))])
    return biggest, float(comp.max() / comp.sum())


def saving_band(ds: xr.Dataset, demand: float, strategy: str) -> tuple[float, float, float]:
    """5%, 50% and 95% quantiles over the scenarios of the monthly saving (USD/month) of
    ``strategy`` at ``demand`` (linear interpolation between samples)."""
    lo, mid, hi = np.quantile(ds["saving"].sel(demand=demand, strategy=strategy).values,
                              [0.05, 0.5, 0.95])
    return float(lo), float(mid), float(hi)


def median_api_bill(ds: xr.Dataset, demand: float) -> float:
    """The median monthly API bill at ``demand`` over the scenarios (USD/month; NaN left
    out, linear interpolation between samples, as :meth:`xarray.DataArray.median`)."""
    return float(ds["cost"].sel(demand=demand, strategy="api").median())


def median_of(da: xr.DataArray) -> float:
    """The median over every entry of ``da``, NaN left out (``inverted_cdf``: one scenario's
    own value); NaN when nothing is left."""
    v = np.asarray(da.values, dtype=float)
    v = v[~np.isnan(v)]
    return float(np.quantile(v, 0.5, method="inverted_cdf")) if v.size else math.nan


def component_input(ds: xr.Dataset, name: str) -> xr.DataArray | float:
    """An input per sample (from ``input_value``) or its constant; KeyError when the book
    has neither."""
    if name in map(str, ds["input"].values):
        return ds["input_value"].sel(input=name, drop=True)
    constants = ds.mc_tco.constants
    if name in constants:
        return float(constants[name])
    raise KeyError(name)


def node_hour(ds: xr.Dataset) -> tuple[float, float]:
    """Medians of (API value of a busy node's tokens, cost of owning and running it), USD
    an hour, at the start of the horizon.

    The API value is ``node_api_revenue_per_hour * utilization`` (the tokens of a node at
    its SLO load, at the month-0 API price). The cost is the yearly capital cost of the
    server and of the network bought with it (``node_price * (1 +
    network_capex_fraction)`` times its loss of resale value and the cost of capital),
    its upkeep (``maintenance_fraction`` of the node's price) over 8,760 hours, plus its
    power and its colocation (version 3; 0 in a book without them).
    """
    x = component_input
    price = x(ds, "node_price")
    capital = price * (1 + _or_zero(ds, "network_capex_fraction")) * (
        x(ds, "node_annual_depreciation") + x(ds, "discount_rate"))
    value = ds["node_api_revenue_per_hour"] * x(ds, "utilization")
    own = ((capital + price * x(ds, "maintenance_fraction")) / 8760
           + x(ds, "node_power_kw") * x(ds, "pue") * x(ds, "electricity_price")
           + x(ds, "node_power_kw") * _or_zero(ds, "colocation_per_kw_month") * 12 / 8760)
    own = own if isinstance(own, xr.DataArray) else xr.DataArray(np.full(value.shape, own))
    return median_of(value), median_of(own)


def _or_zero(ds: xr.Dataset, name: str) -> xr.DataArray | float:
    """:func:`component_input`, 0 for an input the results' book does not have."""
    try:
        return component_input(ds, name)
    except KeyError:
        return 0.0


def top_components(ds: xr.Dataset, demand: float, n: int = 3) -> list[tuple[str, float]]:
    """The ``n`` components of buy's cost with the largest median at ``demand``, largest
    first, each with that median (USD/month); components whose median is not positive
    (tax saved) are left out."""
    comp = ds["cost_component"].sel(demand=demand)
    med = {str(c): median_of(comp.sel(component=c)) for c in comp["component"].values}
    ranked = sorted((c for c in med if med[c] > 0), key=lambda c: -med[c])
    return [(c, med[c]) for c in ranked[:n]]


@dataclass(frozen=True)
class Sovereignty:
    """What keeping data in house would have to be worth a year (USD/year) for a strategy
    to cost no more than the API: ``median`` and ``q90`` over the scenarios (0 where it
    already pays), ``pays``, the share of scenarios where it pays without (unit 1), and
    ``counted``, the median value the book already gives it (``sovereignty_value``, USD a
    year; the amounts are what it would have to be worth on top of that)."""

    median: float
    q90: float
    pays: float
    counted: float = 0.0


def sovereignty(ds: xr.Dataset, demand: float, strategy: str) -> Sovereignty:
    """:class:`Sovereignty` of ``strategy`` at ``demand``: the yearly amount ``-12 x saving``
    it lacks against the API, per scenario."""
    need = -12 * ds["saving"].sel(demand=demand, strategy=strategy)  # USD/year
    pays = float((need < 0).mean())
    v = np.sort(np.maximum(need.values, 0))
    med = float(np.quantile(v, 0.5, method="inverted_cdf"))
    hi = float(np.quantile(v, 0.9, method="inverted_cdf"))
    book = _or_zero(ds, "sovereignty_value")
    counted = 12 * (median_of(book) if isinstance(book, xr.DataArray) else float(book))
    return Sovereignty(med, hi, pays, counted)
