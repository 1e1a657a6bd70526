"""The base rows of a run, streamed chunk by chunk into the results file.

A run at N = 2^20 base samples holds about 25 GB of base-row outputs for the TCO model:
more than one process should hold. :class:`BaseStore` collects the base rows of a few
evaluation chunks (up to :data:`BUFFER_BYTES`) and writes them into the (temporary) results
file in one go, along an unlimited ``sample`` dim: each variable's HDF5 dataset is resized
and written once per write, through h5py (the per-chunk, per-variable writes through
h5netcdf cost more than the bytes). HDF5 chunks hold a few grid points
(:data:`GRID_BLOCK`) by as many samples as one write holds, up to :data:`CHUNK_BYTES`;
gzip only for the variables that shrink a lot (:data:`COMPRESS_BELOW`). The summaries then
read it back block by block (:func:`mc_tco.engine.assemble`), and the summary variables
are appended to the same file. Every numeric variable is stored with HDF5's Fletcher-32
checksum (:func:`checksummed`), so a damaged block fails to read instead of giving numbers.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import zlib
from collections.abc import Hashable
from typing import Any

import h5py
import numpy as np
import xarray as xr

from mc_tco.results.disk_space import NoSpace, reserve
from mc_tco.results.h5file import ResultsBackend, _SizedFile

__all__ = ["BaseStore"]

#: grid points per HDF5 chunk along a grid dim (the block the summaries read at once)
GRID_BLOCK = 4
#: a base-row variable is stored compressed (gzip 1, shuffle) only if its first rows
#: shrink below this fraction. Measured on the default run's base rows (one core, HDF5
#: chunks of 2048 samples): payback months and fleet sizes (many equal values) shrink to
#: 0.005-0.06 at 450-600 MB/s: worth it. irr and the month-0 investment shrink to 0.2-0.45
#: at 75-85 MB/s: 12 MB less of a 196 MB file for 0.2-0.3 s of CPU (writing 12 MB costs
#: ~0.01 s): not worth it. Money amounts, npv, cash paths: 0.6-0.85 at 20-45 MB/s
COMPRESS_BELOW = 0.2
#: bytes of a variable's first rows tried
PROBE_BYTES = 2**18
#: bytes of base rows collected before they are written (bounded memory at any N)
BUFFER_BYTES = 64 * 2**20
#: the largest HDF5 chunk (bytes) when more samples than one evaluation chunk share one;
#: a variable with wider rows keeps one evaluation chunk of samples per HDF5 chunk
CHUNK_BYTES = 2**20

#: set when a write failed while HDF5 held the file open: HDF5 then cannot close it, and
#: its exit handler crashes closing it again (a segmentation fault after the error). The
#: ``mc-tco`` command then ends without running the exit handlers (:mod:`mc_tco._entry`).
hdf5_left_open = False


def checksummed(ds: xr.Dataset, encoding: dict) -> dict:
    """``encoding`` with HDF5's Fletcher-32 checksum on every numeric variable of ``ds``
    (data and coordinates; HDF5 chunks the ones given no chunks), so that reading a
    damaged block fails instead of giving numbers (:func:`mc_tco.results.io.open_results`).

    Fletcher-32 (as HDF5 computes it) is 0 for a block of zeros: a block zeroed whole,
    its checksum too, passes. The blocks of the variables without ``sample`` (the
    summaries, the grid: a few KB, within one disk block) are also stored gzip'd (level
    1; they are small, it costs nothing), whose stream a block of zeros is not: it fails
    to read. HDF5 takes no filter on a 0-d variable (filters need chunked storage;
    results files have none) nor on a variable-length string (the labels: strategy,
    input, ...)."""
    out = {name: dict(enc) for name, enc in encoding.items()}
    for name, var in ds.variables.items():
        if var.ndim and var.dtype.kind not in "OSU":
            enc = out.setdefault(name, {})
            enc["fletcher32"] = True
            if "sample" not in var.dims and not enc.get("compression"):
                enc.update(compression="gzip", compression_opts=1)
    return out


def _compressible(values: np.ndarray) -> bool:
    """Whether ``values`` (the first chunk's rows) shrink below :data:`COMPRESS_BELOW` by
    gzip level 1 after HDF5's byte shuffle (the same on every run of the same book)."""
    raw = np.ascontiguousarray(values).view(np.uint8).reshape(-1)[:PROBE_BYTES]
    size = values.dtype.itemsize
    raw = raw[: raw.size // size * size]
    if not raw.size:
        return False
    shuffled = raw.reshape(-1, size).T.tobytes()
    return len(zlib.compress(shuffled, 1)) < COMPRESS_BELOW * len(shuffled)


def _pow2_at_most(x: float) -> int:
    return 1 << max(0, int(x).bit_length() - 1) if x >= 1 else 1


def _extent(chunk_size: int, most: int, row_bytes: int) -> int:
    """Samples per HDF5 chunk: ``chunk_size`` times a power of two, up to ``most`` samples
    and :data:`CHUNK_BYTES` (``row_bytes`` per sample), at least one evaluation chunk (or
    ``most``, if fewer)."""
    extent = chunk_size
    while extent * 2 <= most and extent * 2 * row_bytes <= CHUNK_BYTES:
        extent *= 2
    return max(1, min(extent, most))


class BaseStore:
    """An open results file receiving base rows; see the module docstring.

    ``rows`` base samples are buffered (:meth:`append`) before one write (:meth:`flush`);
    :meth:`close` writes the rest.
    """

    def __init__(self, path, chunks: dict[Hashable, int], size: int = 0,
                 rows: int | None = None):
        self.path = path
        self.chunks = chunks
        self.size = size  # samples written
        self.rows = rows or chunks["sample"]  # samples per write
        self._file: h5py.File | None = None
        self._datasets: dict[str, tuple[h5py.Dataset, tuple[str, ...], int]] = {}
        self._buffers: dict[str, np.ndarray] = {}  # ``rows`` samples of each variable
        self._pending_rows = 0  # samples in the buffers
        self.row_bytes = 0.0  # bytes of one sample's rows (uncompressed)
        self.samples: int | None = None  # samples the run means to write (its first stage)

    @classmethod
    def create(cls, path, first: xr.Dataset, chunk_size: int, grid_dims: list[str],
               samples: int | None = None, buffer_bytes: int = BUFFER_BYTES) -> BaseStore:
        """Start the file at ``path`` with ``first``, the base rows of the first chunk.

        ``samples``, the run's base sample size (or that of its first stage), caps the
        samples of an HDF5 chunk, so a small run's last chunk is not mostly empty. The
        file's variables, dims and attrs are written by xarray (with no samples yet); the
        values of ``first`` are collected like those of every later chunk.
        """
        chunks: dict[Hashable, int] = {"sample": chunk_size}
        for d in first.dims:
            if d in grid_dims:
                chunks[d] = GRID_BLOCK
        based = {name: var for name, var in first.variables.items() if "sample" in var.dims}
        n = max(first.sizes["sample"], 1)
        row_bytes = sum(var.nbytes for var in based.values()) / n  # bytes per sample
        rows = chunk_size * _pow2_at_most(buffer_bytes / max(row_bytes * chunk_size, 1))
        encoding = {}
        for name, var in based.items():
            sizes = [min(chunks.get(d, size), max(size, 1)) for d, size in var.sizes.items()]
            across = var.dtype.itemsize * int(np.prod([c for d, c in zip(var.dims, sizes,
                                                                         strict=True)
                                                       if d != "sample"]))
            extent = _extent(chunk_size, min(rows, samples or rows), across)
            shape = tuple(extent if d == "sample" else c
                          for d, c in zip(var.dims, sizes, strict=True))
            enc: dict[str, Any] = {"chunksizes": shape}
            if var.dtype.kind == "f" and _compressible(var.values):
                enc.update(compression="gzip", compression_opts=1, shuffle=True)
            encoding[name] = enc
        skeleton = first.isel(sample=slice(0, 0))
        _dump(path, "w", skeleton, checksummed(skeleton, encoding), unlimited_dims=["sample"])
        store = cls(path, chunks, 0, rows)
        store.row_bytes, store.samples = row_bytes, samples
        store._file = h5py.File(path, "r+")
        for name, var in based.items():
            store._datasets[str(name)] = (store._file[name], tuple(map(str, var.dims)),
                                          var.dims.index("sample"))
        store.append(first)
        return store

    def append(self, part: xr.Dataset) -> None:
        """Append the base rows of the next chunk (``sample`` continues where it stopped).

        They are copied into the store's buffers (``part`` is not kept), which are written
        once they hold :attr:`rows` samples.
        """
        n = part.sizes["sample"]
        if self._pending_rows + n > self.rows:
            self.flush()
        if n > self.rows:  # larger than the buffers: written as it is
            self._write({name: self._values(part, name) for name in self._datasets}, n)
            return
        at = self._pending_rows
        for name, (dataset, _, axis) in self._datasets.items():
            buffer = self._buffers.get(name)
            if buffer is None:
                shape = list(dataset.shape)
                shape[axis] = self.rows
                buffer = self._buffers[name] = np.empty(shape, dataset.dtype)
            buffer[(slice(None),) * axis + (slice(at, at + n),)] = self._values(part, name)
        self._pending_rows += n
        if self._pending_rows == self.rows:
            self.flush()

    def _values(self, part: xr.Dataset, name: str) -> np.ndarray:
        var = part.variables[name]
        dims = self._datasets[name][1]
        return (var if var.dims == dims else var.transpose(*dims)).values

    def flush(self) -> None:
        """Write the buffered base rows: each dataset resized and written once."""
        n, self._pending_rows = self._pending_rows, 0
        if n:
            self._write({name: buffer[(slice(None),) * self._datasets[name][2]
                                      + (slice(0, n),)]
                         for name, buffer in self._buffers.items()}, n)

    def _write(self, values: dict[str, np.ndarray], n: int) -> None:
        from mc_tco.interrupt import signal_point

        signal_point("store-write")
        try:  # a full disk fails here, not inside HDF5 (which would not recover)
            reserve(self.path, sum(v.nbytes for v in values.values()))
        except NoSpace as exc:
            rest = (self.samples or 0) - self.size  # the rows still to come, uncompressed
            exc.needed = max(exc.needed, int(rest * self.row_bytes))
            raise
        start, stop = self.size, self.size + n
        with _hdf5_errors():
            for name, (dataset, _, axis) in self._datasets.items():
                dataset.resize(stop, axis=axis)
                dataset[(slice(None),) * axis + (slice(start, stop),)] = values[name]
        self.size = stop

    def close(self) -> None:
        """Write the rest and close the file."""
        if self._file is not None:
            self.flush()  # (if this fails, discard() closes the file)
            file, self._file = self._file, None
            try:
                with _hdf5_errors():
                    file.close()
            except OSError:
                global hdf5_left_open
                hdf5_left_open = True
                raise

    def discard(self) -> None:
        """Close the file without writing what is buffered (the run stopped). A close that
        fails (HDF5 after a failed write) is noted, not raised: the first error says why."""
        self._pending_rows = 0
        self._buffers = {}
        if self._file is not None:
            file, self._file = self._file, None
            _close_after_failure(file)

    def open(self) -> xr.Dataset:
        """The base rows, lazily (xarray's own lazy indexing, no dask): a reader's
        ``isel(...).load()`` reads that block only, through h5py. With dask chunks the
        default run's summaries spent 0.6 s in dask's graph and threads to read 15 MB."""
        return xr.open_dataset(self.path, engine=ResultsBackend)

    def add(self, summary: xr.Dataset) -> None:
        """Append the summary variables (and the file's attrs) to the file."""
        with _SizedFile(self.path, "r") as existing:  # the names only
            present = set(existing.variables)  # (xarray would read every dim: ~1 s)
        extra = summary.drop_vars([v for v in summary.variables if v in present])
        encoding = {
            name: {"compression": "gzip", "compression_opts": 4, "shuffle": True}
            for name, var in extra.data_vars.items()
            if var.dtype.kind == "f" and var.size >= 1024
        }
        reserve(self.path, extra.nbytes)
        _dump(self.path, "a", extra, checksummed(extra, encoding))


def _dump(path, mode: str, ds: xr.Dataset, encoding: dict, unlimited_dims=None) -> None:
    """Write ``ds`` into the file at ``path`` (``mode`` "w" or "a") as ``ds.to_netcdf``
    with engine h5netcdf does (the same variables, attrs and encoding), only cheaper.

    ``to_netcdf`` looks up dask's scheduler, which imports dask.distributed (~1 s of a
    cold process); and h5netcdf sizes the unlimited ``sample`` dim from every variable
    along it each time a variable is created (seconds, quadratic in the variables). Here
    no variable along ``sample`` changes its length (the file's skeleton has none, the
    summaries add none), so each dim's size is looked up once
    (:class:`_SizedFile`).
    """
    with _hdf5_errors():
        f = _SizedFile(path, mode)
        try:
            ds.dump_to_store(xr.backends.H5NetCDFStore(f, mode=mode), encoding=encoding,
                             unlimited_dims=unlimited_dims)
        except BaseException:
            _close_after_failure(f)
            raise
        f.close()


@contextlib.contextmanager
def _hdf5_errors():
    """h5py reports some failed writes (a full disk) as RuntimeError: raise them as the
    OSError they are (its errno from HDF5's message), which the write path turns into one
    line (:func:`mc_tco.results.io.atomic_path`)."""
    try:
        yield
    except RuntimeError as exc:
        found = re.search(r"errno = (\d+)", str(exc))  # HDF5: "file write failed: ..."
        if not found:
            raise
        code = int(found[1]) or errno.EIO
        raise OSError(code, f"{os.strerror(code)} ({str(exc).split(' (')[0]})") from exc


def _close_after_failure(file) -> None:
    """Close an HDF5 (h5py or h5netcdf) file after a failed write, quietly.

    After a write failed on a full disk HDF5 cannot close the file: every object it
    holds prints a traceback as it is freed, and the close raises. The first error says
    what happened; these are not shown, and the failure is noted for the ``mc-tco``
    command to end without HDF5's exit handler (which would crash on that file:
    :data:`hdf5_left_open`).
    """
    import sys

    hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None
    try:
        file.close()
    except (OSError, RuntimeError, ValueError):
        global hdf5_left_open
        hdf5_left_open = True
    finally:
        sys.unraisablehook = hook


@contextlib.contextmanager
def lazy_dask_check():
    """Let xarray ask "is this a dask array?" without importing dask, inside this block.

    Building any xarray Variable checks ``isinstance(data, array_type("dask"))``, and
    xarray imports dask to get that type: 0.6-0.7 s of a cold ``mc-tco run`` (dask.array,
    psutil, ...) that never makes a dask array. Until ``dask.array`` is imported no object
    can be one, so the answer is ``()`` then, and dask's own type after; the entry's
    other fields (``available``, ``version``, ``module``) import it as before. The entry
    of xarray's ``namedarray.pycompat`` cache is put back as it was when the block ends
    (nothing is done if a newer xarray moved it, or dask's entry is already there).

    The same holds for xarray's ``is_dask_collection``, asked of every array a ufunc on a
    DataArray meets (``np.sin(x)`` in a user's model): it imports ``dask`` itself (0.1-0.2
    s: dask.base, psutil, yaml, jinja2). Until ``dask`` is imported no object is a dask
    collection, so it answers False then, and asks dask after; it is put back too.
    """
    try:
        from xarray.namedarray import pycompat
        from xarray.namedarray import utils as namedarray_utils
    except ImportError:  # pragma: no cover - another xarray layout
        yield
        return
    with _lazy_dask_collection(namedarray_utils), _lazy_dask_array(pycompat):
        yield


@contextlib.contextmanager
def _lazy_dask_collection(utils):
    """xarray's ``namedarray.utils.is_dask_collection`` answering False while ``dask`` is
    not imported (:func:`lazy_dask_check`); put back when the block ends."""
    import sys

    real = getattr(utils, "is_dask_collection", None)
    if real is None:  # pragma: no cover - another xarray layout
        yield
        return

    def is_dask_collection(x):
        return "dask" in sys.modules and real(x)

    utils.is_dask_collection = is_dask_collection
    try:
        yield
    finally:
        if utils.is_dask_collection is is_dask_collection:
            utils.is_dask_collection = real


@contextlib.contextmanager
def _lazy_dask_array(pycompat):
    """xarray's cache entry for dask's array type, ``()`` until ``dask.array`` is imported
    (:func:`lazy_dask_check`); the entry is put back when the block ends."""
    import sys

    cache = getattr(pycompat, "_cached_duck_array_modules", None)
    real = getattr(pycompat, "DuckArrayModule", None)
    if not isinstance(cache, dict) or real is None or "dask" in cache:
        yield
        return

    class LazyDask:
        _loaded = None

        def _real(self):
            if self._loaded is None:
                self._loaded = real("dask")
            return self._loaded

        @property
        def type(self):
            if "dask.array" not in sys.modules:
                return ()
            return self._real().type

        def __getattr__(self, name):  # module, version, available
            return getattr(self._real(), name)

    lazy = cache["dask"] = LazyDask()
    try:
        yield
    finally:
        if cache.get("dask") is lazy:
            del cache["dask"]
