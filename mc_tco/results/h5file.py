"""The h5netcdf files and the xarray backend mc_tco reads and writes results files through.

Subclasses of mc_tco's own, so that nothing of h5netcdf's or xarray's is changed (issue 22
item 8): :class:`_SizedFile` sizes each dim once (h5netcdf asks every variable along an
unlimited dim for its shape on each read and each variable created), and
:class:`ResultsBackend` (``xr.open_dataset(path, engine=ResultsBackend)``) reads through
it, with lazily read arrays that raise :class:`mc_tco.results.io.DamagedFileError` naming the
variable whose block fails its checksum.
"""

from __future__ import annotations

import os

import h5netcdf
import h5py
import xarray as xr
from h5netcdf.dimensions import Dimensions
from xarray.backends import BackendEntrypoint, CachingFileManager, H5NetCDFStore
from xarray.backends.h5netcdf_ import H5NetCDFArrayWrapper
from xarray.backends.locks import HDF5_LOCK
from xarray.backends.store import StoreBackendEntrypoint
from xarray.core.indexing import LazilyIndexedArray

from mc_tco.results.damage import _damaged

__all__ = ["ResultsBackend"]


class _SizedDimension(h5netcdf.Dimension):
    """An h5netcdf dim of a file that does not grow along it, sized once per open file.

    h5netcdf sizes an unlimited dim (``sample``, streamed) from the shapes of every
    variable that uses it, each time any variable's shape is asked, and it asks on every
    read and every variable created: opening and reading a results file with ~80 such
    variables, or writing its summaries, spent seconds in HDF5 lookups (quadratic in the
    variables). Used only by :class:`_SizedFile`, the files mc_tco opens itself to read
    (mode ``r``: they cannot grow) or to write with :func:`_dump` (no variable along a
    dim changes length); h5netcdf's own class is left as it is.
    """

    @property
    def size(self):
        seen = self._root_ref().__dict__.setdefault("_mc_tco_dim_sizes", {})
        if self._h5path not in seen:
            seen[self._h5path] = h5netcdf.Dimension.size.fget(self)
        return seen[self._h5path]


class _SizedDimensions(Dimensions):
    """The dims of a :class:`_SizedFile`: each one it creates or finds is sized once."""

    def __setitem__(self, name, size):
        super().__setitem__(name, size)
        self._objects[name].__class__ = _SizedDimension

    def add(self, name):
        super().add(name)
        self._objects[name].__class__ = _SizedDimension


class _LookedUpOnce(h5py.File):
    """An h5py File opened to read whose objects are each looked up by path once.

    h5netcdf looks a variable's HDF5 dataset up by its path on every use (its dtype,
    dims, attrs, filters: ~25 lookups a variable, each a new h5py object): opening a
    results file spent 40% of its time there (0.23 s CPU for the default book's, 0.135 s
    with each object looked up once).
    In a file opened to read nothing is created or removed, so the object found first
    stays the one at that path. Only the h5py File of a :class:`_SizedFile` opened to read
    is given this class."""

    def __getitem__(self, name):
        if not isinstance(name, str):
            return super().__getitem__(name)
        found = self.__dict__.setdefault("_mc_tco_objects", {})
        if name not in found:
            found[name] = super().__getitem__(name)
        return found[name]


class _SizedFile(h5netcdf.File):
    """An h5netcdf File whose dims are :class:`_SizedDimension`; only for files no
    variable grows in while open. h5netcdf has no hook for its dim class (its
    ``Dimensions`` makes ``Dimension`` objects), so this file's own dims, once made, are
    given the subclass; h5netcdf's classes and other files are left as they are. Opened
    to read, its h5py File looks each object up once (:class:`_LookedUpOnce`)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._dimensions.__class__ = _SizedDimensions
        for dim in self._dimensions._objects.values():
            if type(dim) is h5netcdf.Dimension:
                dim.__class__ = _SizedDimension
        if type(self._h5file) is h5py.File and self._h5file.mode == "r":
            self._h5file.__class__ = _LookedUpOnce


class _CheckedArray(H5NetCDFArrayWrapper):
    """xarray's lazily read h5netcdf variable, a failed read of which (a damaged block:
    its Fletcher-32 checksum fails) raises :class:`mc_tco.results.io.DamagedFileError` naming the
    file and the variable, wherever the read happens (a memo's ``.values``, a rerun's
    comparison)."""

    def _getitem(self, key):
        try:
            return super()._getitem(key)
        except OSError as exc:
            raise _damaged(self.datastore._filename, self.variable_name, exc) from None


class _ResultsStore(H5NetCDFStore):
    """xarray's h5netcdf store of a results file opened to read, through
    :class:`_SizedFile` and with :class:`_CheckedArray` variables."""

    @classmethod
    def open_read_only(cls, path) -> _ResultsStore:
        manager = CachingFileManager(_SizedFile, os.fspath(path), mode="r",
                                     kwargs={"decode_vlen_strings": True})
        return cls(manager, mode="r", lock=HDF5_LOCK)

    def open_store_variable(self, name, var):
        v = super().open_store_variable(name, var)
        return xr.Variable(v.dims, LazilyIndexedArray(_CheckedArray(name, self)), v.attrs,
                           v.encoding)


class ResultsBackend(BackendEntrypoint):
    """The xarray backend :func:`mc_tco.results.io.open_results` reads through
    (``xr.open_dataset(path, engine=ResultsBackend)``): xarray's h5netcdf reading, with
    dims sized once (:class:`_SizedDimension`) and damaged blocks named
    (:class:`_CheckedArray`), and nothing of xarray's or h5netcdf's changed."""

    description = "mc_tco results files (h5netcdf, read only)"

    def open_dataset(self, filename_or_obj, *, drop_variables=None):
        """Open a results file lazily through mc_tco's sized File and checked variables."""
        store = _ResultsStore.open_read_only(filename_or_obj)
        with store._manager.acquire_context():
            return StoreBackendEntrypoint().open_dataset(store, drop_variables=drop_variables)
