"""PAWN, delta and S1 of given rows as an xarray Dataset, with the run's Monte Carlo interval.

The interval is the one of the rest of the package: with ``R`` independent scrambles (rows
``sample % R``), each index is estimated again on each scramble's rows, and the half-width
is ``t_{R-1} sd / sqrt(R)`` of those ``R`` estimates (:func:`mc_tco.uncertainty.intervals.
replicate_interval`), centred on the estimate from all rows. It measures the Monte Carlo
error of the sample, which SALib's bootstrap does too but from one design and at 100x the
cost; it does not measure the estimators' positive bias at finite ``n`` (an input the
output ignores scores ~1/sqrt(n/S) in PAWN), which the per-scramble estimates share.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.sensitivity.moment_independent import (
    PAWN_STATS,
    delta,
    delta_discrete,
    first_order,
    pawn,
)
from mc_tco.uncertainty.intervals import replicate_interval, replicate_of

__all__ = ["moment_independent_dataset"]


#: an output with at most this many distinct values gets the discrete delta
DISCRETE = 2


def _indices(x: np.ndarray, y: np.ndarray, slices: int,
             discrete: bool) -> tuple[np.ndarray, ...]:
    d = delta_discrete(x, y) if discrete else delta(x, y)
    return d, pawn(x, y, slices), first_order(x, y)


def moment_independent_dataset(x: np.ndarray, y: np.ndarray, inputs: list[str], *,
                               sample: np.ndarray | None = None,
                               replicates: int | None = None, conf_level: float = 0.95,
                               slices: int = 10) -> xr.Dataset:
    """Borgonovo's delta, PAWN and the class-mean S1 of every input, with intervals.

    Parameters
    ----------
    x : ndarray, (n, p)
        The inputs, sampled from their joint (possibly correlated) distribution.
    y : ndarray, (n,)
        The output, or a 0/1 indicator: an output with at most two values gets
        :func:`~mc_tco.sensitivity.moment_independent.delta_discrete` (SALib's kernel
        estimate is meaningless for it), any other SALib's kernel estimate.
    inputs : list of str
        The ``p`` input names.
    sample : ndarray, optional
        The base-sample index of each row (default ``0..n-1``), whose ``% replicates`` is
        its scramble.
    replicates : int, optional
        The run's independent scrambles; None or 1: no interval (NaN).
    conf_level : float
        The interval's level.
    slices : int
        PAWN's slices per input.

    Returns
    -------
    xr.Dataset
        Dims ``input``, ``stat`` (PAWN's summaries) and ``ci_bound``: ``delta``,
        ``delta_ci``, ``pawn`` (input, stat), ``pawn_ci``, ``S1``, ``S1_ci`` (unit 1);
        attrs ``n``, ``replicates``, ``conf_level``, ``slices``, ``interval``,
        ``delta_estimator``.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    discrete = np.unique(y).size <= DISCRETE
    d, p, s1 = _indices(x, y, slices, discrete)
    half_d = np.full_like(d, np.nan)
    half_p = np.full_like(p, np.nan)
    half_s = np.full_like(s1, np.nan)
    reps = int(replicates or 1)
    if reps > 1:
        idx = np.arange(y.size) if sample is None else np.asarray(sample)
        rep = replicate_of(idx, reps)
        per = [_indices(x[rep == r], y[rep == r], slices, discrete)
               for r in range(reps)]
        _, half_d = replicate_interval([e[0] for e in per], conf_level=conf_level)
        _, half_p = replicate_interval([e[1] for e in per], conf_level=conf_level)
        _, half_s = replicate_interval([e[2] for e in per], conf_level=conf_level)

    def ci(centre, half):
        return np.stack([centre - half, centre + half], axis=-1)

    out = xr.Dataset(
        {"delta": ("input", d), "delta_ci": (("input", "ci_bound"), ci(d, half_d)),
         "pawn": (("input", "stat"), p), "pawn_ci": (("input", "stat", "ci_bound"),
                                                    ci(p, half_p)),
         "S1": ("input", s1), "S1_ci": (("input", "ci_bound"), ci(s1, half_s))},
        coords={"input": list(inputs), "stat": list(PAWN_STATS),
                "ci_bound": ["lower", "upper"]},
        attrs={"n": int(y.size), "replicates": reps, "conf_level": float(conf_level),
               "slices": int(slices),
               "delta_estimator": ("class frequencies (a 0/1 output)" if discrete else
                                   "kernel densities (SALib's)"),
               "interval": ("t interval over the run's scrambles" if reps > 1 else
                            "none (one design: rerun with --ci rqmc for one)")},
    )
    for name in out.data_vars:
        out[name].attrs["units"] = "1"
        if str(name).endswith("_ci"):
            out[name].attrs["conf_level"] = float(conf_level)
    out["delta"].attrs["long_name"] = ("Borgonovo's delta, " + out.attrs["delta_estimator"])
    out["pawn"].attrs["long_name"] = "PAWN: KS distance over slices (as SALib)"
    out["S1"].attrs["long_name"] = "first-order index from class means (as SALib's delta)"
    return out
