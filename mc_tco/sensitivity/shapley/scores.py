"""The Shapley pass's conditional normal scores ``z = L w`` in one numba pass, numpy's bits.

:func:`mc_tco.sensitivity.shapley.draws._conditional_scores` multiplies each permutation's
Cholesky factor ``L`` (d, d) with every draw ``w`` (the outer scores kept, the rest fresh)
through ``np.einsum("sab,sjoib->sjoia", ...)`` and scatters the result to input order
(``put_along_axis``): for the default book (46 inputs) 34 M multiply-adds per block of
rows, half of them with the zeros above ``L``'s diagonal, and three arrays of the block's
size. :func:`conditional_scores` makes ``w`` on the fly, skips the zero terms and writes
each score in input order, one input after another (the layout the ppf reads).

Bits: ``einsum`` sums each product over ``b`` with numpy's ``sum_of_products`` loop for
contiguous operands and a reduced output, compiled for numpy's x86-64 baseline (SSE, two
lanes, no fused multiply-add): lane ``l`` of blocks of eight terms adds
``t[k+l] + (t[k+2+l] + (t[k+4+l] + (t[k+6+l] + acc_l)))``, the rest in pairs, then
``0 + (acc_0 + acc_1)``. The kernel adds the same products in the same order; a zero
product (``b`` above the diagonal) leaves a sum unchanged but for the sign of a zero. As
that order is numpy's build, not a promise, :func:`kernel_matches` compares the kernel
with ``np.einsum`` on dense random factors once a process, and the caller keeps
``einsum`` where they differ (another build or CPU) or the block is small (no numba).
"""

from __future__ import annotations

import numpy as np

from mc_tco.sensitivity.lazy_jit import lazy_jit

__all__ = ["KERNEL_MIN_TERMS", "conditional_scores", "distinct_scores", "kernel_matches"]

#: multiply-adds of a block (S J O I d^2) from which the kernel is used
KERNEL_MIN_TERMS = 2**22

_MATCHES: bool | None = None


@lazy_jit
def _scores(chol, order, n_fixed, w_outer, w_fresh, out):  # pragma: no cover - numba
    """``out[order[s, a], s, j, o, i] = sum_b chol[s, a, b] w[b]`` in einsum's order, with
    ``w[b]`` = ``w_outer[s, o, b]`` for ``b < n_fixed[s, j]``, else ``w_fresh[s, o, i, b]``."""
    n_s, d = order.shape
    n_j = n_fixed.shape[1]
    n_o = w_outer.shape[1]
    n_i = w_fresh.shape[2]
    full = d // 8 * 8
    w = np.empty(d)
    for s in range(n_s):
        for j in range(n_j):
            nf = n_fixed[s, j]
            for o in range(n_o):
                for i in range(n_i):
                    for b in range(d):
                        w[b] = w_outer[s, o, b] if b < nf else w_fresh[s, o, i, b]
                    for a in range(d):
                        row = chol[s, a]
                        last = a + 1  # row[b] = 0 for b > a
                        acc0 = 0.0
                        acc1 = 0.0
                        k = 0
                        while k < full and k < last:
                            acc0 = row[k] * w[k] + (row[k + 2] * w[k + 2] + (
                                row[k + 4] * w[k + 4] + (row[k + 6] * w[k + 6] + acc0)))
                            acc1 = row[k + 1] * w[k + 1] + (row[k + 3] * w[k + 3] + (
                                row[k + 5] * w[k + 5] + (row[k + 7] * w[k + 7] + acc1)))
                            k += 8
                        while k < last:
                            acc0 = row[k] * w[k] + acc0
                            if k + 1 < last:
                                acc1 = row[k + 1] * w[k + 1] + acc1
                            k += 2
                        out[order[s, a], s, j, o, i] = 0.0 + (acc0 + acc1)


