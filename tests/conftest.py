"""Shared fixtures: the shipped books, small runs of them and their results files (each
computed once per session). Shared paths (plain constants) are in ``tests/paths.py``."""

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


@pytest.fixture(scope="session")
def result_files(tmp_path_factory, default_run, article_run):
    """The two session runs written once as results files, named as ``mc-tco run`` names
    them: ``{"default": .../deepseek-v4.1-flash.nc, "article": .../article.nc}``.

    Shared by every module that reads them through a command (memo, explain, the grid-point
    paths); treat them as read-only and write outputs into a ``tmp_path`` of your own.
    """
    from mc_tco.results.io import write_results

    folder = tmp_path_factory.mktemp("session_results")
    return {"default": write_results(default_run, folder / "deepseek-v4.1-flash.nc"),
            "article": write_results(article_run, folder / "article.nc")}


@pytest.fixture
def no_png(monkeypatch):
    """Skip rendering the memo's figures to PNG (the figure objects are still built):
    keeps memo tests fast; test_memo_writes_every_figure... renders and checks them."""
    import mc_tco.report.memo.figures as F

    monkeypatch.setattr(F, "to_png", lambda fig, dpi=None: b"\x89PNG")
