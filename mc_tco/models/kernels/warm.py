"""A cold kernel cache compiled on both cores: the first run after an install.

numba compiles one kernel at a time under its global compiler lock, so the first run of
the TCO model after an install (or an edit of the kernels) spent about 23 CPU seconds
compiling on one core while the other waited. Two sets of kernels share nothing but
:func:`.rows._factors` (0.7 s): the npv chain the engine calls first
(:func:`.grid.npv_grid`, with :func:`.block.npv_row`, :func:`.npv.npv_cell` and the
hybrid's rule, and :func:`.grid.breakeven`), and the cells' outputs of the base rows
(:func:`.grid.grid` with :func:`.cell.cell`, :func:`.grid.cash`, :func:`.irr.yearly_irr`).
On a cold cache :func:`start` (from the model's first call) launches a helper process that
compiles the second set into the on-disk cache through the model itself
(:func:`mc_tco.models.compile_cells.compile_cells`), on a few rows of
the shipped default book at its medians, while this process compiles the first as it
needs it; :func:`wait`, before the model's first call of the second set, waits for the
helper, so that set is loaded from the cache instead of compiled twice.

Nothing depends on the helper: if it fails, is killed or cannot start, this process
compiles what it needs itself, as before; its output goes nowhere. A warm cache (every
later run), a cache numba cannot keep (no writable folder), or ``MC_TCO_PARALLEL_COMPILE=0``
starts nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading

__all__ = ["start", "wait"]

_lock = threading.Lock()
_started = False
_helper: subprocess.Popen | None = None


def _cached(kernel: object) -> bool:
    """Whether numba's on-disk cache holds a current overload of ``kernel`` (its index
    stamped with the package's sources); True when that cannot be told (nothing to do)."""
    cache = getattr(kernel, "_cache", None)
    index = getattr(cache, "_cache_file", None)
    if index is None:  # no cache (numba's NullCache): every process compiles anyway
        return True
    try:
        return bool(index._load_index())  # (numba's private API, as in .jit)
    except Exception:
        return True


def start() -> None:
    """On a cold cache, start the helper process compiling the cells' kernels (once a
    process; a no-op afterwards)."""
    global _started, _helper
    if _started:
        return
    with _lock:
        if _started:
            return
        _started = True
        if os.environ.get("MC_TCO_PARALLEL_COMPILE", "1") == "0" or (os.cpu_count() or 1) < 2:
            return
        from . import grid

        if _cached(grid.grid):
            return
        try:
            _helper = subprocess.Popen(
                [sys.executable, "-c", "from mc_tco.models.compile_cells import compile_cells;"
                 " compile_cells()"],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, env={**os.environ, "MC_TCO_PARALLEL_COMPILE": "0"})
        except OSError:
            _helper = None


def wait() -> None:
    """Wait for the helper process, if one is compiling (at most once: later calls return
    at once)."""
    global _helper
    helper = _helper
    if helper is None:
        return
    with _lock:
        if _helper is None:
            return
        try:
            helper.wait(timeout=300)
        except subprocess.TimeoutExpired:  # (a stuck helper: compile here instead)
            helper.kill()
        _helper = None
