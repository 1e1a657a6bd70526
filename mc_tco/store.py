"""The base rows of a run, streamed chunk by chunk into the results file.

A run at N = 2^20 base samples holds about 8 GB of base-row outputs for the TCO model:
more than one process should hold. :class:`BaseStore` writes each chunk's base rows into the
(temporary) results file as it arrives, along an unlimited ``sample`` dim, with HDF5 chunks
of one evaluation chunk of samples by a few grid points (gzip only for the variables that
shrink by half: :data:`COMPRESS_BELOW`); the summaries then read it back
block by block (:func:`mc_tco.engine.summarize`), and the summary variables are appended
to the same file.
"""

from __future__ import annotations

import zlib

import h5netcdf
import numpy as np
import xarray as xr

__all__ = ["BaseStore"]

#: grid points per HDF5 chunk along a grid dim (the block the summaries read at once)
GRID_BLOCK = 4
#: a base-row variable is stored compressed (gzip 1, shuffle) only if its first rows
#: shrink below this fraction: money amounts, npv, cash paths shrink to 0.7-0.85 only, at
#: 20-50 MB/s of one core (most of the write time); counts, payback months and IRR
#: (many equal values) shrink to 0.04-0.4 at 100-400 MB/s
COMPRESS_BELOW = 0.5
#: bytes of a variable's first rows tried
PROBE_BYTES = 2**20


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


class BaseStore:
    """An open results file receiving base rows; see the module docstring."""

    def __init__(self, path, chunks: dict[str, int], size: int):
        self.path = path
        self.chunks = chunks
        self.size = size
        self._file: h5netcdf.File | None = None

    @classmethod
    def create(cls, path, first: xr.Dataset, chunk_size: int, grid_dims: list[str]) -> BaseStore:
        """Start the file at ``path`` with ``first``, the base rows of the first chunk."""
        chunks = {"sample": chunk_size}
        for d in first.dims:
            if d in grid_dims:
                chunks[d] = GRID_BLOCK
        encoding = {}
        for name, var in first.variables.items():
            if "sample" not in var.dims:
                continue
            shape = tuple(min(chunks.get(d, n), max(n, 1)) for d, n in var.sizes.items())
            shape = tuple(chunks["sample"] if d == "sample" else c
                          for d, c in zip(var.dims, shape, strict=True))
            enc = {"chunksizes": shape}
            if var.dtype.kind == "f" and _compressible(var.values):
                enc.update(compression="gzip", compression_opts=1, shuffle=True)
            encoding[name] = enc
        first.to_netcdf(path, engine="h5netcdf", unlimited_dims=["sample"], encoding=encoding)
        store = cls(path, chunks, first.sizes["sample"])
        store._file = h5netcdf.File(path, "a")
        return store

    def append(self, part: xr.Dataset) -> None:
        """Append the base rows of the next chunk (``sample`` continues where it stopped)."""
        f = self._file
        start, stop = self.size, self.size + part.sizes["sample"]
        f.resize_dimension("sample", stop)
        for name in part.variables:
            var = part[name]
            if "sample" not in var.dims:
                continue
            target = f.variables[name]
            values = var.transpose(*target.dimensions).values
            index = tuple(slice(start, stop) if d == "sample" else slice(None)
                          for d in target.dimensions)
            target[index] = np.asarray(values, dtype=target.dtype)
        self.size = stop

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def open(self) -> xr.Dataset:
        """The base rows, lazily, in blocks aligned with the stored chunks."""
        chunks = {d: (-1 if d == "sample" else n) for d, n in self.chunks.items()}
        return xr.open_dataset(self.path, engine="h5netcdf", chunks=chunks)

    def add(self, summary: xr.Dataset) -> None:
        """Append the summary variables (and the file's attrs) to the file."""
        with h5netcdf.File(self.path, "r") as existing:  # the names only
            present = set(existing.variables)  # (xarray would read every dim: ~1 s)
        extra = summary.drop_vars([v for v in summary.variables if v in present])
        encoding = {
            name: {"compression": "gzip", "compression_opts": 4, "shuffle": True}
            for name, var in extra.data_vars.items()
            if var.dtype.kind == "f" and var.size >= 1024
        }
        extra.to_netcdf(self.path, mode="a", engine="h5netcdf", encoding=encoding)


def _remember_read_only_sizes() -> None:
    """Make h5netcdf size an unlimited dim of a read-only file once per open file.

    h5netcdf sizes an unlimited dim (``sample``, streamed) from the shapes of every
    variable that uses it, each time any variable's shape is asked, and it asks on every
    read (padding): opening and reading a results file with ~80 such variables spent
    seconds in HDF5 lookups (quadratic in the variables). A file opened with mode ``r``
    cannot grow, so its sizes are kept on the open file object (gone when it is); files open
    for writing are sized as before. Installed once, when this module is imported.
    """
    from h5netcdf.dimensions import Dimension

    if getattr(Dimension.size.fget, "_mc_tco", False):
        return
    original = Dimension.size

    def size(self):
        root = self._root_ref()
        if root is None or getattr(root, "_mode", None) != "r":
            return original.fget(self)
        seen = root.__dict__.setdefault("_mc_tco_dim_sizes", {})
        if self._h5path not in seen:
            seen[self._h5path] = original.fget(self)
        return seen[self._h5path]

    size._mc_tco = True
    size.original = original  # h5netcdf's own sizing (tests compare with it)
    Dimension.size = property(size)


_remember_read_only_sizes()
