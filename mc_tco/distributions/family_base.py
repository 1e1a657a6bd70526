"""What a distribution family is: :class:`Family`, and :class:`FieldProblem` for a bad field."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: largest shape parameter (beta's a and b, pert's shape, gamma's shape, ...): beyond it the
#: family is a constant in disguise and scipy's ppf loses its order (beta(1e13, 1e14) is not
#: monotone)
MAX_SHAPE = 1e6


class FieldProblem(ValueError):
    """A field of a distribution with a bad value; ``field`` names it (or is None)."""

    def __init__(self, field: str | None, message: str):
        self.field = field
        super().__init__(message)


@dataclass(frozen=True)
class Family:
    """One distribution family: its fields and how to build it."""

    name: str
    required: tuple[str, ...]
    optional: dict[str, Any] = field(default_factory=dict)
    build: Callable[[dict[str, Any]], Any] | None = None
    check: Callable[[dict[str, Any]], None] | None = None
    #: alternative sets of required fields (lognormal); ``required`` is then empty
    alternatives: tuple[tuple[str, ...], ...] = ()
    example: str = ""


def _need(cond: bool, fld: str | None, message: str) -> None:
    if not cond:
        raise FieldProblem(fld, message)


