"""The progress lines of a long run (not a terminal): each says the share done, the seconds
elapsed and an estimate of what is left, never "~nans left" before anything is done."""

from __future__ import annotations

import time

from mc_tco.cli._common import Progress


def test_a_line_before_anything_is_done_says_no_estimate_yet(capsys, monkeypatch):
    p = Progress("sampling", delay=0.0)
    p.tty = False
    clock = iter([100.0, 100.0, 112.0, 124.0])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    p.start = time.monotonic()
    p(0, 10)
    p(5, 10)
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "sampling:   0.0%     0.0s elapsed, time left not known yet"
    assert err[1] == "sampling:  50.0%    12.0s elapsed, ~12.0s left"
    assert "nan" not in " ".join(err)


def test_the_time_left_counts_from_when_the_counted_work_started(capsys, monkeypatch):
    """A run's family check takes 9 s before its samples start (``progress(0, total)``):
    half the samples 10.3 s later leave ~10.3 s, not ~19.3 s (at 3% it said ~290 s left
    of a 9 s stage)."""
    p = Progress("[2/3] article", delay=0.0)
    p.tty = False
    clock = iter([0.0, 9.0, 9.3, 19.3])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    p.start = p.counting_from = time.monotonic()
    p(0, 32)
    p(1, 32)  # (within 10 s of the last line: not printed)
    p(16, 32)
    assert capsys.readouterr().err.splitlines() == [
        "[2/3] article:   0.0%     9.0s elapsed, time left not known yet",
        "[2/3] article:  50.0%    19.3s elapsed, ~10.3s left",
    ]
