"""A results file at any demand inside its grid's range, as if the grid held it.

The memo is read at the reader's own demand (``mc-tco memo RESULTS --demand 800B``), which
is rarely a point of the run's grid. :func:`with_demands` evaluates the model on the
file's stored scenarios (every base sample's inputs, ``input_value``) at the demands the
grid lacks (:func:`mc_tco.engine.at_points.evaluate_stored`), summarises them as the run
summarises its grid points (P(beats the API) with its Monte Carlo interval, the quantiles
and means of the targets: :func:`mc_tco.uncertainty.statistics.summarize_targets`) and
inserts them into the demand grid, and their cash by year into ``cash_demand``: every
reader then takes them through ``ds.mc_tco`` like any grid point, and their numbers equal
those of a run whose grid holds them (same book, seed and samples).

What needs the design's other rows (the Sobol' indices, the Shapley effects, the check
with independent inputs, the family check) is not re-estimated: those variables are NaN
at an added demand, ``demand_added`` (demand; 1 at an added point) marks them, and
:func:`ranking_demand` gives the nearest grid point where the run estimated them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.results.points import match_point, nearest_point, parse_amount, point_index

__all__ = ["ADDED", "MULTIPLES", "added_demands", "decision_demand", "inside_grid",
           "memo_demands", "ranking_demand", "with_demands"]

#: the data variable (demand) that marks the demands added by :func:`with_demands`
ADDED = "demand_added"
#: the multiples of the decision demand the memo's summary sets beside it
MULTIPLES = (0.5, 1.0, 2.0)


def inside_grid(ds: xr.Dataset, demand: float) -> bool:
    """Whether ``demand`` lies inside the range of ``ds``'s demand grid (its ends
    included, to the grid's tolerance)."""
    grid = np.asarray(ds["demand"].values, dtype=float)
    if point_index(grid, demand) is not None:
        return True
    return bool(grid.min() <= demand <= grid.max())


def memo_demands(ds: xr.Dataset, demand: float) -> list[float]:
    """The demands the memo reads: :data:`MULTIPLES` of ``demand`` that lie inside the
    grid's range (``demand`` itself always)."""
    return [f * demand for f in MULTIPLES if f == 1.0 or inside_grid(ds, f * demand)]


def decision_demand(ds: xr.Dataset, demand, option: str = "--demand") -> float:
    """The demand ``demand`` names: a grid point when it is one (to the grid's tolerance,
    :func:`mc_tco.results.points.match_point`), else the value itself if it lies inside the
    grid's range.

    Raises
    ------
    OptionError
        Not a positive number, or outside the grid's range.
    """
    value = parse_amount(demand, option)
    if not (math.isfinite(value) and value > 0):
        raise OptionError(f"{option} must be a positive number of tokens/month, got {demand}")
    grid = np.asarray(ds["demand"].values, dtype=float)
    try:
        return match_point(grid, value, dim="demand", flag=option,
                           unit=ds["demand"].attrs.get("units", ""))
    except OptionError:
        if grid.min() <= value <= grid.max():
            return value
        raise


def added_demands(ds: xr.Dataset) -> list[float]:
    """The demands :func:`with_demands` added to ``ds`` (empty for a run's own grid)."""
    if ADDED not in ds:
        return []
    return [float(d) for d, a in zip(ds["demand"].values, ds[ADDED].values, strict=True)
            if a]


def ranking_demand(ds: xr.Dataset, demand: float) -> float:
    """Where the Sobol' indices of ``demand`` are read: ``demand`` itself when the run
    estimated them there, else the nearest demand of the run's own grid (on a log
    scale)."""
    if ADDED not in ds:
        return float(demand)
    own = ds["demand"].values[ds[ADDED].values == 0]
    i = point_index(ds["demand"].values, demand)
    if i is not None and not ds[ADDED].values[i]:
        return float(ds["demand"].values[i])
    return nearest_point(own, float(demand), "log")


def _filler(da: xr.DataArray, n: int) -> xr.DataArray:
    """``da`` at ``n`` new demands with nothing known: NaN (0 for flags, False for
    booleans)."""
    shape = [n if d == "demand" else s for d, s in zip(da.dims, da.shape, strict=True)]
    if da.dtype == bool:
        values = np.zeros(shape, dtype=bool)
    elif np.issubdtype(da.dtype, np.integer):
        values = np.zeros(shape, dtype=da.dtype)
    else:
        values = np.full(shape, np.nan)
    return xr.DataArray(values, dims=da.dims)


