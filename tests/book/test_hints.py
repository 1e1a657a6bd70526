"""Rough edges of hand-written books (issue 11, items 14 and 15): decimal commas, percent
strings, a byte order mark, Windows paths."""

from __future__ import annotations

import pytest

from mc_tco.book import load_book, loads_book
from mc_tco.errors import BookError
from tests.paths import DEFAULT_BOOK


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


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + DEFAULT_BOOK.read_bytes())
    book = load_book(path)
    assert book.text == DEFAULT_BOOK.read_text(encoding="utf-8")
    assert book.sha256 == load_book(DEFAULT_BOOK).sha256


def test_a_windows_path_gets_the_single_quote_hint():
    with pytest.raises(BookError, match=r"b.toml:4: column 15: .*write a Windows path in "
                                        r"single quotes"):
        loads_book('[inputs.x]\ndist = "constant"\nvalue = 1\nsource = "C:\\Users\\x"\n',
                   "b.toml")
    book = loads_book("[inputs.x]\ndist = \"constant\"\nvalue = 1\nsource = 'C:\\Users\\x'\n")
    assert book.inputs["x"].source == "C:\\Users\\x"
