"""Reading and writing results files (netCDF4 via h5netcdf), atomically.

The front door for scripts: :func:`write_results` and :func:`open_results`, with the parts
of a write re-exported from where they live (:mod:`.temp_files`: the temporary files and
their removal; :mod:`.disk_space`: the reservation and :class:`NoSpace`;
:mod:`.output_lock`: one writer per file; :mod:`.reading`: the checked read).
"""

from __future__ import annotations

import contextlib
import datetime
import errno
import functools
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Literal

import xarray as xr

from mc_tco import interrupt
from mc_tco import results as _results  # noqa: F401  (registers ds.mc_tco)
from mc_tco.errors import OptionError
from mc_tco.results import store as _store
from mc_tco.results.disk_space import NoSpace, format_bytes, reserve
from mc_tco.results.output_lock import _held_reports, hold_output, waiting
from mc_tco.results.reading import DamagedFileError, open_results
from mc_tco.results.temp_files import _temp_prefix, remove_stale_temp

__all__ = [
    "DamagedFileError",
    "NoSpace",
    "WriteError",
    "atomic_path",
    "check_writable",
    "format_bytes",
    "hold_output",
    "open_results",
    "remove_stale_temp",
    "reserve",
    "waiting",
    "write_results",
]

ENGINE: Literal["h5netcdf"] = "h5netcdf"


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


# ------------------------------------------------------------------ write errors



class WriteError(OptionError, OSError):
    """A file that could not be written (one line; ``errno`` that of the failure). An
    :class:`OptionError` for the command's one line and exit code 2, and an OSError for
    callers that catch those."""

    def __init__(self, message: str, code: int | None = None):
        super().__init__(message)
        self.errno = code


def _write_error(path: Path, exc: OSError, what: str | None,
                 written: int | None = None) -> WriteError:
    """The one-line error of a failed write of ``path`` (``what``: the option, e.g.
    ``--out``, shown before the path; ``written``: bytes of the file written by then)."""
    if "h5py" in sys.modules and not isinstance(exc, NoSpace):
        _store.hdf5_left_open = True  # an HDF5 write or close failed: it may hold the file
    name = f"{what} {path}" if what else str(path)
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        folder = path.parent
        with contextlib.suppress(OSError):
            folder = folder.resolve()
        free = getattr(exc, "free", None)
        if free is None:
            with contextlib.suppress(OSError):
                free = shutil.disk_usage(folder).free
        needed = getattr(exc, "needed", None)
        if needed:
            need = f"the file needs {format_bytes(needed)} more"
            left = f" and {format_bytes(free)} are free" if free is not None else ""
        else:  # HDF5 met the full disk (no reservation on this file system)
            need = "the disk filled up while the file was written"
            left = f" ({format_bytes(written)} of it)" if written else ""
        return WriteError(
            f"{name}: no space left in {folder}: {need}{left}; nothing was written; free "
            "some space or choose an --out on a larger disk", exc.errno
        )
    return WriteError(
        f"{name}: cannot write the file ({exc.strerror or exc}); nothing was written",
        exc.errno,
    )


# ------------------------------------------------------------------ the swap


def _second_name(path: Path, bak: Path) -> Path:
    """A temporary second name of the file ``path`` (a hard link, or a copy) beside it:
    the backup-to-be."""
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(bak), suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        os.unlink(tmp)
        try:
            os.link(path, tmp)
        except OSError:  # no hard links here (some network and FUSE file systems)
            shutil.copy2(path, tmp)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return Path(tmp)


#: ``renameat2``'s flag that swaps two existing names in one step (Linux 3.15 on; ext4,
#: xfs, btrfs, tmpfs and others)
_RENAME_EXCHANGE = 2
#: errors of ``renameat2`` that mean "not here" (no such call, a file system or a name
#: that cannot be exchanged): the caller renames instead
_NO_EXCHANGE = {errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOENT,
                errno.EPERM, errno.EXDEV}


def _exchange(a: str | Path, b: str | Path) -> bool:
    """Swap the names ``a`` and ``b`` of two existing files in one step (Linux's
    ``renameat2`` with ``RENAME_EXCHANGE``); False, and nothing done, where that cannot
    be done here (another system, a file system without it, ``b`` missing).

    Why not a rename over ``b``: ext4 (its default ``auto_da_alloc``) writes out a file's
    delayed blocks when it is renamed over an existing file, inside the rename: at the end
    of every default run that replaces its previous results (290 MB just written), 0.11-0.14
    s against 0.05 s for an exchange and the old file's removal (``benchmarks/swap_speed.py``;
    with a backup the old file is not removed, only an older backup)."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    at_cwd = -100  # AT_FDCWD: the names as given (absolute or from the working folder)
    if renameat2(at_cwd, os.fsencode(a), at_cwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    import ctypes

    err = ctypes.get_errno()
    if err in _NO_EXCHANGE:
        return False
    raise OSError(err, os.strerror(err), str(b))


@functools.cache
def _renameat2():
    """The C library's ``renameat2`` (ctypes, looked up once), or None: not Linux, or a C
    library without it (glibc before 2.28)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return None
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint]
    renameat2.restype = ctypes.c_int
    return renameat2


