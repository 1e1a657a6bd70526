"""The default book from any folder, help texts, figures without glyph warnings (issue 11,
items 19 and 20)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

import mc_tco.book.shipped as shipped
from mc_tco.book import DEFAULT_BOOK, find_default_book, load_book
from mc_tco.cli import main
from mc_tco.errors import BookError
from tests.paths import ROOT


def test_the_default_book_is_found_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert find_default_book() == ROOT / DEFAULT_BOOK
    res = CliRunner().invoke(main, ["inputs"])
    assert res.exit_code == 0, res.output
    assert "node_price" in res.stdout


def test_no_default_book_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(shipped, "NEXT_TO_PACKAGE", tmp_path / "pkg" / "distributions")
    with pytest.raises(BookError, match=r"the default book is not here nor next to the mc_tco "
                                        r"package .*give a book's path"):
        load_book(DEFAULT_BOOK)


def test_keep_samples_help_says_45x():
    res = CliRunner().invoke(main, ["run", "--help"])
    assert "about 4.5x smaller" in " ".join(res.stdout.split())
    assert "about 4.5x smaller" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_an_emoji_in_a_figure_text_leaks_no_warning():
    # pytest turns warnings into errors: matplotlib's "Glyph ... missing" would fail here
    from mc_tco.report.memo.figures import _figure, to_png

    fig = _figure(3, 2)
    ax = fig.add_subplot()
    ax.set_title("Article \N{ROCKET} book")
    ax.plot([0, 1], [0, 1], label="ok \N{ROCKET}")
    ax.legend()
    assert to_png(fig)[:4] == b"\x89PNG"
    assert ax.get_title() == "Article book"


def test_a_books_repr_is_short(default_book):
    text = repr(default_book)
    assert text.startswith(f"<Book '{default_book.name}' from '{default_book.path}': ")
    assert f"{len(default_book.inputs)} inputs ({len(default_book.uncertain)} uncertain)" in text
    assert "grid demand: 42" in text and "[inputs." not in text and len(text) < 300
