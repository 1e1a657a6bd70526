"""The family check's model calls and counts, on common random numbers.

Every variant of :func:`mc_tco.engine.family.family_variants` differs from the book in the
distributions of a few inputs only, and reruns the same base rows: the run's Sobol' points
(same seed, same scrambles, the copula already applied). So the unit-cube points are made
once (:func:`unit_points`), the book's input values once, and a variant's values are the
book's with the swapped columns re-mapped through the other family's ``ppf``
(:func:`variant_values`; a swapped column is computed once and shared by the one-at-a-time
and the all-at-once variants). The values are exactly those a rerun of the variant's own
plan (:func:`mc_tco.engine.evaluate.evaluate_base`) would feed the model.

The model is asked for what the check reports (:func:`evaluate_rows`): the targets for every
variant, the per-sample distributions (the break-even demand, a root search that costs four
times the rest of the model) only for the variants whose quantiles the memo reads
(:data:`DISTRIBUTION_VARIANTS`). The indicators are reduced to counts per scramble
(:func:`scramble_counts`), from which the intervals are computed exactly as from the rows.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from mc_tco.book import Book

if TYPE_CHECKING:
    from mc_tco.engine.plan import Plan

__all__ = ["CHUNK", "DISTRIBUTION_VARIANTS", "evaluate_rows", "scramble_counts", "target_wins",
           "unit_points", "variant_values"]

#: the variants (by their ``input`` coordinate: the book ``""`` and all-at-once ``"all"``)
#: whose per-sample distributions are computed; the memo's break-even table reads only these
DISTRIBUTION_VARIANTS = ("", "all")
#: base rows per call of :meth:`~mc_tco.engine.plan.Plan.base_points`
CHUNK = 65536


def unit_points(plan: Plan) -> np.ndarray:
    """The unit-cube points of the run's base rows (``A``), (samples, inputs).

    The ``A`` half of :meth:`mc_tco.engine.plan.Plan.base_points` (the copula applied; a
    point depends on its index only, so the chunks do not change it), made in chunks of
    :data:`CHUNK` rows so the ``B`` half is never held whole.
    """
    d = plan.design.num_inputs
    width = max(plan.n_replicates, CHUNK - CHUNK % plan.n_replicates)
    parts = [plan.base_points(s, min(s + width, plan.samples))[:, :d]
             for s in range(0, plan.samples, width)]
    return np.concatenate(parts, axis=0)


def variant_values(plan: Plan, books: Iterable[Book], points: np.ndarray,
                   ) -> Iterator[tuple[np.ndarray, bool]]:
    """The input values (samples, inputs) of each of ``books``, on the same ``points``.

    A column is the ``ppf`` of the variant's input on the column of ``points``; columns
    whose input is the plan book's own (the same object) are the book's, computed once,
    and a swapped input's column is computed once per distinct input object. With each,
    whether any value differs from the book's (a uniform swapped for a uniform does not).
    """
    names = [inp.name for inp in plan.book.uncertain]
    own = {name: plan.book.inputs[name] for name in names}
    base = np.empty_like(points)
    for j, name in enumerate(names):
        base[:, j] = own[name].ppf(points[:, j])
    cache: dict[int, np.ndarray] = {}
    for book in books:
        values = base
        for j, name in enumerate(names):
            inp = book.inputs[name]
            if inp is own[name]:
                continue
            if values is base:
                values = base.copy()
            col = cache.get(id(inp))
            if col is None:
                col = cache[id(inp)] = inp.ppf(points[:, j])
            values[:, j] = col
        yield values, values is not base and not np.array_equal(values, base)


def evaluate_rows(plan: Plan, values: np.ndarray, outputs: Iterable[str],
                  check: bool = False) -> xr.Dataset:
    """The model's ``outputs`` (and nothing it may skip) on the base rows ``values``.

    The rows are the base samples ``0 .. n-1`` (the ``sample`` coordinate); ``check`` also
    checks the book's ``[analysis]`` against the outputs (needs every reported output).
    """
    from mc_tco.engine.evaluate import _call_model, _input_dataset

    out = _call_model(plan, _input_dataset(plan, values, set(outputs)), check=check)
    keep = [k for k in out.data_vars if "sample" in out.variables[k].dims]
    return out[keep].assign_coords(sample=np.arange(values.shape[0]))


def target_wins(out: xr.Dataset, targets: list[str]) -> xr.DataArray:
    """``target > 0`` of each target, bool, dims ``(target, sample, ...)``.

    The ``target`` labels are those of :func:`mc_tco.uncertainty.statistics.stack_targets`
    (``t`` and ``t>0`` per target; both are the indicator ``t > 0``).
    """
    wins = xr.broadcast(*(out[t] > 0 for t in targets))
    rep = [w for w in wins for _ in range(2)]
    names = [n for t in targets for n in (t, f"{t}>0")]
    stacked = xr.concat(rep, dim="target", coords="minimal", compat="override")
    stacked = stacked.assign_coords(target=names).transpose("target", "sample", ...)
    stacked = stacked.drop_vars([c for c in stacked.coords if c not in stacked.dims])
    # no attrs on the coords, as stack_targets (the run's own variables carry them)
    bare = {}
    for name, coord in stacked.coords.items():
        var = coord.variable.copy(deep=False)
        var.attrs = {}
        bare[name] = var
    return stacked.assign_coords(bare)


def scramble_counts(rows: np.ndarray, replicates: int) -> np.ndarray:
    """Sums of ``rows`` (samples first) over each scramble's rows, (R, ...).

    Base sample ``g`` belongs to scramble ``g % R``
    (:func:`mc_tco.uncertainty.scrambles.replicate_of`), so scramble ``r`` holds the rows
    ``r, r + R, ...``.
    """
    return np.stack([rows[r::replicates].sum(axis=0) for r in range(replicates)])
