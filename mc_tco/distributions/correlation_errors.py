"""Why a book's correlations are refused: :class:`CorrelationError` (one line, placed on
the ``[[correlation]]`` table by the book loader) and the pairs a matrix that is not
positive definite names (:func:`_most_moved`)."""

from __future__ import annotations

import numpy as np

__all__ = ["TIE_RTOL", "CorrelationError"]


class CorrelationError(ValueError):
    """A correlation that cannot be used; one line, for the book loader to place.

    Attributes
    ----------
    index : int or None
        Position of the offending pair in the list given (the ``[[correlation]]`` table
        number, from 0); None for a problem of the whole matrix (not positive definite).
    field : str or None
        The field of that table: ``"between"``, ``"spearman"``, ``"kendall"``, or None.
    pair : tuple of str or None
        The two input names concerned (for a matrix problem: the first, in book order, of
        the pairs that moved most in the nearest valid matrix).
    pairs : tuple of tuple of str
        For a matrix problem, every pair whose move is within :data:`TIE_RTOL` of the
        largest, in book order (then pairs the book does not write, in input order);
        otherwise ``(pair,)``.
    reason : str
        What is wrong and how to fix it (the message).
    """

    def __init__(self, reason: str, *, index=None, field=None, pair=None, pairs=None):
        self.index = index
        self.field = field
        self.pair = pair
        self.pairs = tuple(pairs) if pairs is not None else ((pair,) if pair else ())
        self.reason = reason
        super().__init__(reason)


#: Pairs whose move to the nearest valid matrix is within this share of the largest move
#: are named together: they are equally responsible at the precision the message prints
#: (3 significant digits), and an ``argmax`` over such a tie picks one by rounding noise.
TIE_RTOL = 1e-3


def _most_moved(normal, nearest, book_order) -> list[tuple[int, int]]:
    """Index pairs ``(i, j)``, ``i < j``, that the nearest matrix moves (about) most.

    Every pair within :data:`TIE_RTOL` of the largest move, ordered as the book writes them
    (``book_order``: the first ``[[correlation]]`` first), then pairs the book leaves at 0
    in input order, so the message and the line it points at do not depend on
    floating-point noise.
    """
    moved = np.abs(nearest - normal)
    iu, ju = np.triu_indices(len(normal), 1)
    largest = float(moved[iu, ju].max())
    tied = [(int(i), int(j)) for i, j in zip(iu, ju, strict=True)
            if moved[i, j] >= largest * (1 - TIE_RTOL)]
    rank = {ij: k for k, ij in enumerate(book_order)}
    return sorted(tied, key=lambda ij: (rank.get(ij, len(book_order)), ij))
