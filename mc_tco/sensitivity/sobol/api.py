"""Sobol' indices of arrays with named dims: thin xarray wrappers over the streaming sums."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import xarray as xr

from mc_tco.sensitivity.sobol.rqmc import ci_method_text, rqmc_result
from mc_tco.sensitivity.sobol.sums import BLOCK, SobolSums, poisson_weights

__all__ = ["indices_dataset", "sobol_indices", "sobol_indices_rqmc"]


def _split(y: xr.DataArray, k: int, dim: str, second_order: bool):
    per = 2 * k + 2 if second_order else k + 2
    cells = [d for d in y.dims if d != dim]
    yt = y.transpose(dim, *cells)
    total = yt.sizes[dim]
    if total % per:
        raise ValueError(
            f"y has {total} rows along '{dim}', not a multiple of {per} "
            f"(= {'2K + 2' if second_order else 'K + 2'} for K = {k} factors); check "
            "'second_order' and the factor list"
        )
    values = yt.values.reshape(total // per, per, -1)
    return values, yt, cells


def _accumulate(values, k, second_order, shift, resamples, seed, estimator, moments):
    acc = SobolSums(k, second_order, shift, resamples, estimator, moments)
    n = values.shape[0]
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        acc.add(values[start:stop], poisson_weights(seed, start, stop, resamples))
    return acc


def _to_dataset(res: dict, factors, yt, cells, second_order) -> xr.Dataset:
    k = len(factors)
    cell_shape = tuple(yt.sizes[c] for c in cells)
    coords = {c: yt.coords[c] for c in cells if c in yt.coords}
    out = xr.Dataset(coords={"input": list(factors), **coords})
    for name in ("S1", "ST", "S1_conf", "ST_conf"):
        out[name] = (("input", *cells), res[name].reshape((k, *cell_shape)))
    if second_order:
        out = out.assign_coords(input_2=list(factors))
        for name in ("S2", "S2_conf"):
            out[name] = (("input", "input_2", *cells), res[name].reshape((k, k, *cell_shape)))
    return out


def sobol_indices(
    y: xr.DataArray,
    factors: list[str],
    *,
    dim: str = "row",
    second_order: bool = False,
    resamples: int = 100,
    conf_level: float = 0.95,
    seed: int = 0,
    estimator: str = "saltelli",
    ci: str | None = None,
) -> xr.Dataset:
    """Sobol' indices of every cell of ``y``, which holds the outputs of a Saltelli design.

    Parameters
    ----------
    y : xr.DataArray
        Model outputs with dim ``dim`` of length ``N * rows_per_sample`` in SALib's order
        (as :func:`SALib.sample.sobol.sample` or :class:`mc_tco.design.SaltelliDesign`
        make it); any other dims are cells, each analysed on its own.
    factors : list of str
        Names of the inputs (or groups), in the design's column (factor) order.
    dim : str
        The design-row dim of ``y``.
    second_order : bool
        Whether the design has the ``BA`` rows; then ``S2`` is returned too.
    resamples, conf_level, seed
        Poisson bootstrap resamples, confidence level and seed of the weights.
    estimator : str
        One of :data:`ESTIMATORS`.
    ci : {"bootstrap", "asymptotic", "none"}, optional
        Interval method; default ``"bootstrap"`` when ``resamples > 1``, else ``"none"``.
        For randomized-QMC intervals see :func:`sobol_indices_rqmc`.

    Returns
    -------
    xr.Dataset
        ``S1``, ``ST``, ``S1_conf``, ``ST_conf`` with dims ``("input", *cell_dims)``;
        ``S2``, ``S2_conf`` with ``("input", "input_2", *cell_dims)`` with second order.
    """
    k = len(factors)
    values, yt, cells = _split(y, k, dim, second_order)
    if ci is None:
        ci = "bootstrap" if resamples > 1 else "none"
    boot = resamples if ci == "bootstrap" else 0
    acc = _accumulate(values, k, second_order, values[0, 0].copy(), boot, seed, estimator,
                      ci == "asymptotic")
    res = acc.result(conf_level, ci=ci)
    out = _to_dataset(res, factors, yt, cells, second_order)
    out.attrs.update(
        conf_level=conf_level, resamples=boot, ci_method=ci, estimator=estimator,
        method=ci_method_text(ci, conf_level, resamples=boot, estimator=estimator),
    )
    return out


def sobol_indices_rqmc(
    ys: Sequence[xr.DataArray],
    factors: list[str],
    *,
    dim: str = "row",
    second_order: bool = False,
    conf_level: float = 0.95,
    estimator: str = "saltelli",
) -> xr.Dataset:
    """Sobol' indices with randomized-QMC intervals from ``R`` independently scrambled runs.

    Parameters
    ----------
    ys : sequence of xr.DataArray
        The outputs of each replicate design (as ``y`` of :func:`sobol_indices`, same
        shape), e.g. from ``SaltelliDesign(D, s)`` for ``s`` in :func:`rqmc_seeds`.
    factors, dim, second_order, conf_level, estimator
        As :func:`sobol_indices`.

    Returns
    -------
    xr.Dataset
        As :func:`sobol_indices` (pooled estimates, :func:`rqmc_result` half-widths), plus
        ``S1_rep``, ``ST_rep`` with a leading ``replicate`` dim.
    """
    k = len(factors)
    parts = [_split(y, k, dim, second_order) for y in ys]
    shift = parts[0][0][0, 0].copy()
    sums = [_accumulate(v, k, second_order, shift, 0, 0, estimator, False) for v, _, _ in parts]
    res = rqmc_result(sums, conf_level)
    _, yt, cells = parts[0]
    out = _to_dataset(res, factors, yt, cells, second_order)
    cell_shape = tuple(yt.sizes[c] for c in cells)
    for name in ("S1_rep", "ST_rep"):
        out[name] = (("replicate", "input", *cells),
                     res[name].reshape((len(ys), k, *cell_shape)))
    out.attrs.update(
        conf_level=conf_level, replicates=len(ys), ci_method="rqmc", estimator=estimator,
        method=ci_method_text("rqmc", conf_level, replicates=len(ys), estimator=estimator),
    )
    return out


def indices_dataset(
    res: dict,
    factors: list[str],
    cell_shape: tuple[int, ...],
    cell_dims: tuple[str, ...],
    *,
    groups: Sequence[str] = (),
    second_order: bool = False,
    conf_level: float = 0.95,
    method: str = "",
) -> xr.Dataset:
    """The estimates of :meth:`SobolSums.result` (or :func:`rqmc_result`) with named dims.

    Parameters
    ----------
    res : dict
        ``S1``, ``ST``, ``S1_conf``, ``ST_conf`` of shape (K, C) (and ``S2``, ``S2_conf``
        (K, K, C); ``constant`` (C,)), K = inputs then groups, C the flattened cells.
    factors : list of str
        The inputs (the first ``len(factors)`` of K); the rest are ``groups``.
    cell_shape, cell_dims
        How C unflattens, e.g. ``(T, demand, strategy)`` and ``("target", "demand",
        "strategy")``.

    Returns
    -------
    xr.Dataset
        ``S1``, ``ST``, ``S1_conf``, ``ST_conf`` (cell_dims[0], input, cell_dims[1:]), the
        ``*_group`` variants over ``group``, ``S2`` over (input, input_2), the
        ``*_negative`` flags and ``constant_output``; half-widths carry ``ci_prob`` and
        ``method``. Coordinates are the caller's to add.
    """
    k, d = len(factors) + len(groups), len(factors)
    lead, rest = cell_dims[0], tuple(cell_dims[1:])
    sdims, gdims = (lead, "input", *rest), (lead, "group", *rest)
    ds = xr.Dataset(coords={"input": list(factors)})
    if groups:
        ds = ds.assign_coords(group=list(groups))
    for name, long in [
        ("S1", "first-order Sobol' index"),
        ("ST", "total-order Sobol' index"),
        ("S1_conf", "half-width of the confidence interval of S1"),
        ("ST_conf", "half-width of the confidence interval of ST"),
    ]:
        arr = res[name].reshape((k, *cell_shape)).swapaxes(0, 1)
        ds[name] = (sdims, arr[:, :d], {"long_name": long, "units": "1"})
        if groups:
            ds[f"{name.replace('_conf', '')}_group{'_conf' if 'conf' in name else ''}"] = (
                gdims, arr[:, d:], {"long_name": long + " of a group of inputs", "units": "1"}
            )
    if second_order:
        ds = ds.assign_coords(input_2=("input_2", list(factors)))
        for name in ("S2", "S2_conf"):
            arr = np.moveaxis(res[name].reshape((k, k, *cell_shape)), 2, 0)[:, :d, :d]
            ds[name] = ((lead, "input", "input_2", *rest), arr, {"units": "1"})
    for name in ["S1", "S1_group", "S2"]:
        if name in ds:
            below = ds[name] < -ds[f"{name}_conf"]
            ds[f"{name}_negative"] = below.astype(np.int8).assign_attrs(
                long_name=f"1 where {name} is below minus its half-width: a negative "
                "estimate larger than its error (kept as estimated; a sign of too few samples "
                "or of an estimator's bias at small indices)"
            )
    ds["constant_output"] = (
        cell_dims, res["constant"].reshape(cell_shape).astype(np.int8),
        {"long_name": "1 where the target does not vary: its Sobol' indices are NaN"},
    )
    for name in ("S1_conf", "ST_conf", "S1_group_conf", "ST_group_conf", "S2_conf"):
        if name in ds:
            ds[name].attrs.update(ci_prob=conf_level, method=method)
    for name in ("S1", "ST", "S1_group", "ST_group", "S2"):
        if name in ds:
            ds[name].attrs["note"] = "NaN where constant_output = 1 (no variance to apportion)"
    ds["S1"].attrs["centring"] = (
        "the output is centred on the mean of all design rows (SALib's normalisation), so "
        "options that add rows (groups, second order) move S1 slightly (up to ~1e-3)")
    return ds
