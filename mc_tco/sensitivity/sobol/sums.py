"""Streaming Sobol' sums: :class:`SobolSums` adds chunks of design rows and merges.

:class:`SobolSums` keeps the sums, adds chunks of base samples (:meth:`SobolSums.add`) and
merges (``+``); the estimates and half-widths that follow from the sums are its base class
:class:`~mc_tco.sensitivity.sobol.indices.IndicesFromSums`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mc_tco.sensitivity.sobol.estimators import (
    _A,
    _AA,
    _AB,
    _B,
    _BB,
    _D,
    _DD,
    _DEGREE2,
    _ESTIMATORS,
    _HIGHER,
    ESTIMATORS,
)
from mc_tco.sensitivity.sobol.indices import IndicesFromSums

__all__ = ["BLOCK", "SobolSums", "poisson_weights"]

#: base samples per block of bootstrap weights; chunks must start at a multiple of it
BLOCK = 256
_WEIGHT_STREAM = 0xB0075  # separates the bootstrap's random stream from the design's


def poisson_weights(seed: int, start: int, stop: int, resamples: int) -> np.ndarray:
    """Poisson(1) bootstrap weights of base samples ``start .. stop-1``, shape (resamples, n).

    The weights of sample ``i`` depend only on ``seed`` and ``i``: they are drawn per block
    of :data:`BLOCK` samples from ``default_rng([seed, stream, block])``.
    """
    if resamples == 0:
        return np.zeros((0, stop - start))
    out = np.empty((resamples, stop - start))
    first, last = start // BLOCK, (stop - 1) // BLOCK
    for block in range(first, last + 1):
        rng = np.random.default_rng([seed, _WEIGHT_STREAM, block])
        w = rng.poisson(1.0, size=(resamples, BLOCK))
        lo, hi = max(start, block * BLOCK), min(stop, (block + 1) * BLOCK)
        out[:, lo - start : hi - start] = w[:, lo - block * BLOCK : hi - block * BLOCK]
    return out


@dataclass
class SobolSums(IndicesFromSums):
    """Sums over base samples from which S1, ST (and S2) and their errors follow.

    Parameters
    ----------
    num_factors : int
        ``K``, the number of inputs (or groups) of the design.
    second_order : bool
        Keep the sums for S2 (needs the ``BA`` rows).
    shift : ndarray, shape (C,)
        A value subtracted from every output before summing (any value of the output will
        do; it keeps the sums of squares well conditioned). All chunks, and all replicates
        that are pooled, must use the same.
    resamples : int
        Number of Poisson bootstrap resamples (0 for none).
    estimator : str
        One of :data:`ESTIMATORS` (see the module docstring); ``"saltelli"`` is SALib's.
    moments : bool
        Also keep the sums of the monomials of degree 3 and 4 that the ``"asymptotic"``
        intervals need (about ``20 K C`` more sums, about twice the work of :meth:`add`).
    """

    num_factors: int
    second_order: bool
    shift: np.ndarray
    resamples: int = 0
    estimator: str = "saltelli"
    moments: bool = False
    n: float = 0.0
    point: dict = field(default_factory=dict)
    boot: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.estimator not in _ESTIMATORS:
            raise ValueError(
                f"unknown estimator {self.estimator!r}; use one of {', '.join(ESTIMATORS)}"
            )
        self.shift = np.asarray(self.shift, dtype=float)

    def _terms(self) -> tuple:
        """The degree-2 monomials whose (weighted) sums the point estimates need."""
        terms = _DEGREE2 if self.moments else _ESTIMATORS[self.estimator][1]
        if self.second_order and _AB not in terms:
            terms = (*terms, _AB)
        return terms

    def add(self, y: np.ndarray, weights: np.ndarray | None = None) -> None:
        """Add base samples.

        Parameters
        ----------
        y : ndarray, shape (n, rows_per_sample, C)
            Outputs of the design rows of ``n`` base samples (order ``A, AB.., [BA..], B``)
            for ``C`` cells.
        weights : ndarray, shape (resamples, n), optional
            Poisson bootstrap weights of these samples (:func:`poisson_weights`).
        """
        k = self.num_factors
        y = np.asarray(y, dtype=float)
        n, per, c = y.shape
        if per != self.rows_per_sample:
            raise ValueError(
                f"y has {per} rows per base sample, expected {self.rows_per_sample} for "
                f"K = {k} factors{' with second order' if self.second_order else ''}"
            )
        if self.resamples and (weights is None or weights.shape != (self.resamples, n)):
            raise ValueError(f"weights must have shape ({self.resamples}, {n})")
        y = y - self.shift
        a, b = y[:, 0, :], y[:, -1, :]
        d = y[:, 1 : k + 1, :] - a[:, None, :]
        if not self.resamples and not self.second_order:
            self._add_direct(y, a, b, d)
            return
        # every summed term is a block of columns of F (n, M); one product W @ F sums them
        terms = self._terms()
        layout: list[tuple[Any, tuple[int, ...]]] = [
            (t, (c,) if t[2] == 0 else (k, c)) for t in terms]
        if self.second_order:
            layout += [("ba", (k, c)), ("ba_ab", (k, k, c))]
        width = sum(int(np.prod(shape)) for _, shape in layout)
        f = np.empty((n, width))
        blocks, pos = {}, 0
        for name, shape in layout:
            size = int(np.prod(shape))
            block = f[:, pos : pos + size].reshape((n, *shape))
            if not np.may_share_memory(block, f):  # pragma: no cover - numpy guarantees it
                raise AssertionError("column block of F is not a view")
            blocks[name] = block
            pos += size
        ab = {_A: a, _B: b, _AA: a * a, _BB: b * b, _AB: a * b}
        for t in terms:
            p, q, r = t
            if r == 0:
                blocks[t][...] = ab[t]
            elif t == _D:
                blocks[t][...] = d
            elif t == _DD:
                np.multiply(d, d, out=blocks[t])
            else:
                np.multiply(ab[(p, q, 0)][:, None, :], d, out=blocks[t])
        if self.second_order:
            ba = y[:, k + 1 : 2 * k + 1, :]
            blocks["ba"][...] = ba
            np.multiply(ba[:, :, None, :], y[:, None, 1 : k + 1, :], out=blocks["ba_ab"])
        if self.resamples:
            w = np.empty((self.resamples + 1, n))
            w[0] = 1.0
            w[1:] = weights
            sums = w @ f
        else:
            sums = (np.ones(n) @ f)[None, :]
        point, boot, pos = {}, {}, 0
        for name, shape in layout:
            size = int(np.prod(shape))
            point[name] = sums[0, pos : pos + size].reshape(shape)
            if self.resamples:
                boot[name] = sums[1:, pos : pos + size].reshape((self.resamples, *shape))
            pos += size
        point["all"] = y.sum(axis=(0, 1))
        if self.moments:
            point.update(_higher_moments(a, b, d))
        self._merge_dict(self.point, point)
        self.n += n
        if self.resamples and weights is not None:  # never None here: checked above
            boot["w"] = weights.sum(axis=1)
            self._merge_dict(self.boot, boot)

    def _add_direct(self, y, a, b, d) -> None:
        """:meth:`add` without bootstrap weights or second order: each term summed over
        the samples directly. The weighted path builds every term as a column block of
        ``F`` (n, ~4 K C) and multiplies once; with no weights to apply that only writes
        ``F`` (megabytes per chunk, out of cache) to add it up: 3-4x slower. The same
        sums, added in another order (last bits)."""
        ab = {_A: a, _B: b, _AA: a * a, _BB: b * b, _AB: a * b}
        point = {}
        for t in self._terms():
            p, q, r = t
            if r == 0:
                point[t] = ab[t].sum(axis=0)
            elif t == _D:
                point[t] = d.sum(axis=0)
            elif t == _DD:
                point[t] = np.einsum("nkc,nkc->kc", d, d)
            else:
                point[t] = np.einsum("nc,nkc->kc", ab[(p, q, 0)], d)
        point["all"] = y.sum(axis=(0, 1))
        if self.moments:
            point.update(_higher_moments(a, b, d))
        self._merge_dict(self.point, point)
        self.n += a.shape[0]

    @staticmethod
    def _merge_dict(into: dict, other: dict) -> None:
        for name, v in other.items():
            if name in into:
                into[name] = into[name] + v
            else:
                into[name] = np.array(v, dtype=float, copy=True)

    def _like(self) -> SobolSums:
        return SobolSums(
            self.num_factors, self.second_order, self.shift, self.resamples, self.estimator,
            self.moments,
        )

    def __add__(self, other: SobolSums) -> SobolSums:
        mine = (self.num_factors, self.second_order, self.resamples, self.estimator,
                self.moments)
        theirs = (other.num_factors, other.second_order, other.resamples, other.estimator,
                  other.moments)
        if mine != theirs:
            raise ValueError(
                "cannot merge SobolSums of different settings (num_factors, second_order, "
                f"resamples, estimator, moments): {mine} and {theirs}"
            )
        same_shift = np.array_equal(self.shift, other.shift, equal_nan=True)
        if self.point and other.point and not same_shift:
            raise ValueError(
                "cannot merge SobolSums with different shifts: give every chunk and every "
                "replicate the same shift"
            )
        out = self._like()
        if not self.point:
            out.shift = other.shift
        out.n = self.n + other.n
        for src in (self, other):
            self._merge_dict(out.point, src.point)
            self._merge_dict(out.boot, src.boot)
        return out



def _higher_moments(a: np.ndarray, b: np.ndarray, d: np.ndarray) -> dict:
    """Sums over base samples of the monomials ``a^p b^q d^r`` of degree 3 and 4."""
    pw_a = [np.ones_like(a), a, a * a, a * a * a, a * a * a * a]
    pw_b = [np.ones_like(b), b, b * b, b * b * b, b * b * b * b]
    dt = np.ascontiguousarray(d.transpose(2, 0, 1))  # (C, n, K): one matmul per power
    pw_d = [None, dt, dt * dt]
    pw_d += [pw_d[2] * dt, pw_d[2] * pw_d[2]]
    out = {}
    for r in range(5):
        keys = [t for t in _HIGHER if t[2] == r]
        if r == 0:
            out.update({(p, q, 0): (pw_a[p] * pw_b[q]).sum(axis=0) for p, q, _ in keys})
            continue
        mixed = [t for t in keys if t[0] + t[1] > 0]
        if len(mixed) < len(keys):  # d^r alone
            out[(0, 0, r)] = pw_d[r].sum(axis=1).T
        if mixed:
            left = np.stack([(pw_a[p] * pw_b[q]).T for p, q, _ in mixed], axis=1)  # (C, P, n)
            prod = left @ pw_d[r]  # (C, P, K)
            out.update({t: prod[:, i, :].T for i, t in enumerate(mixed)})
    return out
