"""Edit a book's TOML text in place: replace the changed fields of ``[inputs.X]`` tables.

The explorer never re-serialises a whole book: it rewrites only the lines of the fields a
user changed (``dist`` and the family's parameters), so comments, order and every other
table stay as written. A changed input's ``source`` becomes a prompt to say why.
"""

from __future__ import annotations

import json
import re
import tomllib

from mc_tco.app import bridge

__all__ = ["apply_edits", "param_fields", "source_prompt", "toml_value"]

_KEY_LINE = re.compile(r"^(\s*)([A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')\s*=\s*(.*?)\s*$")


def param_fields() -> set[str]:
    """Every field any family takes (what an edit may add, replace or remove)."""
    out = {"dist"}
    for fam in bridge.families().values():
        out |= set(fam["required"]) | set(fam["optional"])
        for alt in fam["alternatives"]:
            out |= set(alt)
    return out


def _parses(value: str) -> bool:
    try:
        tomllib.loads(f"x = {value}")
    except tomllib.TOMLDecodeError:
        return False
    return True


def toml_value(raw, list_field: bool = False) -> str | None:
    """The TOML text of a value typed in a field, or None for an empty field.

    A number (``4e5``, ``400_000``) or a list of numbers is written as typed; anything
    else is written as a quoted string, so the book's own check reports it with the CLI's
    message (e.g. "low must be a number, got the string 'abc'").
    """
    if isinstance(raw, bool):
        return "true" if raw else "false"
    if isinstance(raw, int | float):
        return repr(raw)
    text = str(raw).strip()
    if not text:
        return None
    if list_field and not text.startswith("["):
        text = f"[{text}]"
    if "\n" not in text and _parses(text):
        value = tomllib.loads(f"x = {text}")["x"]
        if isinstance(value, int | float | list) and not isinstance(value, bool):
            return text
    return json.dumps(text, ensure_ascii=False)


def source_prompt(old_describe: str, old_source: str) -> str:
    """The ``source`` of an input changed in the app: a prompt to say why."""
    was = f"was {old_describe}" + (f", source: {old_source}" if old_source else "")
    return f"assumption: TODO why this value? (changed in mc-tco app; {was})"


def _split_comment(rest: str) -> tuple[str, str]:
    """``value  # comment`` -> (value, "  # comment"); the comment is "" when there is none."""
    for m in re.finditer("#", rest):
        value = rest[: m.start()].rstrip()
        if value and _parses(value):
            return value, rest[len(value):]
    return rest, ""


def _table_span(lines: list[str], name: str) -> tuple[int, int] | None:
    key = rf"""(?:{re.escape(name)}|"{re.escape(name)}"|'{re.escape(name)}')"""
    header = re.compile(rf"^\s*\[\s*inputs\s*\.\s*{key}\s*\]\s*(#.*)?$")
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and not lines[end].lstrip().startswith("["):
        end += 1
    return start, end


def _entries(lines: list[str], start: int, end: int):
    """The ``key = value`` entries of a table: (key, first line, last line, indent, value,
    comment); a multi-line array or string spans several lines."""
    i = start + 1
    while i < end:
        m = _KEY_LINE.match(lines[i].rstrip("\n"))
        if not m:
            i += 1
            continue
        indent, key, rest = m.group(1), m.group(2).strip("\"'"), m.group(3)
        last = i
        value, comment = _split_comment(rest)
        if not _parses(value):  # a value continued on the next lines
            chunk = rest
            while last + 1 < end and not _parses(chunk):
                last += 1
                chunk += "\n" + lines[last].rstrip("\n")
            value, comment = chunk, ""
        yield key, i, last, indent, value, comment
        i = last + 1


def _edit_table(lines: list[str], name: str, fields: dict[str, str], path: str) -> list[str]:
    span = _table_span(lines, name)
    if span is None:
        raise bridge.BookError(
            path, f"inputs.{name}",
            "the app edits [inputs.<name>] tables and cannot find this one; write it as "
            f"[inputs.{name}] or edit the file by hand",
        )
    start, end = span
    params = param_fields()
    out = lines[: start + 1]
    todo = dict(fields)
    anchor = start  # index in ``out`` after which missing fields go
    pos = start + 1
    for key, first, last, indent, _value, comment in list(_entries(lines, start, end)):
        out.extend(lines[pos:first])
        pos = last + 1
        if key in todo:
            out.append(f"{indent}{key} = {todo.pop(key)}{comment}\n")
            if key in params:
                anchor = len(out) - 1
        elif key in params:
            continue  # a field of the old family (or one emptied): dropped
        else:
            out.extend(lines[first : last + 1])
    out.extend(lines[pos:end])
    missing = [f"{k} = {v}\n" for k, v in todo.items()]
    out[anchor + 1 : anchor + 1] = missing
    out.extend(lines[end:])
    return out


def apply_edits(text: str, edits: dict[str, dict], path: str, prompts: dict[str, str]) -> str:
    """The book ``text`` with each edited input's ``dist`` and parameters replaced.

    Parameters
    ----------
    text : str
        The book's TOML, as loaded.
    edits : dict
        ``{input: {"dist": family, "fields": {field: typed value}}}``; fields left empty
        are removed (the book's check then names the missing one).
    path : str
        The book's path, for messages.
    prompts : dict
        ``{input: new source}`` for the inputs whose source is to be replaced.

    Returns
    -------
    str
        The edited text (unchanged lines kept byte for byte).
    """
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    lists = bridge.list_fields()
    for name, edit in edits.items():
        fields = {"dist": json.dumps(str(edit.get("dist", "")))}
        for key, raw in (edit.get("fields") or {}).items():
            value = toml_value(raw, key in lists)
            if value is not None:
                fields[key] = value
        if name in prompts:
            fields["source"] = json.dumps(prompts[name], ensure_ascii=False)
        lines = _edit_table(lines, name, fields, path)
    return "".join(lines)
