"""numba for the engine's own loops, imported and compiled on first use only.

The engine's hot loops outside the TCO model (the one-pass Sobol' sums, the Shapley
pass's conditional scores) are numba kernels, but a small model's run never reaches them
(their callers keep numpy below a size), so it pays no numba import (~0.3 s). The
kernels are cached on disk (``cache=True``, next to their module, or ``NUMBA_CACHE_DIR``)
and release the GIL; without a writable cache folder they are compiled in each process.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["lazy_jit"]


class lazy_jit:
    """``numba.njit(cache=True, nogil=True)(func)``, made on the first call."""

    def __init__(self, func: Callable[..., Any]):
        self.func = func
        self.__doc__ = func.__doc__
        self._kernel: Any = None

    def compiled(self) -> Any:
        """The numba dispatcher (numba imported here, the first time)."""
        if self._kernel is None:
            from numba import njit

            try:
                self._kernel = njit(cache=True, nogil=True)(self.func)
            except RuntimeError as exc:  # no writable cache folder: compile in-process
                if "no locator available" not in str(exc):
                    raise
                self._kernel = njit(nogil=True)(self.func)
        return self._kernel

    def __call__(self, *args: Any) -> Any:
        """Call the compiled kernel."""
        return self.compiled()(*args)
