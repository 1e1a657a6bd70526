"""What a book may not do with ``[grid.<input>]`` (issue 25 item 9): each mistake one line
naming the table and the fix. (The runs themselves: tests/engine/test_input_grid.py.)"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mc_tco.book import loads_book
from mc_tco.errors import BookError
from tests.paths import ARTICLE_BOOK, DEFAULT_BOOK


def _with(extra: str, book=ARTICLE_BOOK, before: str = "[analysis]") -> str:
    text = book.read_text()
    return text.replace(before, extra + "\n" + before, 1)


def _plan(text: str):
    from mc_tco.engine import plan_run

    return plan_run(loads_book(text, "book.toml"), samples=64)


def test_a_grid_on_an_unknown_input_is_refused_with_the_near_name():
    with pytest.raises(BookError) as exc:
        _plan(_with("[grid.node_prise]\nvalues = [3e5, 4e5]\n"))
    msg = str(exc.value)
    assert "grid.node_prise" in msg and "the book no input 'node_prise'" in msg
    assert msg.endswith("did you mean [grid.node_price]?")


def test_a_grid_of_words_is_refused():
    with pytest.raises(BookError, match=r"grid\.node_price\.values.*values must be a number, "
                                        r"got the string 'cheap'"):
        loads_book(_with('[grid.node_price]\nvalues = ["cheap", "dear"]\n'), "book.toml")


def test_a_grid_on_a_correlated_input_says_which_pair_to_remove():
    text = _with("[grid.node_price]\nvalues = [3e5, 4e5]\n", DEFAULT_BOOK)
    with pytest.raises(BookError) as exc:
        loads_book(text, "book.toml")
    msg = str(exc.value)
    assert ("[grid.node_price] fixes the input node_price at each value, but a [[correlation]] "
            "pairs it with gpu_rent_per_hour") in msg
    assert 'remove that [[correlation]] (between = ["node_price", "gpu_rent_per_hour"])' in msg
    line = text.splitlines().index("[grid.node_price]") + 1
    assert exc.value.line == line


def test_demand_twice_is_refused():
    text = _with("[grid.demand]\nvalues = [1e11]\n")
    with pytest.raises(BookError, match=r"\[grid\.demand\] is written twice; keep one table"):
        loads_book(text, "book.toml")


def test_a_grid_value_outside_the_model_range_is_refused():
    with pytest.raises(BookError, match=r"grid\.node_price.*the grid value -1 "):
        _plan(_with("[grid.node_price]\nvalues = [-1, 3e5]\n"))


def test_a_focus_off_the_grid_is_refused_and_the_middle_is_the_default():
    grid = "[grid.node_price]\nvalues = [3e5, 4e5, 5e5, 6e5]\n"
    off = _with(grid, before="[analysis]\ntargets").replace(
        'targets = ["saving"]', 'targets = ["saving"]\nfocus = { demand = 5e11, strategy = '
        '"buy", node_price = 350000 }', 1)
    with pytest.raises(BookError, match=r"focus\.node_price = 350000 is not a value of "
                                        r"\[grid\.node_price\]"):
        _plan(off)
    assert _plan(_with(grid)).focus["node_price"] == 4e5  # the lower of the two middle ones


def test_a_grid_in_another_unit_is_converted_with_its_input():
    plan = _plan(_with('[grid.node_price]\nvalues = [300, 450]\nunit = "kUSD"\n'))
    inp = plan.book.inputs["node_price"]
    assert inp.unit == "USD" and list(inp.grid_values) == [3e5, 4.5e5]


def test_the_cli_says_it_in_one_line(tmp_path):
    from mc_tco.cli import main

    path = tmp_path / "book.toml"
    text = _with("[grid.node_price]\nvalues = [3e5, 4e5]\n", DEFAULT_BOOK)
    path.write_text(text)
    line = text.splitlines().index("[grid.node_price]") + 1
    res = CliRunner().invoke(main, ["run", str(path), "-n", "64", "-o", str(tmp_path / "o.nc")])
    assert res.exit_code == 2
    assert len(res.stderr.splitlines()) == 1 and "Traceback" not in res.stderr
    assert res.stderr.startswith(f"mc-tco: error: {path}:{line}: grid.node_price: "
                                 "[grid.node_price] fixes the input node_price")
    assert not (tmp_path / "o.nc").exists()


def test_the_copula_leaves_a_grid_input_out_of_its_columns():
    """Correlations among the other inputs: the matrix is over the design's columns, which
    no longer hold the grid input (else every column after it would be misaligned)."""
    text = _with("[grid.electricity_price]\nvalues = [0.06, 0.1]\n", DEFAULT_BOOK)
    book = loads_book(text, "book.toml")
    names = [i.name for i in book.uncertain]
    assert "electricity_price" not in names
    assert list(book.correlation.names) == names
