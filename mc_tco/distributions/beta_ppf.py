"""A fast inverse CDF of the beta distribution, as accurate as scipy's.

scipy's ``stats.beta.ppf`` (boost's ``ibeta_inv``) costs ~2.5 us per value; the regularized
incomplete beta function ``betainc`` (the CDF) ~0.5 us. :func:`beta_ppf` spends one
``betainc`` per value (``benchmarks/ppf_speed.py``: ~3-4x faster in all):

1. **Initial guess from a table.** With ``s = ndtri(u)``: for ``u < 1/2`` the unknown is
   ``y = x``, the quantile; for ``u >= 1/2`` it is ``y = 1 - x``, the quantile of
   beta(b, a) at ``p = 1 - u`` (exact), so both tails are solved where they are well
   conditioned. The table holds ``g = logit y`` at knots ``DZ`` apart in ``s`` (one at 0),
   from scipy's exact ``betaincinv``, with the exact slopes ``dg/ds = +-phi(s) / (pdf(y) y
   (1 - y))``; cubic Hermite pieces interpolate. In ``s`` and ``logit y`` the quantile is
   smooth: ``log y ~ (log p) / a`` in a tail (``a < 1`` included, whose pdf is infinite
   at 0), near-linear for large ``a, b`` (near-normal). It covers ``|s| <= 8.5`` (``u``
   within ~1e-17 of 0 or 1 goes to scipy) and ``y >= 1e-290``.
2. **One step of the inverse's Taylor series** (Chebyshev's method) from the guess ``y0``:
   with ``f = betainc(y0) - p``, ``h = f / pdf(y0)`` (log-space pdf) and
   ``L = (log pdf)'(y0)``, ``y1 = y0 - h - L h^2 / 2``. The remainder is
   ``Q'''(xi) f^3 / 6`` with ``Q`` the quantile, ``Q''' = (2 L^2 - L') / pdf^3``. With
   ``S = |a-1| + |b-1|`` and the relative step ``r = |h| / min(y0, 1 - y0)``:
   ``|h| |L| <= r S`` and ``h^2 |L'| <= r^2 S``; while ``r <= 1e-3`` and ``r S <= 1e-3``
   the pdf varies by < 0.3 % between ``y0`` and the root, so the remainder is at most
   ``1.02 |h| r^2 (2 S^2 + S) / 6``. Adding the rounding of the log-space pdf
   (``4 eps (745 S + |log B(a, b)|)`` relative), a value is **certified** when the bound
   is below ``2^-54 y1`` (half an ulp), i.e. when ``r <= r_max(a, b)`` (:func:`_r_max`):
   its error is then betainc's own (as for boost's solver, which iterates on the same
   function) plus the rounding of ``y1`` (and of ``1 - y1``).
3. Values not certified take a second step from ``y1`` (then a third); whatever is still
   not certified, and every ``u`` outside the table (0, 1, NaN, the far tails), goes to
   the exact ``fallback`` (scipy's ppf). So the accuracy never rests on the table; the
   table only decides how many values need more work (none of 2^16 Sobol' points for the
   default book's pert inputs).

Tables are cached per ``(a, b)`` (:func:`beta_table`, a bounded LRU cache), ~0.5 ms each
(~170 ``betaincinv`` values).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special

from mc_tco.quiet import ignoring

__all__ = ["DZ", "BetaTable", "beta_ppf", "beta_table"]

#: knot spacing of a table in z = ndtri(u)
DZ = 0.1
#: a table covers |z| <= _Z_MAX (u within ~1e-17 of 0 or 1 goes to scipy; the design's u
#: stay 2^-31 away, |z| < 6.2) and reflected quantiles y >= _Y_FLOOR
_Z_MAX = 8.5
_Y_FLOOR = 1e-290
#: steps before a value goes to the fallback
_STEPS = 3
_EPS = float(np.finfo(float).eps)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
#: bound on |log y| and |log(1 - y)| for any positive double y < 1
_MAX_LOG = 745.2


@dataclass(frozen=True)
class BetaTable:
    """Cubic pieces of ``logit y`` in ``s = ndtri(u)`` for beta(a, b), and the step bound.

    Knots are ``s_k = s_lo + k DZ`` with a knot at 0; below it (``u < 1/2``) ``y`` is the
    quantile ``x``, from it on (``u >= 1/2``) ``y = 1 - x``, the quantile of beta(b, a) at
    ``1 - u``. ``coef`` is (pieces, 4): ``g = c0 + t (c1 + t (c2 + t c3))``, ``t`` in [0, 1].
    ``r_max`` bounds the relative step ``|h| / min(y, 1 - y)`` of a certified value.
    """

    a: float
    b: float
    lnb: float            # log B(a, b)
    s_lo: float           # first knot
    coef: np.ndarray      # (pieces, 4)
    r_max: float


def _side(a: float, b: float, lnb: float, sign: float) -> np.ndarray:
    """Knot values and slopes (2, n) of logit y against s on one side (sign 1: s = z <= 0, the
    lower side; -1: s = -z >= 0, the upper side, as beta(b, a))."""
    p_floor = float(special.betainc(a, b, _Y_FLOOR))
    z_lo = max(float(special.ndtri(p_floor)), -_Z_MAX)
    n = max(2, math.ceil(-z_lo / DZ) + 1)
    z = -DZ * np.arange(n)                                # 0, -DZ, ... <= z_lo
    p = special.ndtr(z)
    p[0] = 0.5
    y = special.betaincinv(a, b, p)
    ly, lw = np.log(y), np.log1p(-y)
    logpdf = (a - 1) * ly + (b - 1) * lw - lnb
    # d logit(y) / dz = phi(z) / (pdf y (1 - y)); ds = sign dz
    slope = sign * np.exp(-0.5 * z * z - _LOG_SQRT_2PI - logpdf - ly - lw)
    return np.stack([ly - lw, slope * DZ])


def _pieces(k: np.ndarray) -> np.ndarray:
    """Cubic Hermite pieces (n-1, 4) from knot values and slopes (times DZ), (2, n)."""
    g0, g1 = k[0, :-1], k[0, 1:]
    m0, m1 = k[1, :-1], k[1, 1:]
    return np.stack([g0, m0, 3 * (g1 - g0) - 2 * m0 - m1, 2 * (g0 - g1) + m0 + m1], axis=1)


def _r_max(a: float, b: float, lnb: float) -> float:
    """Largest relative step ``r = |h| / min(y, 1 - y)`` whose error bound is half an ulp.

    With ``S = |a-1| + |b-1|``: ``|h| G <= r S``, ``h^2 G2 <= r^2 S``, and the log-space
    pdf's rounding is below ``4 eps (S 745 + |log B|)``; the step's error is then at most
    ``|h| (1.02/6 r^2 (2 S^2 + S) + eps (4 A + 9))`` (module docstring), which must stay
    below ``2^-54 y1``, ``y1 >= 0.998 y``; ``r <= 1e-3`` and ``r S <= 1e-3`` keep the
    bound valid.
    """
    s = abs(a - 1) + abs(b - 1)
    big_a = _MAX_LOG * s + abs(lnb)

    def bound(r: float) -> float:
        return r * (1.02 / 6 * r * r * (2 * s * s + s) + _EPS * (4 * big_a + 9))

    lo, hi = 0.0, min(1e-3, 1e-3 / s) if s > 0 else 1e-3
    if bound(hi) <= 0.998 * 2.0**-54:
        return hi
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if bound(mid) <= 0.998 * 2.0**-54 else (lo, mid)
    return lo


@lru_cache(maxsize=512)
def beta_table(a: float, b: float) -> BetaTable:
    """The initial-guess table of beta(a, b) (cached per ``(a, b)``)."""
    lnb = float(special.betaln(a, b))
    with np.errstate(all="ignore"):
        lower = _side(a, b, lnb, 1.0)[:, ::-1]           # s from s_lo up to 0
        upper = _side(b, a, lnb, -1.0)                    # s from 0 up
        coef = np.concatenate([_pieces(lower), _pieces(upper)])
    # a piece that cannot guess (not expected for 0 < a, b <= 1e6) guesses NaN: fallback
    coef[~np.all(np.isfinite(coef), axis=1)] = np.nan
    s_lo = -DZ * (lower.shape[1] - 1)
    return BetaTable(a, b, lnb, s_lo, np.ascontiguousarray(coef), _r_max(a, b, lnb))


def _guess(tab: BetaTable, u: np.ndarray) -> np.ndarray:
    """Initial guesses of the reflected quantile ``y``; NaN outside the table."""
    t = special.ndtri(u)
    t -= tab.s_lo
    t *= 1.0 / DZ
    n = tab.coef.shape[0]
    i = t.astype(np.intp)                                 # garbage for NaN or inf: masked
    np.clip(i, 0, n - 1, out=i)
    inside = (t >= 0) & (t <= n)
    t -= i
    c = tab.coef[i]
    g = c[:, 3] * t
    g += c[:, 2]
    g *= t
    g += c[:, 1]
    g *= t
    g += c[:, 0]
    y = special.expit(g)
    y[~inside] = np.nan
    return y


def _step(tab: BetaTable, aa, bb, am1, bm1, p: np.ndarray, y: np.ndarray):
    """One step of the inverse's Taylor series from ``y``: ``(y1, certified)``.

    ``aa``, ``bb`` are the shapes of the reflected problem (arrays), ``am1``, ``bm1`` them
    minus 1.
    """
    f = special.betainc(aa, bb, y)
    f -= p
    w = 1.0 - y                       # log(w) for log1p(-y): abs error <= 2 eps, in r_max
    lpdf = am1 * np.log(y)
    lpdf += bm1 * np.log(w)
    lpdf -= tab.lnb
    h = f / np.exp(lpdf)
    curv = am1 / y - bm1 / w                              # (log pdf)'
    curv *= h
    curv *= 0.5
    curv += 1.0
    curv *= h                                             # h + L h^2 / 2
    y1 = y - curv
    r = np.abs(h) / np.minimum(y, w)
    return y1, r <= tab.r_max


def beta_ppf(
    a: float,
    b: float,
    u,
    loc: float = 0.0,
    scale: float = 1.0,
    fallback: Callable[[np.ndarray], np.ndarray] | None = None,
) -> np.ndarray:
    """Quantiles ``loc + scale * x`` of beta(a, b) at probabilities ``u``.

    Parameters
    ----------
    a, b : float
        Shape parameters, positive (up to :data:`mc_tco.distributions.families.MAX_SHAPE`).
    u : array_like
        Probabilities, any shape.
    loc, scale : float
        The support is ``[loc, loc + scale]``.
    fallback : callable, optional
        Exact ppf (``u`` array -> values with loc and scale applied) for the values the
        fast path does not certify and for ``u`` outside the table's range (0, 1, NaN,
        within ~1e-300 of 0 or 1); default ``scipy.stats.beta(a, b, loc, scale).ppf``.

    Returns
    -------
    numpy.ndarray
        Same shape as ``u``, in the units of ``loc`` and ``scale``.
    """
    u = np.asarray(u, dtype=float)
    shape = u.shape
    u = u.ravel()
    if fallback is None:
        fallback = _scipy_ppf(a, b, loc, scale)
    with np.errstate(all="ignore"):
        if a == 1.0 and b == 1.0:            # uniform: the quantile is u
            x = u.copy()
            todo = np.flatnonzero(~((u > 0) & (u < 1)))
        else:
            x, todo = _solve(beta_table(float(a), float(b)), u)
        out = x * scale + loc
    if todo.size:
        out[todo] = np.asarray(fallback(u[todo]), dtype=float)
    return out.reshape(shape)


def _scipy_ppf(a: float, b: float, loc: float, scale: float) -> Callable:
    """scipy's beta ppf, without boost's warning that its root finding gave up (see
    :func:`mc_tco.distributions.families.ppf`)."""
    from mc_tco.distributions.frozen import Frozen  # (scipy's numbers, no scipy.stats)

    dist = Frozen("beta", a, b, loc=loc, scale=scale)

    def exact(u: np.ndarray) -> np.ndarray:
        with ignoring("Error in function boost", RuntimeWarning):  # (mc_tco.quiet)
            return dist.ppf(u)

    return exact


def _solve(tab: BetaTable, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Quantiles x of beta(a, b) at ``u`` (1-d) and the indices left to the fallback."""
    upper = u >= 0.5
    p = np.where(upper, 1.0 - u, u)                      # exact for u >= 1/2
    aa = np.where(upper, tab.b, tab.a)
    bb = np.where(upper, tab.a, tab.b)
    am1, bm1 = aa - 1.0, bb - 1.0
    y1, ok = _step(tab, aa, bb, am1, bm1, p, _guess(tab, u))
    idx = np.flatnonzero(~ok)
    y = y1
    if idx.size:
        y = np.where(ok, y1, np.nan)
        for _ in range(_STEPS - 1):
            y1, ok = _step(tab, aa[idx], bb[idx], am1[idx], bm1[idx], p[idx], y1[~ok])
            y[idx[ok]] = y1[ok]
            idx = idx[~ok]
            if not idx.size:
                break
    return np.where(upper, 1.0 - y, y), idx
