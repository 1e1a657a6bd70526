"""What a book's correlations are, and what they change: the matrices and a paired rerun.

:func:`correlation_dataset` stores the matrices of the book's ``[[correlation]]`` pairs.
:func:`independence_check` answers "does the answer depend on the correlations?": the
base sample is evaluated twice on the same Sobol' points, through the copula and without
it, and P(target > 0) of both is compared pair by pair (the paired interval of the
difference, Newcombe 1998 method 10, as the family check does). At most
``INDEPENDENCE_SAMPLES`` base samples are used (a prefix holds every scramble equally).
"""

from __future__ import annotations

import dataclasses
import json

import xarray as xr

from ..sensitivity.grouped import crossing_pairs
from ..summary import stack_targets
from ..uncertainty import wilson_interval
from .evaluate import evaluate_base
from .family import _with_bounds, paired_difference_interval
from .plan import Plan

__all__ = ["INDEPENDENCE_SAMPLES", "correlation_dataset", "independence_check"]

#: base samples of the independence check (all of them for a run this size or smaller)
INDEPENDENCE_SAMPLES = 2**13


def correlation_dataset(plan: Plan) -> xr.Dataset:
    """The book's correlations as results: the matrices and whether the groups stay apart.

    Variables ``correlation_rank`` (the rank correlations as written, unit diagonal, 0 for
    pairs not written), ``correlation_normal`` (the normal correlation they imply) and
    ``correlation_used`` (the one sampled: ``correlation_normal``, or its nearest valid
    matrix when the book asks for the repair), dims (input, input_2). Attrs: the pairs
    with their sources, whether repaired, and whether the groups stay independent.
    """
    corr = plan.book.correlation
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


def independence_check(plan: Plan) -> xr.Dataset:
    """P(target > 0) with the inputs independent, and the change the correlations make.

    Returns
    -------
    xr.Dataset
        ``independent_p_positive`` (target, *grid): P(target > 0) on the same Sobol'
        points without the copula; ``independent_p_positive_ci`` (..., ci_bound), Wilson;
        ``correlation_change_ci`` (..., ci_bound): paired interval of P with the book's
        correlations minus P without them. Attr ``independence_check_samples``.
    """
    n = min(plan.samples, INDEPENDENCE_SAMPLES)
    free = dataclasses.replace(plan.book, correlation=None, correlations=[])
    plans = (plan, dataclasses.replace(plan, book=free, shapley=False, family_check=False))
    wins = []
    for p in plans:
        base = evaluate_base(p, 0, n, outputs=set(p.targets))  # the targets only: cheaper
        wins.append((stack_targets(base, p.targets) > 0).transpose("target", "sample", ...))
    with_corr, without = wins
    conf = plan.conf_level
    k = without.sum("sample")
    lo, hi = wilson_interval(k.values, n, conf)
    both = (with_corr & without).sum("sample").values
    only_c = (with_corr & ~without).sum("sample").values
    only_i = (~with_corr & without).sum("sample").values
    clo, chi = paired_difference_interval(only_c, only_i, n, conf, a=both,
                                          d=n - both - only_c - only_i)
    out = xr.Dataset({
        "independent_p_positive": (k / n).assign_attrs(
            units="1", long_name="P(target > 0) with the inputs independent (same Sobol' "
            "points, no copula)"),
        "independent_p_positive_ci": _with_bounds(k, lo, hi).assign_attrs(
            units="1", ci_prob=conf, method="Wilson score"),
        "correlation_change_ci": _with_bounds(k, clo, chi).assign_attrs(
            units="1", ci_prob=conf, method="Newcombe 1998 method 10 (paired)",
            long_name="interval of P(target > 0) with the book's correlations minus "
            "P(target > 0) without them"),
    })
    out.attrs["independence_check_samples"] = int(n)
    return out.drop_vars([c for c in out.coords if c not in out.dims], errors="ignore")


