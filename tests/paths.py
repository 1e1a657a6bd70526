"""Paths the tests share: the checkout's root, the shipped books, the broken-book catalogue.

Plain constants (no fixtures: those are in ``conftest.py``), imported as
``from tests.paths import ARTICLE_BOOK`` from a test module at any depth.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BOOK = ROOT / "distributions" / "deepseek-v4.1-flash.toml"
ARTICLE_BOOK = ROOT / "distributions" / "article.toml"
BAD_BOOKS = ROOT / "tests" / "bad_books"
