"""Exact Shapley effects of a linear model of Gaussian inputs (Iooss & Prieur 2019): the
closed form the estimator is checked against."""

from __future__ import annotations

import itertools
from math import factorial

import numpy as np

__all__ = ["linear_gaussian_shapley"]


def linear_gaussian_shapley(beta, cov) -> np.ndarray:
    """Exact Shapley effects of ``Y = beta^T X``, ``X ~ N(mu, cov)`` (Iooss & Prieur 2019).

    ``c(S) = Var(E[Y | X_S]) = beta^T cov[:, S] cov[S, S]^-1 cov[S, :] beta`` in closed
    form for every subset, combined with the Shapley weights ``|S|! (d-|S|-1)! / d!``.

    Returns
    -------
    ndarray, shape (d,)
        Effects normalised by ``Var(Y) = beta^T cov beta`` (sum to 1).
    """
    beta = np.asarray(beta, dtype=float)
    cov = np.asarray(cov, dtype=float)
    d = beta.size
    cb = cov @ beta

    def cost(s):
        if not s:
            return 0.0
        s = list(s)
        return float(cb[s] @ np.linalg.solve(cov[np.ix_(s, s)], cb[s]))

    costs = {s: cost(s) for k in range(d + 1) for s in itertools.combinations(range(d), k)}
    shap = np.zeros(d)
    for s, c_s in costs.items():
        for i in set(range(d)) - set(s):
            with_i = tuple(sorted((*s, i)))
            w = factorial(len(s)) * factorial(d - len(s) - 1) / factorial(d)
            shap[i] += w * (costs[with_i] - c_s)
    return shap / float(beta @ cb)
