"""The input values of the explorer's base rows, kept for the inputs a change did not touch.

The page's change edits one input; every other input keeps its distribution (the same
object: :mod:`mc_tco.book.built`) and, at the same samples and seed, its unit column
``u``, so its values are those computed before: :class:`InputValues` is the ``ppf`` of
:func:`mc_tco.engine.evaluate_base` for :func:`mc_tco.app.bridge.base_run` (the
beta-PERT inputs' ppf was a quarter of the default book's base rows).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

__all__ = ["InputValues"]


class InputValues:
    """``input.ppf(u)``, computed once per distribution and unit column.

    An entry is found by the distribution's identity (the object is kept with it, so its
    id is never another's) and the exact column (compared in full, not only its hash).

    Parameters
    ----------
    max_bytes : int
        The kept columns' size (``u`` and the values), the oldest dropped first: 32 MB
        keep the default book's 46 inputs at 8,192 samples in both halves of the rows,
        or a dozen changes at 1,024.
    """

    def __init__(self, max_bytes: int = 32 << 20):
        self.max_bytes = max_bytes
        self.kept: OrderedDict[tuple, tuple[Any, np.ndarray, np.ndarray]] = OrderedDict()
        self.bytes = 0
        self.lock = threading.Lock()

    def __call__(self, inp, u: np.ndarray) -> np.ndarray:
        """The values of ``inp`` at ``u`` (read-only): ``inp.ppf(u)``, computed or kept."""
        u = np.ascontiguousarray(u, dtype=float)
        if 2 * u.nbytes > self.max_bytes:
            return inp.ppf(u)
        key = (id(inp.dist), u.shape, hashlib.blake2b(u.tobytes(), digest_size=16).digest())
        with self.lock:
            hit = self.kept.get(key)
            if hit is not None and hit[0] is inp.dist and np.array_equal(hit[1], u):
                self.kept.move_to_end(key)
                return hit[2]
        values = np.asarray(inp.ppf(u), dtype=float)
        values.setflags(write=False)
        with self.lock:
            old = self.kept.pop(key, None)
            if old is not None:
                self.bytes -= old[1].nbytes + old[2].nbytes
            self.kept[key] = (inp.dist, u.copy(), values)
            self.bytes += 2 * u.nbytes
            while self.bytes > self.max_bytes:
                _, (_, du, dv) = self.kept.popitem(last=False)
                self.bytes -= du.nbytes + dv.nbytes
        return values
