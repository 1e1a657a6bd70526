"""Any input as a grid dim (issue 25 item 9): ``[grid.node_price] values = [...]`` runs
the model at each value with node_price fixed, on the same samples of the others.

The reference at each value is a run of the same book with node_price a constant there
(same seed): every variable of the results, Sobol' indices included, must be bit-equal.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from mc_tco.book import loads_book
from mc_tco.errors import OptionError
from tests.paths import ARTICLE_BOOK

VALUES = (300000.0, 450000.0, 600000.0)
SAMPLES, SEED = 64, 5
GRID = "[grid.node_price]\nvalues = [300000, 450000, 600000]\n\n"
SAMPLED = 'dist = "uniform"\nlow = 400000\nhigh = 550000'


def _text(grid: bool = True, value: float | None = None) -> str:
    """The article's book on three demands, with node_price a grid (or a constant)."""
    text = ARTICLE_BOOK.read_text()
    text = re.sub(r"\[grid\.demand\].*?\n\n", '[grid.demand]\nvalues = [5e11, 2e12]\n'
                  'unit = "tokens/month"\n\n' + (GRID if grid else ""), text, count=1,
                  flags=re.S)
    assert SAMPLED in text
    if value is not None:
        text = text.replace(SAMPLED, f'dist = "constant"\nvalue = {value:g}')
    return text


@pytest.fixture(scope="module")
def grid_run():
    from mc_tco.engine import run

    return run(loads_book(_text(), "tiny_grid.toml"), samples=SAMPLES, seed=SEED)


@pytest.fixture(scope="module")
def fixed_runs():
    from mc_tco.engine import run

    return {v: run(loads_book(_text(grid=False, value=v), "fixed.toml"), samples=SAMPLES,
                   seed=SEED) for v in VALUES}


def test_the_book_reads_the_grid_as_an_input_fixed_at_each_value():
    book = loads_book(_text(), "tiny_grid.toml")
    inp = book.inputs["node_price"]
    assert inp.is_grid and not inp.is_sampled
    assert list(inp.grid_values) == list(VALUES)
    assert "node_price" not in [i.name for i in book.uncertain]
    assert "node_price" not in book.grid  # not a grid dim of the model
    assert "uniform(low=400000, high=550000) set aside" in inp.describe()
    assert inp.support() == (VALUES[0], VALUES[-1])


def test_each_value_equals_a_run_with_the_input_fixed_there(grid_run, fixed_runs):
    assert grid_run["node_price"].attrs["units"] == "USD"
    assert grid_run["saving"].dims[:2] == ("sample", "node_price")
    assert grid_run["ST"].dims[:3] == ("target", "input", "node_price")
    for v, fixed in fixed_runs.items():
        at = grid_run.sel(node_price=v)
        for name, var in fixed.data_vars.items():
            assert name in at, name
            got = at[name].transpose(*var.dims)
            np.testing.assert_array_equal(got.values, var.values, err_msg=name)
        assert set(at.data_vars) == set(fixed.data_vars)


def test_the_values_are_paired_on_the_same_scenarios(grid_run):
    """Common random numbers: the other inputs are the same rows at every value, so a
    dearer node lowers buy's saving in every scenario (and leaves rent's unchanged)."""
    buy = grid_run["saving"].sel(strategy="buy", demand=2e12)
    assert (buy.diff("node_price") < 0).all()
    rent = grid_run["saving"].sel(strategy="rent", demand=2e12)
    np.testing.assert_array_equal(rent.sel(node_price=VALUES[0]).values,
                                  rent.sel(node_price=VALUES[-1]).values)


def test_the_accessor_selects_the_new_dim(grid_run, fixed_runs):
    acc = grid_run.mc_tco
    assert acc.input_grid == {"node_price": {"values": list(VALUES), "unit": "USD",
                                             "focus": VALUES[1]}}
    assert acc.focus["node_price"] == VALUES[1]  # the middle value
    p = acc.p_beats(strategy="buy", demand=5e11, node_price=3e5)
    ref = fixed_runs[3e5].mc_tco.p_beats(strategy="buy", demand=5e11)
    for k in ("p", "lower", "upper"):
        assert float(p[k]) == float(ref[k])
    by_value = acc.p_beats(strategy="buy", demand=2e12)
    assert by_value["p"].dims == ("node_price",)
    with pytest.raises(OptionError, match="node_price"):
        acc.p_beats(strategy="buy", demand=5e11, node_price=3.5e5)
    view = acc.at_input_grid()
    assert "node_price" not in view.dims and float(view["node_price"]) == VALUES[1]
    assert view.mc_tco.input_grid == {} and view.mc_tco.input_grid_at == {
        "node_price": VALUES[1]}
    assert view.mc_tco.constants["node_price"] == VALUES[1]
    assert float(acc.at_input_grid(node_price="600k")["node_price"]) == VALUES[2]


