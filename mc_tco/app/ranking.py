"""The explorer's "top inputs" chart: the inputs at one grid point ranked as the CLI ranks
them, through :meth:`ds.mc_tco.ranking <mc_tco.results.accessor.ResultsAccessor.ranking>`
(Shapley effects when the book correlates its inputs and the run estimated them, else the
total Sobol' index ST), with what the chart is to say about it."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.app import bridge

__all__ = ["ranked_by", "ranking", "rests_on"]

#: the chart's title by index: what the bars are
TITLES = {"shapley": "Top inputs by Shapley effect (their shares of the variance sum to 1)",
          "ST": "Top inputs by total Sobol' index ST"}


def _num(x) -> float | None:
    x = float(x)
    return float(f"{x:.12g}") if math.isfinite(x) else None


def ranked_by(ds: xr.Dataset) -> str:
    """The index :meth:`ds.mc_tco.ranking` ranks by when not told: ``"shapley"`` for a
    run of correlated inputs that has them, else ``"ST"`` (the accessor's rule, read back
    for the chart's label)."""
    return "shapley" if "shapley" in ds and ds.mc_tco.correlations else "ST"


def rests_on(ds: xr.Dataset, index: str) -> tuple[str, bool]:
    """What the chart's numbers rest on, for its caption (the estimator, its size and the
    ``mc-tco run`` that gives the same numbers), and whether they are the page's first,
    rough estimate (fewer Shapley permutations than the CLI's for the run's samples)."""
    run = ds.mc_tco.run
    cli = f"mc-tco run --samples {run.samples} --seed {run.seed}"
    if index == "shapley":
        perms = int(run.options.get("shapley_permutations") or 0)
        default = bridge.default_permutations(run.samples)
        option = f" --shapley-permutations {perms}" if perms != default else ""
        return (f"Shapley effects from {perms:,} random permutations of the inputs "
                f"({run.shapley_evaluations or 0:,} model rows), the same numbers as "
                f"{cli}{option} --shapley-at grid at this demand"), perms < default
    return (f"Sobol' indices from {run.model_runs:,} model rows (the Saltelli design of "
            f"{run.samples:,} base samples; intervals from {run.scrambles} scrambles), as "
            f"{cli}"), False


def ranking(ds: xr.Dataset, dim: str, d: float, strategy: str, target: str,
            top: int = 8) -> dict:
    """The ranking of ``strategy``'s inputs at ``dim = d``, as ``mc-tco run`` prints it.

    The target ranked is the indicator (``saving>0``) when it rests on enough winning and
    losing scenarios and its top index (the ranking index) is above its own error, else
    the target itself (the CLI's rule, :func:`mc_tco.app.bridge.indicator_ranks`).
    Shapley effects are read at the nearest point the run estimated them at: ``at``.

    Returns
    -------
    dict
        ``target``, ``wins``, ``index`` (``"shapley"`` or ``"ST"``), ``title``, ``rests_on``
        (the estimator and its size), ``rough`` (a first estimate: fewer permutations than
        the CLI's), ``constant`` (the target does not vary at the point: no ``rows``),
        ``rare`` (the too-few-scenarios note of the
        indicator, or None), ``at`` and ``rows``: ``[input, value, half-width, S1 or
        None]`` by decreasing value.
    """
    n = int(ds.sizes["sample"])
    point: dict[str, Any] = {dim: d, "strategy": strategy}
    indicator = f"{target}>0"
    index = ranked_by(ds)
    at = ds.mc_tco.shapley_point(**point) if index == "shapley" else point
    wins = (round(float(ds["p_positive"].sel(target=indicator, **point)) * n)
            if indicator in ds["target"].values else 0)
    if indicator in ds["target"].values and bridge.indicator_ranks(
            wins, n, ds[index].sel(target=indicator, **at).values,
            ds[f"{index}_conf"].sel(target=indicator, **at).values):
        target = indicator
    if not np.isfinite(ds[index].sel(target=target, **at).values).any():
        # the target does not vary here (a strategy that is the baseline at this point):
        # nothing to rank, and the accessor refuses to
        return {"target": target, "wins": wins, "index": index, "title": TITLES[index],
                "rests_on": rests_on(ds, index)[0], "rough": False, "rare": None,
                "at": _num(at[dim]), "rows": [], "constant": True}
    table = ds.mc_tco.ranking(target, index=index, **at).isel(input=slice(0, top))
    title = TITLES[index]
    if index == "ST" and ds.mc_tco.correlations:  # a quick run without Shapley effects
        title += " (inputs moved one at a time: with correlations not shares of the variance)"
    rare = bridge.rare_note(ds, indicator, point) if indicator in ds["target"].values else None
    s1 = table["S1"].values if index == "ST" else [None] * table.sizes["input"]
    basis, rough = rests_on(ds, index)
    return {"target": target, "wins": wins, "index": index, "title": title,
            "rests_on": basis, "rough": rough, "constant": False,
            "rare": None if rare is None else {
                "events": rare["events"], "rows": rare["rows"],
                "nearest": rare["nearest_demand"], "note": rare["note"]},
            "at": _num(at[dim]),
            "rows": [[str(name), _num(v), _num(h), None if x is None else _num(x)]
                     for name, v, h, x in zip(
                         table["input"].values, table[index].values,
                         table[f"{index}_conf"].values, s1, strict=True)]}
