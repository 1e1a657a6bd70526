"""``[[correlation]]`` tables: pairs of inputs with their rank correlation, checked."""

from __future__ import annotations

import re

from mc_tco.book.fields import _show
from mc_tco.book.types import (
    _CORRELATION_FIELDS,
    Input,
)
from mc_tco.book.where import field_line
from mc_tco.distributions.copula import CorrelationError, check_correlation_matrix
from mc_tco.errors import BookError


def _correlations(raw, inputs: dict[str, Input], analysis: dict, text: str, path: str):
    """The ``[[correlation]]`` tables, checked, and their matrix (None without any)."""
    def err(index, message, field_name=None):
        where = "correlation" if index is None else f"correlation {index + 1}"
        return BookError(path, where, message, _locate_correlation(text, index, field_name))

    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        raise err(None, "correlations are tables: write each pair as [[correlation]] "
                  'with between = ["a", "b"], spearman = 0.5 and source = "..."')
    pairs = []
    for index, corr in enumerate(raw):
        extra = sorted(set(corr) - _CORRELATION_FIELDS)
        if extra:
            raise err(index, f"unknown field '{extra[0]}'; a [[correlation]] takes between, "
                      "spearman or kendall, and source", extra[0])
        if "between" not in corr:
            raise err(index, 'missing field \'between\'; add between = ["a", "b"] naming two '
                      "uncertain inputs")
        source = corr.get("source", "")
        if not isinstance(source, str):
            raise err(index, f"source must be a string in quotes, got {_show(source)}",
                      "source")
        pairs.append(dict(corr))
    if not pairs:  # independent inputs: nothing to check (an identity over every input)
        return [], None
    uncertain = [i.name for i in inputs.values() if i.is_sampled]
    try:
        matrix = check_correlation_matrix(list(inputs), pairs, uncertain,
                                          repair=analysis.get("repair_correlations"))
    except CorrelationError as exc:
        where: int | None = exc.index
        if where is None and exc.pair is not None:  # the pair that moved most, if written
            key = set(exc.pair)
            where = next((i for i, c in enumerate(pairs)
                          if isinstance(c.get("between"), list) and set(c["between"]) == key),
                         None)
        raise err(where, exc.reason, exc.field if exc.index is not None else None) from None
    written = []
    for corr in pairs:
        kind = "kendall" if "kendall" in corr else "spearman"
        written.append({"between": list(corr["between"]), "kind": kind,
                        "value": float(corr[kind]), "source": corr.get("source", "")})
    return written, matrix


def _locate_correlation(text: str, index: int | None, field_name: str | None) -> int | None:
    """Line of the ``index``-th ``[[correlation]]`` header (or of its ``field_name``)."""
    lines = text.splitlines()
    headers = [i for i, line in enumerate(lines)
               if re.match(r"^\s*\[\[\s*correlation\s*\]\]", line)]
    if not headers:  # correlation = ... as a key, or [correlation] as one table
        pat = re.compile(r"^\s*(\[\s*correlation\s*\]|correlation\s*=)")
        return next((i + 1 for i, line in enumerate(lines) if pat.match(line)), None)
    header = headers[0] if index is None or index >= len(headers) else headers[index]
    return field_line(lines, header, field_name)


