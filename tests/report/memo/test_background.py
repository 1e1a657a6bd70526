"""The memo's figures drawn by child processes (:mod:`mc_tco.report.memo.background`): the
same bytes as drawn here, a failed, killed or stuck child's figure drawn here instead,
no child and no temporary folder left behind, and the environment's switch."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from matplotlib.ticker import FuncFormatter

from mc_tco.errors import OptionError
from mc_tco.report.memo import background as bg
from mc_tco.report.memo import figures as F

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")


@pytest.fixture(autouse=True)
def started(monkeypatch):
    """One worker; the pids of the children started."""
    monkeypatch.setenv("MC_TCO_FIGURE_WORKERS", "1")
    pids = []
    start = bg._Renderer._start

    def recorded(self, p):
        start(self, p)
        pids.append(p.pid)

    monkeypatch.setattr(bg._Renderer, "_start", recorded)
    return pids


def _figure(k: int):
    """A figure like the memo's: a log demand axis with its users on top, and a formatter
    that is a closure (it could not be pickled to another process)."""
    fig = F._figure(6, 3)
    ax = fig.add_subplot()
    x = np.logspace(10, 13, 50)
    ax.plot(x, np.sin(np.log(x) * (k + 1)), color=F.COLORS["buy"])
    F._demand_axis(ax, (x[0], x[-1]))
    scale = 10.0 ** k
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v * scale:.1f}"))
    ax.set_title(f"figure {k} — P(buy beats the API)")
    return fig


def _children_left(pids) -> bool:
    """Whether a child started is still running or not yet reaped."""
    assert pids, "no child was started"
    for pid in pids:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            continue
        return True
    return False


def test_figures_drawn_by_children_are_the_bytes_drawn_here(started):
    here = [F.to_png(_figure(k)) for k in range(4)]
    with bg.rendering():
        pending = [F.png(_figure(k)) for k in range(4)]
        assert all(isinstance(p, bg.Pending) for p in pending)
        got = [bg.resolve(p) for p in pending]
    assert got == here
    assert not _children_left(started)


def test_children_draw_the_first_figures_and_this_process_the_rest():
    me = os.getpid()

    def who(_fig) -> bytes:
        time.sleep(0.2)
        return str(os.getpid()).encode()

    with bg.rendering():
        pending = [bg.submit(None, who) for _ in range(4)]
        pids = [int(bg.resolve(p)) for p in pending]
    assert pids[0] != me  # a child took the first at once
    assert me in pids  # and this process drew from the end of the queue while it waited


def test_a_failed_or_stuck_child_has_its_figure_drawn_here(monkeypatch, started):
    me = os.getpid()

    def fails_in_a_child(_fig) -> bytes:
        if os.getpid() != me:
            raise RuntimeError("no font")
        return b"drawn here"

    def stuck_in_a_child(_fig) -> bytes:
        if os.getpid() != me:
            time.sleep(30)
        return b"drawn here"

    with bg.rendering():
        assert bg.resolve(bg.submit(None, fails_in_a_child)) == b"drawn here"
    monkeypatch.setattr(bg, "CHILD_TIMEOUT", 0.3)
    start = time.monotonic()
    with bg.rendering():
        assert bg.resolve(bg.submit(None, stuck_in_a_child)) == b"drawn here"
    assert time.monotonic() - start < 10
    assert not _children_left(started)


def test_an_error_mid_memo_kills_the_children_and_removes_their_folder(started):
    def slow(_fig) -> bytes:
        time.sleep(30)
        return b""

    with pytest.raises(KeyboardInterrupt), bg.rendering():
        bg.submit(None, slow)
        folder = bg._current.dir
        assert os.path.isdir(folder)
        raise KeyboardInterrupt
    assert not os.path.exists(folder)
    assert not _children_left(started)
    assert not bg.active()


def test_outside_rendering_or_with_no_workers_figures_are_drawn_at_once(monkeypatch):
    assert bg.submit(None, lambda _f: b"now") == b"now"
    monkeypatch.setenv("MC_TCO_FIGURE_WORKERS", "0")
    with bg.rendering():
        assert not bg.active()
        assert bg.submit(None, lambda _f: b"now") == b"now"
    with bg.rendering(enabled=False):
        assert not bg.active()


def test_a_bad_worker_count_is_one_line_naming_the_variable(monkeypatch):
    monkeypatch.setenv("MC_TCO_FIGURE_WORKERS", "two")
    with pytest.raises(OptionError, match=r"^MC_TCO_FIGURE_WORKERS='two': not a whole number"):
        bg.workers()


def test_no_child_starts_before_the_gate_opens(started):
    """``rendering(enabled=f)``: the figures wait until ``f()`` is True; if it never is,
    this process draws them all."""
    me = os.getpid()
    gate = {"open": False}

    def who(_fig) -> bytes:
        return str(os.getpid()).encode()

    with bg.rendering(lambda: gate["open"]):
        shut = [bg.submit(None, who) for _ in range(2)]
        assert started == []
        assert [int(bg.resolve(p)) for p in shut] == [me, me]
    with bg.rendering(lambda: gate["open"]):
        first = bg.submit(None, who)
        assert started == []
        gate["open"] = True
        second = bg.submit(None, who)
        assert len(started) == 1
        assert int(bg.resolve(first)) != me and bg.resolve(second)
    assert not _children_left(started)


def test_report_forks_no_child_while_its_compared_run_writes(monkeypatch):
    """``mc-tco report`` runs the article's book in a thread that writes its results file:
    a child forked then would hold that file's HDF5 lock (the thread's next open failed,
    "unable to lock file"). The memo's figures wait for the run to end."""
    import threading

    import xarray as xr

    from mc_tco.report.memo import report as rep

    seen = []
    release = threading.Event()

    def fake_build_memo(ds, *, compare, background_figures, **kw):
        seen.append(background_figures())  # the run is still writing
        release.set()
        compare.get()
        seen.append(background_figures())  # it has ended
        return "memo"

    monkeypatch.setattr(rep, "build_memo", fake_build_memo)

    def run_other():
        release.wait(10)
        return xr.Dataset()

    assert rep._memo_beside(xr.Dataset(), run_other) == "memo"
    assert seen == [False, True]
