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
(:data:`DISTRIBUTION_VARIANTS`); the book and the all-at-once variants on the whole grid,
the one-at-a-time variants at the report points, claim points and focus
(:func:`single_grid`, those of the Shapley pass: 7 of the TCO book's 46 demands). The
indicators are reduced to counts per scramble (:func:`scramble_counts`), from which the
intervals are computed exactly as from the rows.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from mc_tco.book import Book
from mc_tco.engine.family_intervals import paired_change_from_counts
from mc_tco.uncertainty.intervals import proportion_from_counts

if TYPE_CHECKING:
    from mc_tco.engine.plan import Plan

__all__ = ["CHUNK", "COLUMNS", "DISTRIBUTION_VARIANTS", "BookCounts", "evaluate_rows",
           "grid_index", "scramble_counts", "single_grid", "target_like", "target_wins",
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


def single_grid(plan: Plan) -> dict[str, np.ndarray]:
    """The grid points where the one-at-a-time variants are evaluated, per restricted dim.

    Those of the Shapley pass (:func:`mc_tco.engine.shapley.shapley_grid` with its default
    ``"report"``): along each grid dim with numeric report points, those points, the
    model's claim points and the focus, or without a focus the middle of the grid (the
    generic memo's default point); other dims keep every point. The TCO memo and the
    terminal read the one-at-a-time variants at the report points only.
    """
    from mc_tco.engine.shapley import shapley_grid

    sub = shapley_grid(dataclasses.replace(plan, shapley_at="report"))
    for dim, values in sub.items():
        focus = plan.focus.get(dim)
        if focus is None or isinstance(focus, str):
            grid = np.asarray(plan.grid[dim].values, dtype=float)
            sub[dim] = np.union1d(values, grid[(grid.size - 1) // 2: (grid.size + 1) // 2])
    return sub


def grid_index(like: xr.DataArray, sub: dict[str, np.ndarray]) -> tuple[np.ndarray, ...]:
    """The open-mesh index (:func:`numpy.ix_`) of the points ``sub`` in ``like``'s dims."""
    return np.ix_(*(np.flatnonzero(np.isin(like[d].values, sub[d])) if d in sub
                    else np.arange(like.sizes[d]) for d in like.dims))


def evaluate_rows(plan: Plan, values: np.ndarray, outputs: Iterable[str],
                  check: bool = False, grid: dict[str, np.ndarray] | None = None,
                  ) -> xr.Dataset:
    """The model's ``outputs`` (and nothing it may skip) on the base rows ``values``.

    The rows are the base samples ``0 .. n-1`` (the ``sample`` coordinate); ``check`` also
    checks the book's ``[analysis]`` against the outputs (needs every reported output);
    ``grid`` ({dim: values}) evaluates those grid points only.
    """
    from mc_tco.engine.evaluate import _call_model, _input_dataset

    out = _call_model(plan, _input_dataset(plan, values, set(outputs), grid), check=check)
    keep = [k for k in out.data_vars if "sample" in out.variables[k].dims]
    return out[keep].assign_coords(sample=np.arange(values.shape[0]))


def target_wins(out: xr.Dataset, targets: list[str]) -> np.ndarray:
    """``target > 0`` of each target, bool, (sample, target, ...): the targets broadcast
    against each other, the dims after ``target`` those of :func:`target_like`."""
    parts = xr.broadcast(*(out[t] for t in targets))
    rest = [d for d in parts[0].dims if d != "sample"]
    return np.stack([p.transpose("sample", *rest).values > 0 for p in parts], axis=1)


def target_like(out: xr.DataArray | xr.Dataset, targets: list[str]) -> xr.DataArray:
    """An empty DataArray with the dims ``(target, ...)`` and coords of the family check's
    numbers: the ``target`` labels of :func:`mc_tco.uncertainty.statistics.stack_targets`
    (``t`` and ``t>0`` per target; both are the indicator ``t > 0``), the grid's
    coordinates without their attrs (as ``stack_targets``)."""
    parts = xr.broadcast(*(out[t] for t in targets))
    rest = [d for d in parts[0].dims if d != "sample"]
    names = [n for t in targets for n in (t, f"{t}>0")]
    coords = {d: xr.Variable(d, parts[0][d].values) for d in rest if d in parts[0].coords}
    shape = (len(names), *(parts[0].sizes[d] for d in rest))
    return xr.DataArray(np.zeros(shape, dtype=bool), dims=("target", *rest),
                        coords={"target": names, **coords})


def scramble_counts(rows: np.ndarray, replicates: int) -> np.ndarray:
    """Sums of ``rows`` (samples first) over each scramble's rows, (R, ...).

    Base sample ``g`` belongs to scramble ``g % R``
    (:func:`mc_tco.uncertainty.scrambles.replicate_of`), so scramble ``r`` holds the rows
    ``r, r + R, ...``.
    """
    return np.stack([rows[r::replicates].sum(axis=0) for r in range(replicates)])


#: the per-variant arrays: P, its interval and fallback, the change's interval and fallback
COLUMNS = ("p", "lo", "hi", "fall", "clo", "chi", "cfall")


@dataclasses.dataclass(frozen=True)
class BookCounts:
    """The book's indicators and per-scramble counts, which every variant is paired with."""

    like: xr.DataArray  # (target, ...): the dims and coords of a variant's numbers
    wins: np.ndarray  # (sample, target, ...) bool
    wins_r: np.ndarray  # (R, target, ...)
    n_r: np.ndarray  # (R, target, ...): rows per scramble
    replicates: int
    index: tuple[np.ndarray, ...] | None = None  # where these points lie in the full grid

    @classmethod
    def of(cls, like: xr.DataArray, wins: np.ndarray, replicates: int) -> BookCounts:
        """The counts of the book's indicators ``wins`` (sample, target, ...)."""
        wins_r = scramble_counts(wins, replicates)
        ones = scramble_counts(np.ones(wins.shape[0], dtype=np.int64), replicates)
        n_r = np.broadcast_to(ones.reshape(-1, *[1] * (wins.ndim - 1)), wins_r.shape)
        return cls(like, wins, wins_r, n_r, replicates)

    def at(self, sub: dict[str, np.ndarray]) -> BookCounts:
        """These counts at the grid points ``sub`` only ({dim: values})."""
        if not sub:
            return self
        ix = grid_index(self.like, sub)
        like = self.like.isel({d: ix[k].ravel() for k, d in enumerate(self.like.dims)})
        rows: tuple[Any, ...] = (slice(None), *ix)
        return BookCounts(like, self.wins[rows], self.wins_r[rows], self.n_r[rows],
                           self.replicates, ix)

    def spread(self, w: np.ndarray, conf: float, full: xr.DataArray,
               ) -> tuple[np.ndarray, ...]:
        """:meth:`columns` of ``w`` at these points, placed in the dims of ``full``: NaN
        (0 for the fallback flags) at the grid points not evaluated."""
        assert self.index is not None  # (counts made by :meth:`at`)
        out = []
        for v in self.columns(w, conf):
            a = np.zeros(full.shape, dtype=bool) if v.dtype == bool else np.full(
                full.shape, np.nan)
            a[self.index] = v
            out.append(a)
        return tuple(out)

    def columns(self, w: np.ndarray, conf: float) -> tuple[np.ndarray, ...]:
        """The :data:`COLUMNS` of a variant's indicators ``w`` (sample, target, ...)."""
        reps = self.replicates
        k_r = scramble_counts(w, reps)
        pr = proportion_from_counts(k_r, self.n_r, conf)
        ch = paired_change_from_counts(k_r, self.wins_r, scramble_counts(w & ~self.wins, reps),
                                       scramble_counts(~w & self.wins, reps), self.n_r, conf)
        return (k_r.sum(axis=0) / w.shape[0], pr.lower, pr.upper, pr.fallback,
                ch.lower, ch.upper, ch.fallback)
