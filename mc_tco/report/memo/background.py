"""The memo's figures drawn on the other cores while its sections are written.

A memo is mostly Python on one core; a third of its time is matplotlib drawing its figures
(laying out and rasterizing them: :func:`mc_tco.report.memo.figures.to_png`). Inside
:func:`rendering`, ``to_png`` does not draw: it returns a :class:`Pending` figure and a
forked child process draws it (the child has the figure in its copy of the memory: a
figure with formatter closures need not be pickled), writes the PNG bytes to a private
temporary folder and exits; the parent goes on with the next section. At the end
(:func:`resolve`) the parent draws the figures no child has started yet, from the last,
while the children take them from the first, and reads what the children wrote.

A child has a copy of every file descriptor of the parent, and with it their locks: the
parent must not fork while another of its threads writes an HDF5 file (its lock, held by
the child's copy, would make that thread's next open of the file fail). ``mc-tco memo``
only reads files; ``mc-tco report`` starts no child before its compared run has ended
(``enabled=done``, :func:`rendering`).

The bytes are the same as drawn in the parent: the same figure, the same code (a test
compares the memo's files). Where a child fails, is killed or runs past
:data:`CHILD_TIMEOUT`, the parent draws that figure itself, so a figure is never lost; where
``os.fork`` is missing or fails, or the machine has one core, everything is drawn in the
parent as before. Children ignore Ctrl-C (the parent's ``KeyboardInterrupt`` kills them
and removes their folder as it leaves :func:`rendering`).

Only ``mc-tco memo`` and ``mc-tco report`` turn it on (``build_memo(...,
background_figures=True)``): a library caller or the app's server threads draw in their
own process, as before.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from mc_tco.errors import OptionError

__all__ = ["CHILD_TIMEOUT", "Pending", "active", "rendering", "resolve", "submit", "workers"]

#: seconds after which a child still drawing one figure is killed and the parent draws it
CHILD_TIMEOUT = 120.0

_current: _Renderer | None = None


def workers() -> int:
    """Child processes that draw figures: on Linux the cores this process may use, less
    the one that writes the sections (0: draw in the parent; at most 3), or the
    environment's ``MC_TCO_FIGURE_WORKERS`` (a whole number; 0 draws every figure in the
    parent)."""
    env = os.environ.get("MC_TCO_FIGURE_WORKERS", "").strip()
    if env:
        try:
            return max(0, int(env)) if hasattr(os, "fork") else 0
        except ValueError:
            raise OptionError(f"MC_TCO_FIGURE_WORKERS={env!r}: not a whole number; set it "
                              "to 0 (draw the figures in this process), 1, 2, ...") from None
    if not sys.platform.startswith("linux"):  # (where it is tested; macOS's system
        return 0  # libraries are not safe in a forked child: set the variable to try)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(0, min(cores - 1, 3))


@dataclass(eq=False)
class Pending:
    """A figure being drawn; :func:`resolve` gives its PNG bytes."""

    fig: Any
    render: Callable[[Any], bytes]
    path: str
    pid: int = 0
    started: float = 0.0
    png: bytes | None = None
    owner: _Renderer | None = field(default=None, repr=False)


class _Renderer:
    def __init__(self, n: int, may_fork: Callable[[], bool] | None = None) -> None:
        self.n = n
        self.may_fork = may_fork
        self.dir = tempfile.mkdtemp(prefix="mc_tco_figures_")
        self.queue: deque[Pending] = deque()
        self.running: dict[int, Pending] = {}
        self.count = 0

    def submit(self, fig: Any, render: Callable[[Any], bytes]) -> Pending:
        self.count += 1
        p = Pending(fig, render, os.path.join(self.dir, f"{self.count}.png"), owner=self)
        self.queue.append(p)
        self._pump()
        return p

    def _pump(self) -> None:
        self._reap(block=False)
        if self.may_fork is not None:
            if not self.may_fork():
                return
            self.may_fork = None
        while self.queue and len(self.running) < self.n:
            self._start(self.queue.popleft())

    def _start(self, p: Pending) -> None:
        try:
            with warnings.catch_warnings():  # (3.12+: "use of fork() may lead to deadlocks":
                warnings.simplefilter("ignore", DeprecationWarning)  # the child draws only)
                pid = os.fork()
        except OSError:
            p.png = p.render(p.fig)
            return
        if pid == 0:  # the child: draw, write, leave without running the parent's code
            code = 1
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                data = p.render(p.fig)
                tmp = p.path + ".part"
                with open(tmp, "wb") as f:
                    f.write(data)
                os.rename(tmp, p.path)
                code = 0
            except BaseException:  # (the parent draws it instead)
                pass
            finally:
                os._exit(code)
        p.pid, p.started = pid, time.monotonic()
        self.running[pid] = p

    def _reap(self, block: bool) -> None:
        """Collect the children that have ended (with ``block``, wait for one); kill a
        child past :data:`CHILD_TIMEOUT`."""
        while self.running:
            for pid, p in list(self.running.items()):
                done = _wait(pid, os.WNOHANG)
                if not done and time.monotonic() - p.started > CHILD_TIMEOUT:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
                    done = _wait(pid, 0)
                if done:
                    del self.running[pid]
                    self._collect(p)
                    block = False
            if not block:
                return
            time.sleep(0.005)

    def _collect(self, p: Pending) -> None:
        try:
            with open(p.path, "rb") as f:
                p.png = f.read()
        except OSError:  # (the child failed or was killed: draw it here)
            p.png = p.render(p.fig)
        p.fig = None

    def finish(self) -> None:
        """Every figure drawn: the parent takes the queue's last while children take its
        first (all of them while ``may_fork`` says no)."""
        while self.queue or self.running:
            self._pump()
            if self.queue:
                p = self.queue.pop()
                p.png = p.render(p.fig)
                p.fig = None
            elif self.running:
                self._reap(block=True)

    def close(self) -> None:
        for pid in list(self.running):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.waitpid(pid, 0)
        self.running.clear()
        self.queue.clear()
        shutil.rmtree(self.dir, ignore_errors=True)


def _wait(pid: int, flags: int) -> bool:
    """Whether the child ``pid`` has ended (reaped here, or already by someone else)."""
    try:
        return os.waitpid(pid, flags)[0] != 0
    except ChildProcessError:
        return True


def active() -> bool:
    """Whether :func:`submit` draws in the background (inside :func:`rendering`)."""
    return _current is not None


def submit(fig: Any, render: Callable[[Any], bytes]) -> Pending | bytes:
    """``render(fig)`` in a child process (a :class:`Pending`), or at once outside
    :func:`rendering`."""
    if _current is None:
        return render(fig)
    return _current.submit(fig, render)


def resolve(png: Pending | bytes) -> bytes:
    """The PNG bytes of a figure from :func:`submit` (waiting for all that are pending:
    the parent helps draw them)."""
    if isinstance(png, Pending):
        if png.png is None and png.owner is not None:
            png.owner.finish()
        if png.png is None:  # (its renderer was closed before: draw it here)
            png.png = png.render(png.fig)
        return png.png
    return png


@contextlib.contextmanager
def rendering(enabled: bool | Callable[[], bool] = True) -> Iterator[None]:
    """Draw the figures of ``to_png`` in child processes until the block ends (nested:
    the outer one's). Children still running at its end (an error, Ctrl-C) are killed and
    their folder removed.

    ``enabled`` may be a function: no child is started before it returns True (the
    figures wait in the queue). ``mc-tco report`` passes its compared run's ``done``: a
    child holds a copy of every file descriptor of this process, and with it the HDF5
    file lock of a results file that another thread has open for writing, which would
    make that thread's next open of the file fail ("unable to lock file").
    """
    global _current
    n = workers() if enabled else 0
    if _current is not None or n == 0:
        yield
        return
    r = _current = _Renderer(n, enabled if callable(enabled) else None)
    try:
        yield
    finally:
        _current = None
        r.close()
