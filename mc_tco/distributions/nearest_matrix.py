"""The nearest correlation matrix (Higham 2002), for a book whose correlations are not
jointly possible (``repair_correlations = "nearest"``)."""

from __future__ import annotations

import numpy as np

__all__ = ["MIN_EIGENVALUE", "nearest_correlation"]

# A matrix whose smallest eigenvalue is below this is treated as not positive definite: its
# Cholesky factor would amplify rounding by more than 1e4 in the correlated normal scores.
MIN_EIGENVALUE = 1e-8


def nearest_correlation(a, *, tol: float = 1e-12, max_iter: int = 10_000,
                        min_eigenvalue: float = MIN_EIGENVALUE) -> np.ndarray:
    """The nearest correlation matrix in the Frobenius norm (Higham 2002), made PD.

    Alternating projections with Dykstra's correction (Higham 2002, algorithm 3.3 with
    ``W = I``) between the positive semidefinite cone and the unit-diagonal matrices,
    then eigenvalues below ``min_eigenvalue`` are raised to it and the diagonal scaled
    back to 1 so a Cholesky factor exists.

    Parameters
    ----------
    a : array_like, shape (D, D)
        Symmetric matrix (e.g. a correlation matrix that is not PSD).
    tol : float
        Stop when successive iterates differ by less than ``tol`` (relative, Frobenius).
    max_iter : int
        Iteration cap (raises ``RuntimeError`` if reached).
    min_eigenvalue : float
        Smallest eigenvalue of the result (before the diagonal rescaling).

    Returns
    -------
    ndarray, shape (D, D)
        Symmetric, unit diagonal, positive definite.

    References
    ----------
    N. J. Higham, "Computing the nearest correlation matrix - a problem from finance",
    IMA J. Numer. Anal. 22 (2002) 329-343.
    """
    a = np.asarray(a, dtype=float)
    a = (a + a.T) / 2.0
    y = a.copy()
    ds = np.zeros_like(a)
    for _ in range(max_iter):
        r = y - ds
        w, v = np.linalg.eigh(r)
        x = (v * np.maximum(w, 0.0)) @ v.T
        ds = x - r
        y_new = x.copy()
        np.fill_diagonal(y_new, 1.0)
        change = float(np.linalg.norm(y_new - y)) / max(float(np.linalg.norm(y_new)), 1.0)
        y = y_new
        if change < tol:
            break
    else:  # pragma: no cover - the iteration converges for any symmetric input
        raise RuntimeError("nearest_correlation did not converge")
    w, v = np.linalg.eigh((y + y.T) / 2.0)
    if w[0] < min_eigenvalue:
        y = (v * np.maximum(w, min_eigenvalue)) @ v.T
        scale = 1.0 / np.sqrt(np.diag(y))
        y = y * scale[:, None] * scale[None, :]
    y = (y + y.T) / 2.0
    np.fill_diagonal(y, 1.0)
    return y
