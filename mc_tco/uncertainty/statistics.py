"""Uncertainty summaries of outputs over independent samples: quantiles, means, probabilities.

Numpy kernels take ``axis=``; the xarray functions name the sample dim and add the new dims
``quantile`` and ``ci_bound`` (``["lower", "upper"]``) with the level in ``attrs``.

With the run's ``R`` independent scrambles (``replicates > 1``) every interval is the
randomized-QMC interval over them (:mod:`mc_tco.uncertainty.scrambles`: pooled estimate ± t(R-1)
sd/√R), with Wilson / order-statistic fallbacks flagged cell by cell. With one scramble or
independent rows, the interval of a probability is Wilson's score interval (Wilson 1927;
Brown, Cai & DasGupta 2001), valid on independent rows and conservative on a scrambled
Sobol' design.
"""

from __future__ import annotations

from typing import cast

import numpy as np
import xarray as xr

from mc_tco.uncertainty.scrambles import wilson_interval

__all__ = [
    "QUANTILES",
    "p_positive",
    "quantiles_with_never",
    "summarize_targets",
    "wilson_interval",
]

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def _ci_coord(conf_level):
    return {"ci_bound": ["lower", "upper"]}


def p_positive(da: xr.DataArray, dim: str = "sample", conf_level: float = 0.95):
    """P(``da`` > 0) over ``dim`` and its Wilson interval.

    The NaN rule (one for every share in mc_tco): a NaN sample is "not applicable" and is
    left out of both the count and the sample size; a cell that is NaN everywhere is NaN.

    Returns
    -------
    (xr.DataArray, xr.DataArray)
        The probability (dims of ``da`` without ``dim``) and its interval with dim
        ``ci_bound`` last; ``attrs["ci_prob"]`` holds ``conf_level``.
    """
    valid = da.notnull()
    n = valid.sum(dim)
    k = ((da > 0) & valid).sum(dim)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo, hi = wilson_interval(k.values, np.where(n.values > 0, n.values, 1), conf_level)
        prob = (k / n.where(n > 0)).assign_attrs(units="1")
    empty = n.values == 0
    lo, hi = np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)
    ci = xr.DataArray(
        np.stack([lo, hi], axis=-1), dims=(*k.dims, "ci_bound"), coords={**k.coords,
                                                                          **_ci_coord(conf_level)}
    ).assign_attrs(ci_prob=conf_level, method="Wilson score", units="1")
    return prob, ci


def summarize_targets(
    base: xr.Dataset,
    targets: list[str],
    *,
    quantiles=QUANTILES,
    conf_level: float = 0.95,
    label: str = "> 0",
    replicates: int = 1,
) -> xr.Dataset:
    """Mean, quantiles and P(target > 0) of each target and of its indicator ``target>0``.

    Parameters
    ----------
    base : xr.Dataset
        Model outputs over the base samples (dim ``sample``, whose coordinate is the global
        base-sample index: sample ``g`` belongs to scramble ``g % replicates``).
    targets : list of str
        Output names.
    replicates : int
        Independent scrambles of the design. With more than one, every interval comes from
        the spread across them (:mod:`mc_tco.uncertainty.scrambles`: pooled estimate ± t(R-1) sd/√R,
        with Wilson / order-statistic fallbacks flagged in ``*_fallback``); with one (i.i.d.
        rows or a single scramble), P(target > 0) gets a Wilson interval.

    Returns
    -------
    xr.Dataset
        ``target_mean`` (target, ...), ``target_quantile`` (target, quantile, ...),
        ``p_positive`` (target, ...), ``p_positive_ci`` (target, ..., ci_bound); with
        replicates also ``target_mean_ci``, ``target_quantile_ci`` and ``*_fallback``. The
        ``target`` coordinate holds ``t`` and ``t>0`` for each target ``t``.
    """
    stacked = stack_targets(base, targets)
    if replicates > 1:
        return _replicate_summaries(stacked, quantiles, conf_level, label, replicates)
    q = stacked.quantile(list(quantiles), dim="sample").transpose("target", "quantile", ...)
    mean = stacked.mean("sample")
    prob, ci = p_positive(stacked, "sample", conf_level)
    out = xr.Dataset(
        {
            "target_mean": mean.assign_attrs(long_name="mean over samples"),
            "target_quantile": q.assign_attrs(long_name="quantiles over samples"),
            "p_positive": prob.assign_attrs(
                long_name=f"probability that the target is positive ({label})"
            ),
            "p_positive_ci": ci.assign_attrs(long_name="Monte Carlo interval of p_positive"),
        }
    )
    return out


