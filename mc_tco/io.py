"""Reading and writing results files (netCDF4 via h5netcdf), atomically."""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import shutil
import socket
import tempfile
from pathlib import Path

import numpy as np
import xarray as xr

from . import results as _results  # noqa: F401  (registers ds.mc_tco)
from . import store as _store  # (h5netcdf sizes read-only files once)
from .errors import McTcoError, OptionError

__all__ = [
    "DamagedFileError",
    "atomic_path",
    "check_writable",
    "open_results",
    "remove_stale_temp",
    "write_results",
]

ENGINE = "h5netcdf"


def check_writable(path: str | Path, create: bool = False) -> Path:
    """Fail early, with the fix, if ``path`` cannot be written.

    Checks the nearest existing folder on the way to ``path``; missing folders are created
    only with ``create=True`` (at write time), so a run that fails leaves nothing behind.
    """
    path = Path(path)
    parent = path.parent
    if path.is_dir():
        raise OptionError(f"--out {path}: is a folder; give a file name ending in .nc")
    existing = parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise OptionError(
            f"--out {path}: cannot create folder {parent} ({existing} is a file); "
            "choose another --out"
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        raise OptionError(
            f"--out {path}: folder {existing} is not writable; choose another --out"
        )
    if path.exists() and not os.access(path, os.W_OK):
        raise OptionError(f"--out {path}: the file is read-only; choose another --out")
    if create:
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OptionError(
                f"--out {path}: cannot create folder {parent} ({exc.strerror}); "
                "choose another --out"
            ) from None
    return path


# ------------------------------------------------------------------ temporary files

_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"
#: ``.<target name>.<host>.<pid>.<random>.tmp``: the temporary files of :func:`atomic_path`
_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<host>[A-Za-z0-9-]+)\.(?P<pid>\d+)\.\w+\.tmp$")


def _temp_prefix(path: Path) -> str:
    return f".{path.name}.{_HOST}.{os.getpid()}."


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (a zombie counts as dead)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: someone else's process
        return True
    with contextlib.suppress(OSError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def remove_stale_temp(folder: str | Path) -> list[Path]:
    """Remove the temporary files that killed writers left in ``folder``.

    A process killed while writing (SIGKILL, a power cut) cannot remove its temporary
    file. Its name carries the host and the process id; a file of this host whose process
    is gone is removed. Files of live processes and of other hosts (a shared disk) stay.

    Returns
    -------
    list of Path
        The files removed.
    """
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            m = _TEMP.match(entry.name)
            if m and m["host"] == _HOST and not _alive(int(m["pid"])):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


def _keep_backup(path: Path) -> None:
    """Make ``<path>.bak`` the current ``path`` (a hard link, or a copy), atomically."""
    bak = path.with_name(path.name + ".bak")
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(bak), suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        os.unlink(tmp)
        try:
            os.link(path, tmp)
        except OSError:  # no hard links here (some network and FUSE file systems)
            shutil.copy2(path, tmp)
        os.replace(tmp, bak)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_path(path: str | Path, backup: bool = False):
    """Yield a temporary path next to ``path``; on success rename it over ``path``.

    On any error (or KeyboardInterrupt) the temporary file is removed and ``path`` is left
    as it was: a reader never sees a half-written file. The temporary file's name carries
    the host and process id, so the temporary files of killed writers are removed by the
    next write into the same folder (:func:`remove_stale_temp`). With ``backup``, an
    existing ``path`` is kept as ``<path>.bak`` (one generation) before it is replaced.
    """
    path = check_writable(path, create=True)
    remove_stale_temp(path.parent)
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~umask)
        if backup and path.is_file():
            _keep_backup(path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _encoding(ds: xr.Dataset) -> dict:
    enc = {}
    for name, var in ds.variables.items():
        if var.dtype.kind == "f" and var.size >= 1024:
            enc[name] = {"compression": "gzip", "compression_opts": 4, "shuffle": True}
    return _store.checksummed(ds, enc)


def write_results(ds: xr.Dataset, path: str | Path, backup: bool = True) -> Path:
    """Write ``ds`` to ``path`` atomically (temporary file, then rename).

    An existing ``path`` is kept as ``<path>.bak`` (one generation; ``backup=False``: not
    kept). The file gets a ``created`` attr (UTC, ISO 8601) unless ``ds`` has one: the
    only attr in which two runs of the same book, seed and options differ.

    Raises
    ------
    OptionError
        When the file cannot be written (folder not writable, disk full, ...); ``path``
        and its backup are then as they were.
    """
    if "created" not in ds.attrs:
        created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        ds = ds.assign_attrs(created=created)
    try:
        with atomic_path(path, backup=backup) as tmp:
            ds.to_netcdf(tmp, engine=ENGINE, encoding=_encoding(ds))
    except OSError as exc:
        raise OptionError(
            f"--out {path}: cannot write the file ({exc.strerror or exc}); nothing was written"
        ) from None
    return Path(path)


#: :func:`open_results` reads every checksummed block of a file of up to this many stored
#: bytes when it opens it (the default run's 196 MB file: ~0.15-0.3 s); of a larger file,
#: the variables of up to :data:`VERIFY_VARIABLE_BYTES` each (the summaries, the grid),
#: and every other block when a reader reads it (:func:`_name_damaged_reads`)
VERIFY_BYTES = 2**30
VERIFY_VARIABLE_BYTES = 2**24
#: bytes of a variable read at once by the check (bounded memory at any N)
_VERIFY_SLAB = 2**26
#: the NAME of h5netcdf's datasets for dims without a coordinate (they hold no data)
_PHONY_DIM = b"This is a netCDF dimension but not a netCDF variable"


class DamagedFileError(McTcoError):
    """A results file whose stored data fails its checksum (not an :class:`OptionError`,
    so that no reader takes it for an option it cannot use and goes on without the data).
    """


def _damaged(path, name: str, exc: BaseException) -> DamagedFileError:
    bak = Path(f"{path}.bak")
    copy = f" ({bak} is the previous run's)" if bak.is_file() else ""
    return DamagedFileError(
        f"{path}: variable {name}: damaged data (a stored block fails its checksum or cannot "
        f"be read: {exc}); make the file again with 'mc-tco run', or restore a copy{copy}"
    )


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

    unchecked = []
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
    (:func:`mc_tco.store.checksummed`). The file's blocks are checked here, at once (all of
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
        ds = xr.open_dataset(path, engine=ENGINE)
        if load:
            ds = ds.load()
            ds.close()
    except DamagedFileError:  # a damaged block, named (_name_damaged_reads)
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


def _name_damaged_reads() -> None:
    """Make a failed read of an h5netcdf variable through xarray (a damaged block: its
    checksum fails) a :class:`DamagedFileError` naming the file and the variable, wherever
    the lazy read happens (a memo's ``.values``, a rerun's comparison). Installed once,
    when this module is imported."""
    from xarray.backends.h5netcdf_ import H5NetCDFArrayWrapper

    if getattr(H5NetCDFArrayWrapper._getitem, "_mc_tco", False):
        return
    original = H5NetCDFArrayWrapper._getitem

    def _getitem(self, key):
        try:
            return original(self, key)
        except OSError as exc:
            raise _damaged(self.datastore._filename, self.variable_name, exc) from None

    _getitem._mc_tco = True
    H5NetCDFArrayWrapper._getitem = _getitem


_name_damaged_reads()
