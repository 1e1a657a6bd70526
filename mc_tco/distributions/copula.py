"""Correlated inputs through a Gaussian copula on the unit-cube design.

A book lists rank correlations between pairs of uncertain inputs (Spearman by default, or
Kendall). The sample keeps every input's margin and gets the requested rank correlation
from a Gaussian copula: a unit-cube point ``u`` (one row, ``D`` columns) is mapped to
normal scores ``z = Phi^-1(u)``, correlated ``z' = L z`` with the Cholesky factor ``L`` of
the *normal* correlation matrix, and mapped back ``u' = Phi(z')``; each input then takes
``ppf(u')`` as before. For a Gaussian copula with normal correlation ``rho`` the Spearman
and Kendall correlations are (Kruskal 1958; McNeil, Frey & Embrechts 2015, prop. 5.29)

    rho_S = 6 / pi * arcsin(rho / 2),     tau = 2 / pi * arcsin(rho),

so the normal correlation that gives a requested ``rho_S`` is ``2 sin(pi rho_S / 6)`` and
the one for ``tau`` is ``sin(pi tau / 2)`` (:func:`normal_correlation`). Without this
correction (plain Iman-Conover with ``rho = rho_S``) a target of 0.7 lands at about 0.683.

The Saltelli design under dependence
------------------------------------
The design (:class:`mc_tco.design.SaltelliDesign`) draws one ``2 D`` Sobol' point per base
sample: its halves are rows ``A_i`` and ``B_i``. With correlations the engine should

1. correlate ``A`` and ``B`` separately, ``to_correlated_unit(A, R)`` and
   ``to_correlated_unit(B, R)`` (each row on its own, so any chunk stands alone and the
   result does not depend on the chunking);
2. then mix (``SaltelliDesign.mix``) the correlated ``A`` / ``B`` rows, or their ``ppf``
   values.

The ``A`` and ``B`` rows are then draws from the joint distribution: the uncertainty
summaries, the decision analysis (PRIM, EVPI/EVPPI) and the Shapley variance use them as
they are. The ``AB^(k)`` rows are *not* draws from the joint distribution when input ``k``
is correlated with another input (column ``k`` comes from ``B``, its partners from ``A``,
so the pair is independent in that row): per-input S1/ST from them are not Sobol' indices
of the model's inputs, and the engine should not report them as such; Shapley effects
(:mod:`mc_tco.sensitivity.shapley`) rank the inputs instead. When every correlation stays
inside one group of the book (:func:`mc_tco.sensitivity.grouped.groups_independent`), the
grouped ``AB^(g)`` rows swap whole groups of a joint draw between independent groups, so
they *are* joint draws and grouped Sobol' indices remain exact.

Functions
---------
normal_correlation, rank_correlation
    Between rank (Spearman / Kendall) and normal correlation of a Gaussian copula
    (:mod:`.rank_normal`).
check_correlation_matrix
    The correlation matrix from a book's pairs, validated; raises :class:`CorrelationError`
    (:mod:`.correlation_matrix`, :mod:`.correlation_errors`).
nearest_correlation
    Higham's (2002) nearest correlation matrix, nudged to positive definite
    (:mod:`.nearest_matrix`).
to_correlated_unit
    Unit-cube rows (n, D) with the copula's dependence; uncorrelated columns untouched.
"""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr, ndtri

from mc_tco.distributions.correlation_errors import CorrelationError
from mc_tco.distributions.correlation_matrix import CorrelationMatrix, check_correlation_matrix
from mc_tco.distributions.nearest_matrix import nearest_correlation
from mc_tco.distributions.rank_normal import normal_correlation, rank_correlation

__all__ = [
    "CorrelationError",
    "CorrelationMatrix",
    "check_correlation_matrix",
    "nearest_correlation",
    "normal_correlation",
    "rank_correlation",
    "to_correlated_unit",
]

# The copula maps back to the open unit interval: Phi(z) for |z| > 8.3 rounds to 0 or 1 in
# double precision, where an unbounded margin's ppf is infinite. Clip to [2^-53, 1 - 2^-53].
_U_LOW = 2.0**-53
_U_HIGH = 1.0 - 2.0**-53


def to_correlated_unit(u, corr_normal) -> np.ndarray:
    """Unit-cube rows with the Gaussian copula's dependence.

    Parameters
    ----------
    u : array_like, shape (n, D)
        Independent unit-cube points (e.g. the ``A`` or ``B`` rows of a scrambled Sobol'
        design), in (0, 1).
    corr_normal : array_like, shape (D, D)
        Normal correlation matrix (positive definite, unit diagonal), e.g.
        ``CorrelationMatrix.used``.

    Returns
    -------
    ndarray, shape (n, D)
        ``Phi(L Phi^-1(u))`` on the correlated columns, clipped to [2^-53, 1 - 2^-53];
        columns with no correlation are returned bit-identical. Each row is transformed
        on its own, so a chunk of rows gives the same values as the whole.
    """
    u = np.asarray(u, dtype=float)
    r = np.asarray(corr_normal, dtype=float)
    out = u.copy()
    cols = np.flatnonzero(np.any((r - np.eye(r.shape[0])) != 0.0, axis=0))
    if cols.size == 0:
        return out
    chol = np.linalg.cholesky(r[np.ix_(cols, cols)])
    z = ndtri(u[:, cols]) @ chol.T
    out[:, cols] = np.clip(ndtr(z), _U_LOW, _U_HIGH)
    return out