def _replicate_summaries(stacked: xr.DataArray, quantiles, conf_level: float, label: str,
                         replicates: int) -> xr.Dataset:
    """:func:`summarize_targets` over ``replicates`` scrambles: the array kernels of
    :mod:`mc_tco.uncertainty.intervals` (those of the xarray wrappers
    :func:`~mc_tco.uncertainty.scrambles.probability_with_interval`, ``mean_with_interval``
    and ``quantiles_with_interval``: the same numbers, dims and attrs) on the values of
    ``stacked`` (target, sample, ...), in one transpose and one Dataset (the wrappers'
    Datasets, transposes and merges took half the summary of the app's answer)."""
    from mc_tco.uncertainty.interval_datasets import method_text
    from mc_tco.uncertainty.intervals import (
        mean_interval,
        proportion,
        quantile_interval,
        replicate_of,
    )

    da = stacked.transpose("sample", ...)
    x = da.values
    rest = da.dims[1:]
    index = da["sample"].values if "sample" in da.coords else np.arange(da.sizes["sample"])
    rep = replicate_of(index, replicates)
    event = np.where(np.isnan(x), np.nan, (x > 0).astype(float))  # indicator_of's NaN rule
    levels = [float(v) for v in np.atleast_1d(quantiles)]
    pr = proportion(event, rep, replicates, conf_level, axis=0)
    mn = mean_interval(x, rep, replicates, conf_level, axis=0)
    qs = quantile_interval(x, levels, rep, replicates, conf_level, axis=0)
    bounds = (*rest, "ci_bound")

    def by_quantile(dims, values, attrs=None):  # (quantile, target, ...) -> (target, quantile, ...)
        return xr.Variable(("quantile", *dims), values, attrs).transpose(
            "target", "quantile", ...)

    def ci(res):
        return np.stack([res.lower, res.upper], axis=-1)

    coords = {k: v for k, v in da.coords.items() if "sample" not in v.dims}
    return xr.Dataset(
        {
            "target_mean": (rest, mn.estimate, {"long_name": "mean over samples"}),
            "target_mean_ci": (bounds, ci(mn), {
                "long_name": "Monte Carlo interval of target_mean", "ci_prob": conf_level,
                "method": method_text("mean", replicates, conf_level)}),
            "target_quantile": by_quantile(rest, qs.estimate, {
                "long_name": "quantiles over samples (inverted_cdf)"}),
            "target_quantile_ci": by_quantile(bounds, ci(qs), {
                "long_name": "Monte Carlo interval of target_quantile", "ci_prob": conf_level,
                "method": method_text("quantile", replicates, conf_level)}),
            "target_quantile_fallback": by_quantile(rest, qs.fallback.astype(np.int8), {
                "long_name": "1 where the quantile's interval is the order-statistic "
                             "fallback"}),
            "p_positive": (rest, pr.estimate, {
                "units": "1", "long_name": f"probability that the target is positive ({label})"}),
            "p_positive_ci": (bounds, ci(pr), {
                "units": "1", "long_name": "Monte Carlo interval of p_positive",
                "ci_prob": conf_level, "method": method_text("proportion", replicates,
                                                             conf_level)}),
            "p_positive_fallback": (rest, pr.fallback.astype(np.int8), {
                "long_name": "1 where the interval of p_positive is Wilson's on the pooled "
                             "count (some scramble had no event or only events)"}),
        },
        coords={**coords, "ci_bound": ["lower", "upper"], "quantile": levels},
    )


def indicator_of(da: xr.DataArray) -> xr.DataArray:
    """1 where ``da`` > 0, 0 where not, NaN where ``da`` is NaN (the NaN rule)."""
    return (da > 0).astype(float).where(da.notnull())


def stack_targets(ds: xr.Dataset, targets: list[str]) -> xr.DataArray:
    """The targets and their indicators ``t>0`` (as 0/1) along a new dim ``target``."""
    names = [n for t in targets for n in (t, f"{t}>0")]
    first = ds[targets[0]]
    if all(ds[t].dims == first.dims for t in targets):
        # the same dims: written into one array (xarray's broadcast and concat below, the
        # same values, dims, coords and name, copied them three times)
        values = np.empty((len(names), *first.shape),
                          dtype=np.result_type(np.float64, *(ds[t].dtype for t in targets)))
        for i, t in enumerate(targets):
            values[2 * i] = ds[t].values
            np.greater(ds[t].values, 0, out=values[2 * i + 1])  # NaN > 0 is 0, as astype
        stacked = xr.DataArray(values, dims=("target", *first.dims), coords=first.coords,
                               name=targets[0])  # (concat names it after the first)
    else:
        parts = []
        for t in targets:
            parts += [ds[t], (ds[t] > 0).astype(float)]
        arrays = xr.broadcast(*parts)
        stacked = xr.concat(arrays, dim="target", coords="minimal", compat="override")
    # no attrs, on the data or the coords, without drop_attrs' copies of the data
    stacked = stacked.assign_coords(target=names).copy(deep=False)
    stacked.attrs = {}
    bare = {}
    for name, coord in stacked.coords.items():
        var = coord.variable.copy(deep=False)
        var.attrs = {}
        bare[name] = var
    return stacked.assign_coords(bare)


