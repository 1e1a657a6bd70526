"""Sobol' estimators written as functions of sums over base samples (no data, no I/O).

Each estimator is a pair: a function of the pooled sums ``e`` (keyed by the exponents
``(p, q, r)`` of the monomials ``a^p b^q d_j^r`` of one base sample, ``a = f(A)``,
``b = f(B)``, ``d_j = f(AB_j)``) and the monomials it needs. The references are in
:mod:`mc_tco.sensitivity.sobol`.
"""

from __future__ import annotations

import numpy as np

# Monomials a^p b^q d_j^r of a base sample are keyed by their exponents (p, q, r); r = 0
# ones are shared by all factors (shape (C,)), the others are per factor (shape (K, C)).
_A, _B, _AA, _BB, _AB = (1, 0, 0), (0, 1, 0), (2, 0, 0), (0, 2, 0), (1, 1, 0)
_D, _AD, _BD, _DD = (0, 0, 1), (1, 0, 1), (0, 1, 1), (0, 0, 2)
_DEGREE2 = (_A, _B, _AA, _BB, _AB, _D, _AD, _BD, _DD)
_HIGHER = tuple(
    (p, deg - r - p, r) for deg in (3, 4) for r in range(deg + 1) for p in range(deg - r + 1)
)


def _pooled_var(e):
    """Variance of the ``A`` and ``B`` outputs together (SALib's ``np.var(np.r_[A, B])``)."""
    mu = (e[_A] + e[_B]) / 2
    return (e[_AA] + e[_BB]) / 2 - mu**2


def _div(num, den, tiny):
    """``num / den`` where ``den > tiny`` (real part), NaN elsewhere, without warnings."""
    ok = den.real > tiny
    return np.where(ok, num / np.where(ok, den, 1.0), np.nan)


def _saltelli(e, m, tiny):
    """First order Saltelli et al. (2010) table 2 (b); total Jansen (1999)."""
    v = _pooled_var(e)
    return _div(e[_BD] - m * e[_D], v, tiny), _div(e[_DD] / 2, v, tiny)


def _sobol2007(e, m, tiny):
    """First order as Saltelli (2010) (b); total Sobol' et al. (2007) ``E[(a-m)(a-c)]/V``."""
    v = _pooled_var(e)
    return _div(e[_BD] - m * e[_D], v, tiny), _div(m * e[_D] - e[_AD], v, tiny)


def _janon(e, m, tiny):
    """Janon et al. (2014): mean and variance of each pair from both of its samples."""
    ec = e[_A] + e[_D]
    ecc = e[_AA] + 2 * e[_AD] + e[_DD]
    mu = (e[_B] + ec) / 2
    s1 = _div(e[_AB] + e[_BD] - mu**2, (e[_BB] + ecc) / 2 - mu**2, tiny)
    nu = e[_A] + e[_D] / 2
    st = _div(e[_DD] / 2, (e[_AA] + ecc) / 2 - nu**2, tiny)
    return s1, st


def _martinez(e, m, tiny):
    """Martinez (2011): ``corr(b, c_j)`` and ``1 - corr(a, c_j)``."""
    var_a = e[_AA] - e[_A] ** 2
    var_b = e[_BB] - e[_B] ** 2
    var_d = e[_DD] - e[_D] ** 2
    cov_ad = e[_AD] - e[_A] * e[_D]
    var_c = var_a + 2 * cov_ad + var_d
    cov_bc = e[_AB] + e[_BD] - e[_B] * (e[_A] + e[_D])
    ok = (var_a.real > tiny) & (var_b.real > tiny) & (var_c.real > tiny)
    sd_a, sd_b, sd_c = (np.sqrt(np.where(ok, x, 1.0)) for x in (var_a, var_b, var_c))
    sd_diff = -(2 * cov_ad + var_d) / (sd_a + sd_c)  # sd_a - sd_c, without cancellation
    s1 = np.where(ok, cov_bc / (sd_b * sd_c), np.nan)
    st = np.where(ok, (var_d - sd_diff**2) / (2 * sd_a * sd_c), np.nan)
    return s1, st


_ESTIMATORS = {
    "saltelli": (_saltelli, (_A, _B, _AA, _BB, _D, _BD, _DD)),
    "sobol2007": (_sobol2007, (_A, _B, _AA, _BB, _D, _AD, _BD)),
    "janon": (_janon, _DEGREE2),
    "martinez": (_martinez, _DEGREE2),
}
#: names of the first-order/total estimator pairs (see the module docstring)
ESTIMATORS = tuple(_ESTIMATORS)
#: confidence-interval methods: ``rqmc`` via :func:`rqmc_result`, the others via ``result``
CI_METHODS = ("rqmc", "asymptotic", "bootstrap")

__all__ = ["CI_METHODS", "ESTIMATORS"]
