"""Reading and writing results files (netCDF4 via h5netcdf), atomically."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

import numpy as np
import xarray as xr

from .errors import OptionError

__all__ = ["atomic_path", "check_writable", "open_results", "write_results"]

ENGINE = "h5netcdf"


def check_writable(path: str | Path) -> Path:
    """Fail early, with the fix, if ``path`` cannot be written (creates missing folders)."""
    path = Path(path)
    parent = path.parent if str(path.parent) else Path(".")
    if path.is_dir():
        raise OptionError(f"--out {path}: is a folder; give a file name ending in .nc")
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OptionError(
            f"--out {path}: cannot create folder {parent} ({exc.strerror}); choose another --out"
        ) from None
    if not os.access(parent, os.W_OK):
        raise OptionError(f"--out {path}: folder {parent} is not writable; choose another --out")
    if path.exists() and not os.access(path, os.W_OK):
        raise OptionError(f"--out {path}: the file is read-only; choose another --out")
    return path


@contextlib.contextmanager
def atomic_path(path: str | Path):
    """Yield a temporary path next to ``path``; on success rename it over ``path``.

    On any error (or KeyboardInterrupt) the temporary file is removed and ``path`` is left
    as it was: a reader never sees a half-written file.
    """
    path = check_writable(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    umask = os.umask(0)
    os.umask(umask)
    try:
        yield Path(tmp)
        os.chmod(tmp, 0o666 & ~umask)
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
    return enc


def write_results(ds: xr.Dataset, path: str | Path) -> Path:
    """Write ``ds`` to ``path`` atomically (temporary file, then rename)."""
    with atomic_path(path) as tmp:
        ds.to_netcdf(tmp, engine=ENGINE, encoding=_encoding(ds))
    return Path(path)


def open_results(path: str | Path) -> xr.Dataset:
    """Load a results file written by ``mc-tco run`` into memory."""
    path = Path(path)
    if not path.exists():
        raise OptionError(f"{path}: no such results file; make one with 'mc-tco run'")
    try:
        with xr.open_dataset(path, engine=ENGINE) as ds:
            ds = ds.load()
    except (OSError, ValueError) as exc:
        raise OptionError(f"{path}: not a readable netCDF results file ({exc})") from None
    if "book_sha256" not in ds.attrs:
        raise OptionError(f"{path}: not an mc_tco results file (no book_sha256 attribute)")
    for name in ds.data_vars:  # netCDF has no bool; flags were written as int8
        if ds[name].dtype == np.int8 and name == "constant_output":
            ds[name] = ds[name].astype(bool)
    return ds
