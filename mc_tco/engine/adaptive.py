"""Adaptive sample size: double the base sample until the decision indicators are ranked
to a target half-width (``--target-halfwidth``), and record the doublings."""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import product
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.engine.evaluate import _targets_array, evaluate_chunk, sobol_cells
from mc_tco.engine.plan import Plan, RunSums
from mc_tco.results.points import nearest_index, scale_of
from mc_tco.results.ranking import rank_order
from mc_tco.uncertainty.scrambles import MIN_EVENTS

__all__ = ["SETTLED", "cell_layout", "convergence_step", "with_path"]


#: report cells where P(indicator) is below this (or above 1 minus it) are "settled": the
#: decision is clear there and their ranking is not held to --target-halfwidth
SETTLED = 0.01


def convergence_step(
    plan: Plan, sums: RunSums, target: float, previous: dict | None,
    layout: dict | None = None, shapley: xr.Dataset | None = None,
) -> dict:
    """One doubling's record: is every decision indicator ranked to ``target``?

    The decision indicators are ``t>0`` for each target ``t``, at the report points (every
    combination of ``report`` values, e.g. demand x strategy). A cell where the indicator is
    constant, or where the Monte Carlo interval of P(t > 0) lies below 1% or above 99%
    (:data:`SETTLED`; the interval from the spread of the scrambles, Wilson's on the pooled
    count where a scramble has no event or only events), is settled and not held to the
    target. The index held to the target is the one that ranks (``plan.ranking_index``,
    :func:`mc_tco.results.ranking.ranking_rule`): ST with independent inputs; with
    correlations the Shapley effects (``shapley``, the run's Shapley pass), or the grouped
    ST of exact groups. Converged when the largest half-width of that index over the other
    cells is at most ``target`` and each cell's top five are the same as at the previous
    doubling (always, for the Shapley effects: one pass, made before the doublings).

    The Shapley effects' half-widths come from their own permutations, not from the base
    sample: when they miss the target, doubling cannot meet it, and the record says so
    (``futile``, and ``why`` names the permutations that would). A cell whose indicator has
    fewer than ``MIN_EVENTS`` winning or losing base rows is not ranked by any reader
    (``rare``): it is not held to the target but holds convergence back while doubling can
    still add events.

    Returns
    -------
    dict
        ``samples``, ``index``, ``worst_halfwidth``, ``worst_cell``, ``cells`` (held to the
        target), ``settled``, ``rare`` (Shapley only), ``rankings`` ({cell: [top five]}),
        ``converged``, ``futile``, ``why``.
    """
    res = sums.result(plan.conf_level)
    pooled = sums.pooled()
    k, n = plan.design.num_factors, pooled.n
    d = len(plan.factors)
    layout = layout or cell_layout(plan)
    t = len(layout["target"])
    shape = (t, *(len(v) for v in layout["values"]))
    index = plan.ranking_index
    names = list(plan.factors)
    score: Any  # (factor, target, *cells)
    score_conf: Any
    if index == "shapley":
        if shapley is None:
            raise ValueError("the run ranks by its Shapley effects: pass them (shapley=)")
        order = ["input", "target", *layout["dims"]]
        # (on the Sobol' sums' cells: the report points alone with --sobol-at report)
        at = {dim: values for dim, values in zip(layout["dims"], layout["values"], strict=True)
              if dim in plan.sobol_grid}
        score = np.asarray(shapley["shapley"].sel(target=layout["target"], **at).transpose(
            *order).values)
        score_conf = np.asarray(shapley["shapley_conf"].sel(
            target=layout["target"], **at).transpose(*order).values)
    elif index == "ST_group":
        score = res["ST"].reshape((k, *shape))[d:]
        score_conf = res["ST_conf"].reshape((k, *shape))[d:]
        names = list(plan.groups)
    else:
        score = res["ST"].reshape((k, *shape))[:d]
        score_conf = res["ST_conf"].reshape((k, *shape))[:d]
    p_lo, p_hi = (b.reshape(shape) for b in _p_interval(sums, plan.conf_level))
    wins = _wins(sums).reshape(shape)
    worst, worst_cell, rankings, held, settled, rare = 0.0, None, {}, 0, 0, 0
    for ti, tname in enumerate(layout["target"]):
        if not tname.endswith(">0"):
            continue
        for idx in _report_cells(plan, layout):
            cell = (ti, *idx)
            label = tname + " @ " + ", ".join(
                f"{dim}={_show_point(layout['values'][i][j])}"
                for i, (dim, j) in enumerate(zip(layout["dims"], idx, strict=True))
            )
            column = score[(slice(None), *cell)]
            # settled when the interval of P says so, not when the estimate crosses 1%
            if not np.isfinite(column).any() or p_hi[cell] < SETTLED or (
                p_lo[cell] > 1 - SETTLED
            ):
                settled += 1
                continue
            if index == "shapley" and min(wins[cell], n - wins[cell]) < MIN_EVENTS:
                rare += 1  # not ranked by any reader yet; more base samples add events
                continue
            held += 1
            halves = score_conf[(slice(None), *cell)]
            # a NaN half-width (a scramble whose indicator is constant in this cell) is
            # not a small error: the cell is not converged
            half = float(np.max(np.where(np.isnan(halves), np.inf, halves)))
            if half > worst or worst_cell is None:
                worst, worst_cell = half, label
            rankings[label] = [names[j] for j in rank_order(column, top=5)]
    # the Shapley pass is made once, before the doublings: its ranking cannot move
    stable = index == "shapley" or (previous is not None and previous["rankings"] == rankings)
    converged = worst <= target and (stable or held == 0) and rare == 0
    futile = index == "shapley" and worst > target
    what = {"shapley": "Shapley", "ST_group": "grouped ST"}.get(index, "ST")
    if converged:
        why = (f"every {what} half-width <= {target:g}"
               + ("" if index == "shapley" else " and the top five stable"))
    elif futile:
        perms = plan.shapley_permutations
        need = (f"; about {_permutations_for(perms, worst, target):,} permutations "
                "(--shapley-permutations) would meet it" if np.isfinite(worst) else "")
        why = (f"worst Shapley half-width {worst:.3g} > {target:g} ({worst_cell}): the "
               f"Shapley effects come from their own pass ({perms:,} permutations), which "
               f"doubling the base sample does not narrow{need}")
    elif rare:
        why = (f"{rare} cells have fewer than {MIN_EVENTS} winning or losing scenarios, too "
               "few to rank (every Shapley half-width of the others <= "
               f"{target:g}); more base samples add events")
    elif np.isinf(worst):
        why = (f"a half-width is undefined (a scramble without variance) at {worst_cell}: "
               "not settled; more samples are needed")
    elif worst > target:
        why = f"worst {what} half-width {worst:.3g} > {target:g} ({worst_cell})"
    else:
        why = "half-widths met, ranking changed since the last doubling"
    return {
        "samples": int(n), "index": index, "worst_halfwidth": worst, "worst_cell": worst_cell,
        "cells": held, "settled": settled, "rare": rare, "rankings": rankings,
        "converged": bool(converged),
        "futile": bool(futile), "why": why,
    }


