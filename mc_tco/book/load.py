"""Read a book: TOML text -> :class:`~.types.Book`, every mistake a one-line
:class:`~mc_tco.errors.BookError` with the file, line, field and fix."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

from mc_tco.book.correlations import _correlations
from mc_tco.book.fields import (
    _analysis,
    _grid,
    _input,
    _no_unknown,
    _string,
    _table,
)
from mc_tco.book.limits import MAX_BOOK_BYTES, MAX_INPUTS, MAX_NESTING, nesting_too_deep, oversized
from mc_tco.book.types import (
    _BOOK_FIELDS,
    _TOP_LEVEL,
    GRID_FAMILY,
    Book,
    Grid,
    Input,
)
from mc_tco.book.where import _locate
from mc_tco.errors import BookError

DEFAULT_BOOK = "distributions/deepseek-v4.1-flash.toml"


def find_default_book() -> Path:
    """The default book: in ``distributions/`` of the working directory, else next to the
    package (the repository a checkout or an editable install runs from).

    Raises
    ------
    BookError
        When neither exists, saying where it was looked for and what to do.
    """
    from mc_tco.book import shipped

    candidates = [Path(DEFAULT_BOOK), shipped.NEXT_TO_PACKAGE / shipped.DEFAULT]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise BookError(
        DEFAULT_BOOK,
        None,
        "the default book is not here nor next to the mc_tco package ("
        + ", ".join(str(c) for c in candidates)
        + "); give a book's path, e.g. mc-tco run path/to/book.toml",
    )


def load_book(path: str | Path) -> Book:
    """Read and check an assumption book.

    Parameters
    ----------
    path : str or Path
        A TOML file (see the module docstring for its tables).

    Returns
    -------
    Book

    Raises
    ------
    BookError
        With a one-line message naming the file, the line, the input and the fix.
    """
    p = Path(path)
    if str(path) == DEFAULT_BOOK and not p.exists():
        p = path = find_default_book()
    if p.is_dir():
        raise BookError(str(path), None, "is a folder; give the path of a .toml book")
    try:
        size = p.stat().st_size if p.is_file() else 0
    except OSError:
        size = 0
    if size > MAX_BOOK_BYTES:  # not even read
        raise _too_big(str(path), size)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        hint = ""
        shipped = sorted(Path("distributions").glob("*.toml"))
        if shipped:
            hint = "; books here: " + ", ".join(str(s) for s in shipped)
        raise BookError(str(path), None, "no such file" + hint) from None
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise BookError(
            str(path),
            None,
            f"is not UTF-8 text (byte {exc.object[exc.start]:#04x}: {exc.reason}); save the "
            "file as UTF-8 in your editor",
            line,
        ) from None
    except OSError as exc:
        raise BookError(str(path), None, f"cannot be read ({exc.strerror})") from None
    return loads_book(text, str(path))


def loads_book(text: str, path: str = "<book>") -> Book:
    """Parse and check a book from its TOML ``text``; ``path`` is used in messages.

    A UTF-8 byte order mark (Windows editors write one) is dropped.
    """
    text = text.removeprefix("\ufeff")
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > MAX_BOOK_BYTES:
        raise _too_big(path, size)
    deep = nesting_too_deep(text)
    if deep is not None:
        raise _too_deep(path, deep)
    try:
        data = tomllib.loads(text)
    except RecursionError:  # the scan missed it (a nesting the parser reads otherwise)
        raise _too_deep(path, None) from None
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        line = int(m.group(1)) if m else None
        what = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg) if m else msg
        where = f"column {m.group(2)}" if m else None
        fix = "check quotes, brackets and 'key = value' on this line"
        bad_line = text.splitlines()[line - 1] if line and line <= len(text.splitlines()) else ""
        twice = re.match(r"Cannot declare \(([^)]*)\) twice", what)
        if twice:  # e.g. [grid.demand] twice: tomllib names the table as a tuple
            table = ".".join(re.findall(r"'([^']*)'", twice.group(1)))
            fix = f"[{table}] is written twice; keep one table (merge their fields)"
        elif "Unescaped '\\'" in what or ("\\" in bad_line and '"' in bad_line):
            fix = ("a backslash in \"...\" starts an escape; write a Windows path in single "
                   "quotes, e.g. source = 'C:\\finance\\prices.xlsx', or use / or \\\\")
        raise BookError(path, where, f"TOML syntax error: {what}; {fix}", line) from None
    return _from_dict(data, text, path)


def _too_big(path: str, size: int) -> BookError:
    return BookError(path, None, f"the book is {size:,} bytes; a book is at most "
                     f"{MAX_BOOK_BYTES:,} bytes (1 MB): keep long notes and data in files of "
                     "their own and name them in source")


def _too_deep(path: str, line: int | None) -> BookError:
    return BookError(path, None, f"arrays or inline tables nested more than {MAX_NESTING} "
                     "deep; a book needs two or three levels, e.g. "
                     "report = { demand = [1e11, 5e11] }", line)


def _from_dict(data: dict, text: str, path: str) -> Book:
    def err(where, message, field_name=None):
        return BookError(path, where, message, _locate(text, where, field_name))

    big = oversized(data)
    if big is not None:
        where, field_name, message = big
        raise err(where, message, field_name)
    unknown = sorted(set(data) - _TOP_LEVEL)
    if unknown:
        raise err(
            unknown[0],
            f"unknown table or key '{unknown[0]}'; a book has [book], [grid.<dim>], "
            "[analysis], [inputs.<name>] and [[correlation]]",
        )
    meta = _table(data, "book", err)
    _no_unknown(meta, _BOOK_FIELDS, "book", err)
    book_name = _string(meta, "name", "book", err, default=Path(path).stem)
    description = _string(meta, "description", "book", err, default="")
    model = _string(meta, "model", "book", err, default=None)
    if model is not None and not re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*", model):
        raise err(
            "book.model",
            f"'{model}' is not of the form 'module:function' "
            "(e.g. 'mc_tco.models.tco:model' or 'my_model:run')",
            "model",
        )

    grids = {}
    for dim, spec in _table(data, "grid", err).items():
        grids[dim] = _grid(dim, spec, err)

    analysis = _analysis(_table(data, "analysis", err), err)

    raw_inputs = _table(data, "inputs", err)
    if not raw_inputs:
        raise err(
            None,
            "the book has no inputs; add at least one [inputs.<name>] table with a 'dist' field",
        )
    if len(raw_inputs) > MAX_INPUTS:
        raise err("inputs", f"the book has {len(raw_inputs):,} inputs; a book has at most "
                  f"{MAX_INPUTS:,} (the model runs N x (inputs + 2) times)")
    inputs = {}
    for name, spec in raw_inputs.items():
        inputs[name] = _input(name, spec, text, err, Path(path).parent)
        if name in grids:  # [grid.<input>]: the input fixed at each value in turn
            _not_correlated(name, data.get("correlation", []), err)
            inputs[name] = grid_input(inputs[name], grids.pop(name))
    correlations, matrix = _correlations(data.get("correlation", []), inputs, analysis, text,
                                         path)
    return Book(
        path=path,
        text=text,
        name=book_name,
        description=description,
        model=model,
        grid=grids,
        analysis=analysis,
        inputs=inputs,
        correlations=correlations,
        correlation=matrix,
    )


# ---------------------------------------------------------------------------- pieces


def grid_input(inp: Input, grid: Grid) -> Input:
    """The input ``inp`` as a grid dimension: fixed at each of ``grid``'s values in turn
    (family ``"grid"``); the grid's unit, if given, else the input's; the input's own
    distribution is set aside (named in :meth:`Input.describe`)."""
    aside = inp.describe()
    return dataclasses.replace(
        inp, family=GRID_FAMILY, dist=None, unit=grid.unit.strip() or inp.unit,
        params={"values": [float(v) for v in grid.values], "_set_aside": aside},
        description=inp.description or grid.description)


def _not_correlated(name: str, raw, err) -> None:
    """Refuse ``[grid.<name>]`` on an input that a ``[[correlation]]`` pairs with another:
    fixed at each value, it is correlated with nothing."""
    if not isinstance(raw, list):
        return  # (the correlations' own check says what is wrong)
    for corr in raw:
        between = corr.get("between") if isinstance(corr, dict) else None
        if isinstance(between, list) and name in between:
            other = next((str(b) for b in between if b != name), name)
            raise err(
                f"grid.{name}",
                f"[grid.{name}] fixes the input {name} at each value, but a [[correlation]] "
                f"pairs it with {other}; a fixed input is correlated with nothing: remove "
                f"that [[correlation]] (between = [\"{name}\", \"{other}\"]) or the "
                f"[grid.{name}] table",
            )