def with_demands(ds: xr.Dataset, demands: Iterable[float]) -> xr.Dataset:
    """``ds`` with each of ``demands`` that is not a grid point added to its demand grid.

    Parameters
    ----------
    ds : xr.Dataset
        Results of ``mc-tco run`` that kept every output (``--keep-samples all``).
    demands : iterable of float
        Demands (tokens/month) inside the grid's range; grid points among them are left
        as the run stored them.

    Returns
    -------
    xr.Dataset
        ``ds`` itself when every demand is a grid point; else a new Dataset (loaded) whose
        ``demand`` (and ``cash_demand``) coordinates hold the added demands in order, with
        every per-sample output and every summary of the targets computed there, the
        variables that need the design's other rows NaN there, and ``demand_added``
        (demand, int8) 1 at the added points. Attrs are the file's.

    Raises
    ------
    OptionError
        A demand outside the grid's range.
    """
    from mc_tco.engine.at_points import evaluate_stored
    from mc_tco.uncertainty.statistics import summarize_targets

    grid = ds["demand"].values
    for d in demands:
        if not inside_grid(ds, d):
            raise OptionError(f"--demand {d:g} is outside the grid ({grid.min():g} to "
                              f"{grid.max():g} tokens/month); choose a value in it, or rerun "
                              "with a book whose grid covers it")
    # a grid point keeps its stored numbers; its yearly cash is kept at the report
    # demands only, so it is evaluated there too
    points = [float(grid[i]) if (i := point_index(grid, d)) is not None else float(d)
              for d in demands]
    new = sorted({d for d in points if point_index(grid, d) is None})
    cash_at = (sorted({d for d in points if point_index(ds["cash_demand"].values, d) is None})
               if "cash_demand" in ds.dims else [])
    if not new and not cash_at:
        return ds
    ds = ds.load()
    by_demand = [v for v in ds.data_vars if "demand" in ds[v].dims and v != ADDED] if new \
        else []
    by_cash = [v for v in ds.data_vars if "cash_demand" in ds[v].dims] if cash_at else []
    wanted = [str(v) for v in (*by_demand, *by_cash) if "sample" in ds[v].dims]
    out = evaluate_stored(ds, "demand", sorted({*new, *cash_at}), outputs=wanted)
    if not new:
        return _with_cash(ds, out, by_cash, cash_at)
    run = ds.mc_tco.run
    targets = ds.mc_tco.targets
    summ = summarize_targets(out[targets].sel(demand=new), targets,
                             quantiles=list(ds["quantile"].values), conf_level=run.conf_level,
                             label=ds.mc_tco.indicator_label, replicates=run.scrambles)
    summ = summ.assign_coords(target=ds["target"].values)
    extra = {}
    for v in by_demand:
        src = out[v].sel(demand=new) if v in out else summ.get(v)
        if src is None:
            extra[v] = _filler(ds[v], len(new)).assign_attrs(ds[v].attrs)
        else:
            extra[v] = src.transpose(*ds[v].dims).drop_vars("demand").assign_attrs(
                ds[v].attrs)
    added = xr.Dataset(extra, coords={"demand": new})
    mark = xr.DataArray(np.r_[np.zeros(grid.size, np.int8), np.ones(len(new), np.int8)],
                        dims="demand", attrs={"long_name": "1 at a demand added to the grid "
                                              "from the stored scenarios (no Sobol' indices "
                                              "there)"})
    if ADDED in ds:  # added before: keep its marks
        mark.values[:grid.size] = ds[ADDED].values
    merged = xr.concat([ds[by_demand], added], dim="demand",
                       data_vars="all", coords="minimal", compat="override", join="outer")
    merged[ADDED] = mark.assign_coords(demand=merged["demand"].values)
    merged = merged.sortby("demand")
    rest = ds.drop_vars([*by_demand, "demand", *([ADDED] if ADDED in ds else [])])
    result = xr.merge([rest, merged], compat="override", join="outer",
                      combine_attrs="override")
    result["demand"].attrs.update(ds["demand"].attrs)
    result.attrs.update(ds.attrs)
    return _with_cash(result, out, by_cash, cash_at)


def _with_cash(ds: xr.Dataset, out: xr.Dataset, by_cash: list, cash_at: list[float]
               ) -> xr.Dataset:
    """``ds`` with the per-report-demand outputs ``by_cash`` of ``out`` at ``cash_at``
    added to its ``cash_demand`` points."""
    if not cash_at:
        return ds
    new = out[by_cash].drop_vars("demand", errors="ignore").sel(cash_demand=cash_at)
    new = xr.Dataset({v: new[v].transpose(*ds[v].dims).assign_attrs(ds[v].attrs)
                      for v in by_cash})
    cash = xr.concat([ds[by_cash], new], dim="cash_demand", data_vars="all",
                     coords="minimal", compat="override", join="outer").sortby("cash_demand")
    cash["cash_demand"].attrs.update(ds["cash_demand"].attrs)
    rest = ds.drop_vars([*by_cash, "cash_demand"])
    result = xr.merge([rest, cash], compat="override", join="outer", combine_attrs="override")
    result.attrs.update(ds.attrs)
    return result
