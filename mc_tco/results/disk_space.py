"""Disk space for a write: blocks reserved before HDF5 writes (:func:`reserve`, Linux's
``fallocate``), :class:`NoSpace` when the disk cannot hold them, and sizes for messages
(:func:`format_bytes`)."""

from __future__ import annotations

import errno
import os
import shutil
import sys
from pathlib import Path

__all__ = ["RESERVE_MARGIN", "NoSpace", "format_bytes", "reserve"]


def format_bytes(nbytes: float) -> str:
    """``nbytes`` for a message: in MB below a GB ("12.3 MB"), else in GB ("4.2 GB")."""
    if nbytes < 1e9:
        return f"{nbytes / 1e6:.1f} MB"
    return f"{nbytes / 1e9:.1f} GB"

#: bytes reserved beyond what a write needs: HDF5's metadata (written when it closes)
RESERVE_MARGIN = 2**20


class NoSpace(OSError):
    """The disk cannot hold ``needed`` more bytes; ``free`` were free."""

    def __init__(self, needed: int, free: int):
        super().__init__(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.needed = needed
        self.free = free


def _fallocate():
    """Linux's ``fallocate(2)`` (keeping the file's size), or None where there is none."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        func = libc.fallocate
    except (OSError, AttributeError):
        return None
    func.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    func.restype = ctypes.c_int
    return func


_FALLOCATE = _fallocate()
_KEEP_SIZE = 1  # FALLOC_FL_KEEP_SIZE


def reserve(path: str | Path, nbytes: int) -> None:
    """Reserve disk blocks for ``nbytes`` (plus :data:`RESERVE_MARGIN`) beyond the end of
    the file at ``path``, before HDF5 writes them.

    HDF5 does not survive a full disk: a failed write leaves the file's objects open, and
    closing them (or the library's exit handler) crashes the process. The reserved blocks
    (``fallocate`` with ``FALLOC_FL_KEEP_SIZE``: the file's size does not change; HDF5
    trims what it did not use when it closes the file) make a full disk fail here, before
    HDF5 writes anything, with :class:`NoSpace`. File systems without ``fallocate``
    (some network ones) are not reserved on.
    """
    if _FALLOCATE is None or nbytes <= 0:
        return
    import ctypes

    fd = os.open(path, os.O_RDWR)
    try:
        end = os.fstat(fd).st_size
        if _FALLOCATE(fd, _KEEP_SIZE, end, int(nbytes) + RESERVE_MARGIN) == 0:
            return
        err = ctypes.get_errno()
        if err in (errno.ENOSPC, errno.EDQUOT):
            raise NoSpace(int(nbytes) + RESERVE_MARGIN, shutil.disk_usage(path).free)
        # EOPNOTSUPP, ENOSYS, EINVAL, ...: nothing reserved, HDF5 writes as it can
    finally:
        os.close(fd)