def quantiles_with_never(
    da: xr.DataArray, *, dim: str = "sample", quantiles=QUANTILES, conf_level: float = 0.95,
    replicates: int = 1,
) -> xr.Dataset:
    """Quantiles of an output that may be ``inf`` ("never"), and the share that is.

    Quantiles are order statistics (``method="inverted_cdf"``), so a quantile is a sampled
    value or ``inf``, never an interpolation towards infinity. NaN samples (not applicable,
    e.g. the break-even of the API against itself) are left out of the quantiles and of
    ``p_never`` alike (the NaN rule of :func:`p_positive`); a cell NaN everywhere is NaN.

    Parameters
    ----------
    replicates : int
        Independent scrambles of the design (sample ``g`` belongs to scramble
        ``g % replicates``, read from the ``dim`` coordinate). With more than one, the
        interval of ``p_never`` is the randomized-QMC t interval over them
        (:func:`mc_tco.uncertainty.scrambles.probability_with_interval`), Wilson's on the pooled
        count
        in the cells where that cannot work (a scramble with no "never" or only "never");
        with one, Wilson's everywhere.

    Returns
    -------
    xr.Dataset
        ``quantiles`` (quantile, ...), ``p_never`` (...), ``p_never_ci`` (..., ci_bound) and
        ``p_never_fallback`` (..., 1 where the interval is Wilson's); ``p_never_ci`` carries
        ``method`` and ``ci_prob`` in attrs.
    """
    from mc_tco.uncertainty.scrambles import indicator, probability_with_interval

    values = da.transpose(dim, ...)
    arr = values.values
    nan = np.isnan(arr)
    # the NaN rule of p_positive: NaN samples are left out of the quantiles and of the
    # share "never" alike (sorted last as +inf would count them as "never")
    na = nan.all(axis=0)
    # a cell NaN everywhere (the API's break-even against itself) is NaN, and left out of
    # nanquantile, which would warn "All-NaN slice": silencing that warning changed the
    # process's warning filters (catch_warnings), which other threads of a run change too
    # (a ppf's), and a filter restored by one thread could undo another's (the warning,
    # raised as an error under pytest, failed a run beside its Shapley pass)
    flat = arr.reshape(arr.shape[0], -1)
    some = ~na.reshape(-1)
    q = np.full((len(quantiles), flat.shape[1]), np.nan)
    if some.any():
        q[:, some] = np.nanquantile(flat[:, some], list(quantiles), axis=0,
                                    method="inverted_cdf")
    q = q.reshape(len(quantiles), *arr.shape[1:])
    rest = [d for d in values.dims if d != dim]
    coords = {d: values.coords[d] for d in rest if d in values.coords}
    if replicates > 1:
        never_da = cast(xr.DataArray, np.isinf(values))  # a DataArray's ufunc
        res = probability_with_interval(indicator(never_da, values),
                                        replicates=replicates, dim=dim, conf_level=conf_level)
        p = res["estimate"].transpose(*rest).values
        ci = res["ci"].transpose(*rest, "ci_bound").values
        fallback = res["fallback"].transpose(*rest).values
        method = res.attrs["method"]
    else:
        never = np.isinf(arr).sum(axis=0)
        n = (~nan).sum(axis=0)
        lo, hi = wilson_interval(never, np.maximum(n, 1), conf_level)
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(na, np.nan, never / np.maximum(n, 1))
        ci = np.stack([np.where(na, np.nan, lo), np.where(na, np.nan, hi)], axis=-1)
        fallback = ~na
        method = "Wilson score (independent rows or a single scramble)"
    out = xr.Dataset(
        {
            "quantiles": (("quantile", *rest), q),
            "p_never": (rest, p),
            "p_never_ci": ((*rest, "ci_bound"), ci),
            "p_never_fallback": (rest, np.asarray(fallback, dtype=bool)),
        },
        coords={"quantile": list(quantiles), "ci_bound": ["lower", "upper"], **coords},
    )
    out["p_never_ci"].attrs.update(method=method, ci_prob=conf_level, units="1")
    return out
