"""Moment-independent sensitivity indices from given data: PAWN and Borgonovo's delta.

Both read one sample of inputs ``x`` (n, p) and an output ``y`` (n,), drawn from the
joint (possibly correlated) input distribution, so they stay meaningful under correlation
(unlike per-input Sobol' indices). They reproduce SALib's estimators on the same rows,
vectorised:

* :func:`pawn` is ``SALib.analyze.pawn.analyze``: the Kolmogorov-Smirnov distance between
  the output's distribution in each of ``S`` equal-probability slices of an input and the
  unconditional one, summarised over the slices (minimum, mean, median, maximum, CV,
  standard deviation; Pianosi & Wagener 2015, 2018).
* :func:`delta` is ``SALib.analyze.delta.calc_delta`` (Plischke, Borgonovo & Smith 2013,
  eqn 26): half the L1 distance between Gaussian kernel density estimates (Silverman's
  bandwidth) of the conditional densities on ``M`` equal-frequency classes of an input and
  of the unconditional density, on a 100-point grid, weighted by the classes' sizes.
  :func:`bias_reduced_delta` is SALib's bias correction (eqn 30) over given resamples;
  :func:`first_order` is the class-mean estimate of ``S1`` SALib reports beside delta.

The kernel densities of all classes of an input are one ``(n, 100)`` kernel matrix
summed per class by a matrix product, instead of ``M`` calls of ``scipy.stats.gaussian_kde``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import norm

__all__ = ["PAWN_STATS", "bias_reduced_delta", "classes", "delta", "delta_discrete",
           "first_order", "pawn"]

#: the summaries of :func:`pawn` over the slices, in SALib's order and naming
PAWN_STATS = ("minimum", "mean", "median", "maximum", "CV", "stdev")
#: points of the grid the densities are compared on (SALib's)
GRID = 100


def _check(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2 or y.ndim != 1 or x.shape[0] != y.shape[0]:
        raise ValueError(f"x must be (n, p) and y (n,) with the same n; got {x.shape} and "
                         f"{y.shape}")
    if y.size < 2:
        raise ValueError(f"need at least 2 rows, got {y.size}")
    return x, y


def pawn(x: np.ndarray, y: np.ndarray, S: int = 10) -> np.ndarray:
    """PAWN indices of every input (``SALib.analyze.pawn.analyze``, to rounding).

    Parameters
    ----------
    x : ndarray, (n, p)
        The inputs.
    y : ndarray, (n,)
        The output.
    S : int
        The number of slices (equal-probability intervals of each input).

    Returns
    -------
    ndarray, (p, 6)
        Per input the KS statistic's minimum, mean, median, maximum, CV and standard
        deviation over the slices (:data:`PAWN_STATS`); NaN over empty slices.
    """
    x, y = _check(x, y)
    if S < 1:
        raise ValueError(f"S (slices) must be at least 1, got {S}")
    n, p = x.shape
    order = np.argsort(y, kind="stable")
    ys = y[order]
    # the KS statistic is attained at a sample point, the last of its ties
    last = np.searchsorted(ys, ys, side="right") - 1
    f_all = (last + 1) / n
    step = 1 / S
    seq = np.arange(0, 1 + step, step)
    out = np.full((p, 6), np.nan)
    for i in range(p):
        xi = x[:, i]
        q = np.nanquantile(xi, seq)
        xo = xi[order]
        inside = (xo[None, :] >= q[:S, None]) & (xo[None, :] < q[1:S + 1, None])  # (S, n)
        counts = inside.sum(axis=1)
        cum = np.cumsum(inside, axis=1)[:, last]
        with np.errstate(invalid="ignore", divide="ignore"):
            ks = np.abs(cum / counts[:, None] - f_all[None, :]).max(axis=1)
        ks = np.where(counts > 0, ks, np.nan)
        if np.isnan(ks).all():
            continue
        mean = np.nanmean(ks)
        sd = np.nanstd(ks)
        out[i] = [np.nanmin(ks), mean, np.nanmedian(ks), np.nanmax(ks), sd / mean, sd]
    return out


def classes(n: int) -> np.ndarray:
    """SALib's equal-frequency class edges over the ranks 1..n (``m`` in its code)."""
    exp = 2.0 / (7.0 + np.tanh((1500.0 - n) / 500.0))
    m = int(np.round(min(int(np.ceil(n**exp)), 48)))
    return np.linspace(0, n, m + 1)


