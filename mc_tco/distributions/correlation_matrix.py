"""A book's ``[[correlation]]`` pairs checked and built into the normal correlation matrix
of the Gaussian copula (:class:`CorrelationMatrix`), repaired to the nearest valid one on
request; a pair or a matrix that cannot be used raises :class:`CorrelationError`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from mc_tco.distributions.correlation_errors import CorrelationError, _most_moved
from mc_tco.distributions.nearest_matrix import MIN_EIGENVALUE, nearest_correlation
from mc_tco.distributions.rank_normal import KINDS, normal_correlation, rank_correlation

__all__ = ["CorrelationMatrix", "check_correlation_matrix"]


@dataclass(frozen=True)
class CorrelationMatrix:
    """The validated correlation of a book's uncertain inputs.

    Attributes
    ----------
    names : tuple of str
        The uncertain inputs, in column order (``D``).
    requested : ndarray, shape (D, D)
        Rank correlations as written (each pair in its own measure), unit diagonal.
    kinds : ndarray of str, shape (D, D)
        ``"spearman"`` / ``"kendall"`` per written pair, ``""`` elsewhere.
    normal : ndarray, shape (D, D)
        Normal correlation matrix implied by the requested pairs.
    used : ndarray, shape (D, D)
        Normal correlation matrix the sample uses: ``normal``, or its repair.
    repaired : bool
        True when ``used`` is the nearest correlation matrix to a non-PD ``normal``.
    min_eigenvalue : float
        Smallest eigenvalue of ``normal`` (before any repair).
    """

    names: tuple[str, ...]
    requested: np.ndarray
    kinds: np.ndarray
    normal: np.ndarray
    used: np.ndarray
    repaired: bool = False
    min_eigenvalue: float = 1.0
    sources: tuple[str, ...] = field(default=())

    @property
    def achieved(self) -> np.ndarray:
        """Rank correlations of ``used``, in each requested pair's measure (D, D)."""
        out = np.eye(len(self.names))
        for kind in KINDS:
            mask = self.kinds == kind
            out[mask] = rank_correlation(self.used[mask], kind)
        return out

    @property
    def correlated(self) -> np.ndarray:
        """Boolean (D,): the column takes part in at least one correlation."""
        off = self.used - np.eye(len(self.names))
        return np.any(off != 0.0, axis=0)


def _parse_pair(pair, index: int):
    """(a, b, value, kind, source) from a mapping ``{between, spearman|kendall, source}``
    or a tuple ``(a, b, value[, kind])``."""
    if isinstance(pair, Mapping):
        between = pair.get("between")
        given = [k for k in KINDS if k in pair]
        if len(given) != 1:
            raise CorrelationError(
                "give exactly one of spearman = r or kendall = tau"
                + (f" (found both {given[0]} and {given[1]})" if given else ""),
                index=index, field="spearman",
            )
        kind = given[0]
        value = pair[kind]
        source = str(pair.get("source", ""))
    else:
        if len(pair) not in (3, 4):
            raise CorrelationError("a pair is (name, name, value[, kind])", index=index)
        between = list(pair[:2])
        value = pair[2]
        kind = pair[3] if len(pair) == 4 else "spearman"
        source = ""
        if kind not in KINDS:
            raise CorrelationError(f"kind must be spearman or kendall, not {kind!r}",
                                   index=index, field="kendall")
    if (not isinstance(between, Sequence) or isinstance(between, str) or len(between) != 2
            or not all(isinstance(n, str) for n in between)):
        raise CorrelationError('between must list two input names, e.g. between = ["a", "b"]',
                               index=index, field="between")
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise CorrelationError(f"{kind} must be a number in (-1, 1), not {value!r}",
                               index=index, field=kind)
    return between[0], between[1], float(value), kind, source


