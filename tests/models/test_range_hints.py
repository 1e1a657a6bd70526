"""The hint of an input outside its model's range points the right way (item 12): "these
look like percent" only for values that read as percent, else the bound that is crossed."""

from __future__ import annotations

import pytest

from mc_tco.book import loads_book
from mc_tco.errors import BookError
from mc_tco.models import check_book
from mc_tco.models.tco import SPEC
from tests.paths import DEFAULT_BOOK

UTILIZATION = 'dist = "pert"\nmin = 0.6\nmode = 0.75\nmax = 0.9'


def _message(fields: str) -> str:
    text = DEFAULT_BOOK.read_text(encoding="utf-8")
    assert UTILIZATION in text
    book = loads_book(text.replace(UTILIZATION, fields), "b.toml")
    with pytest.raises(BookError) as exc:
        check_book(book, SPEC)
    return str(exc.value)


@pytest.mark.parametrize(("fields", "bound"), [
    ('dist = "uniform"\nlow = 0.5\nhigh = 1.2', "1.2 is above its upper bound 1"),
    ('dist = "uniform"\nlow = 0.5\nhigh = 150', "150 is above its upper bound 1"),
    ('dist = "uniform"\nlow = -0.1\nhigh = 0.9', "-0.1 is below its lower bound 0"),
])
def test_a_slip_past_a_bound_names_the_bound_not_percent(fields, bound):
    msg = _message(fields)
    assert msg.startswith("b.toml:227: inputs.utilization: "), msg
    assert f"utilization must be in (0, 1] and {bound}; " in msg, msg
    assert "percent" not in msg and "write 0.012" not in msg


@pytest.mark.parametrize(("fields", "write"), [
    ('dist = "pert"\nmin = 50\nmode = 70\nmax = 90', "write 0.5, not 50"),
    ('dist = "uniform"\nlow = 40\nhigh = 100', "write 0.4, not 40"),
    ('dist = "constant"\nvalue = 70', "write 0.7, not 70"),
])
def test_values_that_read_as_percent_get_the_percent_hint(fields, write):
    msg = _message(fields)
    assert "utilization is a fraction and these look like percent: " + write in msg, msg


@pytest.mark.parametrize("value", ["1.2", "0"])
def test_a_constant_past_a_bound_says_change_the_value_not_percent(value):
    msg = _message(f'dist = "constant"\nvalue = {value}')
    assert msg.endswith(f"inputs.utilization: the value {value} reaches outside what the model "
                        "allows: utilization must be in (0, 1]; change the value"), msg


def test_a_pure_number_unit_is_not_printed_after_the_range():
    """'must be in (0, 1] (1)' printed the unit "1" of a fraction after its range."""
    msg = _message('dist = "uniform"\nlow = 0.5\nhigh = 1.2')
    assert "utilization must be in (0, 1] and 1.2 is above its upper bound 1" in msg, msg
    assert "(1)" not in msg
