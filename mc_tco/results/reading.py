"""Opening a results file: its checksums checked, a damaged block named, never numbers.

Split out of :mod:`mc_tco.results.io`, which re-exports :func:`open_results` and
:class:`DamagedFileError`.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import xarray as xr

from mc_tco import results as _results  # noqa: F401  (registers ds.mc_tco)
from mc_tco.errors import OptionError
from mc_tco.results.damage import DamagedFileError, _damaged
from mc_tco.results.h5file import ResultsBackend

__all__ = ["DamagedFileError", "open_results"]


#: :func:`open_results` reads every checksummed block of a file of up to this many stored
#: bytes when it opens it (the default run's 196 MB file: ~0.15-0.3 s); of a larger file,
#: the variables of up to :data:`VERIFY_VARIABLE_BYTES` each (the summaries, the grid),
#: and every other block when a reader reads it (:class:`mc_tco.results.h5file._CheckedArray`)
VERIFY_BYTES = 2**30
VERIFY_VARIABLE_BYTES = 2**24
#: bytes of a variable read at once by the check (bounded memory at any N)
_VERIFY_SLAB = 2**26
#: the NAME of h5netcdf's datasets for dims without a coordinate (they hold no data)
_PHONY_DIM = b"This is a netCDF dimension but not a netCDF variable"


def _verify(path: Path) -> list[str]:
    """Read every checksummed block of the file at ``path`` once (HDF5 checks each block's
    Fletcher-32 checksum on the way), the larger variables of a large file excepted (see
    :data:`VERIFY_BYTES`); return the numeric variables stored without a checksum (a
    file written before mc_tco wrote checksums).

    Raises
    ------
    DamagedFileError
        Naming the first variable whose data fails its checksum (or cannot be read).
    """
    import h5py

    unchecked: list[str] = []
    try:
        f = h5py.File(path, "r")
    except OSError:
        return unchecked  # not HDF5: xarray's open says so
    with f:
        datasets = [(name, obj) for name, obj in f.items() if isinstance(obj, h5py.Dataset)]
        stored = {name: d.id.get_storage_size() for name, d in datasets}
        whole = sum(stored.values()) <= VERIFY_BYTES
        for name, d in datasets:
            if not d.size or not stored[name] or d.attrs.get("NAME") == _PHONY_DIM:
                continue
            if d.dtype.kind not in "OSU" and not d.fletcher32:
                unchecked.append(name)
                continue
            if not whole and stored[name] > VERIFY_VARIABLE_BYTES:
                continue  # checked by HDF5 when a reader reads it
            try:
                if not d.shape:
                    d[()]
                    continue
                step = max(1, _VERIFY_SLAB // max(d.nbytes // d.shape[0], 1))
                if d.chunks:  # whole chunks: none read twice
                    step = max(d.chunks[0], step // d.chunks[0] * d.chunks[0])
                for start in range(0, d.shape[0], step):
                    d[start:start + step]
            except (OSError, ValueError, UnicodeDecodeError) as exc:
                raise _damaged(path, name, exc) from None
    return unchecked


def open_results(path: str | Path, load: bool = False, note=None) -> xr.Dataset:
    """Open a results file written by ``mc-tco run``, lazily (``load=True``: into memory).

    Lazily, only what a reader selects is read from disk (a memo reads one demand of the
    per-sample outputs at a time), so reading a 6 GB file needs far less than 6 GB.

    Every numeric variable is stored with HDF5's Fletcher-32 checksum
    (:func:`mc_tco.results.store.checksummed`). The file's blocks are checked here, at once (all of
    them up to :data:`VERIFY_BYTES`; of a larger file the variables up to
    :data:`VERIFY_VARIABLE_BYTES`, the others when they are read): a damaged block is a
    :class:`DamagedFileError` naming the variable, never numbers. A file written before the
    checksums is read as it is, and ``note`` (a callable, if given) is told so in one line.

    Raises
    ------
    OptionError
        No such file, or not a results file.
    DamagedFileError
        A block of a variable fails its checksum (here, or when it is read).
    """
    path = Path(path)
    if not path.exists():
        raise OptionError(f"{path}: no such results file; make one with 'mc-tco run'")
    unchecked = _verify(path)
    try:
        ds = xr.open_dataset(path, engine=ResultsBackend)
        if load:
            ds = ds.load()
            ds.close()
    except DamagedFileError:  # a damaged block, named (h5file._CheckedArray)
        raise
    except (OSError, ValueError) as exc:
        raise OptionError(f"{path}: not a readable netCDF results file ({exc})") from None
    if not ds.mc_tco.is_results_file:
        ds.close()
        raise OptionError(f"{path}: not an mc_tco results file (no book_sha256 attribute)")
    if unchecked and note is not None:
        note(f"{path}: written without checksums (by an older mc_tco), so damage to its "
             f"numbers cannot be detected; 'mc-tco rerun {path} --out NEW.nc' writes a "
             "file with them, and checks that its numbers are the same")
    if "constant_output" in ds and ds["constant_output"].dtype == np.int8:
        # netCDF has no bool; the flag was written as int8
        ds["constant_output"] = ds["constant_output"].astype(bool)
    return ds
