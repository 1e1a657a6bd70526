"""Between the rank (Spearman / Kendall) and the normal correlation of a Gaussian copula.

For a Gaussian copula with normal correlation ``rho`` the Spearman and Kendall correlations
are (Kruskal 1958; McNeil, Frey & Embrechts 2015, prop. 5.29)
``rho_S = 6 / pi * arcsin(rho / 2)`` and ``tau = 2 / pi * arcsin(rho)``
(:mod:`mc_tco.distributions.copula` explains their use).
"""

from __future__ import annotations

import numpy as np

__all__ = ["KINDS", "normal_correlation", "rank_correlation"]

KINDS = ("spearman", "kendall")


def normal_correlation(r, kind: str = "spearman"):
    """The normal (Pearson) correlation of a Gaussian copula with rank correlation ``r``.

    Parameters
    ----------
    r : float or array_like
        Rank correlation in (-1, 1), dimensionless.
    kind : {"spearman", "kendall"}
        The rank correlation ``r`` is: Spearman's rho_S gives ``2 sin(pi r / 6)``,
        Kendall's tau gives ``sin(pi r / 2)``.

    Returns
    -------
    float or ndarray
        Normal correlation, same shape as ``r``.
    """
    r = np.asarray(r, dtype=float)
    if kind == "spearman":
        out = 2.0 * np.sin(np.pi * r / 6.0)
    elif kind == "kendall":
        out = np.sin(np.pi * r / 2.0)
    else:
        raise ValueError(f"kind must be 'spearman' or 'kendall', not {kind!r}")
    return float(out) if out.ndim == 0 else out


def rank_correlation(rho, kind: str = "spearman"):
    """The rank correlation of a Gaussian copula with normal correlation ``rho``.

    Inverse of :func:`normal_correlation`: ``6/pi arcsin(rho/2)`` (Spearman) or
    ``2/pi arcsin(rho)`` (Kendall).
    """
    rho = np.asarray(rho, dtype=float)
    if kind == "spearman":
        out = 6.0 / np.pi * np.arcsin(rho / 2.0)
    elif kind == "kendall":
        out = 2.0 / np.pi * np.arcsin(np.clip(rho, -1.0, 1.0))
    else:
        raise ValueError(f"kind must be 'spearman' or 'kendall', not {kind!r}")
    return float(out) if out.ndim == 0 else out
