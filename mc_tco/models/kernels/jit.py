"""The kernels' decorator: ``numba.njit`` with the on-disk cache where there is one, a
cache that is stale when any module of the package changes, and 512-bit vectors.

LLVM tunes most AVX-512 CPUs (Skylake-X to Sapphire Rapids) to prefer 256-bit vectors
(``prefer-256-bit``: once, 512-bit instructions lowered the clock); the kernels' lane loops
run 1.07-1.19x faster with 512-bit ones (:mod:`.block`'s; :mod:`.lanes`', the rows in the
lanes at few demands, 1.16x: 0.212 -> 0.181 s for 32,768 rows at the 5 report demands on the
Intel AVX-512 machine of 2026-12-04, its first compile no slower). The preference is a
function attribute, ``"prefer-vector-width"="512"``, set on the LLVM function of each kernel
compiled with ``jit(wide=True)`` by the lowering of :class:`_Compiler` (numba's own pipeline
but for that pass); their callers need not have it (the loops are vectorized when the kernel
is compiled, and LLVM keeps 512-bit registers legal without ``min-legal-vector-width``). It
changes nothing outside those kernels (numba's target machine, its other users, their
caches) and nothing on a CPU without AVX-512 (the width is a preference: LLVM still uses
only the registers the CPU has, and numba keys the cache on the CPU's name and features).
Vector width does not change a result: without fast-math LLVM reorders no floating-point
operation.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict, TypeVar, overload

from numba import njit
from numba.core import compiler, lowering, typed_passes
from numba.core.compiler_machinery import register_pass

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


#: the LLVM function attribute of every kernel (a string attribute: llvmlite's checked
#: set of attribute names has none, so it is added to the set directly)
VECTOR_WIDTH = '"prefer-vector-width"="512"'


class _Lower(lowering.Lower):
    """numba's lowering, the function's attributes with :data:`VECTOR_WIDTH`."""

    def setup_function(self, fndesc: Any) -> None:
        """Declare the function, as numba does, with :data:`VECTOR_WIDTH`."""
        super().setup_function(fndesc)
        set.add(self.function.attributes, VECTOR_WIDTH)


@register_pass(mutates_CFG=True, analysis_only=False)
class _Lowering(typed_passes.NativeLowering):
    """numba's native lowering pass with :class:`_Lower`."""

    _name = "mc_tco_native_lowering"

    @property
    def lowering_class(self) -> type[lowering.Lower]:
        """:class:`_Lower`."""
        return _Lower


class _Compiler(compiler.CompilerBase):
    """numba's nopython pipeline with :class:`_Lowering` for its native lowering."""

    def define_pipelines(self) -> list[Any]:
        """numba's nopython pipeline, its lowering pass replaced."""
        pm = compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.passes = [(_Lowering if p is typed_passes.NativeLowering else p, d)
                     for p, d in pm.passes]
        pm.finalize()
        return [pm]


_JIT: _Options = {"cache": True, "nogil": True, "error_model": "numpy"}
#: a hash of the package's sources. numba keys a kernel's cache on its own file only, and
#: a kernel compiles in what it calls from other files (:func:`.factors.row`, ...) and the
#: index constants of :mod:`.layout`: with this in every kernel's cache stamp, editing any
#: of the package's modules recompiles them all, as when they were one file.
PACKAGE_STAMP = hashlib.sha256(
    b"".join(p.read_bytes() for p in sorted(Path(__file__).parent.glob("*.py")))
).hexdigest()


@overload
def jit(func: _F, *, wide: bool = False, **extra: Unpack[_Options]) -> Dispatcher[_F]: ...
@overload
def jit(func: None = None, *, wide: bool = False, **extra: Unpack[_Options],
        ) -> Callable[[_F], Dispatcher[_F]]: ...
def jit(func: _F | None = None, *, wide: bool = False, **extra: Unpack[_Options],
        ) -> Dispatcher[_F] | Callable[[_F], Dispatcher[_F]]:
    """``numba.njit(cache=True, nogil=True, error_model="numpy")`` (``extra``: more
    options, e.g. ``inline="always"``), its cache stamped with :data:`PACKAGE_STAMP`;
    ``wide``: compiled by :class:`_Compiler` (512-bit vectors: the lane loops of
    :mod:`.block` and :mod:`.lanes`; each of :mod:`.block`'s took 2-4 s more to compile
    cold).

    numba caches next to the kernel's module (``__pycache__``), or, where that is
    read-only (an installed package), in ``NUMBA_CACHE_DIR`` or the user's cache folder;
    with none of them writable it refuses ``cache=True`` at import ("no locator
    available"): the kernels are then compiled in every process (10-15 s) instead of
    failing.
    """
    if func is None:
        return lambda f: jit(f, wide=wide, **extra)
    options: _Options = {**_JIT, **extra}
    pipeline = _Compiler if wide else compiler.Compiler
    try:
        kernel = njit(pipeline_class=pipeline, **options)(func)
    except RuntimeError as exc:
        if "no locator available" not in str(exc):
            raise
        uncached: _Options = {**options, "cache": False}
        return njit(pipeline_class=pipeline, **uncached)(func)
    index = getattr(getattr(kernel, "_cache", None), "_cache_file", None)
    if index is not None and hasattr(index, "_source_stamp"):  # (numba's private API)
        index._source_stamp = (index._source_stamp, PACKAGE_STAMP)
    return kernel
