"""What a book's correlations are, and what they change: the matrices and a paired rerun.

:func:`correlation_dataset` stores the matrices of the book's ``[[correlation]]`` pairs.
:func:`independence_check` answers "does the answer depend on the correlations?": the
base sample is evaluated twice on the same Sobol' points, through the copula and without
it, and P(target > 0) of both is compared pair by pair. The rows are a prefix of the run's
base rows (at most ``INDEPENDENCE_SAMPLES``; a prefix holds every scramble equally), so the
intervals are those of the family check: the randomized-QMC t interval over the scrambles,
Wilson's (a share) or Newcombe's (1998 method 10, the paired change) where it falls back.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import xarray as xr

from mc_tco.engine.evaluate import evaluate_base
from mc_tco.engine.family import _method, _replicate, _with_bounds, paired_change
from mc_tco.engine.plan import Plan
from mc_tco.sensitivity.grouped import crossing_pairs
from mc_tco.uncertainty.scrambles import probability_with_interval
from mc_tco.uncertainty.statistics import stack_targets

__all__ = ["INDEPENDENCE_SAMPLES", "correlation_dataset", "independence_check",
           "independent_rows"]

#: base samples of the independence check (all of them for a run this size or smaller)
INDEPENDENCE_SAMPLES = 2**13


def correlation_dataset(plan: Plan) -> xr.Dataset:
    """The book's correlations as results: the matrices and whether the groups stay apart.

    Variables ``correlation_rank`` (the rank correlations as written, unit diagonal, 0 for
    pairs not written), ``correlation_normal`` (the normal correlation they imply) and
    ``correlation_used`` (the one sampled: ``correlation_normal``, or its nearest valid
    matrix when the book asks for the repair), dims (input, input_2). Attrs: the pairs
    with their sources, whether repaired, and whether the groups stay independent.

    Raises
    ------
    ValueError
        When the book has no correlations (the run asks only for a book that has).
    """
    corr = plan.book.correlation
    if corr is None:
        raise ValueError(f"{plan.book.path}: the book has no [[correlation]] pairs")
    names = plan.factors
    dims = ("input", "input_2")
    groups = {i.name: i.group for i in plan.book.uncertain if i.group}
    crossing = crossing_pairs(groups, plan.book.correlations)
    ds = xr.Dataset(
        {
            "correlation_rank": (dims, corr.requested, {
                "units": "1", "long_name": "rank correlation as written in the book "
                "(Spearman, or Kendall where the pair says so)"}),
            "correlation_normal": (dims, corr.normal, {
                "units": "1", "long_name": "normal correlation of the Gaussian copula "
                "implied by the written pairs"}),
            "correlation_used": (dims, corr.used, {
                "units": "1", "long_name": "normal correlation the sample uses"
                + (" (Higham's nearest correlation matrix to correlation_normal)"
                   if corr.repaired else "")}),
        },
        coords={"input": names, "input_2": names},
    )
    ds.attrs.update(
        correlations=json.dumps(plan.book.correlations),
        correlations_repaired=int(corr.repaired),
        correlation_min_eigenvalue=float(corr.min_eigenvalue),
        groups_independent=int(bool(groups) and not crossing),
    )
    return ds


def _free_plan(plan: Plan) -> Plan:
    free = dataclasses.replace(plan.book, correlation=None, correlations=[])
    return dataclasses.replace(plan, book=free, shapley=False, family_check=False)


def independent_rows(plan: Plan) -> xr.Dataset:
    """The targets on the run's first ``INDEPENDENCE_SAMPLES`` base rows with the inputs
    independent (the same Sobol' points without the copula): the independence check's
    second sample."""
    p = _free_plan(plan)
    return evaluate_base(p, 0, min(plan.samples, INDEPENDENCE_SAMPLES), outputs=set(p.targets))


def independence_check(plan: Plan, base: xr.Dataset | None = None,
                       free: xr.Dataset | None = None) -> xr.Dataset:
    """P(target > 0) with the inputs independent, and the change the correlations make.

    ``base``, the run's own base rows (at least the first ``INDEPENDENCE_SAMPLES``, with
    the targets), saves evaluating them again: they are the rows with the correlations.
    ``free``: :func:`independent_rows` of ``plan`` if already evaluated (the run
    evaluates them on a thread beside its summaries).

    Returns
    -------
    xr.Dataset
        ``independent_p_positive`` (target, *grid): P(target > 0) on the same Sobol'
        points without the copula; ``independent_p_positive_ci`` (..., ci_bound), over the
        scrambles; ``correlation_change_ci`` (..., ci_bound): paired interval of P with the
        book's correlations minus P without them
        (:func:`mc_tco.engine.family.paired_change`); with ``R > 1`` scrambles also
        ``independent_p_positive_fallback`` and ``correlation_change_fallback`` (1 where
        Wilson's / Newcombe's). Attr ``independence_check_samples``.
    """
    n = min(plan.samples, INDEPENDENCE_SAMPLES)
    wins = []
    for rows in (
        base[plan.targets].isel(sample=slice(0, n)).load() if base is not None
        else evaluate_base(plan, 0, n, outputs=set(plan.targets)),  # the targets only
        independent_rows(plan) if free is None else free,
    ):
        wins.append((stack_targets(rows, plan.targets) > 0).transpose("target", "sample", ...))
    with_corr, without = wins
    conf = plan.conf_level
    reps = plan.n_replicates
    k = without.sum("sample")
    pr = probability_with_interval(without.astype(float), replicates=reps, conf_level=conf)
    ci = pr["ci"].transpose(*k.dims, "ci_bound").values
    ch = paired_change(with_corr.values, without.values, _replicate(without, reps), reps,
                       conf, axis=1)
    out = xr.Dataset({
        "independent_p_positive": (k / n).assign_attrs(
            units="1", long_name="P(target > 0) with the inputs independent (same Sobol' "
            "points, no copula)"),
        "independent_p_positive_ci": _with_bounds(k, ci[..., 0], ci[..., 1]).assign_attrs(
            units="1", ci_prob=conf,
            method=_method(reps, conf, "Wilson score on the pooled count")),
        "correlation_change_ci": _with_bounds(k, ch.lower, ch.upper).assign_attrs(
            units="1", ci_prob=conf,
            method=_method(reps, conf, "Newcombe 1998 method 10 (paired) on the pooled "
                                       "counts"),
            long_name="interval of P(target > 0) with the book's correlations minus "
            "P(target > 0) without them"),
    })
    if reps > 1:
        out["independent_p_positive_fallback"] = _with_bounds(
            k, pr["fallback"].transpose(*k.dims).values).astype(np.int8).assign_attrs(
            long_name="1 where independent_p_positive_ci is Wilson's on the pooled count")
        out["correlation_change_fallback"] = _with_bounds(k, ch.fallback).astype(
            np.int8).assign_attrs(long_name="1 where correlation_change_ci is Newcombe's")
    out.attrs["independence_check_samples"] = int(n)
    return out.drop_vars([c for c in out.coords if c not in out.dims], errors="ignore")