def _wins(sums: RunSums) -> np.ndarray:
    """Base rows where each cell's output is positive (its indicator's events), pooled."""
    return np.sum([np.clip(np.rint(r.mean_a() * r.n), 0, r.n) for r in sums.reps], axis=0)


def _permutations_for(permutations: int, worst: float, target: float) -> int:
    """Permutations whose half-widths (``1 / sqrt(n_perm)``) would bring ``worst`` to
    ``target``, rounded up to a multiple of 64."""
    need = permutations * (worst / target) ** 2
    return int(64 * np.ceil(need / 64))


def _show_point(v: object) -> str:
    return v if isinstance(v, str) else f"{v:.4g}"


def cell_layout(plan: Plan, base: xr.Dataset | None = None) -> dict:
    """Target names and cell dims/values of the flattened Sobol' cells.

    Read from ``base``, the base rows of the run's first chunk (evaluated here if absent).
    """
    if base is None:
        base, _, _ = evaluate_chunk(plan, *plan.first)
    stacked, cells = _targets_array(plan, sobol_cells(plan, base))
    return {
        "target": [str(v) for v in stacked["target"].values],
        "dims": list(cells),
        "values": [list(stacked[c].values) if c in stacked.coords else
                   list(range(stacked.sizes[c])) for c in cells],
    }


def _report_cells(plan: Plan, layout: dict) -> list[tuple[int, ...]]:
    """Index tuples (over the cell dims) of every combination of report points."""
    axes: list[Sequence[int]] = []
    for dim, values in zip(layout["dims"], layout["values"], strict=True):
        wanted = plan.report.get(dim)
        if wanted is None:
            axes.append(range(len(values)))
            continue
        idx = []
        for w in wanted:
            if isinstance(w, str):
                idx += [i for i, v in enumerate(values) if v == w]
            else:
                idx.append(nearest_index(values, w, scale_of(dim)))
        axes.append(idx)
    return list(product(*axes))



def with_path(summary: xr.Dataset, path: list[dict], target: float | None) -> xr.Dataset:
    """Record a --target-halfwidth run's doublings in the summary."""
    if not path:
        return summary
    summary = summary.assign_coords(step=np.arange(len(path)), rank=np.arange(1, 6))
    summary["convergence_samples"] = ("step", [p["samples"] for p in path])
    summary["convergence_worst_halfwidth"] = (
        "step", [p["worst_halfwidth"] for p in path],
        {"long_name": "largest half-width of the ranking index (ST, or the Shapley "
                      "effects with correlations) of the decision indicators at the report "
                      "points that are not settled", "target": target},
    )
    summary.attrs["convergence_path"] = json.dumps(path)
    summary.attrs["convergence_target_halfwidth"] = target
    summary.attrs["converged"] = int(path[-1]["converged"])
    return summary




def _p_interval(sums: RunSums, conf_level: float) -> tuple[np.ndarray, np.ndarray]:
    """Bounds of P(output > 0) on the A rows, per cell (the targets' indicators among them):
    the replicate t interval over the scrambles, or Wilson's on the pooled count where it
    cannot work, by the one rule of :func:`mc_tco.uncertainty.scrambles.proportion_from_counts` (so
    the "settled" test reads the same interval as ``p_positive_ci``)."""
    from mc_tco.uncertainty.scrambles import proportion_from_counts

    k_r = np.stack([np.clip(np.rint(r.mean_a() * r.n), 0, r.n) for r in sums.reps])
    n_r = np.stack([np.broadcast_to(np.asarray(r.n, dtype=float), k.shape)
                    for r, k in zip(sums.reps, k_r, strict=True)])
    res = proportion_from_counts(k_r, n_r, conf_level)
    return res.lower, res.upper
