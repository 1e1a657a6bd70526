"""Penalised regression smoothers for the conditional expectations of EVPPI.

EVPPI needs ``g_d(x) = E[INB_d | x]``, the expected incremental net benefit of option ``d``
given the inputs of interest ``x`` (Strong, Oakley & Brennan 2014). Both smoothers here are
linear in the responses, ``B = (X'X + lam P)^-1 X'Y``, with the smoothing parameter ``lam``
chosen by generalised cross-validation (GCV, Craven & Wahba 1979), one ``lam`` shared by all
responses (the sum of the log-GCV scores is minimised, which does not depend on their scales).

* one input: a P-spline (Eilers & Marx 1996): cubic B-splines on the input's ranks with 20
  equal segments and a second-difference penalty, whose unpenalised null space is a straight
  line, so an irrelevant input costs one slope. This is the one-dimensional GAM ``s(x)`` that
  Strong et al. (2014) fit with ``mgcv``. An input with at most 20 distinct values gets one
  mean per value instead (the exact conditional mean, no smoothing).
* several inputs (a group): a multivariate Legendre polynomial of total degree ``m`` on the
  ranks (a polynomial chaos expansion; Sudret 2008), the highest ``m`` that keeps at most
  ``MAX_TERMS`` terms, with a ridge penalty ``|alpha|^4`` on each term of total degree
  ``|alpha| >= 2`` (constant and linear terms are free, as in the P-spline). It captures
  interactions (``x*y``), which an additive GAM would miss, at a fraction of the cost of a
  Gaussian process (O(n K^2) for K <= 126 terms instead of O(n^3); Strong et al. use a GP
  for more than ~5 inputs because mgcv's tensor products grow as k^p). The price: a jump
  of the conditional mean (a change in the node count) is smoothed over.

Ranks make both smoothers invariant to monotone transforms of the input (a lognormal tail
does not squeeze the knots) and put every input on [0, 1].

The posterior of the coefficients under the smoother's Bayesian reading,
``vec(B) ~ N(vec(B_hat), Sigma kron (X'X + lam P)^-1)`` with ``Sigma`` the residual covariance
of the responses, gives draws of the fitted curves (:meth:`Fit.draws`) from which Strong et
al. (2014, sec. 3.3) estimate the Monte Carlo error of EVPPI.

References
----------
Eilers, P. H. C. & Marx, B. D. (1996). Flexible smoothing with B-splines and penalties.
Statistical Science 11(2), 89-121.
Craven, P. & Wahba, G. (1979). Smoothing noisy data with spline functions. Numerische
Mathematik 31, 377-403.
Strong, M., Oakley, J. E. & Brennan, A. (2014). Estimating multiparameter partial expected
value of perfect information from a probabilistic sensitivity analysis sample: a
nonparametric regression approach. Medical Decision Making 34(3), 311-326.
Sudret, B. (2008). Global sensitivity analysis using polynomial chaos expansions.
Reliability Engineering & System Safety 93(7), 964-979.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations_with_replacement

import numpy as np
from scipy import linalg
from scipy.interpolate import BSpline
from scipy.special import comb

__all__ = ["Fit", "fit_smoother", "ranks"]

#: segments of the P-spline (the basis has SEGMENTS + 3 cubic B-splines)
SEGMENTS = 20
#: an input with at most this many distinct values gets one mean per value
MAX_LEVELS = 20
#: most terms of the multivariate polynomial
MAX_TERMS = 126
#: most fitted values :meth:`Fit.draw_gains` holds at once (4M: 32 MB). The block is made
#: beside the fit's design (264 MB for 126 terms of 2^18 rows): a group's EVPPI is the
#: memo's peak on a 2^18-sample file, 1,581 MiB with 16M values (two 128 MB blocks held
#: at once, the next made before the last was dropped); the gains do not depend on the
#: block (each draw's mean is its own)
DRAWS_HELD = 2**22
#: highest total degree of the multivariate polynomial
MAX_DEGREE = 8
#: grid of smoothing parameters, relative to trace(X'X) / trace(P)
LAMBDAS = np.logspace(-8, 6, 43)


@dataclass
class Fit:
    """A fitted linear smoother of ``D`` responses on one design.

    Attributes
    ----------
    fitted : ndarray, (n, D)
        Fitted values ``X B_hat`` at the samples.
    design : ndarray, (n, K)
    coef : ndarray, (K, D)
    a_inv_chol : ndarray, (K, K)
        A factor ``F`` with ``F F' = (X'X + lam P)^-1``.
    sigma : ndarray, (D, D)
        Residual covariance of the responses.
    edf : float
        Effective degrees of freedom ``trace(H)``.
    lam : float
        The smoothing parameter chosen by GCV (0 for the level means).
    method : str
    """

    fitted: np.ndarray
    design: np.ndarray
    coef: np.ndarray
    a_inv_chol: np.ndarray
    sigma: np.ndarray
    edf: float
    lam: float
    method: str

    def draws(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """Draws of the fitted values from the coefficients' posterior, (size, n, D)."""
        k, d = self.coef.shape
        sig_chol = _psd_cholesky(self.sigma)
        z = rng.standard_normal((size, k, d))
        coefs = self.coef[None] + self.a_inv_chol[None] @ z @ sig_chol.T[None]
        return np.einsum("nk,skd->snd", self.design, coefs, optimize=True)

    def draw_gains(self, size: int, rng: np.random.Generator,
                   held: int = DRAWS_HELD) -> np.ndarray:
        """For each of ``size`` draws of the fitted values (:meth:`draws`, the same
        draws), the mean over the rows of ``max(0, max_d fitted)``, (size,).

        The fitted values are made a block of draws at a time, at most ``held`` of them
        at once (:meth:`draws` holds ``size x n x D``: 1.7 GB for 200 draws of 2^18 rows
        and 4 options).
        """
        k, d = self.coef.shape
        sig_chol = _psd_cholesky(self.sigma)
        z = rng.standard_normal((size, k, d))
        coefs = self.coef[None] + self.a_inv_chol[None] @ z @ sig_chol.T[None]
        n = self.design.shape[0]
        step = max(1, held // max(1, n * d))
        out = np.empty(size)
        for s in range(0, size, step):
            sims = np.einsum("nk,skd->snd", self.design, coefs[s:s + step], optimize=True)
            # the max over the options where they lie along the memory (the einsum
            # gives (draw, option, row) in memory): the same maxima, 8x faster than
            # across a stride of n; the mean over the rows as before (C order)
            best = np.ascontiguousarray(sims.transpose(0, 2, 1).max(axis=1))
            out[s:s + step] = np.maximum(best, 0.0, out=best).mean(axis=1)
            # dropped before the next block is made (else two blocks are held at once)
            del sims, best
        return out


def ranks(x: np.ndarray) -> np.ndarray:
    """Mid-ranks of each column of ``x`` scaled to (0, 1): ``(rank - 0.5) / n``."""
    from scipy.stats import rankdata

    x = np.asarray(x, dtype=float)
    return (rankdata(x, axis=0, method="average") - 0.5) / x.shape[0]


def fit_smoother(x: np.ndarray, y: np.ndarray) -> Fit:
    """Fit ``E[y | x]`` with the smoother that suits the number of columns of ``x``.

    Parameters
    ----------
    x : ndarray, (n,) or (n, p)
        Inputs of interest (any monotone scale; only their ranks are used).
    y : ndarray, (n,) or (n, D)
        Responses (e.g. incremental net benefits of ``D`` options).

    Returns
    -------
    Fit
    """
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    y = np.asarray(y, dtype=float)
    if y.ndim == 1:
        y = y[:, None]
    p = x.shape[1]
    if p == 1 and np.unique(x[:, 0]).size <= MAX_LEVELS:
        return _level_means(x[:, 0], y)
    u = ranks(x)
    if p == 1:
        design, penalty = _pspline_basis(u[:, 0])
        const = np.ones(design.shape[1])  # B-splines sum to 1
        method = f"P-spline ({SEGMENTS} segments, 2nd-difference penalty, GCV)"
    else:
        degree = polynomial_degree(p)
        design, penalty = _legendre_basis(u, degree)
        const = np.eye(design.shape[1])[0]  # the first term is the constant
        method = f"Legendre polynomial of total degree {degree} on ranks (ridge, GCV)"
    return _penalised_fit(design, penalty, const, y, method)


def polynomial_degree(p: int) -> int:
    """Highest total degree of a ``p``-input polynomial with at most ``MAX_TERMS`` terms."""
    m = 1
    while m < MAX_DEGREE and comb(p + m + 1, m + 1, exact=True) <= MAX_TERMS:
        m += 1
    return m


def _level_means(x: np.ndarray, y: np.ndarray) -> Fit:
    levels, index = np.unique(x, return_inverse=True)
    design = np.zeros((x.size, levels.size))
    design[np.arange(x.size), index] = 1.0
    counts = design.sum(axis=0)
    coef = (design.T @ y) / counts[:, None]
    fitted = design @ coef
    resid = y - fitted
    dof = max(x.size - levels.size, 1)
    return Fit(
        fitted=fitted,
        design=design,
        coef=coef,
        a_inv_chol=np.diag(1 / np.sqrt(counts)),
        sigma=resid.T @ resid / dof,
        edf=float(levels.size),
        lam=0.0,
        method=f"one mean per value ({levels.size} values)",
    )


def _pspline_basis(u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cubic B-spline design on [0, 1] with equal segments and a 2nd-difference penalty."""
    deg = 3
    inner = np.linspace(0.0, 1.0, SEGMENTS + 1)
    knots = np.r_[[0.0] * deg, inner, [1.0] * deg]
    design = BSpline.design_matrix(np.clip(u, 0.0, 1.0), knots, deg).toarray()
    k = design.shape[1]
    diff = np.diff(np.eye(k), n=2, axis=0)
    return design, diff.T @ diff


def _multi_indices(p: int, degree: int) -> np.ndarray:
    """Exponents of every monomial of ``p`` variables with total degree <= ``degree``."""
    rows = [np.zeros(p, dtype=int)]
    for total in range(1, degree + 1):
        for combo in combinations_with_replacement(range(p), total):
            row = np.zeros(p, dtype=int)
            for j in combo:
                row[j] += 1
            rows.append(row)
    return np.array(rows)


def _legendre_basis(u: np.ndarray, degree: int) -> tuple[np.ndarray, np.ndarray]:
    """Products of normalised Legendre polynomials on ``2u - 1`` and the ridge weights."""
    n, p = u.shape
    t = 2 * u - 1
    # orthonormal on U(0, 1): sqrt(2k + 1) P_k(2u - 1)
    vander = np.polynomial.legendre.legvander(t, degree) * np.sqrt(2 * np.arange(degree + 1) + 1)
    alphas = _multi_indices(p, degree)
    design = np.ones((n, len(alphas)))
    # a block of rows at a time: vander[:, j, alphas[:, j]] is a copy as large as the
    # design (264 MB for 126 terms of 2^18 rows); the same products, in the same order
    step = max(1, 2**21 // max(1, len(alphas)))
    for start in range(0, n, step):
        rows = slice(start, start + step)
        for j in range(p):
            design[rows] *= vander[rows, j, alphas[:, j]]
    total = alphas.sum(axis=1).astype(float)
    weights = np.where(total >= 2, total**4, 0.0)
    return design, np.diag(weights)


def _penalised_fit(
    design: np.ndarray, penalty: np.ndarray, const: np.ndarray, y: np.ndarray, method: str
) -> Fit:
    """Penalised least squares with GCV; ``const`` are the coefficients of the constant 1,
    which must lie in the penalty's null space (so centring ``y`` changes nothing).

    Every ``lam`` of the grid is scored at once through the Demmler-Reinsch basis: with
    ``X'X = R'R`` and ``R^-T P R^-1 = U diag(s) U'``, the columns of ``Q = X R^-1 U`` are
    orthonormal, the fit is ``Q diag(1 / (1 + lam s)) Q'y`` and ``trace(H) = sum 1 / (1 +
    lam s)``: one Cholesky and one eigendecomposition per fit, whatever the grid.
    """
    n, k = design.shape
    scale = y.std(axis=0)
    scale[scale == 0] = 1.0
    ys = (y - y.mean(axis=0)) / scale
    xtx = design.T @ design
    # a tiny ridge keeps R invertible when a basis function has (almost) no data
    jitter = 1e-10 * np.trace(xtx) / k
    r = linalg.cholesky(xtx + jitter * np.eye(k), lower=False, check_finite=False)
    # the triangular inverse by LAPACK's trtri: solve_triangular(r, eye) goes through a
    # multi-threaded trsm that costs ~8 ms for k = 23 on a busy 2-core machine (0.002 ms here)
    r_inv, info = linalg.lapack.dtrtri(r, lower=0)
    if info != 0:  # pragma: no cover - r has a positive diagonal (jitter), so never singular
        raise np.linalg.LinAlgError(f"triangular inverse failed (info={info})")
    r_inv = np.triu(r_inv)
    s, u = np.linalg.eigh(r_inv.T @ penalty @ r_inv)
    s = np.clip(s, 0.0, None)
    basis = r_inv @ u  # coefficients = basis @ diag(shrink) @ b
    b = basis.T @ (design.T @ ys)  # (k, D): Q'y
    yty = np.einsum("nd,nd->d", ys, ys)
    base = np.trace(xtx) / max(np.trace(penalty), 1e-300)
    lams = LAMBDAS * base
    shrink = 1.0 / (1.0 + lams[:, None] * s[None, :])  # (L, k)
    edf = shrink.sum(axis=1)
    b2 = b**2
    rss = yty[None, :] - 2 * shrink @ b2 + shrink**2 @ b2  # (L, D)
    rss = np.maximum(rss, 1e-12 * n)
    ok = edf < n - 1
    score = np.where(ok, np.sum(np.log(n * rss / (n - edf[:, None]) ** 2), axis=1), np.inf)
    i = int(np.argmin(score))
    lam, sh = float(lams[i]), shrink[i]
    coef = basis @ (sh[:, None] * b) * scale
    # the responses were centred; the constant is unpenalised, so add the mean back exactly
    coef = coef + np.outer(const, y.mean(axis=0))
    fitted = design @ coef
    resid = y - fitted
    sigma = resid.T @ resid / max(n - float(edf[i]), 1.0)
    # (X'X + lam P)^-1 = basis diag(shrink) basis', so this factor F has F F' = A^-1
    a_inv_factor = basis * np.sqrt(sh)[None, :]
    return Fit(fitted, design, coef, a_inv_factor, sigma, float(edf[i]), lam, method)


def _psd_cholesky(a: np.ndarray) -> np.ndarray:
    """A lower factor ``L`` with ``L L' = a`` for a positive semi-definite ``a``."""
    try:
        return np.linalg.cholesky(a)
    except np.linalg.LinAlgError:
        w, v = np.linalg.eigh(a)
        return v * np.sqrt(np.clip(w, 0.0, None))
