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
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from mc_tco.book import Book, Input
from mc_tco.distributions.families import build_distribution
from mc_tco.uncertainty.scrambles import (
    Interval,
    mean_interval,
    probability_with_interval,
    wilson_interval,
)
from mc_tco.uncertainty.statistics import QUANTILES, quantiles_with_never, stack_targets

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from mc_tco.engine.plan import Plan

__all__ = [
    "SHAPES",
    "family_check",
    "family_variants",
    "paired_change",
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


def paired_difference_interval(b: ArrayLike, c: ArrayLike, n: int | np.ndarray,
                               conf_level: float = 0.95, a: ArrayLike | None = None,
                               d: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's (1998) method-10 interval for ``p1 - p2`` of paired binary outcomes.

    Parameters
    ----------
    b, c : array_like
        Counts of pairs (1, 0) and (0, 1): the variant wins where the book loses, and the
        reverse.
    n : int
        Pairs.
    a, d : array_like
        Counts of (1, 1) and (0, 0); ``a + b + c + d = n``.

    Returns
    -------
    (ndarray, ndarray)
        Lower and upper bounds of ``(b - c) / n``.

    Notes
    -----
    Wilson's intervals of the two margins, combined with the correlation ``phi`` of the
    pairs; as in Newcombe's method 10, ``phi``'s numerator ``ad - bc`` is reduced by ``n/2``
    (not below 0) where it is positive, and ``phi = 0`` where a margin is empty. Equal to his
    Table II to 4 decimals (``tests/engine/test_family.py``).
    """
    a, b, c, d = (np.asarray(v, dtype=float) for v in (a, b, c, d))
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n, conf_level)
    l2, u2 = wilson_interval(a + c, n, conf_level)
    denom = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    cross = np.where(cross > 0, np.maximum(cross - n / 2, 0.0), cross)
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = np.where(denom > 0, cross / np.sqrt(np.where(denom > 0, denom, 1)), 0.0)
    delta = p1 - p2
    lower = delta - np.sqrt(np.clip(
        (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0, None))
    upper = delta + np.sqrt(np.clip(
        (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0, None))
    return np.clip(lower, -1, 1), np.clip(upper, -1, 1)


def paired_change(wins: ArrayLike, ref: ArrayLike, replicate: ArrayLike, replicates: int,
                  conf_level: float = 0.95, axis: int = 0) -> Interval:
    """The change ``P(wins) - P(ref)`` of two paired indicators, with its interval.

    The estimate is the mean of ``wins - ref`` over the rows; the interval is the
    randomized-QMC t interval of its ``R`` per-scramble means
    (:func:`mc_tco.uncertainty.scrambles.mean_interval`), or :func:`paired_difference_interval`
    (Newcombe 1998, method 10, on the pooled counts) where that cannot work: a scramble with
    no discordant pair (the change there is exactly 0, as with no event for a proportion),
    R equal per-scramble changes, or a t interval that leaves [-1, 1] (``fallback``).

    Parameters
    ----------
    wins, ref : array_like of bool
        The two indicators on the same rows, the rows along ``axis``.
    replicate : array_like of int, (n,)
        The scramble of each row (:func:`mc_tco.uncertainty.scrambles.replicate_of`).

    Returns
    -------
    Interval
        Dims of ``wins`` without ``axis``.
    """
    w = np.moveaxis(np.asarray(wins, dtype=bool), axis, 0)
    r = np.moveaxis(np.asarray(ref, dtype=bool), axis, 0)
    replicate = np.asarray(replicate)
    n = w.shape[0]
    both = (w & r).sum(axis=0)
    only_w = (w & ~r).sum(axis=0)
    only_r = (~w & r).sum(axis=0)
    n_lo, n_hi = paired_difference_interval(only_w, only_r, n, conf_level, a=both,
                                            d=n - both - only_w - only_r)
    res = mean_interval(w.astype(float) - r.astype(float), replicate, replicates, conf_level)
    discordant = np.stack([(w[replicate == k] != r[replicate == k]).any(axis=0)
                           for k in range(replicates)])
    with np.errstate(invalid="ignore"):
        fallback = (~discordant.all(axis=0) | ~(res.upper - res.lower > 0)
                    | (res.lower < -1) | (res.upper > 1))
    return Interval(res.estimate, np.where(fallback, n_lo, res.lower),
                    np.where(fallback, n_hi, res.upper), fallback)


def family_check(plan: Plan, progress: Callable[[int, int], None] | None = None) -> xr.Dataset:
    """Rerun the base sample of ``plan`` under every family variant and summarise.

    Parameters
    ----------
    plan : mc_tco.engine.Plan
        The plan of the run (same book, samples, seed and grid).
    progress : callable, optional
        Called as ``progress(done, total)`` in variants.

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
          (``breakeven_demand``).

        Attrs: ``family_check_seconds``, ``family_check_swapped`` and
        ``family_check_unchanged`` (JSON lists of inputs).
    """
    from mc_tco.engine.evaluate import evaluate_base
    from mc_tco.engine.plan import plan_run

    start = time.monotonic()
    variants = family_variants(plan.book)
    conf = plan.conf_level
    # the same rows per model call as the run (a run evaluates chunk_size base samples with
    # all their design rows at once); 256 base rows per call would be overhead-bound
    chunk = plan.chunk_size * plan.design.rows_per_sample
    book_wins = None
    reps = plan.n_replicates
    probs, cis, changes = [], [], []
    dists: dict[str, list[xr.Dataset]] = {name: [] for name in plan.distributions}
    falls, change_falls = [], []
    units: dict[str, str] = {}
    # the run's own base rows: same seed, scrambles (--ci, --replicates) and design
    vplans = [plan_run(book, samples=plan.samples, seed=plan.seed, resamples=0,
                       conf_level=conf, chunk_size=chunk, second_order=plan.second_order,
                       ci=plan.ci, replicates=plan.replicates, by_group=plan.by_group)
              for (_, _, _, book) in variants]
    # the variants on every core (the kernels release the GIL), read back in their order,
    # as many in flight as there are workers (each holds its base rows); an interrupt or an
    # error cancels the ones not started
    workers = max(1, min(len(vplans), os.cpu_count() or 1))
    pool = ThreadPoolExecutor(workers)
    pending = deque(pool.submit(evaluate_base, vplan) for vplan in vplans[:workers])
    try:
        for i in range(len(vplans)):
            base = pending.popleft().result()
            if i + workers < len(vplans):
                pending.append(pool.submit(evaluate_base, vplans[i + workers]))
            wins = stack_targets(base, plan.targets) > 0  # (target, sample, ...)
            wins = wins.transpose("target", "sample", ...)
            n = wins.sizes["sample"]
            k = wins.sum("sample")
            pr = probability_with_interval(wins.astype(float), replicates=reps,
                                           conf_level=conf)
            probs.append(k / n)
            ci = pr["ci"].transpose(*k.dims, "ci_bound").values
            cis.append(_with_bounds(k, ci[..., 0], ci[..., 1]))
            falls.append(_with_bounds(k, pr["fallback"].transpose(*k.dims).values)
                         .astype(np.int8))
            if book_wins is None:
                book_wins = wins
            ch = paired_change(wins.values, book_wins.values, _replicate(wins, reps), reps,
                               conf, axis=1)
            changes.append(_with_bounds(k, ch.lower, ch.upper))
            change_falls.append(_with_bounds(k, ch.fallback).astype(np.int8))
            for name in plan.distributions:
                units.setdefault(name, str(base[name].attrs.get("units", "")))
                dists[name].append(quantiles_with_never(base[name], quantiles=QUANTILES,
                                                        conf_level=conf, replicates=reps))
            if progress is not None:
                progress(i + 1, len(variants))
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    labels = [v[0] for v in variants]
    coords = {
        "family_variant": labels,
        "family_variant_input": ("family_variant", [v[1] for v in variants]),
        "family_variant_family": ("family_variant", [v[2] for v in variants]),
    }
    dim = xr.DataArray(labels, dims="family_variant", name="family_variant")
    out = xr.Dataset(coords=coords)
    note = ("rerun of the base sample with the family swapped (same support, same Sobol' "
            "points); see mc_tco.engine.family")
    out["family_check_p_positive"] = xr.concat(probs, dim=dim).assign_attrs(
        units="1", long_name="P(target > 0) under each family variant", note=note)
    out["family_check_p_positive_ci"] = xr.concat(cis, dim=dim).assign_attrs(
        units="1", ci_prob=conf, method=_method(reps, conf, "Wilson score on the pooled count"),
        long_name="Monte Carlo interval of family_check_p_positive")
    out["family_check_p_positive_change_ci"] = xr.concat(changes, dim=dim).assign_attrs(
        units="1", ci_prob=conf,
        method=_method(reps, conf, "Newcombe 1998 method 10 (paired) on the pooled counts"),
        long_name="interval of the change of P(target > 0) from the book as written")
    if reps > 1:
        out["family_check_p_positive_fallback"] = xr.concat(falls, dim=dim).assign_attrs(
            long_name="1 where family_check_p_positive_ci is Wilson's on the pooled count")
        out["family_check_p_positive_change_fallback"] = xr.concat(
            change_falls, dim=dim).assign_attrs(
            long_name="1 where family_check_p_positive_change_ci is Newcombe's")
    for name, parts in dists.items():
        q = xr.concat([p["quantiles"] for p in parts], dim=dim)
        out[f"family_check_{name}_quantile"] = q.assign_attrs(
            units=units.get(name, ""), method="inverted_cdf (an order statistic; inf = never)")
        out[f"family_check_{name}_p_never"] = xr.concat(
            [p["p_never"] for p in parts], dim=dim).assign_attrs(
            units="1", long_name=f"share of samples where {name} is infinite (never)")
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
