"""The progress lines of a long run (not a terminal): each says the share done, the seconds
elapsed and an estimate of what is left, never "~nans left" before anything is done."""

from __future__ import annotations

import time

from mc_tco.cli._common import Progress


def test_a_line_before_anything_is_done_says_no_estimate_yet(capsys, monkeypatch):
    """Nor after the first report alone: its block paid the warm-up (at 2.3% of a 6 s
    family check it said ~79 s left); the pace is measured from it."""
    p = Progress("sampling", delay=0.0)
    p.tty = False
    clock = iter([100.0, 100.0, 112.0, 124.0, 136.0])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    p.start = time.monotonic()
    p(0, 10)
    p(5, 10)  # 12 s for the first half: its pace is not known yet (the warm-up)
    p(6, 10)  # 12 s for the next tenth: 4 tenths left
    p(10, 10)
    err = capsys.readouterr().err.splitlines()
    assert err == ["sampling:   0.0%     0.0s elapsed, time left not known yet",
                   "sampling:  50.0%    12.0s elapsed, time left not known yet",
                   "sampling:  60.0%    24.0s elapsed, ~48.0s left",
                   "sampling: 100.0%    36.0s elapsed, ~0.0s left"]
    assert "nan" not in " ".join(err)


def test_the_time_left_counts_from_when_the_counted_work_started(capsys, monkeypatch):
    """A run's family check takes 9 s before its samples start (``progress(0, total)``,
    sent by the engine: tests/engine/test_stages.py): 15 of 32 chunks in the 10 s after
    the first leave ~10.7 s, not ~19.3 s (at 3% it said ~290 s left of a 9 s stage), and
    the seconds elapsed are the samples' own."""
    p = Progress("[2/3] article", delay=0.0)
    p.tty = False
    clock = iter([0.0, 9.0, 9.3, 19.3])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    p.start = time.monotonic()
    p(0, 32)
    p(1, 32)  # (within 10 s of the last line: not printed)
    p(16, 32)
    assert capsys.readouterr().err.splitlines() == [
        "[2/3] article:   0.0%     0.0s elapsed, time left not known yet",
        "[2/3] article:  50.0%    10.3s elapsed, ~10.7s left",
    ]


def test_nothing_done_after_a_line_keeps_the_seconds_elapsed(capsys, monkeypatch):
    """Once a line is out, a later ``progress(0, total)`` (the next stage of a doubling
    run) restarts only the estimate's pace, not the seconds already said."""
    p = Progress("sampling", delay=0.0)
    p.tty = False
    clock = iter([0.0, 1.0, 5.0, 6.0, 30.0])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    p.start = time.monotonic()
    p(0, 10)  # at 1 s: shown, its seconds from here
    p(0, 10)  # at 5 s: the pace counts from here; the seconds elapsed do not restart
    p(1, 10)
    p(5, 10)  # 4 in 24 s since the first report: 5 more in 30 s
    assert capsys.readouterr().err.splitlines() == [
        "sampling:   0.0%     0.0s elapsed, time left not known yet",
        "sampling:  50.0%    29.0s elapsed, ~30.0s left",
    ]


def test_a_line_waits_its_delay_from_when_the_counted_work_starts(capsys, monkeypatch):
    """A label created long before its work (the sampling, after a family check) shows
    nothing until ``delay`` seconds after ``progress(0, total)``."""
    p = Progress("sampling", delay=1.5)
    p.tty = False
    clock = iter([0.0, 9.0, 9.5, 12.0])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    p.start = time.monotonic()
    p(0, 10)  # at 9 s: nothing shown (its delay starts now)
    p(1, 10)  # 0.5 s later: within the delay
    p(5, 10)  # 3 s later: shown, 3 s elapsed; 4 in 2.5 s since the first report
    assert capsys.readouterr().err.splitlines() == [
        "sampling:  50.0%     3.0s elapsed, ~3.1s left"]


def test_no_time_left_from_a_burst_of_reports(capsys, monkeypatch):
    """Two workers finish 0.1 s apart: that pace says nothing of the rest (a family
    check's line said ~0.8 s left at 10%, and took 3 s more). The estimate waits for a
    report a second or more after the first."""
    p = Progress("family check", delay=1.5)
    p.tty = False
    clock = iter([0.0, 1.4, 1.5, 12.0, 22.0])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    p.start = time.monotonic()
    p(1, 20)  # the first report (within the delay)
    p(2, 20)  # 0.1 s later: shown, no pace yet
    p(10, 20)  # 10.6 s after the first: 9 done in 10.6 s, 10 left
    p(20, 20)
    assert capsys.readouterr().err.splitlines() == [
        "family check:  10.0%     1.5s elapsed, time left not known yet",
        "family check:  50.0%    12.0s elapsed, ~11.8s left",
        "family check: 100.0%    22.0s elapsed, ~0.0s left",
    ]
