"""The section's numbers are computed once per results dataset, and its words say only
what they bear out."""

from __future__ import annotations

import math

from mc_tco.decision.why import pilot_at, why_numbers
from mc_tco.report.words.why import even_without, why_markdown


def test_why_is_computed_once_and_worded_from_its_numbers(default_run):
    w = why_numbers(default_run, 5e11)
    assert why_numbers(default_run, 5e11) is w and pilot_at(default_run, 5e11) is w.pilot
    from mc_tco.decision.rule import decide

    dec = decide(default_run, 5e11)
    assert (w.choice, w.best) == (dec.choice, dec.best_self) and w.decision == dec
    assert w.reasons[0].strategy == (w.choice if w.choice != "api" else w.best)
    assert all(r.stat == "mean" for r in w.reasons)  # verdicts read as the rule reads
    md = why_markdown(w)
    found = [t for t in w.triggers if t.found]
    revisit = [t for t in found if t.beyond != t.current]
    assert md.count("**Revisit when") == len(revisit)
    assert md.count("holds only while") == len(found) - len(revisit)
    for t in found:
        assert (t.threshold > t.now) == t.rising
        assert not math.isfinite(t.lower) or t.lower < t.threshold < t.upper
    for r in w.reasons:
        for k in r.removals:
            sentence = even_without(r, k)
            assert (sentence != "") == r.holds_without(k)
    assert ("don't run it" in md) == (not w.pilot.run_it)


def test_a_large_file_is_read_on_its_first_rows(default_run, monkeypatch):
    """Past MAX_ROWS scenarios the re-evaluations use the first MAX_ROWS (every scramble
    alike): the same numbers as the file cut there, and the section says so."""
    from mc_tco.decision import why as why_mod

    n = default_run.sizes["sample"]
    monkeypatch.setattr(why_mod, "MAX_ROWS", n // 2)
    big = default_run.copy()  # a new dataset: not cached
    w = why_numbers(big, 5e11)
    assert (w.rows, w.scenarios) == (n // 2, n)
    cut = why_numbers(default_run.isel(sample=slice(0, n // 2)), 5e11)
    assert [t.threshold for t in w.triggers] == [t.threshold for t in cut.triggers]
    assert w.pilot.worth.value == cut.pilot.worth.value
    assert f"first {n // 2:,} of the file's {n:,}" in why_markdown(w, in_summary=True)


def test_a_triggers_interval_is_said_as_its_thresholds(default_run):
    """"Revisit when the price falls below $0.0152/Mtok (the book assumes about
    $0.0778/Mtok, median, Monte Carlo interval $0.0124/Mtok to $0.0187/Mtok)" gave the
    threshold's interval after the median, which it does not hold: a reader took it for
    the median's. The interval now follows the threshold, named as its, and holds it."""
    import re

    from mc_tco.report.words.why import _value, trigger_line

    w = why_numbers(default_run, 5e11)
    found = [t for t in w.triggers if t.found and math.isfinite(t.lower)]
    assert found
    for t in found:
        line = trigger_line(t)
        threshold, lo, hi, now = (_value(v, t.unit) for v in
                                  (t.threshold, t.lower, t.upper, t.now))
        assert f"{threshold}** (that threshold's Monte Carlo interval: {lo} to {hi}; the " \
               f"book assumes about {now}, its median)" in line, line
        assert not re.search(r"median, Monte Carlo interval", line)
