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
