"""Stop a run on Ctrl-C (SIGINT) or SIGTERM, every time.

A signal handler raises :class:`KeyboardInterrupt` where the main thread happens to be.
When that is inside a ``__del__`` method, a weakref callback or a library's ``except
BaseException``, Python or the library swallows it and the run would go on to the end (a
Ctrl-C about 3 s into a default run was lost this way: the first write of the results file
runs h5py and xarray finalizers). So the handler also sets a flag, and the engine calls
:func:`check` between chunks and before it renames the results file into place: a signal
that was swallowed is raised again there, and nothing is written. Where Python drops an
exception it reports it to :data:`sys.unraisablehook` ("Exception ignored in ...", with a
traceback): a finalizer, or a ctypes callback (a Ctrl-C while numba's LLVM object cache
called back into Python printed one and was dropped); :func:`install` and
:func:`stop_on_signals` put a hook there that keeps an :class:`Interrupted` quiet (the flag
raises it at the next :func:`check`) and hands every other exception to the hook before it.

The rename of the results file and of its backup must not be cut in two: within
:func:`deferred` a signal waits until both are done (:func:`mc_tco.results.io.atomic_path`); the
command then says which files were written (:func:`written`). Tests stop a write at a
named point with ``MC_TCO_TEST_SIGNAL`` (:func:`signal_point`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType

__all__ = [
    "Interrupted",
    "check",
    "deferred",
    "install",
    "received",
    "signal_point",
    "stop_on_signals",
    "written",
    "wrote",
]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []
#: the files this process renamed into place (a signal after that must not say "nothing
#: was written")
_written: list[str] = []
#: ``MC_TCO_TEST_SIGNAL=<point>:<signal>``: at that named point of the write path
#: (:func:`signal_point`) the process sends itself that signal. For tests only; it names a
#: point and a signal, nothing else (no code, no file).
TEST_SIGNAL = "MC_TCO_TEST_SIGNAL"
TEST_POINTS = ("before-backup", "after-backup", "after-rename", "store-write", "command")
_TEST_SIGNALS = {"SIGINT": signal.SIGINT, "SIGTERM": signal.SIGTERM, "SIGKILL": signal.SIGKILL,
                 "SIGSTOP": signal.SIGSTOP}  # SIGSTOP: a test acts, then sends SIGCONT


class Interrupted(KeyboardInterrupt):
    """The run was stopped by a signal; ``signum`` says which (SIGINT or SIGTERM)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """The shell's exit code of a process ended by the signal: 128 + its number."""
        return 128 + self.signum


def _in_finalizer(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs a finalizer, where Python would print and drop an exception."""
    for _ in range(4):
        if frame is None:
            return False
        code = frame.f_code
        if code.co_name == "__del__" or code.co_filename.endswith(
            ("weakref.py", "_weakrefset.py")
        ):
            return True
        frame = frame.f_back
    return False


def _handler(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if len(_received) == 1 and _in_finalizer(frame):
        return  # raised at the next check() instead: a finalizer would swallow it
    raise Interrupted(signum)


def _quiet_interrupt(unraisable: sys.UnraisableHookArgs) -> None:
    """An :class:`Interrupted` that Python dropped is kept for :func:`check`; any other
    exception goes to the hook that was in place before."""
    if isinstance(unraisable.exc_value, Interrupted) and _received:
        return
    _previous_unraisable_hook(unraisable)


_previous_unraisable_hook = sys.unraisablehook


def _hook_unraisable() -> None:
    global _previous_unraisable_hook
    if sys.unraisablehook is not _quiet_interrupt:
        _previous_unraisable_hook = sys.unraisablehook
        sys.unraisablehook = _quiet_interrupt


def check() -> None:
    """Raise :class:`Interrupted` if a signal arrived since :func:`stop_on_signals` began."""
    if _received:
        raise Interrupted(_received[0])


def install() -> None:
    """For a whole process (the ``mc-tco`` command): SIGINT and SIGTERM raise
    :class:`Interrupted`, or, inside a finalizer, are kept for the next :func:`check`.
    Installed before the heavy imports, so a Ctrl-C while the program starts is not lost
    either (one landed in numpy's ``NpzFile.__del__`` and was dropped)."""
    _hook_unraisable()
    for s in _SIGNALS:
        signal.signal(s, _handler)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """Within the block, SIGINT and SIGTERM raise :class:`Interrupted` (and are remembered
    for :func:`check`). Outside the main thread, or nested, it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in _SIGNALS}
    if all(h is _handler for h in previous.values()):  # nested: the outer block handles it
        yield
        return
    _received.clear()
    _hook_unraisable()
    for s in _SIGNALS:
        signal.signal(s, _handler)
    try:
        yield
        check()
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        _received.clear()


@contextlib.contextmanager
def deferred() -> Iterator[list[int]]:
    """Within the block SIGINT and SIGTERM are only recorded (in the list it yields); when
    it ends, the first one not taken from the list is delivered to the handler that was in
    place before. For steps that must not be cut in two (the renames of
    :func:`mc_tco.results.io.atomic_path`). Outside the main thread it changes nothing."""
    pending: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield pending
        return
    previous = {s: signal.getsignal(s) for s in _SIGNALS}

    def hold(signum: int, frame: FrameType | None) -> None:
        pending.append(signum)

    for s, h in previous.items():
        if h is not signal.SIG_IGN:
            signal.signal(s, hold)
    try:
        yield pending
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
        if pending:
            signal.raise_signal(pending[0])


def wrote(path: str | os.PathLike[str]) -> None:
    """Record that ``path`` was renamed into place (see :func:`written`)."""
    _written.append(str(path))


def received() -> list[int]:
    """The signals (SIGINT, SIGTERM) this process's handler has received so far."""
    return list(_received)


def written(clear: bool = False) -> list[str]:
    """The files this process has written since it began (or since ``clear=True``)."""
    files = list(_written)
    if clear:
        _written.clear()
    return files


def signal_point(name: str) -> None:
    """A named point of the write path (:data:`TEST_POINTS`; "command": as the command's
    module is imported, before its own handling of signals). Nothing happens unless the
    environment variable :data:`TEST_SIGNAL` is ``<name>:<SIGINT|SIGTERM|SIGKILL|SIGSTOP>``: then
    the process sends itself that signal here, so a test can stop a write at exactly this
    point."""
    spec = os.environ.get(TEST_SIGNAL)
    if not spec:
        return
    point, _, name_of_signal = spec.partition(":")
    if point == name and name_of_signal in _TEST_SIGNALS:
        os.kill(os.getpid(), _TEST_SIGNALS[name_of_signal])
