"""The explorer's kept input values (mc_tco.app.input_values): the base rows' ppf of the
inputs a change did not touch, computed once, the same values and rows."""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.app.input_values import InputValues
from mc_tco.book import loads_book
from mc_tco.engine import evaluate_base, plan_run
from tests.paths import DEFAULT_BOOK

TEXT = DEFAULT_BOOK.read_text(encoding="utf-8")


class Counted:
    """An input whose ppf calls are counted (the rest is the input's)."""

    def __init__(self, inp, calls):
        self.inp, self.calls = inp, calls
        self.dist = inp.dist

    def ppf(self, u):
        self.calls.append(self.inp.name)
        return self.inp.ppf(u)


def test_a_change_computes_the_values_of_the_changed_input_alone_and_the_same_rows():
    values = InputValues()
    plans = [plan_run(loads_book(text, "b.toml"), samples=64, seed=3, shapley=False)
             for text in (TEXT, TEXT.replace("low = 400000", "low = 399000", 1))]
    calls: list[str] = []

    def counted(inp, u):
        return values(Counted(inp, calls), u)

    for plan in plans:
        kept = evaluate_base(plan, 0, 64, set(plan.targets), ppf=counted)
        xr.testing.assert_identical(kept, evaluate_base(plan, 0, 64, set(plan.targets)))
    n = len(plans[0].book.uncertain)
    assert len(calls) == n + 1 and calls[-1] == "node_price"  # the second: node_price alone


def test_another_column_or_distribution_is_computed_and_the_oldest_dropped_by_size():
    book = loads_book(TEXT, "b.toml")
    a, b = book.uncertain[:2]
    u = np.linspace(0.01, 0.99, 100)
    values = InputValues(max_bytes=2 * 2 * u.nbytes)  # room for two columns
    first = values(a, u)
    np.testing.assert_array_equal(first, a.ppf(u))
    assert values(a, u) is first and not first.flags.writeable
    assert values(a, u[::-1].copy()) is not first  # another column
    np.testing.assert_array_equal(values(b, u), b.ppf(u))  # another distribution
    assert len(values.kept) == 2 and values.bytes == 2 * 2 * u.nbytes
    assert values(a, u) is not first  # dropped (the oldest) and computed again


def test_the_base_rows_in_one_call_or_two_halves_are_the_same(monkeypatch):
    from mc_tco.app import bridge

    book = loads_book(TEXT, "b.toml")
    bridge.check_book(book)
    runs = []
    for free in (2.0, 0.0):  # a core free: two halves on two threads; else one call
        monkeypatch.setattr(bridge, "_cores_free", lambda free=free: free)
        ds = bridge.base_run(book, 256, 1, breakeven=False)
        ds.attrs.pop("created")
        runs.append(ds)
    xr.testing.assert_identical(*runs)


def test_the_break_even_stage_on_the_answers_rows_is_the_whole_base_run(monkeypatch):
    """Stage "base" computes the break-even demands on the answer's rows (runs.py passes
    them): the dataset is the one computed from nothing, and only the distributions (with
    the targets the engine checks) are asked of the model."""
    from mc_tco.app import bridge

    book = loads_book(TEXT, "b.toml")
    bridge.check_book(book)
    answer = bridge.base_run(book, 128, 4, breakeven=False)
    whole = bridge.base_run(book, 128, 4)
    asked: list[set] = []
    real = evaluate_base

    def spy(plan, start=0, stop=None, outputs=None, ppf=None):
        asked.append(set(outputs))
        return real(plan, start, stop, outputs, ppf)

    monkeypatch.setattr("mc_tco.engine.evaluate_base", spy)  # (bridge imports it per call)
    reused = bridge.base_run(book, 128, 4, answer=answer)
    for ds in (whole, reused):
        ds.attrs.pop("created")
    xr.testing.assert_identical(whole, reused)
    assert asked and all(a == {"saving", "breakeven_demand"} for a in asked)
    assert "breakeven_demand" not in answer and "breakeven_demand" in reused
