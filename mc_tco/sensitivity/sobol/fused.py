"""Sobol' sums straight from a chunk's model outputs, in one pass (numba).

:meth:`SobolSums.add <mc_tco.sensitivity.sobol.sums.SobolSums.add>` takes the outputs of
a chunk's design rows as one array ``y`` (n, rows per sample, cells): the engine copies
every target and its indicator ``target > 0`` into it, then ``add`` subtracts the shift,
takes the differences ``d_j = y(AB_j) - y(A)`` and sums the monomials, each step another
pass over tens of megabytes (the default run's chunk: 256 samples x 48 rows x 552 cells,
54 MB; 3.3 CPU seconds of its sampling). :func:`add_outputs` reads each target's model
output once, makes the indicator as it goes and adds every sum of every scramble:

* the same operations in the same order as ``add``'s direct path (no bootstrap weights,
  no second order, no higher moments): ``a = y(A) - shift``, ``b = y(B) - shift``,
  ``d_j = (y(AB_j) - shift) - a``; each sum over the samples accumulated one sample after
  the other from 0, as numpy's reductions and ``einsum`` over the sample axis do here
  (the products rounded before they are added: no fused multiply-add). The sums are the
  same bits (``tests/sensitivity/test_sobol_fused.py`` compares them with ``add``'s on
  many shapes);
* sample ``g`` of the chunk belongs to scramble ``g % R`` (the engine's interleaving).

numba is imported on the first call only: a small model's run (a few cells) keeps the
numpy path (:func:`fused_applies`), and its start-up pays no numba import.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from mc_tco.sensitivity.lazy_jit import lazy_jit
from mc_tco.sensitivity.sobol.estimators import _A, _AA, _AB, _AD, _B, _BB, _BD, _D, _DD

__all__ = ["FUSED_MIN_VALUES", "add_outputs", "fused_applies", "indicator_row"]

#: values (samples x rows x cells) of a chunk from which the one-pass sums are used; below
#: it the numpy path costs little and a run need not import numba
FUSED_MIN_VALUES = 2**18
#: the scalar sums (C,) per scramble, and the per-factor sums (K, C), in the kernel's order
_SCALAR = (_A, _B, _AA, _BB, _AB)
_FACTOR = (_D, _AD, _BD, _DD)

@lazy_jit
def _sums(base, mixed, shift, r, k, scalar, factor, total):  # pragma: no cover - numba
    """Add one target's sums into ``scalar`` (R, 5, 2S), ``factor`` (R, 4, K, 2S) and
    ``total`` (R, 2S): cells ``q < S`` the target, ``S + q`` its indicator.

    ``base`` (n, S) the A rows; ``mixed`` (n, rows - 1, S) the rows after A (``AB_1 ..
    AB_K``, then ``B``); ``shift`` (2S,). Each cell's operations come in ``add``'s order
    (its sums over the samples one sample after the other); the loops over cells are
    innermost (contiguous, vectorized), and the per-factor sums are made one factor at a
    time over a scramble's samples (their 4 x 2S accumulators stay in the L1 cache).
    """
    n, s = base.shape
    per = mixed.shape[1]
    m = (n + r - 1) // r
    a = np.empty((m, 2 * s))
    b = np.empty((m, 2 * s))
    tot = np.empty(2 * s)
    y = np.empty(2 * s)
    for rep in range(r):
        # the scalar sums and the sum of every row, sample after sample
        for c in range(2 * s):
            tot[c] = total[rep, c]
        for i, g in enumerate(range(rep, n, r)):
            for q in range(s):
                v = base[g, q]
                a[i, q] = v - shift[q]
                a[i, s + q] = (1.0 if v > 0 else 0.0) - shift[s + q]
                v = mixed[g, per - 1, q]
                b[i, q] = v - shift[q]
                b[i, s + q] = (1.0 if v > 0 else 0.0) - shift[s + q]
            for c in range(2 * s):
                scalar[rep, 0, c] += a[i, c]
                scalar[rep, 1, c] += b[i, c]
                scalar[rep, 2, c] += a[i, c] * a[i, c]
                scalar[rep, 3, c] += b[i, c] * b[i, c]
                scalar[rep, 4, c] += a[i, c] * b[i, c]
                tot[c] += a[i, c]
            for j in range(per):
                for q in range(s):
                    v = mixed[g, j, q]
                    tot[q] += v - shift[q]
                    tot[s + q] += (1.0 if v > 0 else 0.0) - shift[s + q]
        for c in range(2 * s):
            total[rep, c] = tot[c]
        # the per-factor sums, factor after factor
        for j in range(k):
            for i, g in enumerate(range(rep, n, r)):
                for q in range(s):
                    v = mixed[g, j, q]
                    y[q] = v - shift[q]
                    y[s + q] = (1.0 if v > 0 else 0.0) - shift[s + q]
                for c in range(2 * s):
                    d = y[c] - a[i, c]
                    factor[rep, 0, j, c] += d
                    factor[rep, 1, j, c] += a[i, c] * d
                    factor[rep, 2, j, c] += b[i, c] * d
                    factor[rep, 3, j, c] += d * d


def fused_applies(sums: Any, values: int) -> bool:
    """Whether :func:`add_outputs` should add a chunk of ``values`` (samples x rows x
    cells) to these :class:`SobolSums` ``sums``: the direct path (no bootstrap weights,
    second order or higher moments) and at least :data:`FUSED_MIN_VALUES` values."""
    return (not sums.resamples and not sums.second_order and not sums.moments
            and values >= FUSED_MIN_VALUES)


def indicator_row(values: Sequence[np.ndarray]) -> np.ndarray:
    """The cells of one design row as the engine lays them out: each target's values, then
    its indicator ``value > 0`` as 1.0 or 0.0."""
    parts = []
    for v in values:
        parts += [v, np.greater(v, 0).astype(float)]
    return np.concatenate(parts)


def add_outputs(reps: Sequence[Any], base: Sequence[np.ndarray], mixed: Sequence[np.ndarray],
                ) -> None:
    """Add a chunk's outputs to the sums of every scramble, as ``reps[i].add(y[i::R])``
    would with ``y`` the engine's array of the chunk's targets and indicators.

    Parameters
    ----------
    reps : sequence of SobolSums
        One per scramble (R of them), empty or not, all with the same shift (2 T S cells:
        per target its S values, then its S indicators); :func:`fused_applies` holds.
    base : sequence of T arrays (n, S)
        Each target at the chunk's A rows (sample ``g`` of scramble ``g % R``).
    mixed : sequence of T arrays (n, rows - 1, S)
        Each target at the rows after A (``AB_1 .. AB_K``, ``B``).
    """
    r = len(reps)
    k = reps[0].num_factors
    n = base[0].shape[0]
    shift = reps[0].shift
    parts, pos = [], 0
    for b, m in zip(base, mixed, strict=True):
        s2 = 2 * b.shape[1]
        part = (np.zeros((r, len(_SCALAR), s2)), np.zeros((r, len(_FACTOR), k, s2)),
                np.zeros((r, s2)))
        _sums(np.ascontiguousarray(b, dtype=float), np.ascontiguousarray(m, dtype=float),
               np.ascontiguousarray(shift[pos:pos + s2]), r, k, *part)
        parts.append(part)
        pos += s2
    scalar, factor, total = (p[0] if len(parts) == 1 else np.concatenate(p, axis=-1)
                             for p in zip(*parts, strict=True))
    counts = np.bincount(np.arange(n) % r, minlength=r)
    for i, rep in enumerate(reps):
        wanted = set(rep._terms())
        point: dict[Any, np.ndarray] = {t: scalar[i, j] for j, t in enumerate(_SCALAR)
                                        if t in wanted}
        point.update({t: factor[i, j] for j, t in enumerate(_FACTOR) if t in wanted})
        point["all"] = total[i]
        rep._merge_dict(rep.point, point)
        rep.n += int(counts[i])
