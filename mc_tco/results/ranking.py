"""One ranking of inputs: every reader (the terminal, the memo, the app, the accessor, the
adaptive stopping rule) orders inputs by a score through :func:`rank_order`, so inputs with
tied scores come in the same order everywhere: the book's order.
"""

from __future__ import annotations

import numpy as np

__all__ = ["rank_order"]


def rank_order(scores, top: int | None = None) -> np.ndarray:
    """Indices of ``scores`` by score descending, ties in the given (book) order, NaN last.

    Parameters
    ----------
    scores : array_like
        One score per input, in the book's order (or any array: it is ranked flattened,
        in C order, e.g. a matrix of pair indices).
    top : int, optional
        Keep the first ``top`` indices.

    Returns
    -------
    numpy.ndarray
        Integer indices into the flattened ``scores``.
    """
    s = np.asarray(scores, dtype=float).ravel()
    order = np.argsort(-np.nan_to_num(s, nan=-np.inf), kind="stable")
    return order if top is None else order[:top]
