"""The report's compared book runs while the memo's own sections are written: the memo
is the same as with the compared results given up front, the sections that read them
are written last (in their place), and an error or a signal on either side ends both."""

from __future__ import annotations

import shlex
import threading
import time

import pytest
import xarray as xr

from mc_tco.report.memo import build_memo
from mc_tco.report.memo import report as rep
from mc_tco.report.memo.base import MemoBase, run_sections
from mc_tco.report.memo.context import Later
from mc_tco.report.memo.render import Paragraph, Section
from mc_tco.results.io import open_results


def test_later_is_made_once_across_threads():
    made = []

    def make():
        time.sleep(0.05)
        made.append(1)
        return xr.Dataset({"x": 1})

    later = Later(make)
    got = []
    threads = [threading.Thread(target=lambda: got.append(later.get())) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert made == [1] and len(got) == 4 and all(g is got[0] for g in got)


def test_sections_marked_last_are_written_last_and_placed_in_order():
    calls = []

    def make(title):
        def section(c):
            calls.append(title)
            return Section(title, [Paragraph(title)], title)
        return section

    one, two, three, four = (make(t) for t in ("one", "two", "three", "four"))
    out = run_sections(MemoBase(xr.Dataset()), [one, two, three, four], {"three": "C"},
                       last=(two, four))
    assert calls == ["one", "three", "two", "four"]
    assert [s.title for s in out] == ["one", "two", "Appendix C. three", "four"]


def test_the_memo_with_its_comparison_made_later_is_the_same(compared_memo, no_png):
    """``build_memo(compare=Later(...))`` writes what ``mc-tco memo A --compare B`` wrote."""
    folder, _, _, _ = compared_memo
    written = (folder / "memo.md").read_text()
    a, b = (open_results(p) for p in _paths(written))
    asked = []

    def compared():
        asked.append(1)
        return b

    created = next(line for line in written.splitlines() if "| memo written |" in line)
    command = next(line.split("`")[1] for line in written.splitlines()
                   if line.startswith("Regenerate this memo with:"))
    args = shlex.split(command)
    memo = build_memo(a, compare=Later(compared), command=command,
                      paths={"results": args[2], "compare": args[4]},
                      created=created.split("|")[2].strip())
    assert asked == [1]
    assert memo.markdown == written


def _paths(md: str) -> tuple[str, str]:
    command = next(line.split("`")[1] for line in md.splitlines()
                   if line.startswith("Regenerate this memo with:"))
    args = shlex.split(command)
    return args[2], args[4]


def test_an_error_of_the_compared_run_is_the_reports(monkeypatch):
    def failing():
        raise RuntimeError("disk full")

    monkeypatch.setattr(rep, "build_memo", lambda ds, compare, **kw: compare.get())
    with pytest.raises(RuntimeError, match="disk full"):
        rep._memo_beside(xr.Dataset(), failing)


def test_an_error_of_the_memo_waits_for_the_compared_run(monkeypatch):
    ended = []

    def slow_run():
        time.sleep(0.3)
        ended.append(1)
        return xr.Dataset()

    def failing_memo(ds, compare, **kw):
        raise ValueError("a bug in a section")

    monkeypatch.setattr(rep, "build_memo", failing_memo)
    with pytest.raises(ValueError, match="a bug"):
        rep._memo_beside(xr.Dataset(), slow_run)
    assert ended == [1]  # the run ended (its file complete or removed) before the error


def test_a_ctrl_c_during_the_memo_stops_the_compared_run_too(monkeypatch):
    """The signal raises in the memo (the main thread); the compared run sees it at its
    next check, as a run's chunks do, and ends before the report does."""
    import os
    import signal

    from mc_tco import interrupt

    how = []

    def run_until_stopped():
        try:
            for _ in range(500):
                interrupt.check()
                time.sleep(0.01)
        except interrupt.Interrupted:
            how.append("stopped")
            raise
        how.append("ran to the end")
        return xr.Dataset()

    def memo_hit_by_ctrl_c(ds, compare, **kw):
        time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)  # (the handler raises here)

    monkeypatch.setattr(rep, "build_memo", memo_hit_by_ctrl_c)
    with pytest.raises(interrupt.Interrupted):
        rep._memo_beside(xr.Dataset(), run_until_stopped)
    assert how == ["stopped"]