def _swap(tmp: str, path: Path, backup: bool) -> None:
    """Rename ``tmp`` over ``path``; with ``backup``, the file it replaces becomes
    ``<path>.bak``. Either all of it happens or nothing.

    Until ``tmp`` is renamed (the one step that changes what a reader sees) a signal
    stops the swap and leaves every file as it was. From that rename on, SIGINT and
    SIGTERM wait until the backup is in place too (:func:`mc_tco.interrupt.deferred`).
    An existing ``path`` is swapped with ``tmp`` (:func:`_exchange`, where it can be: no
    write-out inside the rename), whose name then holds the previous file until it is
    removed here (its backup is its other name); an existing backup likewise with the
    backup-to-be (the previous file, perhaps written seconds ago by the previous run and
    not yet on disk), whose name then holds the older backup until it is removed.
    """
    bak = path.with_name(path.name + ".bak")
    keep = None
    swapped = False
    try:
        interrupt.signal_point("before-backup")
        if backup and path.is_file():
            keep = _second_name(path, bak)
        interrupt.signal_point("after-backup")
        with interrupt.deferred() as pending:
            interrupt.check()
            if pending:
                raise interrupt.Interrupted(pending.pop(0))
            swapped = path.is_file() and _exchange(tmp, path)
            if not swapped:
                os.replace(tmp, path)  # from here on, the new state
            interrupt.wrote(path)
            interrupt.signal_point("after-rename")
            if keep is not None:
                try:  # (an older backup: exchanged too, then removed under keep's name)
                    if not (bak.is_file() and _exchange(keep, bak)):
                        os.replace(keep, bak)
                except OSError as exc:  # left for the next writer (remove_stale_temp)
                    keep = None
                    raise WriteError(
                        f"{path}: written, but the previous file could not be kept as "
                        f"{bak.name} ({exc.strerror or exc}); it is kept beside it as a "
                        "temporary file until the next write", exc.errno
                    ) from None
    finally:
        # a leftover second name: not renamed (stopped before), or renamed onto a .bak
        # that already was a name of the same file (rename then does nothing)
        if keep is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(keep)
        if swapped:  # the previous file's name from the exchange (after its backup's)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)


@contextlib.contextmanager
def atomic_path(path: str | Path, backup: bool = False, what: str | None = None):
    """Yield a temporary path next to ``path``; on success rename it over ``path``.

    On any error (or KeyboardInterrupt) the temporary file is removed and ``path`` is left
    as it was: a reader never sees a half-written file. The temporary file's name carries
    the host and process id, so the temporary files of killed writers are removed by the
    next write into the same folder (:func:`remove_stale_temp`). With ``backup``, an
    existing ``path`` is kept as ``<path>.bak`` (one generation) when it is replaced:
    both renames happen, or neither (:func:`_swap`). The block holds the lock of ``path``
    (:func:`hold_output`): two writers of one file take turns.

    Raises
    ------
    WriteError
        When writing fails (a full disk, ...): one line naming ``path`` (after ``what``,
        e.g. ``--out``), the folder and the space needed (an OptionError and an OSError).
    """
    path = check_writable(path)
    with hold_output(path):
        check_writable(path, create=True)
        remove_stale_temp(path.parent, finish=path)
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp",
                                   dir=path.parent)
        os.close(fd)
        umask = os.umask(0)
        os.umask(umask)
        try:
            with _held_reports():
                yield Path(tmp)
            os.chmod(tmp, 0o666 & ~umask)
            _swap(tmp, path, backup)
        except WriteError:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        except OSError as exc:
            written = None
            with contextlib.suppress(OSError):
                written = os.stat(tmp).st_size
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise _write_error(path, exc, what, written) from None
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
    with atomic_path(path, backup=backup, what="--out") as tmp:
        reserve(tmp, ds.nbytes)
        ds.to_netcdf(tmp, engine=ENGINE, encoding=_encoding(ds))
    return Path(path)
