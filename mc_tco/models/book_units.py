"""A book's units against its model's: convert what a user expects, refuse the rest.

Called by :func:`mc_tco.models.check_book` before the ranges are checked, so a duration of
48 months on a years input is checked (and used) as 4 years.
"""

from __future__ import annotations

import math

import numpy as np

from mc_tco.book import Book, Grid, Input
from mc_tco.book.units import UnitProblem, conversion, factor_text, parse_unit, scales_of
from mc_tco.distributions.families import FieldProblem
from mc_tco.models.spec import InputRule, ModelSpec

__all__ = ["apply_grid_units", "apply_units", "bound_text", "is_fraction", "looks_like_percent",
           "percent_hint"]


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


def apply_grid_units(book: Book, spec: ModelSpec) -> list[str]:
    """Express every grid dim of ``book`` in its model's unit, in place, as
    :func:`apply_units` does for inputs: ``Btok/month`` on a ``tokens/month`` grid is
    scaled by 1e9 (its ``[analysis]`` report and focus points of that dim too), a missing
    unit takes the model's; ``tokens/day`` converts only with the model's
    ``spec.days_per_month``. A grid dim the model does not have is refused, when the model
    declares its grid (``spec.grid``).

    Returns
    -------
    list of str
        One note per converted dim, e.g. ``grid.demand: given in Btok/month, converted to
        tokens/month (x 1e+09)``.

    Raises
    ------
    BookError
        For a dim the model has no use for (naming the model's dims), or a unit of another
        measure (naming the units accepted).
    """
    notes = []
    if spec.grid:
        dims = list(spec.grid) + [d for d in spec.grid_rules if d not in spec.grid]
        for dim in book.grid:
            if dim not in dims:
                import difflib

                close = difflib.get_close_matches(dim, [*dims, *book.inputs], n=1)
                hint = f"; did you mean [grid.{close[0]}]?" if close else ""
                raise book.error(
                    f"grid.{dim}",
                    f"the model has no grid dimension '{dim}' (its grid: {', '.join(dims)}) "
                    f"and the book no input '{dim}', so [grid.{dim}] would be dropped; remove "
                    f"it, or name an input to fix it at each value{hint}",
                )
    for dim, grid in list(book.grid.items()):
        rule = spec.grid_rules.get(dim) or spec.grid.get(dim)
        model_unit = getattr(rule, "unit", "")
        if not model_unit or grid.unit.strip() == model_unit:
            continue
        if not grid.unit.strip():
            book.grid[dim] = _grid_in(grid, model_unit, 1.0)
            continue
        days = spec.days_per_month
        try:
            factor = conversion(grid.unit, model_unit, days)
        except UnitProblem:
            accepted = ", ".join([model_unit, *scales_of(model_unit, days)])
            no_days = ""
            if not days and conversion_with_days(grid.unit, model_unit):
                no_days = ("; the model does not say how many days its month has, so "
                           f"'{grid.unit}' is not converted")
            raise book.error(
                f"grid.{dim}.unit",
                f"unit '{grid.unit}' is not a unit of the model's {dim} ({model_unit})"
                f"{no_days}; give the values in one of {accepted} and write it as the unit",
                "unit",
            ) from None
        if factor == 1.0:
            book.grid[dim] = _grid_in(grid, model_unit, 1.0)
            continue
        note = f"given in {grid.unit}, converted to {model_unit} ({factor_text(factor)})"
        book.grid[dim] = _grid_in(grid, model_unit, factor, note)
        _scale_points(book, dim, factor)
        notes.append(f"grid.{dim}: {note}")
    return notes


def conversion_with_days(book_unit: str, model_unit: str) -> bool:
    """Whether ``book_unit`` would convert to ``model_unit`` if a month had a known number
    of days (the unit is in days, the model's in months)."""
    try:
        conversion(book_unit, model_unit, 30.0)
    except UnitProblem:
        return False
    return True


def _grid_in(grid: Grid, unit: str, factor: float, note: str = "") -> Grid:
    values = np.asarray(grid.values, dtype=float)
    if factor != 1.0:
        values = values * factor
    return Grid(grid.dim, values, unit, grid.spacing, grid.description, note)


def _scale_points(book: Book, dim: str, factor: float) -> None:
    """The book's ``[analysis]`` report and focus points of ``dim``, in its grid's unit,
    scaled with the grid."""
    report = book.analysis.get("report")
    if report and dim in report and not any(isinstance(v, str) for v in report[dim]):
        book.analysis["report"] = {**report, dim: [v * factor for v in report[dim]]}
    focus = book.analysis.get("focus")
    if focus and dim in focus and not isinstance(focus[dim], str):
        book.analysis["focus"] = {**focus, dim: focus[dim] * factor}


def is_fraction(rule: InputRule) -> bool:
    """A rule for a share (unit "1" or "1/<time>") whose range lies within [0, 1]."""
    parsed = parse_unit(rule.unit)
    if parsed is None:
        return False
    dimensionless = all(base in ("year", "day", "hour") and p < 0 for base, p in parsed.powers)
    return dimensionless and parsed.factor == 1.0 and rule.low >= 0 and rule.high <= 1


def looks_like_percent(rule: InputRule, lo: float, hi: float) -> bool:
    """Values from ``lo`` to ``hi`` on a fraction input that read as percent: above 1 up
    to 100, at least 2 (a 1.2 on a fraction is a slip past the bound 1, not 1.2 %), and
    none of them a fraction already (``lo`` is 0 or 1 and up)."""
    return (is_fraction(rule) and math.isfinite(hi) and 2 <= hi <= 100
            and (lo == 0 or lo >= 1))


def percent_hint(inp: Input, rule: InputRule, lo: float, hi: float) -> str:
    """``"; it looks like percent: write 0.03, not 3 (or unit = "%")"`` for a fraction
    input whose values read as percent (:func:`looks_like_percent`), else ""."""
    if not looks_like_percent(rule, lo, hi):
        return ""
    shown = lo if lo > 1 else hi
    return (
        f"; {inp.name} is a fraction and these look like percent: write {shown / 100:g}, "
        f"not {shown:g} (or keep the numbers and write unit = \"%\")"
    )


def bound_text(rule: InputRule, lo: float, hi: float) -> str:
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
