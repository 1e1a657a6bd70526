"""The assumption books shipped in ``distributions/``, found from any working directory.

A copy in ``./distributions/`` (a user's edited checkout, or a folder they work in) comes
first; otherwise the books next to the package (a checkout or an editable install).
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["ARTICLE", "DEFAULT", "NEXT_TO_PACKAGE", "shipped_book"]

DEFAULT = "deepseek-v4.1-flash.toml"
ARTICLE = "article.toml"
NEXT_TO_PACKAGE = Path(__file__).resolve().parents[2] / "distributions"


def shipped_book(name: str = DEFAULT) -> Path:
    """``distributions/<name>`` in the working directory if it is there, else the one
    shipped next to the package (which may not exist in a non-editable install: the error
    of loading it then says where it looked)."""
    local = Path("distributions") / name
    if local.is_file():
        return local
    return NEXT_TO_PACKAGE / name
