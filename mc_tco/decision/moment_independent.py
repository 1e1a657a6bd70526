"""Moment-independent indices (Borgonovo's delta, PAWN) of a target on the stored base rows.

A cross-check of the Shapley effects that is valid under correlated inputs too: both read
the ``N`` base rows of a results file (inputs and target at one grid point, as
:func:`mc_tco.decision.data.decision_data` selects them), nothing is rerun. The target is an
output (``saving``) or its decision indicator (``saving>0``, 1 where the strategy beats the
baseline). The estimators are SALib's (:mod:`mc_tco.sensitivity.moment_independent`), but
for the indicator's delta, from class frequencies (SALib's kernel densities of a 0/1 output
rank the inputs by the classes' bandwidths: on the default book at -n 8192 its top five
were electricity_price, pue, ...); the interval is the run's scrambles'
(:mod:`mc_tco.sensitivity.moment_dataset`).
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.decision.data import check_option, decision_data
from mc_tco.errors import OptionError
from mc_tco.results.ranking import rank_order
from mc_tco.sensitivity.moment_dataset import moment_independent_dataset

__all__ = ["moment_independent"]


def moment_independent(ds: xr.Dataset, target: str | None = None, *,
                       strategy: str | None = None, at: dict | None = None,
                       slices: int = 10, path: str | None = None) -> xr.Dataset:
    """delta, PAWN and S1 of ``target`` for ``strategy`` at one grid point, with intervals.

    Parameters
    ----------
    ds : xr.Dataset
        A results file.
    target : str, optional
        A per-sample benefit (``saving``) or its indicator (``saving>0``); default the
        file's first target.
    strategy : str, optional
        The option (default: the file's focus strategy, e.g. ``buy``).
    at : dict, optional
        The grid point, e.g. ``{"demand": 5e11}`` (default: the file's focus).
    slices : int
        PAWN's slices per input.
    path : str, optional
        The file name for messages.

    Returns
    -------
    xr.Dataset
        As :func:`~mc_tco.sensitivity.moment_dataset.moment_independent_dataset`, plus
        ``shapley`` and ``shapley_conf`` (input) when the run stored them at this point;
        ``input`` ranked by ``shapley`` (else by ``delta``; attr ``ranked_by``); attrs
        ``target``, ``strategy`` and the point.
    """
    where = path or "the results"
    if slices < 2:
        raise OptionError(f"{where}: --slices {slices}: PAWN needs at least 2 slices; 10 is "
                          "usual")
    target = target or (ds.mc_tco.targets[0] if ds.mc_tco.targets else None)
    base, indicator = (target[:-2], True) if target and target.endswith(">0") else (
        target, False)
    alt = ds.mc_tco.alternatives
    data = None
    if alt is not None and alt in ds.dims:
        strategy = strategy or ds.mc_tco.focus.get(alt)
        if not strategy:
            raise OptionError(f"{where}: choose a strategy with --strategy")
        check_option(ds, strategy, where)
        data = decision_data(ds, at=at, among=[strategy], target=base, path=path)
        y = data.option_values(strategy)
    else:
        data = decision_data(ds, at=at, target=base, path=path)
        strategy = "act"
        y = data.option_values("act")
    if indicator:
        y = (y > 0).astype(float)
    if data.n < 64:
        raise OptionError(f"{where}: {data.n} base rows are too few for kernel densities "
                          "and slices; rerun with -n 1024 or more")
    sample = ds["sample"].values if "sample" in ds.coords else None
    run = ds.mc_tco.run
    out = moment_independent_dataset(data.x, y, data.inputs, sample=sample,
                                     replicates=run.replicates, conf_level=run.conf_level,
                                     slices=slices)
    out = out.assign_coords(input_unit=("input", data.units))
    out.attrs.update(target=str(target), strategy=str(strategy),
                     point={k: v for k, v in data.point.items()}, path=where)
    _add_shapley(ds, out, str(target), strategy, data.point, alt)
    key = out["shapley"] if "shapley" in out else out["delta"]
    out.attrs["ranked_by"] = str(key.name)
    return out.isel(input=rank_order(key.values))


def _add_shapley(ds: xr.Dataset, out: xr.Dataset, target: str, strategy: str,
                 point: dict, alt: str | None) -> None:
    """Stored Shapley effects at the same point, beside (NaN where the run has none)."""
    if "shapley" not in ds or target not in [str(t) for t in ds["target"].values]:
        return
    sel: dict = {"target": target, **point}
    if alt is not None and alt in ds["shapley"].dims:
        sel[alt] = strategy
    try:
        sub = ds[["shapley", "shapley_conf"]].sel(sel).sel(input=out["input"].values)
    except (KeyError, ValueError):
        return
    if sub["shapley"].dims != ("input",) or not np.isfinite(sub["shapley"].values).any():
        return
    out["shapley"] = ("input", sub["shapley"].values.astype(float))
    out["shapley_conf"] = ("input", sub["shapley_conf"].values.astype(float))
    out["shapley"].attrs["units"] = out["shapley_conf"].attrs["units"] = "1"