def conditional_scores(chol, order, n_fixed, w_outer, w_fresh) -> np.ndarray:
    """The scores (S, J, O, I, d) in input order, as a view of a (d, S, J, O, I) array
    (each input's scores contiguous)."""
    n_s, d = order.shape
    out = np.empty((d, n_s, n_fixed.shape[1], w_outer.shape[1], w_fresh.shape[2]))
    _scores(np.ascontiguousarray(chol, dtype=float), np.ascontiguousarray(order, dtype=np.int64),
            np.ascontiguousarray(n_fixed, dtype=np.int64),
            np.ascontiguousarray(w_outer, dtype=float),
            np.ascontiguousarray(w_fresh, dtype=float), out)
    return np.moveaxis(out, 0, -1)


def einsum_scores(chol, order, n_fixed, w_outer, w_fresh) -> np.ndarray:
    """The same scores through ``np.einsum`` and ``put_along_axis`` (the reference)."""
    d = order.shape[1]
    keep = np.arange(d)[None, None, :] < n_fixed[:, :, None]  # (S, J, d)
    w = np.where(keep[:, :, None, None, :], w_outer[:, None, :, None, :],
                 w_fresh[:, None, :, :, :])  # (S, J, O, I, d)
    z_ordered = np.einsum("sab,sjoib->sjoia", chol, w)
    z = np.empty_like(z_ordered)
    np.put_along_axis(z, np.broadcast_to(order[:, None, None, None, :], z.shape),
                      z_ordered, axis=-1)
    return z


def kernel_matches() -> bool:
    """Whether the kernel gives ``np.einsum``'s bits here (checked once a process on dense
    random factors of several sizes: blocks of eight terms and tails of each length)."""
    global _MATCHES
    if _MATCHES is None:
        rng = np.random.default_rng(20261202)
        ok = True
        for d in (3, 8, 13, 22, 46):
            s, j, o, i = 12, max(d - 1, 1), 1, 3
            chol = np.tril(rng.standard_normal((s, d, d)))
            order = np.stack([rng.permutation(d) for _ in range(s)])
            n_fixed = rng.integers(1, d + 1, size=(s, j))
            w_outer = rng.standard_normal((s, o, d))
            w_fresh = rng.standard_normal((s, o, i, d))
            ok &= np.array_equal(conditional_scores(chol, order, n_fixed, w_outer, w_fresh),
                                 einsum_scores(chol, order, n_fixed, w_outer, w_fresh))
        _MATCHES = bool(ok)
    return _MATCHES


@lazy_jit
def _distinct(scores, codes, firsts, counts):  # pragma: no cover - numba
    """Per row ``j`` of ``scores`` (d, n): ``codes[j, r]``, the index of ``scores[j, r]``
    among the row's distinct values (by their bits) in order of first appearance, whose
    first rows are ``firsts[j, :counts[j]]``. An open-addressing hash table, no sort."""
    d, n = scores.shape
    size = 1
    while size < 2 * n:
        size *= 2
    shift = np.uint64(64 - int(np.log2(size)))
    mult = np.uint64(0x9E3779B97F4A7C15)
    table = np.empty(size, dtype=np.int64)
    bits = scores.view(np.uint64)
    for j in range(d):
        table[:] = -1
        m = 0
        for r in range(n):
            key = bits[j, r]
            h = np.int64((key * mult) >> shift)
            while True:
                slot = table[h]
                if slot < 0:
                    table[h] = m
                    firsts[j, m] = r
                    codes[j, r] = m
                    m += 1
                    break
                if bits[j, firsts[j, slot]] == key:
                    codes[j, r] = slot
                    break
                h = (h + 1) & (size - 1)
        counts[j] = m


def distinct_scores(scores: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """``codes`` (d, n) and, per row of ``scores`` (d, n), its distinct values (by bits, in
    order of first appearance): ``scores[j] == distinct[j][codes[j]]``."""
    scores = np.ascontiguousarray(scores, dtype=float)
    d, n = scores.shape
    codes = np.empty((d, n), dtype=np.int64)
    firsts = np.empty((d, n), dtype=np.int64)
    counts = np.empty(d, dtype=np.int64)
    _distinct(scores, codes, firsts, counts)
    return codes, [scores[j, firsts[j, :counts[j]]] for j in range(d)]