def _class_of(xi: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows in the order of their ordinal rank, and the class of each of them."""
    order = np.argsort(xi, kind="stable")  # rankdata(method="ordinal")
    rank = np.arange(1, xi.size + 1)
    return order, np.searchsorted(edges, rank, side="left") - 1


def _kde_rows(y: np.ndarray, grid: np.ndarray, label: np.ndarray, k: int) -> np.ndarray:
    """Gaussian KDE (Silverman's bandwidth, as scipy's) of ``y`` per class, (k, grid).

    ``label`` is sorted (the classes are contiguous runs of rows).
    """
    nc = np.bincount(label, minlength=k).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.bincount(label, weights=y, minlength=k) / nc
        var = np.bincount(label, weights=(y - mean[label]) ** 2, minlength=k) / (nc - 1)
        bw2 = var * (nc * 0.75) ** (-0.4)  # scipy: factor (n (d+2)/4)^(-1/(d+4)), d = 1
    s2 = bw2[label]
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        kern = np.exp(-0.5 * (grid[None, :] - y[:, None]) ** 2 / s2[:, None])
        kern /= np.sqrt(2 * np.pi * s2)[:, None]
    out = np.zeros((k, grid.size))
    full = np.flatnonzero(nc > 0)
    starts = np.searchsorted(label, full, side="left")
    out[full] = np.add.reduceat(kern, starts, axis=0) / nc[full, None]
    return out


def _delta_one(xi: np.ndarray, y: np.ndarray, grid: np.ndarray, edges: np.ndarray,
               fy: np.ndarray) -> float:
    order, label = _class_of(xi, edges)
    k = edges.size - 1
    ys = y[order]
    fyc = _kde_rows(ys, grid, label, k)
    nc = np.bincount(label, minlength=k)
    lo = np.full(k, np.inf)
    hi = np.full(k, -np.inf)
    np.minimum.at(lo, label, ys)
    np.maximum.at(hi, label, ys)
    use = (nc > 0) & (hi - lo != 0)
    area = np.trapezoid(np.abs(fy[None, :] - fyc[use]), grid, axis=1)
    return float(np.sum(nc[use] / (2 * y.size) * area))


def _grid_density(y: np.ndarray, grid: np.ndarray) -> np.ndarray:
    return _kde_rows(y, grid, np.zeros(y.size, dtype=int), 1)[0]


def delta(x: np.ndarray, y: np.ndarray, grid: np.ndarray | None = None,
          edges: np.ndarray | None = None) -> np.ndarray:
    """Borgonovo's delta of every input (``SALib.analyze.delta.calc_delta`` per column).

    Parameters
    ----------
    x : ndarray, (n, p)
        The inputs.
    y : ndarray, (n,)
        The output.
    grid : ndarray, optional
        The output values the densities are compared at (default SALib's: 100 points
        from ``y.min()`` to ``y.max()``).
    edges : ndarray, optional
        The class edges over the ranks (default :func:`classes` of ``n``).

    Returns
    -------
    ndarray, (p,)
        delta (unit 1, in [0, 1]; 0 when ``y`` does not depend on the input, up to the
        estimator's positive bias at finite ``n``).
    """
    x, y = _check(x, y)
    if grid is None:
        grid = np.linspace(y.min(), y.max(), GRID)
    if edges is None:
        edges = classes(y.size)
    if np.ptp(y) == 0:
        return np.zeros(x.shape[1])
    fy = _grid_density(y, grid)
    return np.array([_delta_one(x[:, i], y, grid, edges, fy) for i in range(x.shape[1])])


def delta_discrete(x: np.ndarray, y: np.ndarray, edges: np.ndarray | None = None
                   ) -> np.ndarray:
    """Borgonovo's delta of a discrete output (e.g. a 0/1 indicator), on SALib's classes.

    The densities of a discrete output are its class frequencies, so the plug-in estimate
    is ``sum_c (n_c / n) * 1/2 sum_k |P(y = k | c) - P(y = k)|``; for a 0/1 output,
    ``sum_c (n_c / n) |p_c - p|``. A kernel density estimate (:func:`delta`, SALib's)
    smooths the two spikes with a bandwidth set by each class's variance ``p_c (1 - p_c)``
    and so ranks inputs by that, not by the shift of mass it should measure.

    Returns
    -------
    ndarray, (p,)
        delta (unit 1, in [0, 1]).
    """
    x, y = _check(x, y)
    if edges is None:
        edges = classes(y.size)
    values, code = np.unique(y, return_inverse=True)
    k = edges.size - 1
    p_all = np.bincount(code, minlength=values.size) / y.size
    out = np.empty(x.shape[1])
    for i in range(x.shape[1]):
        order, label = _class_of(x[:, i], edges)
        table = np.zeros((k, values.size))
        np.add.at(table, (label, code[order]), 1.0)
        nc = table.sum(axis=1)
        ok = nc > 0
        cond = table[ok] / nc[ok, None]
        out[i] = np.sum(nc[ok] / y.size * 0.5 * np.abs(cond - p_all).sum(axis=1))
    return out


def bias_reduced_delta(x: np.ndarray, y: np.ndarray, resamples: Sequence[np.ndarray],
                       conf_level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """SALib's bias-reduced delta and its half-width over given resamples (its eqn 30).

    ``resamples[0]`` gives the rows of the point estimate ``d_hat``, the others those of
    the bootstrap ``d_b``; the result is the mean of ``2 d_hat - d_b`` and
    ``z sd(d_b)`` (``SALib.analyze.delta.bias_reduced_delta``, whose ``raw`` mode draws
    each resample as ``np.random.randint(n, size=n)``). Grid and classes are those of
    the full rows, as in SALib.

    Returns
    -------
    (ndarray, ndarray)
        Per input the estimate and the half-width.
    """
    x, y = _check(x, y)
    grid = np.linspace(y.min(), y.max(), GRID)
    edges = classes(len(resamples[0]))
    d_hat = delta(x[resamples[0]], y[resamples[0]], grid, edges)
    boot = np.array([delta(x[r], y[r], grid, edges) for r in resamples[1:]])
    d = 2.0 * d_hat[None, :] - boot
    return d.mean(axis=0), norm.ppf(0.5 + conf_level / 2) * d.std(axis=0, ddof=1)


def first_order(x: np.ndarray, y: np.ndarray, edges: np.ndarray | None = None) -> np.ndarray:
    """First-order index from class means (``SALib.analyze.delta.sobol_first`` per column).

    Returns
    -------
    ndarray, (p,)
        ``sum_c (n_c / n) (mean_c - mean)^2 / var(y)``; 0 for a constant ``y``.
    """
    x, y = _check(x, y)
    if edges is None:
        edges = classes(y.size)
    if np.ptp(y) == 0:
        return np.zeros(x.shape[1])
    k = edges.size - 1
    out = np.empty(x.shape[1])
    for i in range(x.shape[1]):
        order, label = _class_of(x[:, i], edges)
        nc = np.bincount(label, minlength=k)
        sums = np.bincount(label, weights=y[order], minlength=k)
        ok = nc > 0
        out[i] = np.sum(nc[ok] / y.size * (sums[ok] / nc[ok] - y.mean()) ** 2) / np.var(y)
    return out
