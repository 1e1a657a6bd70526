"""The kernels' decorator: ``numba.njit`` with the on-disk cache where there is one, and a
cache that is stale when any module of the package changes."""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba import njit

_JIT = {"cache": True, "nogil": True, "error_model": "numpy"}
#: a hash of the package's sources. numba keys a kernel's cache on its own file only, and
#: a kernel compiles in what it calls from other files (:func:`.factors.row`, ...) and the
#: index constants of :mod:`.layout`: with this in every kernel's cache stamp, editing any
#: of the package's modules recompiles them all, as when they were one file.
PACKAGE_STAMP = hashlib.sha256(
    b"".join(p.read_bytes() for p in sorted(Path(__file__).parent.glob("*.py")))
).hexdigest()


def jit(func=None, **extra):
    """``numba.njit(cache=True, nogil=True, error_model="numpy")`` (``extra``: more
    options, e.g. ``inline="always"``), its cache stamped with :data:`PACKAGE_STAMP`.

    numba caches next to the kernel's module (``__pycache__``), or, where that is
    read-only (an installed package), in ``NUMBA_CACHE_DIR`` or the user's cache folder;
    with none of them writable it refuses ``cache=True`` at import ("no locator
    available"): the kernels are then compiled in every process (10-15 s) instead of
    failing.
    """
    if func is None:
        return lambda f: jit(f, **extra)
    try:
        kernel = njit(**_JIT, **extra)(func)
    except RuntimeError as exc:
        if "no locator available" not in str(exc):
            raise
        return njit(**{**_JIT, "cache": False}, **extra)(func)
    index = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    if index is not None and hasattr(index, "_source_stamp"):  # (numba's private API)
        index._source_stamp = (index._source_stamp, PACKAGE_STAMP)
    return kernel
