"""Points of a scrambled Sobol' sequence: ``scipy.stats.qmc.Sobol(d, scramble=True,
seed=seed)``'s, bit for bit, without importing :mod:`scipy.stats`.

Why not scipy's engine: importing :mod:`scipy.stats` costs 0.3-0.6 s on the 2-core
machine (its modules, and its decorators' rewriting of some 600 docstrings at import),
one core's time before every run's first model row. The run's design and the books'
common families (:mod:`mc_tco.distributions.frozen`) need none of it.

The sequence, as scipy builds it (Bratley & Fox 1988; Joe & Kuo 2008's direction numbers,
search criterion D(6), read from the data file scipy ships; Owen's left matrix scramble
with a digital shift):

- **Direction numbers** ``v[d, j]`` (``BITS`` = 30 of them for each dimension ``d``):
  dimension 0 has ``v[0, j] = 1``; dimension ``d`` with primitive polynomial ``p`` of degree
  ``m`` takes its first ``m`` from the table and the rest by the recurrence
  ``v[j] = v[j-m] XOR (2^1 a_1 v[j-1]) XOR ... XOR (2^m a_m v[j-m])`` with ``a_k`` the
  polynomial's bits; then ``v[d, j]`` is shifted left by ``BITS - 1 - j``.
- **Scramble**, from ``numpy.random.default_rng(seed)``: first the shift's bits
  (``integers(0, 2, (d, BITS))``, bit ``j`` of dimension ``d`` worth ``2^j``), then one
  ``BITS x BITS`` lower-triangular 0/1 matrix per dimension (``integers(0, 2, (d, BITS,
  BITS))``, its diagonal set to 1). Bit ``BITS - 1 - p`` of the scrambled ``v[d, j]`` is the
  parity of row ``p`` of the matrix (read as a number, column 0 the highest bit) AND
  ``v[d, j]``.
- **Point** ``k``: the shift XOR the scrambled ``v[:, b]`` of every bit ``b`` set in the
  Gray code ``k XOR (k >> 1)``, times ``2^-BITS`` (exact in float64). scipy walks the
  sequence one point after another (each point XORs in one ``v``, chosen by the number of
  trailing ones of its predecessor's index); the Gray code gives any point on its own,
  the same integers.

``tests/test_sobol_points.py`` compares the points with scipy's engine, bit for bit, over
dimensions, seeds, starts (scipy's ``fast_forward``) and lengths.
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import numpy as np

from mc_tco.quiet import ignoring

__all__ = ["BITS", "MAX_DIMS", "ScrambledSobol"]

#: bits of every coordinate (scipy's default ``bits``): points are multiples of 2^-30
BITS = 30
#: dimensions the direction numbers cover (scipy's ``Sobol.MAXDIM``)
MAX_DIMS = 21201
_SCALE = 2.0**-BITS


@functools.lru_cache(maxsize=1)
def _table_file() -> Path:
    """scipy's table of direction numbers (a scipy that moves it: scipy's engine is used)."""
    spec = importlib.util.find_spec("scipy")  # (finds scipy's folder; imports nothing)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("scipy is not installed: it holds the Sobol' direction numbers")
    return Path(next(iter(spec.submodule_search_locations))) / "stats" / \
        "_sobol_direction_numbers.npz"


@functools.lru_cache(maxsize=1)
def _table() -> tuple[np.ndarray, np.ndarray]:
    """scipy's direction numbers: ``poly`` (MAX_DIMS,) and ``vinit`` (MAX_DIMS, 18)."""
    with np.load(_table_file(), allow_pickle=False) as f:
        return f["poly"].astype(np.int64), f["vinit"].astype(np.int64)


