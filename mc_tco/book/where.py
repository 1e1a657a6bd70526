"""Where in the book's text a field is (its line), and the closest name to a misspelt one."""

from __future__ import annotations

import functools
import re


def _fields_hint(fam) -> str:
    fields = list(fam.required) + [f"{k} = {v:g}" for k, v in fam.optional.items()]
    for alt in fam.alternatives:
        fields.append("(" + ", ".join(alt) + ")")
    return ", ".join(fields) + " and unit, source, group, description"


def _closest(word: str, choices) -> str | None:
    import difflib

    found = difflib.get_close_matches(word.lower(), list(choices), n=1, cutoff=0.6)
    return found[0] if found else None


# ---------------------------------------------------------------------------- lines


def _key(part: str) -> str:
    """Regex of a TOML key, bare or quoted."""
    return rf"""(?:{re.escape(part)}|"{re.escape(part)}"|'{re.escape(part)}')"""


def _locate(text: str, where: str | None, field_name: str | None) -> int | None:
    """Best-effort line number of ``where`` (``inputs.x`` / ``grid.demand`` / ...) in ``text``."""
    if not where or not text:
        return None
    parts = where.split(".")
    lines = _lines(text)
    header = None
    # [a.b] table header, or "b = {" inline table inside [a]
    index = _headers(text)
    for depth in range(len(parts), 0, -1):
        header = index.get(tuple(parts[:depth]))
        if header is not None:
            break
        name = r"\s*\.\s*".join(_key(p) for p in parts[:depth])
        pat = re.compile(rf"^\s*\[\s*{name}\s*\]")
        for i, line in enumerate(lines):
            if pat.match(line):
                header = i
                break
        if header is not None:
            break
        if depth >= 2:
            key = _key(parts[depth - 1])
            parent = r"\s*\.\s*".join(_key(p) for p in parts[: depth - 1])
            parent_pat = re.compile(rf"^\s*\[\s*{parent}\s*\]")
            inside = False
            for i, line in enumerate(lines):
                if line.lstrip().startswith("["):
                    inside = bool(parent_pat.match(line))
                    continue
                if inside and re.match(rf"^\s*{key}\s*=", line):
                    return i + 1
    if header is None:
        # a table given only through sub-tables ([input.x] for "input"), or a top-level
        # "key = value" before the first table
        name = r"\s*\.\s*".join(_key(p) for p in parts)
        sub = re.compile(rf"^\s*\[\s*{name}\s*\.")
        top_key = re.compile(rf"^\s*{name}\s*=") if len(parts) == 1 else None
        before_tables = True
        for i, line in enumerate(lines):
            if sub.match(line):
                return i + 1
            if line.lstrip().startswith("["):
                before_tables = False
            elif before_tables and top_key is not None and top_key.match(line):
                return i + 1
        return None
    return field_line(lines, header, field_name)


_HEADER = re.compile(r"^[ \t]*\[(?!\[)\s*((?:[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*')"
                     r"(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*'))*)\s*\]",
                     re.MULTILINE)
_PART = re.compile(r"[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*'")


@functools.lru_cache(maxsize=8)
def _lines(text: str) -> tuple[str, ...]:
    """The lines of ``text``, split once per text."""
    return tuple(text.splitlines())


@functools.lru_cache(maxsize=8)
def _headers(text: str) -> dict[tuple[str, ...], int]:
    """Every ``[a.b]`` table header of ``text`` -> its first line index, read once per
    text (a book of 1,000 inputs looked each up by a scan of every line)."""
    out: dict[tuple[str, ...], int] = {}
    starts = [m.start() for m in re.finditer("\n", text)]
    import bisect

    for m in _HEADER.finditer(text):
        parts = tuple(p.strip("\"'") if p[0] in "\"'" else p
                      for p in _PART.findall(m.group(1)))
        out.setdefault(parts, bisect.bisect_left(starts, m.start(1)))
    return out


def field_line(lines, header: int, field_name: str | None) -> int:
    """Line (1-based) of ``field_name = ...`` in the table whose header is line index
    ``header``, or the header's line when the field is absent or not asked for."""
    if field_name:
        pat = re.compile(rf"^\s*{re.escape(field_name)}\s*=")
        for i in range(header + 1, len(lines)):
            if lines[i].lstrip().startswith("["):
                break
            if pat.match(lines[i]):
                return i + 1
    return header + 1
