"""The intervals of the family check's changes: paired indicators on common random numbers.

A variant of :mod:`mc_tco.engine.family` and the book as written are evaluated on the same
rows, so the change of P(target > 0) is the mean of a paired difference ``win_variant -
win_book``: its interval is the randomized-QMC t interval of the per-scramble changes
(:mod:`mc_tco.uncertainty.scrambles`), or Newcombe's (1998, method 10) interval for a
difference of paired proportions where that cannot work.

References
----------
Newcombe, R. G. (1998). Improved confidence intervals for the difference between binomial
proportions based on paired data. Statistics in Medicine 17(22), 2635-2650.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from mc_tco.uncertainty.intervals import replicate_interval
from mc_tco.uncertainty.scrambles import Interval, wilson_interval

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["paired_change", "paired_change_from_counts", "paired_difference_interval"]


def paired_difference_interval(b: ArrayLike, c: ArrayLike, n: int | np.ndarray,
                               conf_level: float = 0.95, a: ArrayLike | None = None,
                               d: ArrayLike | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's (1998) method-10 interval for ``p1 - p2`` of paired binary outcomes.

    Parameters
    ----------
    b, c : array_like
        Counts of pairs (1, 0) and (0, 1): the variant wins where the book loses, and the
        reverse.
    n : int
        Pairs.
    a, d : array_like
        Counts of (1, 1) and (0, 0); ``a + b + c + d = n``.

    Returns
    -------
    (ndarray, ndarray)
        Lower and upper bounds of ``(b - c) / n``.

    Notes
    -----
    Wilson's intervals of the two margins, combined with the correlation ``phi`` of the
    pairs; as in Newcombe's method 10, ``phi``'s numerator ``ad - bc`` is reduced by ``n/2``
    (not below 0) where it is positive, and ``phi = 0`` where a margin is empty. Equal to his
    Table II to 4 decimals (``tests/engine/test_family.py``).
    """
    a, b, c, d = (np.asarray(v, dtype=float) for v in (a, b, c, d))
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson_interval(a + b, n, conf_level)
    l2, u2 = wilson_interval(a + c, n, conf_level)
    denom = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    cross = np.where(cross > 0, np.maximum(cross - n / 2, 0.0), cross)
    with np.errstate(invalid="ignore", divide="ignore"):
        phi = np.where(denom > 0, cross / np.sqrt(np.where(denom > 0, denom, 1)), 0.0)
    delta = p1 - p2
    lower = delta - np.sqrt(np.clip(
        (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0, None))
    upper = delta + np.sqrt(np.clip(
        (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0, None))
    return np.clip(lower, -1, 1), np.clip(upper, -1, 1)


def paired_change(wins: ArrayLike, ref: ArrayLike, replicate: ArrayLike, replicates: int,
                  conf_level: float = 0.95, axis: int = 0) -> Interval:
    """The change ``P(wins) - P(ref)`` of two paired indicators, with its interval.

    The estimate is the mean of ``wins - ref`` over the rows; the interval is the
    randomized-QMC t interval of its ``R`` per-scramble means
    (:func:`mc_tco.uncertainty.scrambles.mean_interval`), or :func:`paired_difference_interval`
    (Newcombe 1998, method 10, on the pooled counts) where that cannot work: a scramble with
    no discordant pair (the change there is exactly 0, as with no event for a proportion),
    R equal per-scramble changes, or a t interval that leaves [-1, 1] (``fallback``).

    Parameters
    ----------
    wins, ref : array_like of bool
        The two indicators on the same rows, the rows along ``axis``.
    replicate : array_like of int, (n,)
        The scramble of each row (:func:`mc_tco.uncertainty.scrambles.replicate_of`).

    Returns
    -------
    Interval
        Dims of ``wins`` without ``axis``.
    """
    w = np.moveaxis(np.asarray(wins, dtype=bool), axis, 0)
    r = np.moveaxis(np.asarray(ref, dtype=bool), axis, 0)
    replicate = np.asarray(replicate)
    masks = [replicate == k for k in range(replicates)]
    count = lambda x: np.stack([x[m].sum(axis=0) for m in masks])  # noqa: E731
    n_r = np.stack([np.full(w.shape[1:], m.sum()) for m in masks])
    return paired_change_from_counts(count(w), count(r), count(w & ~r), count(~w & r), n_r,
                                     conf_level)


def paired_change_from_counts(wins_r: ArrayLike, ref_r: ArrayLike, only_wins_r: ArrayLike,
                              only_ref_r: ArrayLike, n_r: ArrayLike,
                              conf_level: float = 0.95) -> Interval:
    """:func:`paired_change` from the counts of each scramble (the same rule and numbers).

    Parameters
    ----------
    wins_r, ref_r : array_like, (R, ...)
        Rows of each scramble where ``wins`` (``ref``) holds.
    only_wins_r, only_ref_r : array_like, (R, ...)
        Rows of each scramble where ``wins`` holds and ``ref`` does not (and the reverse).
    n_r : array_like, (R, ...)
        Rows of each scramble (broadcast against the counts).

    Returns
    -------
    Interval
        The mean of ``wins - ref``, its replicate t interval, or Newcombe's interval on the
        pooled counts where a scramble has no discordant pair, the per-scramble changes are
        all equal or the t interval leaves [-1, 1] (``fallback``); dims without axis 0.
    """
    w_r, f_r, b_r, c_r = (np.asarray(v, dtype=float)
                          for v in (wins_r, ref_r, only_wins_r, only_ref_r))
    n_r = np.broadcast_to(np.asarray(n_r, dtype=float), w_r.shape)
    n = n_r.sum(axis=0)
    b, c = b_r.sum(axis=0), c_r.sum(axis=0)
    both = w_r.sum(axis=0) - b
    n_lo, n_hi = paired_difference_interval(b, c, n, conf_level, a=both, d=n - both - b - c)
    s_r = w_r - f_r  # the per-scramble sums of wins - ref
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = s_r.sum(axis=0) / n
        _, half = replicate_interval(s_r / n_r, 0, conf_level)
    lower, upper = mean - half, mean + half
    discordant = (b_r + c_r) > 0
    with np.errstate(invalid="ignore"):
        fallback = (~discordant.all(axis=0) | ~(upper - lower > 0)
                    | (lower < -1) | (upper > 1))
    return Interval(mean, np.where(fallback, n_lo, lower), np.where(fallback, n_hi, upper),
                    fallback)