def test_the_file_keeps_the_dim_and_its_unit(grid_run, tmp_path):
    from mc_tco.results.io import open_results, write_results
    from mc_tco.results.schema import problems

    big = [k for k, v in grid_run.data_vars.items()  # (the per-sample outputs but one)
           if "sample" in v.dims and k not in ("saving", "input_value")]
    path = write_results(grid_run.drop_vars(big), tmp_path / "tiny_grid.nc")
    with open_results(path) as ds:
        assert ds["node_price"].attrs["units"] == "USD"
        assert ds.mc_tco.input_grid["node_price"]["values"] == list(VALUES)
        assert problems(ds) == []


def test_the_run_table_shows_p_by_value_at_the_focus_demand(grid_run, fixed_runs):
    from mc_tco.report.fmt import fmt_prob_ci
    from mc_tco.report.terminal import run_table

    text = run_table(grid_run)
    rows = 7 + 2  # the article's 8 uncertain inputs but node_price, + A and B
    assert (f"{SAMPLES} base samples x {rows} design rows x 3 values of node_price = "
            f"{SAMPLES * rows * 3:,} model runs") in text
    assert fixed_runs[3e5].mc_tco.run.model_runs == SAMPLES * rows
    assert ("node_price is a grid dim of these results (300,000 / 450,000 / 600,000 USD, "
            "each fixed on the same scenarios): shown at node_price = 450,000 USD, the "
            "middle value") in text
    lines = text.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("P(strategy beats "
                                                                     "the API) by node_price"))
    assert "at demand = 500B" in lines[head]
    assert lines[head + 1].split() == ["node_price", "(USD)", "300,000", "450,000", "600,000"]
    rows = {line.split()[0]: line for line in lines[head + 2: head + 7]}
    assert set(rows) == {"buy", "rent", "reserved", "owned", "hybrid"}
    for strategy, line in rows.items():
        cells = [fmt_prob_ci(*(float(fixed_runs[v].mc_tco.p_beats(
            strategy=strategy, demand=5e11)[k]) for k in ("p", "lower", "upper")))
            for v in VALUES]
        assert line.split()[1:] == " ".join(cells).split(), strategy
    # the rest of the table is at the focus value: the ranking names it
    assert "strategy=buy, node_price=450,000" in text


def test_a_user_model_gets_the_dim_too():
    """A model that knows nothing of the grid: total = x + y with x on [grid.x]."""
    from pathlib import Path

    from mc_tco.engine import run

    folder = Path(__file__).resolve().parents[1] / "bad_books"
    text = (folder / "grid_input_correlated.toml").read_text()
    text = text[:text.index("\n[[correlation]]")].replace("values = [0.2, 0.8]",
                                                            "values = [-0.9, 0.2, 0.8]")
    ds = run(loads_book(text, str(folder / "grid_x.toml")), samples=64, seed=1,
             shapley=False)
    y = ds["input_value"].sel(input="y")
    for v in (-0.9, 0.2, 0.8):
        np.testing.assert_array_equal(ds["total"].sel(x=v).values, (v + y).values)
    assert list(ds["input"].values) == ["y"]
    assert float(ds["ST"].sel(target="total", input="y", x=0.2)) == pytest.approx(1, abs=0.2)
    # P(x + y > 0) at x = -0.9 is P(y > 0.9) = 0.1 for y ~ U(0, 1)
    p = ds.mc_tco.p_beats(x=-0.9)
    assert float(p["lower"]) <= 0.1 <= float(p["upper"])
    assert float(ds.mc_tco.p_beats(x=0.2)["p"]) == 1.0


def test_a_reader_without_a_focus_value_says_so(grid_run):
    from mc_tco.report.words.input_grid import input_grid_note

    assert input_grid_note(grid_run) == ""  # the whole file: nothing selected, nothing said
    note = input_grid_note(grid_run.mc_tco.at_input_grid(node_price=3e5), "--at")
    assert note.endswith("shown at node_price = 300,000 USD, as asked; the others: --at")


@pytest.mark.slow
def test_the_memo_at_a_value_says_what_the_fixed_books_memo_says(grid_run, fixed_runs,
                                                                  no_png):
    """The TCO memo of a grid file at ``--at node_price=300000``: its summary is the memo
    of the book with node_price fixed there, and its subtitle says which value it shows."""
    from mc_tco.report.memo import build_memo

    def summary(markdown: str) -> str:
        return markdown.split("\n## Summary", 1)[1].split("\n## ", 1)[0]

    created = "2026-01-01"
    grid = build_memo(grid_run, at={"node_price": 3e5}, created=created).markdown
    fixed = build_memo(fixed_runs[3e5], created=created).markdown
    assert "shown at node_price = 300,000 USD, as asked" in grid.splitlines()[2]
    assert summary(grid) == summary(fixed)
