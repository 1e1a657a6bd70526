"""Book units against the model's (issue 11, item 2): convert what a user expects, say so,
refuse the rest with the fix."""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from mc_tco.book import loads_book
from mc_tco.book.units import UnitProblem, conversion
from mc_tco.cli import main
from mc_tco.errors import BookError
from mc_tco.models import InputRule, ModelSpec, check_book
from tests.paths import DEFAULT_BOOK

#: the units the TCO model declares (version 1 and 2)
MODEL_UNITS = ["USD", "1", "year", "USD/Mtok", "1/year", "USD/GPU-hour", "kW", "USD/kWh",
               "KB/token", "day", "USD/TB", "FTE", "USD/year", "USD/month", "GPU", "month",
               "tokens/GPU-hour"]


@pytest.mark.parametrize("unit", MODEL_UNITS)
def test_every_model_unit_is_read_and_equals_itself(unit):
    assert conversion(unit, unit) == 1.0
    assert conversion(f" {unit} ", unit) == 1.0


@pytest.mark.parametrize(
    ("book", "model", "factor"),
    [
        ("months", "year", 1 / 12), ("month", "year", 1 / 12), ("years", "month", 12),
        ("kUSD", "USD", 1e3), ("MUSD", "USD", 1e6), ("%", "1", 0.01),
        ("%/year", "1/year", 0.01), ("kUSD/month", "USD/year", 12e3), ("W", "kW", 1e-3),
        ("USD/GB", "USD/TB", 1e3), ("USD/Btok", "USD/Mtok", 1e-3), ("years", "year", 1.0),
    ],
)
def test_conversions_a_user_expects(book, model, factor):
    assert math.isclose(conversion(book, model), factor, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("book", "model", "fragment"),
    [
        ("month", "USD", "does not measure the same thing"),
        ("day", "month", "does not measure the same thing"),  # a month has 28-31 days
        ("dollars", "USD", "cannot convert it"),
        ("USD/hour", "USD/GPU-hour", "does not measure the same thing"),
    ],
)
def test_conversions_refused(book, model, fragment):
    with pytest.raises(UnitProblem, match=fragment):
        conversion(book, model)


SPEC = ModelSpec(inputs={
    "horizon": InputRule("year", 1 / 12, 100, "horizon"),
    "price": InputRule("USD", 0, math.inf, "price"),
    "share": InputRule("1", 0, 1, "share"),
    "upkeep": InputRule("1/year", 0, 1, "upkeep"),
})


def _book(horizon='value = 48\nunit = "months"', price='low = 400\nhigh = 550\nunit = "kUSD"',
          share='min = 3\nmode = 6\nmax = 10\nunit = "%"', upkeep="min = 0.03\nmode = 0.06\n"
          "max = 0.1"):
    return loads_book(
        f'[inputs.horizon]\ndist = "constant"\n{horizon}\n'
        f'[inputs.price]\ndist = "uniform"\n{price}\n'
        f'[inputs.share]\ndist = "pert"\n{share}\n'
        f'[inputs.upkeep]\ndist = "pert"\n{upkeep}\n',
        "b.toml",
    )


def test_convert_and_say_so():
    book = _book()
    notes = check_book(book, SPEC)
    horizon, price, share, upkeep = book.inputs.values()
    assert horizon.value == 4.0 and horizon.unit == "year"
    assert horizon.unit_note == "given in months, converted to year (/ 12)"
    assert price.support() == (400_000.0, 550_000.0) and price.unit == "USD"
    assert price.unit_note == "given in kUSD, converted to USD (x 1000)"
    assert share.params["min"] == 0.03 and share.params["max"] == 0.1
    np.testing.assert_allclose(share.quantiles([0.5]), _book(
        share='min = 0.03\nmode = 0.06\nmax = 0.1\nunit = "1"').inputs["share"].quantiles([0.5]))
    assert upkeep.unit == "1/year" and upkeep.unit_note == ""  # no unit: the model's, shown
    assert notes == [
        "inputs.horizon: given in months, converted to year (/ 12)",
        "inputs.price: given in kUSD, converted to USD (x 1000)",
        "inputs.share: given in %, converted to 1 (/ 100)",
    ]
    assert check_book(book, SPEC) == []  # a second check finds nothing left to convert


def test_a_fraction_in_percent_says_write_003_not_3():
    book = _book(upkeep="min = 3\nmode = 6\nmax = 10")
    with pytest.raises(BookError, match=r"b.toml:\d+: inputs.upkeep: .*write 0.03, not 3"):
        check_book(book, SPEC)


def test_a_unit_of_another_dimension_is_refused_at_its_line():
    book = _book(horizon='value = 48\nunit = "USD"')
    with pytest.raises(BookError, match=r"b.toml:4: inputs.horizon.unit: unit 'USD' does not"):
        check_book(book, SPEC)


def test_the_cli_prints_the_conversion(tmp_path):
    text = DEFAULT_BOOK.read_text(encoding="utf-8").replace(
        'low = 400000\nhigh = 550000\nunit = "USD"', 'low = 400\nhigh = 550\nunit = "kUSD"')
    book = tmp_path / "k.toml"
    book.write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["inputs", str(book)])
    assert res.exit_code == 0, res.output
    assert res.stderr == (
        f"mc-tco: note: {book}: inputs.node_price: given in kUSD, converted to USD (x 1000)\n"
    )
    row = next(line for line in res.stdout.splitlines() if line.startswith("node_price"))
    assert "USD" in row and "kUSD" not in row


def test_a_missing_unit_shows_the_models(tmp_path):
    text = DEFAULT_BOOK.read_text(encoding="utf-8").replace(
        'low = 400000\nhigh = 550000\nunit = "USD"\n', 'low = 400000\nhigh = 550000\n')
    book = tmp_path / "m.toml"
    book.write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["inputs", str(book)])
    assert res.exit_code == 0, res.output
    row = next(line for line in res.stdout.splitlines() if line.startswith("node_price"))
    assert " USD " in row and " - " not in row
