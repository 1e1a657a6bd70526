"""Shared fixtures: the shipped books and small runs of them (computed once per session)."""

from __future__ import annotations

import pytest

from tests.paths import ARTICLE_BOOK, DEFAULT_BOOK


@pytest.fixture(scope="session")
def default_book():
    from mc_tco.book import load_book

    return load_book(DEFAULT_BOOK)


@pytest.fixture(scope="session")
def article_book():
    from mc_tco.book import load_book

    return load_book(ARTICLE_BOOK)


@pytest.fixture(scope="session")
def article_run(article_book):
    from mc_tco.engine import run

    return run(article_book, samples=512, seed=3, resamples=50)


@pytest.fixture(scope="session")
def default_run(default_book):
    from mc_tco.engine import run

    return run(default_book, samples=512, seed=1, resamples=50)


@pytest.fixture
def no_png(monkeypatch):
    """Skip rendering the memo's figures to PNG (the figure objects are still built):
    keeps memo tests fast; test_memo_writes_every_figure... renders and checks them."""
    import mc_tco.report.memo.figures as F

    monkeypatch.setattr(F, "to_png", lambda fig, dpi=None: b"\x89PNG")
