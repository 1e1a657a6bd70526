"""The intervals of :mod:`mc_tco.uncertainty.scrambles` over a DataArray's sample dim, as
Datasets: ``estimate``, ``ci`` (``ci_bound = ["lower", "upper"]``) and ``fallback``, with
``method`` and ``conf_level`` in ``attrs``."""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.uncertainty.intervals import (
    Interval,
    mean_interval,
    proportion,
    quantile_interval,
    replicate_of,
)

__all__ = [
    "indicator",
    "mean_with_interval",
    "probability_with_interval",
    "quantiles_with_interval",
]



def _replicates_of(da: xr.DataArray, dim: str, replicates: int) -> np.ndarray:
    index = da[dim].values if dim in da.coords else np.arange(da.sizes[dim])
    return replicate_of(index, replicates)


def method_text(kind: str, replicates: int, conf_level: float) -> str:
    """The ``method`` attr of an interval of ``kind`` (proportion, quantile, mean)."""
    fall = {"proportion": "Wilson score on the pooled count",
            "quantile": "order-statistics (binomial) interval on the pooled sample",
            "mean": "none"}[kind]
    return (f"{conf_level:.0%} randomized-QMC t interval over {replicates} independent "
            f"scrambles (pooled estimate +- t sd / sqrt(R)); fallback cells: {fall}")


def _to_dataset(res: Interval, dims, coords, attrs, lead=()) -> xr.Dataset:
    ci = np.stack([res.lower, res.upper], axis=-1)
    return xr.Dataset(
        {
            "estimate": ((*lead, *dims), res.estimate),
            "ci": ((*lead, *dims, "ci_bound"), ci),
            "fallback": ((*lead, *dims), res.fallback),
        },
        coords={**coords, "ci_bound": ["lower", "upper"]},
        attrs=attrs,
    )


def _wrap(kind, kernel, da, dim, replicates, conf_level, *args, lead=(), lead_coords=None):
    da = da.transpose(dim, ...)
    rest = [d for d in da.dims if d != dim]
    coords = {k: v for k, v in da.coords.items() if dim not in v.dims}
    res = kernel(da.values, *args, _replicates_of(da, dim, replicates), replicates,
                 conf_level, axis=0)
    attrs = {"method": method_text(kind, replicates, conf_level), "conf_level": conf_level,
             "replicates": replicates, "nan_rule": "NaN rows excluded from numerator and "
             "denominator"}
    return _to_dataset(res, rest, {**coords, **(lead_coords or {})}, attrs, lead)


def indicator(test: xr.DataArray, values: xr.DataArray) -> xr.DataArray:
    """``test`` as 1.0/0.0, NaN where ``values`` is NaN (the NaN rule), e.g.
    ``indicator(y > 0, y)`` or, for the "never" share, ``indicator(np.isinf(b), b)``."""
    return test.astype(float).where(values.notnull())


def probability_with_interval(event: xr.DataArray, *, replicates: int, dim: str = "sample",
                              conf_level: float = 0.95) -> xr.Dataset:
    """:func:`proportion` over ``dim`` of a 1/0/NaN DataArray (e.g. ``(y > 0).where(...)``).

    Returns
    -------
    xr.Dataset
        ``estimate`` (...), ``ci`` (..., ci_bound) and ``fallback`` (...), unit 1; attrs
        ``method``, ``conf_level``, ``replicates``. The replicate of a sample is its ``dim``
        coordinate (the global base-sample index) modulo ``replicates``.
    """
    return _wrap("proportion", proportion, event, dim, replicates, conf_level)


def mean_with_interval(da: xr.DataArray, *, replicates: int, dim: str = "sample",
                       conf_level: float = 0.95) -> xr.Dataset:
    """:func:`mean_interval` over ``dim``: ``estimate``, ``ci`` (ci_bound), ``fallback``."""
    return _wrap("mean", mean_interval, da, dim, replicates, conf_level)


def quantiles_with_interval(da: xr.DataArray, quantiles, *, replicates: int,
                            dim: str = "sample", conf_level: float = 0.95) -> xr.Dataset:
    """:func:`quantile_interval` over ``dim``, with a leading ``quantile`` dim."""
    levels = [float(v) for v in np.atleast_1d(quantiles)]
    return _wrap("quantile", quantile_interval, da, dim, replicates, conf_level, levels,
                 lead=("quantile",), lead_coords={"quantile": levels})
