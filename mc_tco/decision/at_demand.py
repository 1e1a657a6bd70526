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

__all__ = ["ADDED", "MULTIPLES", "added_demands", "decision_demand", "indexed_demands",
           "inside_grid", "memo_demands", "ranking_demand", "with_demands"]

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


def indexed_demands(ds: xr.Dataset) -> np.ndarray | None:
    """The demands where the run estimated its Sobol' indices: its own grid points (not
    added by :func:`with_demands`), with ``--sobol-at report`` (the default) the report
    points, claim points and focus among them; None when that is every demand."""
    values = ds["demand"].values
    own = np.ones(values.size, dtype=bool) if ADDED not in ds else ds[ADDED].values == 0
    have = ds.mc_tco.sobol_points().get("demand")
    if have is not None:
        own &= np.array([point_index(have, v) is not None for v in values])
    return None if own.all() else values[own]


def ranking_demand(ds: xr.Dataset, demand: float) -> float:
    """Where the Sobol' indices of ``demand`` are read: ``demand`` itself when the run
    estimated them there, else the nearest demand where it did (:func:`indexed_demands`,
    on a log scale)."""
    own = indexed_demands(ds)
    if own is None or not own.size:
        return float(demand)
    i = point_index(own, demand)
    if i is not None:
        return float(own[i])
    return nearest_point(own, float(demand), "log")


def _filler(da: xr.DataArray, n: int) -> xr.Variable:
    """``da`` at ``n`` new demands with nothing known: NaN (0 for flags, False for
    booleans)."""
    shape = [n if d == "demand" else s for d, s in zip(da.dims, da.shape, strict=True)]
    if da.dtype == bool:
        values = np.zeros(shape, dtype=bool)
    elif np.issubdtype(da.dtype, np.integer):
        values = np.zeros(shape, dtype=da.dtype)
    else:
        values = np.full(shape, np.nan)
    return xr.Variable(da.dims, values)


def _join(old: xr.Variable, new: xr.Variable, dim: str, order: np.ndarray) -> xr.Variable:
    """``old`` and ``new`` joined along ``dim`` in ``order``: lazily for a per-sample
    variable (the file's part read only where selected), in memory for a summary."""
    from mc_tco.engine.at_points import joined

    new = new.transpose(*old.dims)
    if "sample" in old.dims:
        return joined([old, new], dim, order)
    both = xr.Variable.concat([old.load(), new.astype(np.result_type(old.dtype, new.dtype))],
                              dim=dim)
    return both[{dim: order}].copy(deep=False)


def with_demands(ds: xr.Dataset, demands: Iterable[float]) -> xr.Dataset:
    """``ds`` with each of ``demands`` that is not a grid point added to its demand grid.

    Parameters
    ----------
    ds : xr.Dataset
        Results of ``mc-tco run`` that kept every output (``--keep-samples all``); lazy
        (:func:`mc_tco.results.io.open_results`) or loaded.

    demands : iterable of float
        Demands (tokens/month) inside the grid's range; grid points among them are left
        as the run stored them.

    Returns
    -------
    xr.Dataset
        ``ds`` itself when every demand is a grid point; else a new Dataset whose
        ``demand`` (and ``cash_demand``) coordinates hold the added demands in order, with
        every per-sample output and every summary of the targets computed there, the
        variables that need the design's other rows NaN there, and ``demand_added``
        (demand, int8) 1 at the added points. Attrs are the file's.

        Nothing of the file is loaded to add them: a per-sample variable is the file's
        (read where a reader selects it) joined lazily with the added demands'
        (:func:`mc_tco.engine.at_points.joined`). There the targets are evaluated once, on
        the stored base rows :data:`mc_tco.engine.at_points.CHUNK` at a time, and held
        (their summaries need every sample); every other per-sample output is evaluated
        when read (:func:`mc_tco.engine.at_points.stored_output`: a few are kept for
        their next read, the month-by-month cash never for every sample at once).

    Raises
    ------
    OptionError
        A demand outside the grid's range.
    """
    from mc_tco.engine.at_points import evaluate_stored, stored_output
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
    by_demand = [str(v) for v in ds.data_vars if "demand" in ds[v].dims and v != ADDED] \
        if new else []
    by_cash = [str(v) for v in ds.data_vars if "cash_demand" in ds[v].dims] if cash_at \
        else []
    # the targets at the added demands are held (their summaries need every sample); every
    # other per-sample output is evaluated when read (stored_output)
    targets = ds.mc_tco.targets if new else []
    out = evaluate_stored(ds, "demand", new, outputs=targets) if new else xr.Dataset()
    data: dict[str, xr.Variable] = {}
    if new:
        run = ds.mc_tco.run
        summ = summarize_targets(out[targets].sel(demand=new), targets,
                                 quantiles=list(ds["quantile"].values),
                                 conf_level=run.conf_level, label=ds.mc_tco.indicator_label,
                                 replicates=run.scrambles)
        summ = summ.assign_coords(target=ds["target"].values)
        order = np.argsort(np.r_[grid, new], kind="stable")
        for v in by_demand:
            if v in out:
                part = out[v].variable
            elif "sample" in ds[v].dims:
                part = stored_output(ds, "demand", new, v, ds[v].variable)
            elif v in summ:
                part = summ[v].variable
            else:
                part = _filler(ds[v], len(new))
            data[v] = _join(ds[v].variable, part.transpose(*ds[v].dims), "demand", order)
            data[v].attrs = dict(ds[v].attrs)
        mark = np.r_[np.zeros(grid.size, np.int8), np.ones(len(new), np.int8)]
        if ADDED in ds:  # added before: keep its marks
            mark[:grid.size] = ds[ADDED].values
        data[ADDED] = xr.Variable("demand", mark[order], {
            "long_name": "1 at a demand added to the grid from the stored scenarios (no "
                         "Sobol' indices there)"})
    if cash_at:
        cash = ds["cash_demand"].values
        order = np.argsort(np.r_[cash, cash_at], kind="stable")
        for v in by_cash:
            tmpl = ds[v].variable
            part = stored_output(ds, "demand", cash_at, v, tmpl, along="cash_demand")
            data[v] = _join(tmpl, part, "cash_demand", order)
            data[v].attrs = dict(ds[v].attrs)
    coords = {}
    if new:
        coords["demand"] = xr.Variable("demand", np.r_[grid, new][
            np.argsort(np.r_[grid, new], kind="stable")], ds["demand"].attrs)
    if cash_at:
        cash = ds["cash_demand"].values
        coords["cash_demand"] = xr.Variable("cash_demand", np.r_[cash, cash_at][
            np.argsort(np.r_[cash, cash_at], kind="stable")], ds["cash_demand"].attrs)
    rest = ds.drop_vars([*data, *coords], errors="ignore")
    result = rest.assign_coords(coords).assign(data)
    result.attrs.clear()
    result.attrs.update(ds.attrs)
    return result
