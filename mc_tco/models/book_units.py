"""A book's units against its model's: convert what a user expects, refuse the rest.

Called by :func:`mc_tco.models.check_book` before the ranges are checked, so a duration of
48 months on a years input is checked (and used) as 4 years.
"""

from __future__ import annotations

import math

from ..book import Book, Input
from ..distributions import FieldProblem
from ..units import UnitProblem, conversion, factor_text, parse_unit

__all__ = ["apply_units", "bound_text", "is_fraction", "looks_like_percent", "percent_hint"]


def apply_units(book: Book, rules: dict) -> list[str]:
    """Express every input of ``book`` in its model's unit (``rules[name].unit``), in place.

    An input without a unit takes the model's; one in a convertible unit (``months`` on a
    ``year`` input, ``kUSD`` on ``USD``, ``%`` on ``1``) is scaled and keeps a note on
    :attr:`~mc_tco.book.Input.unit_note`.

    Returns
    -------
    list of str
        One note per converted input, e.g. ``inputs.horizon: given in month, converted to
        year (/ 12)``, for the CLI to print.

    Raises
    ------
    BookError
        For a unit that measures something else, or that mc-tco cannot read, with the fix.
    """
    notes = []
    for name, inp in list(book.inputs.items()):
        rule = rules.get(name)
        if rule is None or not rule.unit:
            continue
        if not inp.unit.strip():
            book.inputs[name] = inp.in_unit(rule.unit)
            continue
        try:
            factor = conversion(inp.unit, rule.unit)
        except UnitProblem as exc:
            raise book.error(f"inputs.{name}.unit", f"{exc}", "unit") from None
        if factor == 1.0:
            if inp.unit != rule.unit:
                book.inputs[name] = inp.in_unit(rule.unit)
            continue
        note = f"given in {inp.unit}, converted to {rule.unit} ({factor_text(factor)})"
        try:
            book.inputs[name] = inp.in_unit(rule.unit, factor, note)
        except FieldProblem as exc:
            raise book.error(
                f"inputs.{name}.unit", f"in {rule.unit} ({factor_text(factor)}): {exc}", "unit"
            ) from None
        notes.append(f"inputs.{name}: {note}")
    return notes


def is_fraction(rule) -> bool:
    """A rule for a share (unit "1" or "1/<time>") whose range lies within [0, 1]."""
    parsed = parse_unit(rule.unit)
    if parsed is None:
        return False
    dimensionless = all(base in ("year", "day", "hour") and p < 0 for base, p in parsed.powers)
    return dimensionless and parsed.factor == 1.0 and rule.low >= 0 and rule.high <= 1


def looks_like_percent(rule, lo: float, hi: float) -> bool:
    """Values from ``lo`` to ``hi`` on a fraction input that read as percent: above 1 up
    to 100, at least 2 (a 1.2 on a fraction is a slip past the bound 1, not 1.2 %), and
    none of them a fraction already (``lo`` is 0 or 1 and up)."""
    return (is_fraction(rule) and math.isfinite(hi) and 2 <= hi <= 100
            and (lo == 0 or lo >= 1))


def percent_hint(inp: Input, rule, lo: float, hi: float) -> str:
    """``"; it looks like percent: write 0.03, not 3 (or unit = "%")"`` for a fraction
    input whose values read as percent (:func:`looks_like_percent`), else ""."""
    if not looks_like_percent(rule, lo, hi):
        return ""
    shown = lo if lo > 1 else hi
    return (
        f"; {inp.name} is a fraction and these look like percent: write {shown / 100:g}, "
        f"not {shown:g} (or keep the numbers and write unit = \"%\")"
    )


def bound_text(rule, lo: float, hi: float) -> str:
    """`` and 1.2 is above its upper bound 1``: the end of a distribution over ``lo``..``hi``
    that crosses a bound of a two-sided range ("" for a one-sided range, whose text says
    it, and when neither end crosses)."""
    if not (math.isfinite(rule.low) and math.isfinite(rule.high)):
        return ""
    if hi > rule.high:
        return f" and {hi:g} is above its upper bound {rule.high:g}"
    if lo < rule.low:
        return f" and {lo:g} is below its lower bound {rule.low:g}"
    return ""
