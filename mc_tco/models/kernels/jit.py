"""The kernels' decorator: ``numba.njit`` with the on-disk cache where there is one, and a
cache that is stale when any module of the package changes."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, overload

from numba import njit

if TYPE_CHECKING:
    from typing import Unpack

    from numba.core.dispatcher import Dispatcher

_F = TypeVar("_F", bound=Callable[..., Any])


class _Options(TypedDict, total=False):
    """The options of ``numba.njit`` the kernels set."""

    cache: bool
    nogil: bool
    error_model: Literal["python", "numpy"]
    inline: Literal["never", "always"]


_JIT: _Options = {"cache": True, "nogil": True, "error_model": "numpy"}
#: a hash of the package's sources. numba keys a kernel's cache on its own file only, and
#: a kernel compiles in what it calls from other files (:func:`.factors.row`, ...) and the
#: index constants of :mod:`.layout`: with this in every kernel's cache stamp, editing any
#: of the package's modules recompiles them all, as when they were one file.
PACKAGE_STAMP = hashlib.sha256(
    b"".join(p.read_bytes() for p in sorted(Path(__file__).parent.glob("*.py")))
).hexdigest()


@overload
def jit(func: _F, **extra: Unpack[_Options]) -> Dispatcher[_F]: ...
@overload
def jit(func: None = None, **extra: Unpack[_Options]) -> Callable[[_F], Dispatcher[_F]]: ...
def jit(func: _F | None = None, **extra: Unpack[_Options],
        ) -> Dispatcher[_F] | Callable[[_F], Dispatcher[_F]]:
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
    options: _Options = {**_JIT, **extra}
    try:
        kernel = njit(**options)(func)
    except RuntimeError as exc:
        if "no locator available" not in str(exc):
            raise
        uncached: _Options = {**options, "cache": False}
        return njit(**uncached)(func)
    index = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    if index is not None and hasattr(index, "_source_stamp"):  # (numba's private API)
        index._source_stamp = (index._source_stamp, PACKAGE_STAMP)
    return kernel