def check_correlation_matrix(names, pairs, uncertain=None, *, repair: str | None = None):
    """Build and validate the correlation matrix of a book's ``[[correlation]]`` pairs.

    Parameters
    ----------
    names : sequence of str
        Every input of the book (to tell an unknown name from a fixed input).
    pairs : sequence
        Each a mapping ``{"between": [a, b], "spearman": r, "source": ...}`` (or
        ``"kendall": tau``) as read from the book, or a tuple ``(a, b, r[, kind])``.
    uncertain : sequence of str, optional
        The uncertain inputs in column order (default: ``names``); the matrix is over these.
    repair : {None, "nearest"}
        With ``"nearest"``, a matrix that is not positive definite is replaced by its
        nearest correlation matrix (:func:`nearest_correlation`) instead of an error.

    Returns
    -------
    CorrelationMatrix

    Raises
    ------
    CorrelationError
        The first problem found, in one line, with ``index`` / ``field`` / ``pair`` set:
        an unknown or fixed input, a pair of an input with itself, a pair given twice,
        a value not in (-1, 1), or (without repair) a matrix that is not positive definite
        (message: its smallest eigenvalue, and the pair that moved most in the nearest
        valid matrix, from what to what).
    """
    names = list(names)
    uncertain = list(names if uncertain is None else uncertain)
    column = {n: i for i, n in enumerate(uncertain)}
    d = len(uncertain)
    requested = np.eye(d)
    kinds = np.full((d, d), "", dtype=object)
    seen: dict[frozenset, int] = {}
    sources = []
    book_order: list[tuple[int, int]] = []
    for index, pair in enumerate(pairs):
        a, b, value, kind, source = _parse_pair(pair, index)
        for n in (a, b):
            if n not in column:
                what = ("is fixed (a point value), so it cannot be correlated; give it a "
                        "distribution or drop the pair") if n in names else (
                        "is not an input of the book; check the spelling")
                raise CorrelationError(f"input {n!r} {what}", index=index, field="between",
                                       pair=(a, b))
        if a == b:
            raise CorrelationError(f"pairs {a!r} with itself; name two different inputs",
                                   index=index, field="between", pair=(a, b))
        key = frozenset((a, b))
        if key in seen:
            raise CorrelationError(
                f"{a!r} and {b!r} are already correlated in correlation {seen[key] + 1}; "
                "give each pair once", index=index, field="between", pair=(a, b))
        seen[key] = index
        if not np.isfinite(value) or abs(value) >= 1.0:
            raise CorrelationError(
                f"{kind} = {value} between {a!r} and {b!r} must be in (-1, 1) (strictly); "
                "for inputs that move as one, use one input", index=index, field=kind,
                pair=(a, b))
        i, j = column[a], column[b]
        book_order.append((min(i, j), max(i, j)))
        requested[i, j] = requested[j, i] = value
        kinds[i, j] = kinds[j, i] = kind
        sources.append(source)
    normal = np.eye(d)
    for kind in KINDS:
        mask = kinds == kind
        normal[mask] = normal_correlation(requested[mask], kind)
    min_eig = float(np.linalg.eigvalsh(normal)[0]) if d else 1.0
    used, repaired = normal, False
    if min_eig < MIN_EIGENVALUE:
        nearest = nearest_correlation(normal)
        worst = _most_moved(normal, nearest, book_order)
        if repair != "nearest":
            moves = [f"{uncertain[i]!r}-{uncertain[j]!r} ({kinds[i, j] or 'spearman'} "
                     f"{rank_correlation(normal[i, j], kinds[i, j] or 'spearman'):.3g} -> "
                     f"{rank_correlation(nearest[i, j], kinds[i, j] or 'spearman'):.3g})"
                     for i, j in worst]
            which = (f"moves {moves[0]} most" if len(moves) == 1 else
                     f"moves {', '.join(moves[:-1])} and {moves[-1]} about equally, "
                     "more than any other pair")
            raise CorrelationError(
                f"the correlations are not jointly possible: the normal correlation matrix "
                f"is not positive definite (smallest eigenvalue {min_eig:.3g}); the nearest "
                f"valid matrix {which}; loosen the correlations "
                'or set [analysis] repair_correlations = "nearest"',
                pair=(uncertain[worst[0][0]], uncertain[worst[0][1]]),
                pairs=tuple((uncertain[i], uncertain[j]) for i, j in worst))
        used, repaired = nearest, True
    return CorrelationMatrix(tuple(uncertain), requested, kinds, normal, used, repaired,
                             min_eig, tuple(sources))
