"""The penalised smoother's fit is the closed form ``(X'X + lam P)^-1 X'y`` at its GCV
``lam`` (the fit goes through a triangular inverse from LAPACK's trtri)."""

from __future__ import annotations

import numpy as np
import pytest

from mc_tco.decision.regression import _multi_indices, fit_smoother, polynomial_degree


def _penalty(p: int, k: int) -> np.ndarray:
    """The module docstring's penalties, written anew."""
    if p == 1:  # P-spline: second differences of the coefficients
        diff = np.diff(np.eye(k), n=2, axis=0)
        return diff.T @ diff
    total = _multi_indices(p, polynomial_degree(p)).sum(axis=1)  # ridge |alpha|^4, |alpha|>=2
    return np.diag(np.where(total >= 2, total.astype(float) ** 4, 0.0))


@pytest.mark.parametrize("p", [1, 3])
def test_the_fit_is_the_penalised_least_squares_closed_form(p):
    rng = np.random.default_rng(7)
    n = 600
    x = rng.uniform(size=(n, p))
    y = np.column_stack([np.sin(6 * x[:, 0]) + rng.normal(0, 0.3, n),
                         x.sum(axis=1) ** 2 + rng.normal(0, 0.5, n)])
    fit = fit_smoother(x if p > 1 else x[:, 0], y)
    X = fit.design
    A = X.T @ X + fit.lam * _penalty(p, X.shape[1])
    mean = y.mean(axis=0)
    fitted = X @ np.linalg.solve(A, X.T @ (y - mean)) + mean  # the constant is unpenalised
    np.testing.assert_allclose(fit.fitted, fitted, rtol=1e-7, atol=1e-8)
    a_inv = np.linalg.inv(A)  # the posterior factor F: F F' = (X'X + lam P)^-1
    np.testing.assert_allclose(fit.a_inv_chol @ fit.a_inv_chol.T, a_inv, rtol=0,
                               atol=1e-7 * np.abs(a_inv).max())
