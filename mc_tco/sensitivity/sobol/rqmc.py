"""Randomized QMC: independent scrambles, their pooled estimate and t half-widths."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mc_tco.distributions.frozen import t_ppf
from mc_tco.sensitivity.sobol.estimators import CI_METHODS
from mc_tco.sensitivity.sobol.sums import SobolSums

__all__ = [
    "ci_method_text", "flag_negative", "log_scale_halfwidth", "rqmc_result", "rqmc_seeds",
]


def rqmc_seeds(seed: int, replicates: int) -> list[int]:
    """Scrambling seeds of ``replicates`` independent randomizations of a design.

    Replicate ``r`` is scrambled with the integer drawn from
    ``np.random.SeedSequence(seed).spawn(replicates)[r]`` (``generate_state(2)`` as one
    63-bit number): independent streams, reproducible from ``seed`` alone, and a larger
    ``replicates`` keeps the seeds of the first ones (spawn key ``(r,)``).
    """
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    out = []
    for child in np.random.SeedSequence(seed).spawn(replicates):
        lo, hi = child.generate_state(2, dtype=np.uint32)
        out.append(int(((int(hi) << 32) | int(lo)) >> 1))
    return out


def rqmc_result(replicates: Sequence[SobolSums], conf_level: float = 0.95) -> dict:
    """Randomized-QMC estimates and half-widths from ``R`` independently scrambled designs.

    Each element of ``replicates`` holds the sums of one scramble (same ``N``, estimator
    and shift). The point estimate is the pooled one (all sums merged: the ratio of the
    pooled means, which has a smaller ratio bias than the mean of the ``R`` ratios and the
    same first-order variance); the half-width is ``t_{R-1, (1+c)/2} sd / sqrt(R)`` with
    ``sd`` the standard deviation (ddof 1) of the ``R`` replicate estimates (Owen 1997;
    L'Ecuyer & Lemieux 2002). It is NaN where any replicate estimate is NaN (the output
    was constant in a replicate) or with fewer than 2 replicates.

    The total index's half-width is the larger of that and the same t interval taken on
    the log scale (:func:`log_scale_halfwidth`) wherever every replicate estimate is
    positive: a total index is a ratio of means of squares, and where the output is
    heavy-tailed (many inputs interacting) its replicate estimates are right-skewed, their
    standard deviation is small exactly when the estimate is too low, and the plain t
    interval covered 83-91% instead of 95% (Sobol' G with 20 inputs, ``a = 0.5`` and 1;
    ``benchmarks/sobol_coverage_inputs.py``, ``docs/estimators.md``). ``ST_conf_log``
    holds the log-scale half-width (NaN where it does not apply).

    Returns
    -------
    dict
        As :meth:`SobolSums.result`, with ``ci = "rqmc"``, ``replicates = R`` and the
        replicate estimates ``S1_rep``, ``ST_rep`` (R, K, C) (and ``S2_rep``).
    """
    if not replicates:
        raise ValueError("rqmc_result needs at least one replicate")
    if not 0 < conf_level < 1:
        raise ValueError(f"conf_level must lie strictly between 0 and 1, got {conf_level}")
    pooled = replicates[0]
    for rep in replicates[1:]:
        pooled = pooled + rep
    est = pooled.result(conf_level, ci="none")
    reps = [rep.result(conf_level, ci="none") for rep in replicates]
    r = len(replicates)
    tq = t_ppf(0.5 + conf_level / 2, r - 1) if r > 1 else np.nan
    names = ["S1", "ST"] + (["S2"] if pooled.second_order else [])
    for name in names:
        x = np.stack([rep[name] for rep in reps])
        est[f"{name}_rep"] = x
        if r > 1:
            bad = np.isnan(x).any(axis=0) | np.isnan(est[name])
            sd = np.where(bad, 0.0, x).std(axis=0, ddof=1)
            est[f"{name}_conf"] = np.where(bad, np.nan, tq * sd / np.sqrt(r))
    if r > 1:
        log_half = log_scale_halfwidth(est["ST_rep"], est["ST"], tq)
        est["ST_conf_log"] = log_half
        est["ST_conf"] = np.where(np.isfinite(log_half),
                                  np.fmax(est["ST_conf"], log_half), est["ST_conf"])
    est["ci"] = "rqmc"
    est["replicates"] = r
    return est


#: a replicate estimate of ST below this is zero to the outputs' precision (an input whose
#: design rows differ from the base rows in their last bits: (1e-16)^2 of the variance,
#: e.g. 3.9e-31 where two kernels round one cell differently); on the log scale it would
#: set the width (a half-width of 3,100 around 6e-5): the plain t interval applies there
LOG_FLOOR = 1e-10


def log_scale_halfwidth(rep, pooled, tq: float) -> np.ndarray:
    """Half-width of the replicate t interval of a positive index taken on the log scale.

    Parameters
    ----------
    rep : ndarray, (R, ...)
        The replicate estimates.
    pooled : ndarray
        The pooled estimate, dims of ``rep`` without axis 0.
    tq : float
        ``t_{R-1, (1+c)/2}``.

    Returns
    -------
    ndarray
        ``pooled (exp(tq sd(log rep) / sqrt(R)) - 1)``: the upper side (the longer one) of
        ``pooled exp(+- tq sd(log rep) / sqrt(R))``, the t interval of the ``log`` of the
        replicate estimates scaled to the pooled estimate, as a symmetric half-width; NaN
        where a replicate estimate is not finite and above :data:`LOG_FLOOR` (rounding
        noise, not a positive index), or the pooled one is NaN.
    """
    rep = np.asarray(rep, dtype=float)
    r = rep.shape[0]
    ok = (np.isfinite(rep) & (rep > LOG_FLOOR)).all(axis=0) & np.isfinite(pooled)
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.log(np.where(ok, rep, 1.0)).std(axis=0, ddof=1)
        half = np.asarray(pooled, dtype=float) * np.expm1(tq * sd / np.sqrt(r))
    return np.where(ok, half, np.nan)


# ---------------------------------------------------------------------- reporting helpers


def flag_negative(estimate, halfwidth):
    """Where an index estimate is significantly negative: ``estimate < -halfwidth``.

    A Sobol' index is non-negative, so such an estimate is an estimation artefact (too few
    samples, or an estimator biased for small indices); the estimate is kept as estimated
    and flagged. NaN estimates or half-widths are not flagged. Works on numpy arrays and,
    elementwise, on xarray objects.
    """
    return (estimate < -halfwidth) & (halfwidth == halfwidth)


def ci_method_text(
    ci: str, conf_level: float, *, resamples: int | None = None,
    replicates: int | None = None, estimator: str = "saltelli", seed: int | None = None,
) -> str:
    """One line for the ``method`` attr of a half-width: which interval, and its assumptions.

    Examples
    --------
    >>> ci_method_text("rqmc", 0.95, replicates=8, seed=0)  # doctest: +ELLIPSIS
    '95% randomized-QMC t interval over 8 independent scrambles...'
    """
    est = f"estimator {estimator}"
    if ci == "rqmc":
        seeds = "" if seed is None else f" (seeds SeedSequence({seed}).spawn({replicates}))"
        return (
            f"{conf_level:.0%} randomized-QMC t interval over {replicates} independent "
            f"scrambles of the Sobol' design{seeds}, centred on the pooled estimate (for ST "
            f"the larger of it and the t interval of log ST); {est}"
        )
    if ci == "asymptotic":
        return (
            f"{conf_level:.0%} asymptotic normal (delta-method) interval; assumes "
            f"independent base samples, conservative on a scrambled Sobol' design; {est}"
        )
    if ci == "bootstrap":
        return (
            f"{conf_level:.0%} Poisson bootstrap over base samples, {resamples} resamples; "
            f"assumes independent base samples, overstates the error of a scrambled "
            f"Sobol' design; {est}"
        )
    if ci == "none":
        return f"no interval; {est}"
    raise ValueError(f"unknown ci {ci!r}; use one of {', '.join(CI_METHODS)} or 'none'")

