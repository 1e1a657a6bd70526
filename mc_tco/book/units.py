"""Units of a book's inputs against the units a model declares, with the conversions a user
expects: months <-> years, kUSD / MUSD <-> USD, % <-> fraction ("1"), kW <-> W, KB <-> TB, ...

A unit is a product of known words divided by others, written ``a/b`` or ``a/b/c``
(= a / (b c)): ``USD/Mtok``, ``1/year``, ``USD/GPU-hour``, ``tokens/GPU-hour``, ``%/year``.
:func:`conversion` gives the factor that turns a value in the book's unit into the model's,
or says why it cannot. Days, hours and months are not converted into one another (a month
has 28-31 days; the TCO model counts 730 hours); only months <-> years are.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["UnitProblem", "conversion", "parse_unit", "same_dimension", "scales_of"]

#: word -> (base, factor to the base); case matters (M = mega, m is not used)
_WORDS: dict[str, tuple[str, float]] = {
    "1": ("", 1.0), "%": ("", 0.01), "percent": ("", 0.01), "fraction": ("", 1.0),
    "USD": ("USD", 1.0), "$": ("USD", 1.0), "kUSD": ("USD", 1e3), "KUSD": ("USD", 1e3),
    "k$": ("USD", 1e3), "MUSD": ("USD", 1e6), "M$": ("USD", 1e6), "BUSD": ("USD", 1e9),
    "year": ("year", 1.0), "years": ("year", 1.0), "yr": ("year", 1.0), "y": ("year", 1.0),
    "month": ("year", 1 / 12), "months": ("year", 1 / 12), "mo": ("year", 1 / 12),
    "day": ("day", 1.0), "days": ("day", 1.0),
    "hour": ("hour", 1.0), "hours": ("hour", 1.0), "h": ("hour", 1.0),
    "tok": ("tok", 1.0), "token": ("tok", 1.0), "tokens": ("tok", 1.0),
    "ktok": ("tok", 1e3), "Ktok": ("tok", 1e3), "Mtok": ("tok", 1e6), "Btok": ("tok", 1e9),
    "Gtok": ("tok", 1e9), "Ttok": ("tok", 1e12),
    "W": ("W", 1.0), "kW": ("W", 1e3), "MW": ("W", 1e6),
    "Wh": ("Wh", 1.0), "kWh": ("Wh", 1e3), "MWh": ("Wh", 1e6),
    "B": ("byte", 1.0), "byte": ("byte", 1.0), "bytes": ("byte", 1.0),
    "KB": ("byte", 1e3), "kB": ("byte", 1e3), "MB": ("byte", 1e6), "GB": ("byte", 1e9),
    "TB": ("byte", 1e12), "PB": ("byte", 1e15),
    "GPU": ("GPU", 1.0), "GPUs": ("GPU", 1.0),
    "GPU-hour": ("GPU-hour", 1.0), "GPU-hours": ("GPU-hour", 1.0), "GPUh": ("GPU-hour", 1.0),
    "FTE": ("FTE", 1.0),
}


class UnitProblem(ValueError):
    """A book unit that cannot be turned into the model's; the message says the fix."""


@dataclass(frozen=True)
class Parsed:
    """A unit as base powers (``{"USD": 1, "tok": -1}``) and the factor to those bases."""

    powers: tuple[tuple[str, int], ...]
    factor: float


def parse_unit(unit: str, days_per_month: float | None = None) -> Parsed | None:
    """``"kUSD/month"`` -> USD/year with factor 12000; None for a word not known.

    With ``days_per_month`` (what a model counts a month as), a day is that fraction of a
    month: ``"tokens/day"`` is tokens/year with factor 12 x days_per_month."""
    parts = [p.strip() for p in unit.strip().split("/")]
    if not parts or any(not p for p in parts):
        return None
    powers: dict[str, int] = {}
    factor = 1.0
    for i, word in enumerate(parts):
        if word not in _WORDS:
            return None
        base, f = _WORDS[word]
        if base == "day" and days_per_month:
            base, f = "year", f / (12 * days_per_month)
        sign = 1 if i == 0 else -1
        factor *= f if sign > 0 else 1 / f
        if base:
            powers[base] = powers.get(base, 0) + sign
    return Parsed(tuple(sorted((b, p) for b, p in powers.items() if p)), factor)


def same_dimension(a: str, b: str) -> bool:
    """Whether two units measure the same thing (both parse, same base powers)."""
    pa, pb = parse_unit(a), parse_unit(b)
    return pa is not None and pb is not None and pa.powers == pb.powers


def conversion(book_unit: str, model_unit: str, days_per_month: float | None = None) -> float:
    """The factor that turns a value in ``book_unit`` into ``model_unit`` (1.0: same unit);
    days convert to months only with the model's ``days_per_month``.

    Raises
    ------
    UnitProblem
        When the units measure different things, or a word is not known and the strings
        differ; the message says what to write.
    """
    if book_unit.strip() == model_unit.strip():
        return 1.0
    pb = parse_unit(book_unit, days_per_month)
    pm = parse_unit(model_unit, days_per_month)
    if pb is None or pm is None:
        raise UnitProblem(
            f"unit '{book_unit}' is not the model's '{model_unit}' and mc-tco cannot convert "
            f"it; give the values in {model_unit} and write unit = \"{model_unit}\""
        )
    if pb.powers != pm.powers:
        raise UnitProblem(
            f"unit '{book_unit}' does not measure the same thing as the model's "
            f"'{model_unit}'; give the values in {model_unit} and write unit = \"{model_unit}\""
        )
    factor = pb.factor / pm.factor
    return 1.0 if math.isclose(factor, 1.0, rel_tol=1e-12) else factor


def scales_of(model_unit: str, days_per_month: float | None = None) -> list[str]:
    """Units that are a pure scale of ``model_unit``: each of its words replaced by another
    word of the same measure (``tokens/month`` -> ``ktok/month``, ..., ``tokens/year``, and
    ``tokens/day`` with ``days_per_month``), one per factor, in :data:`_WORDS` order."""
    parts = [p.strip() for p in model_unit.strip().split("/")]
    if parse_unit(model_unit, days_per_month) is None:
        return []
    out = []
    for i, part in enumerate(parts):
        base, factor = _WORDS[part]
        seen = {factor}
        for word in _WORDS:
            w_base, w_factor = _WORDS[word]
            if w_base == "day" and days_per_month:
                w_base, w_factor = "year", w_factor / (12 * days_per_month)
            if w_base == base and base and w_factor not in seen:
                seen.add(w_factor)
                out.append("/".join([*parts[:i], word, *parts[i + 1:]]))
    return out


def factor_text(factor: float) -> str:
    """``x 1000`` or ``/ 12`` (the way a person would write it)."""
    inverse = 1 / factor
    if factor < 1 and math.isclose(inverse, round(inverse), rel_tol=1e-9):
        return f"/ {round(inverse):g}"
    return f"x {factor:g}"


#: units not printed after a number: a pure number
PURE_NUMBER_UNITS = ("", "1", "fraction")


def unit_suffix(unit: str | None) -> str:
    """``" USD"`` to print after a number or a range, ``""`` for a pure number ("1")."""
    unit = (unit or "").strip()
    return "" if unit in PURE_NUMBER_UNITS else f" {unit}"

