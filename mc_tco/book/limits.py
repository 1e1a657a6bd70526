"""Limits on what a book may hold, checked before (and right after) the TOML is parsed, so
that a book that would break the parser or the machine gets one line at once.

* :data:`MAX_BOOK_BYTES`: the whole file (a hand-written book is some tens of kB);
* :data:`MAX_NESTING`: arrays and inline tables nested in one another (tomllib recurses
  once per level: 1,000 levels was a RecursionError);
* :data:`MAX_STRING`, :data:`MAX_LIST`, :data:`MAX_NAME`: one field's text, one list's
  items, one table or key name;
* :data:`MAX_INPUTS`: ``[inputs.<name>]`` tables.
"""

from __future__ import annotations

import re

#: largest book file, in bytes of UTF-8 (1 MB; the shipped books are about 20 kB)
MAX_BOOK_BYTES = 1_000_000
#: deepest nesting of arrays and inline tables (a book needs 2 or 3)
MAX_NESTING = 32
#: longest string field (a source or a description), in characters
MAX_STRING = 10_000
#: most items in one list (grid values, discrete values): the grid's own limit
MAX_LIST = 100_000
#: longest name of a table or key (an input, a grid dim, a field), in characters
MAX_NAME = 100
#: most [inputs.<name>] tables in one book (the shipped ones have about 40)
MAX_INPUTS = 1_000

_TOKEN = re.compile(r'"""|\'\'\'|["\'#\n\\\[\]{}]')


def nesting_too_deep(text: str, limit: int = MAX_NESTING) -> int | None:
    """The line where arrays and inline tables nest more than ``limit`` deep, else None.

    A cheap scan of ``[``/``{`` and ``]``/``}`` outside strings and comments (a table
    header ``[[x]]`` counts 2); it runs before tomllib, which recurses once per level.
    """
    depth = 0
    line = 1
    state = None  # None, '"', "'", '"""', "'''", "#"
    pos = 0
    while True:
        m = _TOKEN.search(text, pos)
        if m is None:
            return None
        tok, pos = m.group(), m.end()
        if tok == "\n":
            line += 1
            if state in ('"', "'", "#"):  # a one-line string or comment ends here
                state = None
        elif state == "#":
            continue
        elif tok == "\\":
            if state in ('"', '"""'):  # an escape: the next character is not a quote
                if text[pos:pos + 1] == "\n":
                    line += 1
                pos += 1
        elif state is not None:
            if tok == state or (state == '"' and tok == '"""'):
                state = None
        elif tok in ('"', "'", '"""', "'''", "#"):
            state = tok
        elif tok in "[{":
            depth += 1
            if depth > limit:
                return line
        elif tok in "]}":
            depth = max(depth - 1, 0)


def oversized(data, path: tuple[str, ...] = ()):
    """The first field of parsed ``data`` past a limit, as ``(where, field, message)``, or
    None: a string longer than :data:`MAX_STRING`, a list longer than :data:`MAX_LIST`, a
    name longer than :data:`MAX_NAME`. Iterative (the nesting is already bounded)."""
    stack = [(path, data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                if len(key) > MAX_NAME:
                    return (".".join(where) or None, None,
                            f"a name of {len(key):,} characters ('{key[:20]}...'); names are "
                            f"at most {MAX_NAME} characters")
                stack.append(((*where, key), item))
        elif isinstance(value, list):
            if len(value) > MAX_LIST:
                return (".".join(where), where[-1] if where else None,
                        f"a list of {len(value):,} items; a list holds at most "
                        f"{MAX_LIST:,}")
            stack.extend((where, item) for item in reversed(value))
        elif isinstance(value, str) and len(value) > MAX_STRING:
            return (".".join(where), where[-1] if where else None,
                    f"a text of {len(value):,} characters; a field holds at most "
                    f"{MAX_STRING:,} (put a long note in a file and name it in source)")
    return None
