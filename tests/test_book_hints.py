"""Rough edges of hand-written books (issue 11, items 14 and 15): decimal commas, percent
strings."""

from __future__ import annotations

import pytest

from mc_tco.book import loads_book
from mc_tco.errors import BookError


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ("0,028", "write value = 0.028 (a decimal point, not a comma"),
        ("10%", "write value = 0.1 (10% as a fraction"),
        ("12,5%", "write value = 0.125"),
        ("1,500", "write value = 1500 (no quotes), or value = 1.5 if the comma is a decimal"),
        ("1,500,000", "write value = 1500000 (no quotes)"),
        ("400_000", "write value = 400000 (no quotes)"),
        ("400k USD", "write it without quotes, e.g. value = 400000"),
    ],
)
def test_a_number_in_quotes_gets_the_right_fix(text, fix):
    with pytest.raises(BookError) as info:
        loads_book(f'[inputs.x]\ndist = "constant"\nvalue = "{text}"\n', "b.toml")
    assert fix in str(info.value)
