"""Assumption books: hand-written TOML files that put a distribution on every model input.

A book has these tables::

    [book]                      name, description, model = "module:function" (optional)
    [grid.<dim>]                start, stop, num, spacing = "log" | "linear", unit
                                (or values = [...]); include = [...] adds exact points
    [analysis]                  targets, report, focus, distributions (all optional)
    [inputs.<name>]             dist = "<family>", the family's fields, unit, source, group
    [[correlation]]             between = [a, b], spearman = r (or kendall = tau), source
                                (optional, any number; pairs not listed are independent)

:func:`load_book` reads one and checks everything it can without the model: TOML syntax,
families, fields, types, ranges. The error names the file, the line when it can be found,
the input and the fix. The checks that need the model (inputs it requires, allowed ranges)
are in :mod:`mc_tco.models`.
"""


from __future__ import annotations

from mc_tco.book.load import DEFAULT_BOOK, find_default_book, load_book, loads_book
from mc_tco.book.types import REPAIRS, RESERVED, Book, Grid, Input

__all__ = ["DEFAULT_BOOK", "REPAIRS", "RESERVED", "Book", "Grid", "Input", "find_default_book",
           "load_book", "loads_book"]
