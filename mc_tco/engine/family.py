"""How much does the *shape* of the distributions matter?

The article gives ranges, not shapes: "400-550k USD", "10-20x". A book must still pick a
family, and the answer could hang on that pick. :func:`family_check` reruns the base sample
of a run (:func:`mc_tco.engine.evaluate_base`, no Saltelli rows) with the families of the
bounded inputs swapped among uniform, triangular and PERT over the same support, and
summarises P(target > 0) and the break-even distribution under each variant:

* **all at once** — every bounded input uniform, then triangular, then PERT: the total
  effect of the shape choice;
* **one at a time** — one input swapped to each other family, the rest as written: which
  input's shape matters.

The swapped distribution keeps the input's support ``[min, max]``; its mode is the book's
mode for a triangular or PERT input and the median of the book's distribution otherwise
(the midpoint of a uniform), PERT with the book's shape (4 unless the book says otherwise).
Inputs without a bounded support (normal, lognormal) and discrete inputs keep their book
distribution; they are listed in the ``family_check_unchanged`` attribute.

Every variant reuses the same scrambled Sobol' points (same seed, same design columns), so
the difference between two variants is the effect of the shape alone, evaluated on common
random numbers. The rows are the run's base rows, ``R`` interleaved independent scrambles,
so each probability's interval and the interval of each change are the randomized-QMC t
intervals over the scrambles (:mod:`mc_tco.uncertainty.scrambles`; the change is the mean of the
paired difference ``win_variant - win_book``); where those cannot work (a scramble with no
event, or no pair that differs) they fall back to Wilson's interval on the pooled count and
Newcombe's (1998, method 10) interval for a difference of paired proportions, flagged in
``*_fallback``. With one scramble (``--ci bootstrap`` / ``asymptotic``) they are Wilson's and
Newcombe's everywhere.

References
----------
Newcombe, R. G. (1998). Improved confidence intervals for the difference between binomial
proportions based on paired data. Statistics in Medicine 17(22), 2635-2650.
Vose, D. (2008). Risk Analysis: A Quantitative Guide, 3rd ed., ch. 9 (PERT, triangular).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from mc_tco.book import Book, Input
from mc_tco.distributions.families import build_distribution
from mc_tco.engine.family_eval import (
    COLUMNS,
    DISTRIBUTION_VARIANTS,
    BookCounts,
    evaluate_rows,
    single_grid,
    target_like,
    target_wins,
    unit_points,
    variant_values,
)
from mc_tco.engine.family_intervals import (
    paired_change,
    paired_change_from_counts,
    paired_difference_interval,
)
from mc_tco.uncertainty.statistics import QUANTILES, quantiles_with_never

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from mc_tco.engine.plan import Plan

__all__ = [
    "SHAPES",
    "family_check",
    "family_variants",
    "paired_change",
    "paired_change_from_counts",
    "paired_difference_interval",
    "swap_family",
]

#: the families swapped in, all over the input's support
SHAPES = ("uniform", "triangular", "pert")


def _bounded(inp: Input) -> bool:
    if inp.is_constant or inp.family == "discrete":
        return False
    lo, hi = inp.support()
    return math.isfinite(lo) and math.isfinite(hi)


def swap_family(inp: Input, family: str) -> Input:
    """``inp`` with the same support and a new family (uniform, triangular or pert).

    The mode is the book's mode (triangular, pert) or the median of the book's
    distribution; PERT keeps the book's shape parameter (default 4).
    """
    lo, hi = inp.support()
    if inp.family in ("triangular", "pert"):
        mode = float(inp.params["mode"])
    else:
        mode = float(inp.dist.median())
    if family == "uniform":
        params = {"low": lo, "high": hi}
    elif family == "triangular":
        params = {"min": lo, "mode": mode, "max": hi}
    elif family == "pert":
        shape = float(inp.params.get("shape", 4.0)) if inp.family == "pert" else 4.0
        params = {"min": lo, "mode": mode, "max": hi, "shape": shape}
    else:
        raise ValueError(f"family must be one of {', '.join(SHAPES)}, got {family!r}")
    return dataclasses.replace(
        inp, family=family, params=params, dist=build_distribution(family, params)
    )


def family_variants(book: Book) -> list[tuple[str, str, str, Book]]:
    """The book and its variants: ``(label, input or "all" or "", family, book)``.

    The first is the book as written (label ``book``); then every bounded input at once
    as each of :data:`SHAPES` (``all:uniform`` ...); then each bounded input alone as each
    family it does not already have (``node_price:pert`` ...).
    """
    bounded = [i for i in book.uncertain if _bounded(i)]
    out = [("book", "", "book", book)]
    for fam in SHAPES:
        inputs = dict(book.inputs)
        for inp in bounded:
            inputs[inp.name] = swap_family(inp, fam)
        out.append((f"all:{fam}", "all", fam, dataclasses.replace(book, inputs=inputs)))
    for inp in bounded:
        for fam in SHAPES:
            if fam == inp.family:
                continue
            inputs = dict(book.inputs)
            inputs[inp.name] = swap_family(inp, fam)
            out.append((f"{inp.name}:{fam}", inp.name, fam,
                        dataclasses.replace(book, inputs=inputs)))
    return out


def family_check(plan: Plan, progress: Callable[[int, int], None] | None = None) -> xr.Dataset:
    """Rerun the base sample of ``plan`` under every family variant and summarise.

    Parameters
    ----------
    plan : mc_tco.engine.Plan
        The plan of the run (same book, samples, seed and grid).
    progress : callable, optional
        Called as ``progress(0, total)`` as the variants start (a first run's kernels may
        have compiled before), then ``progress(done, total)`` in variants.

    Returns
    -------
    xr.Dataset
        Dim ``family_variant`` (labels ``book``, ``all:uniform``, ..., ``node_price:pert``;
        coords ``family_variant_input`` and ``family_variant_family``) and:

        * ``family_check_p_positive`` (family_variant, target, ...): P(target > 0);
        * ``family_check_p_positive_ci`` (..., ci_bound): its interval over the scrambles
          (Wilson's where it falls back: ``family_check_p_positive_fallback``);
        * ``family_check_p_positive_change_ci`` (..., ci_bound): the interval of the change
          from the book, on common random numbers (:func:`paired_change`; Newcombe's where it
          falls back: ``family_check_p_positive_change_fallback``);
        * ``family_check_<name>_quantile`` (family_variant, quantile, ...) and
          ``family_check_<name>_p_never`` for each per-sample distribution of the run
          (``breakeven_demand``), for the book and the all-at-once variants (NaN for the
          one-at-a-time ones, which the memo does not report; attr ``computed_for``).

        The book and the all-at-once variants are evaluated on the whole grid, the
        one-at-a-time variants at the points of :func:`mc_tco.engine.family_eval.single_grid`
        (the report points, claim points and focus: NaN elsewhere, fallback 0; attr
        ``one_at_a_time_at``), where the memo and the terminal read them.

        Attrs: ``family_check_seconds``, ``family_check_swapped`` and
        ``family_check_unchanged`` (JSON lists of inputs).

    Notes
    -----
    Each variant's rows are the run's base rows with only the swapped inputs' columns
    re-mapped (:mod:`mc_tco.engine.family_eval`): the values, and so every number, are
    those of rerunning :func:`mc_tco.engine.evaluate.evaluate_base` on the variant's own plan.
    """
    start = time.monotonic()
    variants = family_variants(plan.book)
    conf, reps = plan.conf_level, plan.n_replicates
    with_dists = [v[1] in DISTRIBUTION_VARIANTS for v in variants]
    values = variant_values(plan, [v[3] for v in variants], unit_points(plan))

    # the variants on every core (the kernels release the GIL), read back in their order,
    # as many in flight as there are workers (each holds its rows); an interrupt or an
    # error cancels the ones not started. A variant's values are made here, in order; one
    # that changes no value (every input already of that family) is the book's own result.
    workers = max(1, min(len(variants), os.cpu_count() or 1))
    pool = ThreadPoolExecutor(workers)
    futures: list[Future[xr.Dataset]] = []

    sub = single_grid(plan)

    def submit(i: int) -> Future[xr.Dataset]:
        rows, changed = next(values)
        wanted = set(plan.targets) | (set(plan.distributions) if with_dists[i] else set())
        grid = None if with_dists[i] else sub
        futures.append(pool.submit(evaluate_rows, plan, rows, wanted, i == 0, grid)
                       if changed or i == 0 else futures[0])
        return futures[-1]

    if progress is not None:  # the variants start now: a time left counts from here
        progress(0, len(variants))
    pending = deque(submit(i) for i in range(min(workers, len(variants))))
    cols: dict[str, list[np.ndarray]] = {k: [] for k in COLUMNS}
    dists: dict[str, list[xr.Dataset | None]] = {name: [] for name in plan.distributions}
    units: dict[str, str] = {}
    counts: BookCounts | None = None
    like: xr.DataArray | None = None
    at_sub: BookCounts | None = None  # the book's, at the one-at-a-time variants' points
    try:
        for i in range(len(variants)):
            out = pending.popleft().result()
            futures[i] = futures[0]  # (only the book's result is kept)
            if i + workers < len(variants):
                pending.append(submit(i + workers))
            # (sample, target, ...), one indicator per target: the two labels of a target
            # (t, t>0) are the same indicator, repeated in the Dataset
            w = target_wins(out, plan.targets)
            if counts is None:
                like = target_like(out, plan.targets)
                counts = BookCounts.of(like.isel(target=slice(None, None, 2)), w, reps)
                at_sub = counts.at(sub)
            assert at_sub is not None  # (set with counts)
            full = with_dists[i] or not sub
            row = counts.columns(w, conf) if full else at_sub.spread(w, conf, counts.like)
            for key, v in zip(COLUMNS, row, strict=True):
                cols[key].append(v)
            for name in plan.distributions:
                if with_dists[i]:
                    units.setdefault(name, str(out[name].attrs.get("units", "")))
                    dists[name].append(quantiles_with_never(
                        out[name], quantiles=QUANTILES, conf_level=conf, replicates=reps))
                else:
                    dists[name].append(None)
            if progress is not None:
                progress(i + 1, len(variants))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    assert counts is not None and like is not None  # (the book is always a variant)
    return _family_dataset(plan, variants, like, cols, dists, units, start, sub)


def _family_dataset(plan: Plan, variants: list, like: xr.DataArray,
                    cols: dict[str, list[np.ndarray]], dists: dict[str, list[xr.Dataset | None]],
                    units: dict[str, str], start: float, sub: dict[str, np.ndarray],
                    ) -> xr.Dataset:
    """The family check's Dataset from the per-variant arrays (see :func:`family_check`)."""
    conf, reps = plan.conf_level, plan.n_replicates
    labels = [v[0] for v in variants]
    coords = {
        "family_variant": labels,
        "family_variant_input": ("family_variant", [v[1] for v in variants]),
        "family_variant_family": ("family_variant", [v[2] for v in variants]),
    }
    out = xr.Dataset(coords=coords)
    grid = {k: v for k, v in like.coords.items()}
    dims = ("family_variant", *like.dims)
    bounds = {"ci_bound": ["lower", "upper"]}

    def arr(key: str) -> np.ndarray:  # (variant, target, ...): each target's two labels
        return np.repeat(np.stack(cols[key]), 2, axis=1)

    def stacked(key: str, dtype: type | None = None) -> xr.DataArray:
        return xr.DataArray(arr(key).astype(dtype) if dtype else arr(key), dims=dims,
                            coords=grid)

    def pair(lo: str, hi: str) -> xr.DataArray:
        return xr.DataArray(np.stack([arr(lo), arr(hi)], axis=-1),
                            dims=(*dims, "ci_bound"), coords={**grid, **bounds})

    note = ("rerun of the base sample with the family swapped (same support, same Sobol' "
            "points); see mc_tco.engine.family")
    out["family_check_p_positive"] = stacked("p").assign_attrs(
        units="1", long_name="P(target > 0) under each family variant", note=note)
    out["family_check_p_positive_ci"] = pair("lo", "hi").assign_attrs(
        units="1", ci_prob=conf, method=_method(reps, conf, "Wilson score on the pooled count"),
        long_name="Monte Carlo interval of family_check_p_positive")
    out["family_check_p_positive_change_ci"] = pair("clo", "chi").assign_attrs(
        units="1", ci_prob=conf,
        method=_method(reps, conf, "Newcombe 1998 method 10 (paired) on the pooled counts"),
        long_name="interval of the change of P(target > 0) from the book as written")
    if reps > 1:
        out["family_check_p_positive_fallback"] = stacked("fall", np.int8).assign_attrs(
            long_name="1 where family_check_p_positive_ci is Wilson's on the pooled count")
        out["family_check_p_positive_change_fallback"] = stacked(
            "cfall", np.int8).assign_attrs(
            long_name="1 where family_check_p_positive_change_ci is Newcombe's")
    if sub:
        where = "; ".join(f"{dim} = " + ", ".join(f"{v:.6g}" for v in vals)
                          for dim, vals in sub.items())
        for name in list(out.data_vars):
            out[name].attrs["one_at_a_time_at"] = (
                f"{where} only (the report points, claim points and focus; NaN elsewhere, "
                "where the one-at-a-time variants were not evaluated)")
    done = [labels[i] for i, v in enumerate(variants) if v[1] in DISTRIBUTION_VARIANTS]
    for name, parts in dists.items():
        first = next(p for p in parts if p is not None)
        blank = first.map(lambda v: xr.full_like(v, np.nan, dtype=float))
        filled = [blank if p is None else p for p in parts]
        dim = xr.DataArray(labels, dims="family_variant", name="family_variant")
        computed = (f"computed for {', '.join(done)} (the memo's break-even table); NaN for "
                    "the one-at-a-time variants")
        q = xr.concat([p["quantiles"] for p in filled], dim=dim)
        out[f"family_check_{name}_quantile"] = q.assign_attrs(
            units=units.get(name, ""), method="inverted_cdf (an order statistic; inf = never)",
            computed_for=json.dumps(done), note=computed)
        out[f"family_check_{name}_p_never"] = xr.concat(
            [p["p_never"] for p in filled], dim=dim).assign_attrs(
            units="1", long_name=f"share of samples where {name} is infinite (never)",
            computed_for=json.dumps(done), note=computed)
    bounded = [i.name for i in plan.book.uncertain if _bounded(i)]
    unchanged = [i.name for i in plan.book.uncertain if not _bounded(i)]
    out.attrs.update(
        family_check_seconds=round(time.monotonic() - start, 3),
        family_check_swapped=json.dumps(bounded),
        family_check_unchanged=json.dumps(unchanged),
        family_check_shapes=json.dumps(list(SHAPES)),
        family_check_mode_rule="book's mode (triangular, pert), else the book distribution's "
                               "median; same support; PERT shape from the book or 4",
    )
    return out


def _with_bounds(like: xr.DataArray, lo: ArrayLike, hi: ArrayLike | None = None) -> xr.DataArray:
    """``[lo, hi]`` as a DataArray like ``like`` with dim ``ci_bound`` last (or ``lo`` alone,
    with the dims of ``like``, when ``hi`` is None)."""
    coords = {k: v for k, v in like.coords.items()}
    if hi is None:
        return xr.DataArray(np.asarray(lo), dims=like.dims, coords=coords)
    return xr.DataArray(
        np.stack([lo, hi], axis=-1), dims=(*like.dims, "ci_bound"),
        coords={**coords, "ci_bound": ["lower", "upper"]},
    )


def _replicate(da: xr.DataArray, replicates: int) -> np.ndarray:
    """The scramble of each row of ``da`` (its ``sample`` coordinate: the global index)."""
    from mc_tco.uncertainty.scrambles import replicate_of

    index = da["sample"].values if "sample" in da.coords else np.arange(da.sizes["sample"])
    return replicate_of(index, replicates)


def _method(replicates: int, conf_level: float, fallback: str) -> str:
    if replicates > 1:
        return (f"{conf_level:.0%} randomized-QMC t interval over {replicates} independent "
                f"scrambles (pooled estimate +- t sd / sqrt(R)); fallback cells: {fallback}")
    return fallback


def add_family_check(plan: Plan, ds: xr.Dataset,
                     progress: Callable[[int, int], None] | None = None) -> xr.Dataset:
    """``ds`` with the variables and attrs of :func:`family_check` merged in."""
    fc = family_check(plan, progress=progress)
    merged = ds.merge(fc.drop_attrs(deep=False), join="exact")
    merged.attrs.update(ds.attrs)
    merged.attrs.update(fc.attrs)
    return merged