@functools.lru_cache(maxsize=32)
def _directions(dims: int) -> np.ndarray:
    """Unscrambled direction numbers, (dims, BITS) uint32, already shifted to their bit."""
    poly, vinit = _table()
    v = np.zeros((dims, BITS), dtype=np.int64)
    v[0] = 1
    for d in range(1, dims):
        p = int(poly[d])
        m = p.bit_length() - 1
        row = [int(x) for x in vinit[d, :m]] + [0] * (BITS - m)
        taps = [k for k in range(m) if (p >> (m - 1 - k)) & 1]  # a_{k+1} = 1
        for j in range(m, BITS):
            new = row[j - m]
            for k in taps:
                new ^= row[j - k - 1] << (k + 1)
            row[j] = new
        v[d] = row
    v <<= np.arange(BITS - 1, -1, -1)  # column j times 2^(BITS - 1 - j)
    return v.astype(np.uint32)


def _scipy_points(dims: int, seed: int, start: int, stop: int) -> np.ndarray:
    """The same points from scipy's engine (imports scipy.stats)."""
    from scipy.stats import qmc

    engine = qmc.Sobol(dims, scramble=True, seed=seed)
    if start:
        engine.fast_forward(start)
    # a chunk is a piece of a power-of-two run; the balance warning is about the whole
    with ignoring("The balance properties", UserWarning):  # (thread-safe: mc_tco.quiet)
        return engine.random(stop - start)


def _parity(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x) & 1


@functools.lru_cache(maxsize=128)
def _scrambled(dims: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The scrambled direction numbers (dims, BITS) and the shift (dims,), uint32."""
    v = _directions(dims)
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 2, size=(dims, BITS), dtype=np.uint32)
    shift = (bits << np.arange(BITS, dtype=np.uint32)).sum(axis=1, dtype=np.uint32)
    ltm = np.tril(rng.integers(0, 2, size=(dims, BITS, BITS), dtype=np.uint32))
    ltm[:, np.arange(BITS), np.arange(BITS)] = 1
    rows = (ltm << np.arange(BITS - 1, -1, -1, dtype=np.uint32)).sum(axis=2, dtype=np.uint32)
    # bit BITS-1-p of the new v[d, j]: parity(rows[d, p] & v[d, j])
    par = _parity(rows[:, :, None] & v[:, None, :]).astype(np.uint32)  # (dims, p, j)
    sv = (par << np.arange(BITS - 1, -1, -1, dtype=np.uint32)[None, :, None]).sum(
        axis=1, dtype=np.uint32)
    for a in (sv, shift):
        a.flags.writeable = False
    return sv, shift


class ScrambledSobol:
    """A scrambled Sobol' sequence in ``dims`` dimensions: :meth:`points` gives any range.

    ``ScrambledSobol(d, seed).points(start, stop)`` equals
    ``scipy.stats.qmc.Sobol(d, scramble=True, seed=seed)``, fast-forwarded by ``start``,
    then ``.random(stop - start)``. The scramble is made once per ``(dims, seed)`` and
    process (about 5 ms at 92 dimensions).
    """

    def __init__(self, dims: int, seed: int):
        self.dims = int(dims)
        self.seed = seed
        if not 0 < self.dims <= MAX_DIMS:
            raise ValueError(f"a Sobol' sequence has 1 to {MAX_DIMS} dimensions, not {dims}")
        self._sv: np.ndarray | None = None
        if _table_file().is_file():
            self._sv, self._shift = _scrambled(self.dims, seed)

    def points(self, start: int, stop: int) -> np.ndarray:
        """Points ``start .. stop - 1``, (stop - start, dims) float64 in [0, 1)."""
        if not 0 <= start <= stop <= 2**BITS:
            raise ValueError(f"points {start} to {stop}: a Sobol' sequence of {BITS} bits has "
                             f"points 0 to {2**BITS - 1}")
        if self._sv is None:  # a scipy that moved its table: its own engine, the same points
            return _scipy_points(self.dims, self.seed, start, stop)
        k = np.arange(start, stop, dtype=np.uint32)
        gray = k ^ (k >> np.uint32(1))
        q = np.empty((k.size, self.dims), dtype=np.uint32)
        q[:] = self._shift
        for b in range(int(gray.max(initial=0)).bit_length()):
            on = ((gray >> np.uint32(b)) & np.uint32(1)).astype(bool)
            q[on] ^= self._sv[:, b]
        return q * _SCALE
