"""The demand grid's unit is checked as the inputs' units are (item 11): a pure scale of
the model's unit is converted with a note, another measure is refused naming the units
accepted, and a grid dim the model does not use is refused naming the model's dims."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from click.testing import CliRunner

from mc_tco.book import load_book, loads_book
from mc_tco.cli import main
from mc_tco.errors import BookError
from mc_tco.models import check_book
from mc_tco.models.tco import DAYS_PER_MONTH, SPEC
from mc_tco.results.io import open_results
from tests.paths import ARTICLE_BOOK, DEFAULT_BOOK

TEXT = DEFAULT_BOOK.read_text(encoding="utf-8")
GRID = ('start = 1e9\nstop = 1e13\nnum = 41\nspacing = "log"\ninclude = [2.5e11]   # half '
        "the memo's default demand, exact (the summary's ½× column)\nunit = \"tokens/month\"")
assert GRID in TEXT
UNIT_LINE = TEXT[: TEXT.index(GRID)].count("\n") + 2  # values, then unit


def _book(values: str, unit: str, analysis: str = "") -> str:
    text = TEXT.replace(GRID, f"values = {values}\nunit = \"{unit}\"", 1)
    return text.replace('targets = ["saving"]\n', f'targets = ["saving"]\n{analysis}', 1)


@pytest.mark.parametrize(("unit", "factor", "shown"), [
    ("Btok/month", 1e9, "x 1e+09"),
    ("Mtok/month", 1e6, "x 1e+06"),
    ("Ttok/month", 1e12, "x 1e+12"),
    ("tokens/day", DAYS_PER_MONTH, f"x {DAYS_PER_MONTH:g}"),
])
def test_a_scale_of_the_models_unit_is_converted_with_a_note(unit, factor, shown):
    book = loads_book(_book("[100, 500, 1000]", unit), "b.toml")
    notes = check_book(book, SPEC)
    grid = book.grid["demand"]
    np.testing.assert_allclose(grid.values, np.array([100, 500, 1000]) * factor, rtol=1e-12)
    assert grid.unit == "tokens/month"
    note = f"given in {unit}, converted to tokens/month ({shown})"
    assert grid.unit_note == note and notes[0] == f"grid.demand: {note}"


def test_report_and_focus_points_are_read_in_the_grids_unit():
    book = loads_book(_book("[100, 500, 1000]", "Btok/month",
                            "focus = { demand = 500 }\nreport = { demand = [100, 1000] }\n"))
    check_book(book, SPEC)
    assert book.analysis["focus"]["demand"] == 5e11
    assert book.analysis["report"]["demand"] == [1e11, 1e12]


@pytest.mark.parametrize("unit", ["USD", "tokens", "GPU-hour/month", "tokens per month"])
def test_a_unit_of_another_measure_is_refused_naming_the_units_accepted(unit):
    book = loads_book(_book("[100, 500, 1000]", unit), "b.toml")
    with pytest.raises(BookError) as exc:
        check_book(book, SPEC)
    assert str(exc.value) == (
        f"b.toml:{UNIT_LINE}: grid.demand.unit: unit '{unit}' is not a unit of the model's "
        "demand (tokens/month); give the values in one of tokens/month, ktok/month, "
        "Mtok/month, Btok/month, Ttok/month, tokens/year, tokens/day and write it as the unit")


def test_days_are_refused_when_the_model_does_not_say_its_month():
    spec = dataclasses.replace(SPEC, days_per_month=None)
    book = loads_book(_book("[1e9]", "tokens/day"), "b.toml")
    with pytest.raises(BookError, match=r"unit 'tokens/day' is not a unit of the model's "
                                        r"demand \(tokens/month\); the model does not say how "
                                        r"many days its month has"):
        check_book(book, spec)
    with pytest.raises(BookError) as exc:
        check_book(loads_book(_book("[1e9]", "USD")), spec)
    assert "tokens/day" not in str(exc.value)  # not among the units accepted


def test_an_unused_grid_dim_is_refused_naming_the_models_dims():
    text = TEXT.replace("[analysis]", "[grid.region]\nvalues = [1, 2]\n\n[analysis]", 1)
    line = text[: text.index("[grid.region]")].count("\n") + 1
    with pytest.raises(BookError) as exc:
        check_book(loads_book(text, "b.toml"), SPEC)
    assert str(exc.value) == (f"b.toml:{line}: grid.region: the model has no grid dimension "
                              "'region' (its grid: demand) and the book no input "
                              "'region', so [grid.region] would be dropped; remove it, or "
                              "name an input to fix it at each value")


@pytest.mark.parametrize("path", [DEFAULT_BOOK, ARTICLE_BOOK], ids=lambda p: p.stem)
def test_the_shipped_books_grids_are_unchanged(path):
    book = load_book(path)
    before = {d: g.values.copy() for d, g in book.grid.items()}
    assert not any(n.startswith("grid.") for n in check_book(book, SPEC))
    for dim, grid in book.grid.items():
        assert np.array_equal(grid.values, before[dim]) and grid.unit_note == ""


@pytest.mark.slow
def test_a_grid_in_btok_runs_the_same_numbers_as_in_tokens(tmp_path):
    runner = CliRunner()
    results = {}
    for name, values, unit in (("tok", "[1e11, 5e11, 1e12]", "tokens/month"),
                               ("btok", "[100, 500, 1000]", "Btok/month")):
        path = tmp_path / f"{name}.toml"
        path.write_text(_book(values, unit), encoding="utf-8")
        res = runner.invoke(main, ["run", str(path), "-n", "64",
                                   "-o", str(tmp_path / f"{name}.nc")])
        assert res.exit_code == 0, res.output
        note = f"mc-tco: note: {path}: grid.demand: given in Btok/month, converted to "
        assert (note in res.stderr) == (name == "btok")
        assert "demand (tokens/month)" in res.stdout and "Btok" not in res.stdout
        results[name] = open_results(tmp_path / f"{name}.nc")
    a, b = results["tok"], results["btok"]
    np.testing.assert_array_equal(a["demand"].values, b["demand"].values)
    np.testing.assert_array_equal(a["saving"].values, b["saving"].values)
