"""The interval kernels on numpy arrays (``axis=``): the replicate t interval over a run's
scrambles and its fallbacks, Wilson's for a proportion and the order-statistics interval
for a quantile. The rules (fallback, NaN) are those of :mod:`mc_tco.uncertainty.scrambles`,
the front door that re-exports these; the xarray wrappers are :mod:`.interval_datasets`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from mc_tco.distributions.frozen import binom_ppf, norm_ppf, t_ppf  # (scipy.stats' numbers)

__all__ = [
    "MIN_TAIL",
    "Interval",
    "mean_interval",
    "order_statistic_interval",
    "proportion",
    "proportion_from_counts",
    "quantile_interval",
    "replicate_interval",
    "replicate_of",
    "t_value",
    "wilson_interval",
    "z_value",
]

#: fewest valid rows a scramble needs on the short side of a quantile for the replicate
#: interval (a replicate quantile closer to the sample's edge is too skewed for a t interval)
MIN_TAIL = 5


class Interval(NamedTuple):
    """An estimate with its interval, per cell; ``fallback`` marks the cells that fell back."""

    estimate: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    fallback: np.ndarray


def _check_level(conf_level: float) -> None:
    if not 0 < conf_level < 1:
        raise ValueError(f"conf_level must lie strictly between 0 and 1, got {conf_level}")


def z_value(conf_level: float = 0.95) -> float:
    """The two-sided normal quantile ``z_{(1+c)/2}`` (1.96 at ``c = 0.95``)."""
    _check_level(conf_level)
    return float(norm_ppf(0.5 + conf_level / 2))


def t_value(conf_level: float, df) -> np.ndarray:
    """The two-sided Student quantile ``t_{df, (1+c)/2}`` (NaN where ``df < 1``)."""
    _check_level(conf_level)
    df = np.asarray(df, dtype=float)
    return np.where(df >= 1, t_ppf(0.5 + conf_level / 2, np.maximum(df, 1)), np.nan)


def replicate_of(sample_index, replicates: int) -> np.ndarray:
    """The scramble of each base sample: ``g % R`` (the engine's interleaving)."""
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    return np.asarray(sample_index, dtype=np.int64) % replicates


def wilson_interval(successes, n, conf_level: float = 0.95):
    """Wilson score interval of a binomial proportion; returns ``(lower, upper)`` arrays.

    ``successes`` and ``n`` broadcast; the bounds are 0 (1) exactly when the count is 0
    (``n``), and NaN where ``n == 0``. Equal to
    ``scipy.stats.binomtest(k, n).proportion_ci(conf_level, method="wilson")``.
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    z = z_value(conf_level)
    with np.errstate(invalid="ignore", divide="ignore"):
        phat = k / n
        denom = 1 + z**2 / n
        centre = (phat + z**2 / (2 * n)) / denom
        half = z * np.sqrt(phat * (1 - phat) / n + z**2 / (4 * n**2)) / denom
    lower = np.where(k == 0, 0.0, np.clip(centre - half, 0, 1))
    upper = np.where(k == n, 1.0, np.clip(centre + half, 0, 1))
    empty = n == 0
    return np.where(empty, np.nan, lower), np.where(empty, np.nan, upper)


def replicate_interval(estimates, axis: int = 0, conf_level: float = 0.95, centre=None):
    """Randomized-QMC interval from ``R`` independent replicate estimates.

    Parameters
    ----------
    estimates : array_like
        The replicate estimates along ``axis`` (length ``R``).
    centre : array_like, optional
        The pooled estimate to centre on (default: the mean of the replicate estimates,
        which is the pooled one for a mean).

    Returns
    -------
    (ndarray, ndarray)
        The centre and the half-width ``t_{R-1, (1+c)/2} sd / sqrt(R)`` (``sd`` with
        ``ddof=1``); the half-width is NaN where a replicate estimate is NaN or ``R < 2``.
    """
    x = np.moveaxis(np.asarray(estimates, dtype=float), axis, 0)
    r = x.shape[0]
    bad = ~np.isfinite(x).all(axis=0)
    with np.errstate(invalid="ignore"):
        mean = x.mean(axis=0)
        sd = np.where(bad, 0.0, x).std(axis=0, ddof=1) if r > 1 else 0.0
    half = np.where(bad | (r < 2), np.nan, t_value(conf_level, r - 1) * sd / np.sqrt(r))
    return (mean if centre is None else np.asarray(centre, dtype=float)), half


def _by_replicate(x, replicate, replicates: int, axis: int):
    """``x`` moved to axis 0 and split into the rows of each scramble (a list of R arrays)."""
    x = np.moveaxis(np.asarray(x), axis, 0)
    replicate = np.asarray(replicate)
    if replicate.shape != (x.shape[0],):
        raise ValueError(f"replicate must have one label per sample ({x.shape[0]}), "
                         f"got shape {replicate.shape}")
    return x, [x[replicate == r] for r in range(replicates)]


def proportion(event, replicate, replicates: int, conf_level: float = 0.95,
               axis: int = 0) -> Interval:
    """A proportion with its replicate interval, or Wilson's where that cannot work.

    Parameters
    ----------
    event : array_like
        1/0 (or bool) per sample along ``axis``; NaN rows are excluded (the NaN rule).
    replicate : array_like of int, (n,)
        The scramble of each sample (:func:`replicate_of`).
    replicates : int
        ``R``.

    Returns
    -------
    Interval
        Pooled proportion (events / non-NaN rows), its interval and the fallback cells
        (see the module's fallback rule), each with the dims of ``event`` without ``axis``.
    """
    _, parts = _by_replicate(np.asarray(event, dtype=float), replicate, replicates, axis)
    valid = [np.isfinite(p) for p in parts]
    n_r = np.stack([v.sum(axis=0) for v in valid])
    k_r = np.stack([np.where(v, p, 0.0).sum(axis=0) for p, v in zip(parts, valid, strict=True)])
    return proportion_from_counts(k_r, n_r, conf_level)


def proportion_from_counts(k_r, n_r, conf_level: float = 0.95) -> Interval:
    """:func:`proportion` from the counts of each scramble (the one fallback rule).

    Parameters
    ----------
    k_r, n_r : array_like, (R, ...)
        Events and valid rows of each of the ``R`` scrambles, along axis 0.

    Returns
    -------
    Interval
        Pooled proportion ``sum k_r / sum n_r`` with the replicate t interval of the ``R``
        proportions ``k_r / n_r``, or Wilson's on the pooled count where a scramble has no
        valid row, no event or only events, where the ``R`` proportions are all equal, or
        where the t interval leaves [0, 1] (``fallback``); dims of ``k_r`` without axis 0.
    """
    k_r = np.asarray(k_r, dtype=float)
    n_r = np.asarray(n_r, dtype=float)
    k, n = k_r.sum(axis=0), n_r.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n > 0, k / n, np.nan)
        p_r = k_r / n_r
    _, half = replicate_interval(p_r, 0, conf_level)
    lo, hi = p - half, p + half
    degenerate = (n_r == 0).any(axis=0) | (k_r == 0).any(axis=0) | (k_r == n_r).any(axis=0)
    fallback = degenerate | ~(half > 0) | (lo < 0) | (hi > 1)
    w_lo, w_hi = wilson_interval(k, n, conf_level)
    fallback = fallback & (n > 0)
    return Interval(p, np.where(fallback, w_lo, lo), np.where(fallback, w_hi, hi), fallback)


def mean_interval(x, replicate, replicates: int, conf_level: float = 0.95,
                  axis: int = 0) -> Interval:
    """The pooled mean over non-NaN rows with its replicate interval (no fallback).

    The half-width is NaN where a scramble has no valid row or the values are infinite.
    """
    x, parts = _by_replicate(np.asarray(x, dtype=float), replicate, replicates, axis)
    valid = [~np.isnan(p) for p in parts]
    n_r = np.stack([v.sum(axis=0) for v in valid])
    s_r = np.stack([np.where(v, p, 0.0).sum(axis=0) for p, v in zip(parts, valid, strict=True)])
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s_r.sum(axis=0) / n_r.sum(axis=0)
        m_r = s_r / n_r
    _, half = replicate_interval(m_r, 0, conf_level)
    return Interval(mean, mean - half, mean + half, np.zeros(mean.shape, dtype=bool))


def _order_quantile(sorted_x, n_valid, q):
    """``inverted_cdf`` quantile ``x_(ceil(q n))`` of the columns of ``sorted_x`` (NaN last)."""
    j = np.clip(np.ceil(q * n_valid).astype(np.int64) - 1, 0, None)
    out = np.take_along_axis(sorted_x, np.minimum(j, sorted_x.shape[0] - 1)[None], 0)[0]
    return np.where(n_valid > 0, out, np.nan)


def order_statistic_interval(sorted_x, n_valid, q: float, conf_level: float = 0.95):
    """Distribution-free interval ``[x_(l), x_(u)]`` for the ``q`` quantile.

    ``l = F^-1(a/2)`` and ``u = F^-1(1 - a/2) + 1`` with ``F`` the Binomial(n, q) cdf, so
    ``P(x_(l) <= xi_q <= x_(u)) >= 1 - a`` for independent rows; ``x_(0) = -inf`` and
    ``x_(n+1) = inf``. ``sorted_x`` is sorted along axis 0 with NaN last; ``n_valid`` the
    non-NaN count per column.
    """
    a = 1 - conf_level
    n_valid = np.asarray(n_valid)
    # binom.ppf once per distinct count (the cells of a run mostly share one): the same
    # values, without scipy's search in every cell (16 ms of the app's 1,024-row answer)
    counts, where = np.unique(n_valid, return_inverse=True)
    ranks = binom_ppf(np.array([[a / 2], [1 - a / 2]]), counts, q).astype(np.int64)
    lo_rank = ranks[0][where].reshape(n_valid.shape)
    hi_rank = ranks[1][where].reshape(n_valid.shape) + 1
    top = sorted_x.shape[0] - 1
    lo = np.take_along_axis(sorted_x, np.clip(lo_rank - 1, 0, top)[None], 0)[0]
    hi = np.take_along_axis(sorted_x, np.clip(hi_rank - 1, 0, top)[None], 0)[0]
    lo = np.where(lo_rank < 1, -np.inf, lo)
    hi = np.where(hi_rank > n_valid, np.inf, hi)
    empty = n_valid == 0
    return np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)


def quantile_interval(x, q, replicate, replicates: int, conf_level: float = 0.95,
                      axis: int = 0) -> Interval:
    """Quantiles of the pooled sample with replicate intervals (order statistics on fallback).

    Parameters
    ----------
    x : array_like
        Values per sample along ``axis``; ``inf`` ("never") allowed, NaN excluded.
    q : float or sequence of float
        Levels in [0, 1].

    Returns
    -------
    Interval
        Arrays with a leading ``quantile`` axis (len(q)) then the dims of ``x`` without
        ``axis``. The estimate is ``x_(ceil(q n))`` of the pooled non-NaN rows (numpy's
        ``inverted_cdf``: a sampled value or ``inf``, never an interpolation towards it).
    """
    levels = np.atleast_1d(np.asarray(q, dtype=float))
    x, parts = _by_replicate(np.asarray(x, dtype=float), replicate, replicates, axis)
    pooled = np.sort(x, axis=0)
    n = (~np.isnan(x)).sum(axis=0)
    sorted_parts = [np.sort(p, axis=0) for p in parts]
    n_r = np.stack([(~np.isnan(p)).sum(axis=0) for p in parts])
    out = []
    for level in levels:
        est = _order_quantile(pooled, n, level)
        q_r = np.stack([_order_quantile(s, m, level) for s, m in zip(sorted_parts, n_r,
                                                                      strict=True)])
        with np.errstate(invalid="ignore"):
            _, half = replicate_interval(q_r, 0, conf_level)
            sparse = (np.minimum(level, 1 - level) * n_r < MIN_TAIL).any(axis=0)
            fallback = sparse | ~np.isfinite(est) | ~(half > 0)
        o_lo, o_hi = order_statistic_interval(pooled, n, level, conf_level)
        fallback = fallback & (n > 0)
        out.append((est, np.where(fallback, o_lo, est - half),
                    np.where(fallback, o_hi, est + half), fallback))
    return Interval(*(np.stack(v) for v in zip(*out, strict=True)))
