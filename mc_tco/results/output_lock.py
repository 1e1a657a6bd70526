"""One writer per results file: a lock beside the output, and who holds it.

:func:`hold_output` takes ``fcntl.flock`` on ``.<name>.lock`` beside the file (the file
names its holder: pid, host, command, start); a second writer waits, saying for whom, or
stops at once (``--no-wait``, :func:`waiting`). Split out of :mod:`mc_tco.results.io`, which
re-exports :func:`hold_output` and :func:`waiting`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shlex
import socket
import sys
import threading
import time
from pathlib import Path

from mc_tco.errors import OptionError

__all__ = ["hold_output", "waiting"]


@contextlib.contextmanager
def _held_reports():
    """Within the block, errors that Python can only report (``Exception ignored in``)
    are kept; if the block ends normally they are reported then, if it fails they are
    dropped. After a write failed on a full disk, HDF5 objects freed inside h5py print
    dozens of such tracebacks (each also through ``sys.excepthook``), before the one-line
    error that says what happened."""
    if threading.current_thread() is not threading.main_thread():
        yield  # the hooks are the process's: only the main thread changes them
        return
    kept = []
    hooks = sys.unraisablehook, sys.excepthook
    sys.unraisablehook = kept.append
    sys.excepthook = lambda *exc_info: kept.append(exc_info)
    try:
        yield
    except BaseException:
        kept.clear()
        raise
    finally:
        sys.unraisablehook, sys.excepthook = hooks
        for report in kept:
            if isinstance(report, tuple):
                hooks[1](*report)
            else:
                hooks[0](report)


# ------------------------------------------------------------------ the output lock

_held: dict[tuple, list] = {}  # (lock file, thread) -> [fd, depth]: the locks held
_wait = [True]  # the default of hold_output(wait=...): see waiting()


@contextlib.contextmanager
def waiting(wait: bool = True):
    """Within the block, a results file another run is writing is waited for (``wait``)
    or refused (``wait=False``: ``--no-wait``), by every write (:func:`hold_output`)."""
    _wait.append(bool(wait))
    try:
        yield
    finally:
        _wait.pop()


def _lock_path(path: Path) -> Path:
    return path.parent / f".{path.name}.lock"


def _holder(fd: int) -> str:
    with contextlib.suppress(OSError):
        text = os.pread(fd, 4096, 0).decode("utf-8", "replace").strip()
        if text:
            return text
    return "another run"


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return those created (deepest last)."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    created = []
    for f in reversed(missing):
        try:
            f.mkdir()
        except FileExistsError:
            continue
        created.append(f)
    return created


@contextlib.contextmanager
def hold_output(path: str | Path, wait: bool | None = None, say=_say):
    """Hold the lock of the results file ``path`` within the block: one writer at a time.

    The lock is ``fcntl.flock`` on ``.<name>.lock`` beside ``path``, which names its
    holder (process id, host, command). A second run that writes the same file waits
    (saying for whom, through ``say``) or, with ``wait=False`` (``--no-wait``), raises
    :class:`OptionError`; ``wait=None`` takes the default of :func:`waiting`. The lock
    file is removed when the lock is released (one left by a killed process is taken
    over). Held locks are re-entrant within a thread. Where ``flock`` is not
    supported (some network file systems) the block runs without a lock.
    """
    path = Path(path)
    wait = _wait[-1] if wait is None else wait
    lock = _lock_path(path)
    key = (os.path.abspath(lock), threading.get_ident())  # another thread waits its turn
    if key in _held:
        _held[key][1] += 1
        try:
            yield
        finally:
            _held[key][1] -= 1
        return
    created: list[Path] = []
    try:
        fd = _lock(lock, path, wait, say, created)
    except BaseException:  # refused (--no-wait) or stopped while waiting
        _remove_folders(created)
        raise
    if fd is not None:
        when = time.strftime("%H:%M:%S")
        text = (f"process {os.getpid()} on {socket.gethostname()} "
                f"({shlex.join(['mc-tco', *sys.argv[1:]])}, since {when})")
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, text.encode() + b"\n", 0)
        _held[key] = [fd, 1]
    failed = True
    try:
        yield
        failed = False
    finally:
        if fd is not None:
            del _held[key]
            with contextlib.suppress(OSError):
                os.unlink(lock)  # before the unlock: a waiter then locks a new file
            os.close(fd)
        if failed:  # leave no folder this block created for a file never written
            _remove_folders(created)


def _remove_folders(created: list[Path]) -> None:
    for folder in reversed(created):
        with contextlib.suppress(OSError):
            folder.rmdir()  # only if empty


def _lock(lock: Path, path: Path, wait: bool, say, created: list[Path]) -> int | None:
    """``flock`` the file ``lock`` (see :func:`hold_output`); its descriptor, or None
    where the file system has no locks. Folders made on the way are added to ``created``."""
    import fcntl

    said = False
    while True:
        try:
            created += _make_folders(lock.parent)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise OptionError(
                f"--out {path}: cannot create its lock file {lock} ({exc.strerror or exc}); "
                "choose another --out"
            ) from None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = _holder(fd)
                if not wait:
                    raise OptionError(
                        f"--out {path}: {holder} is writing it; wait for it to end (drop "
                        "--no-wait), or choose another --out"
                    ) from None
                if not said:
                    say(f"mc-tco: waiting for {holder} to finish writing {path}")
                    said = True
                fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
                return None  # no locks on this file system: run without one
            raise
        except BaseException:
            os.close(fd)
            raise
        try:  # the holder before us may have removed the file we locked: lock the new one
            same = os.path.samestat(os.fstat(fd), os.stat(lock))
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)
