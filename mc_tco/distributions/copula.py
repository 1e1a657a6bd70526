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
    Between rank (Spearman / Kendall) and normal correlation of a Gaussian copula.
check_correlation_matrix
    The correlation matrix from a book's pairs, validated; raises :class:`CorrelationError`.
nearest_correlation
    Higham's (2002) nearest correlation matrix, nudged to positive definite.
to_correlated_unit
    Unit-cube rows (n, D) with the copula's dependence; uncorrelated columns untouched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr, ndtri

__all__ = [
    "CorrelationError",
    "CorrelationMatrix",
    "check_correlation_matrix",
    "nearest_correlation",
    "normal_correlation",
    "rank_correlation",
    "to_correlated_unit",
]

KINDS = ("spearman", "kendall")
# A matrix whose smallest eigenvalue is below this is treated as not positive definite: its
# Cholesky factor would amplify rounding by more than 1e4 in the correlated normal scores.
MIN_EIGENVALUE = 1e-8
# The copula maps back to the open unit interval: Phi(z) for |z| > 8.3 rounds to 0 or 1 in
# double precision, where an unbounded margin's ppf is infinite. Clip to [2^-53, 1 - 2^-53].
_U_LOW = 2.0**-53
_U_HIGH = 1.0 - 2.0**-53


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
