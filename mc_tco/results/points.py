"""Grid points as people write them: one parser and one matcher with one tolerance.

``500B``, ``1.26T``, ``5e11`` and ``1.259e12`` all name a point of a results file's demand
grid. Every reader (``run``, ``memo``, ``explain``, the accessor, the app) goes through
:func:`parse_amount` and :func:`match_point`, so a value accepted by one is accepted by all.

The package's internal lookups go through the same module: :func:`point_index` (is this
value a point of the grid, to :data:`GRID_RTOL`) and :func:`nearest_point` (the nearest
point, on the scale decided once per dim in :data:`SCALES`). A test fails when a grid
lookup (``np.isclose(``, ``argmin(np.abs(``) appears anywhere else.
"""

from __future__ import annotations

import math
import re

import numpy as np

from mc_tco.book.units import unit_suffix
from mc_tco.errors import OptionError

__all__ = ["GRID_DIGITS", "GRID_RTOL", "SCALES", "match_point", "nearest_index",
           "nearest_point", "parse_amount", "point_index", "scale_of"]

#: significant digits of a printed grid value (1.2589e12 prints as 1.26T): a value matches
#: a grid point when it is the point, or the point as printed
GRID_DIGITS = 3
#: below this relative difference two values are the same point (floating-point noise)
GRID_RTOL = 1e-9
#: how "nearest" is measured along a numeric dim: demand spans decades, so by ratio; a dim
#: not named here by difference
SCALES = {"demand": "log", "cash_demand": "log"}


_SUFFIX = {"": 1.0, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}
_AMOUNT = re.compile(r"\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([kKmMbBgGtT]?)\s*")


def parse_amount(text, flag: str = "value") -> float:
    """``5e11``, ``500B``, ``1.26T`` -> float (k, M, B/G, T suffixes); numbers pass through.

    Raises
    ------
    OptionError
        ``{flag} {text}: not a number; write e.g. 5e11 or 500B``.
    """
    if isinstance(text, int | float | np.number) and not isinstance(text, bool):
        return float(text)
    m = _AMOUNT.fullmatch(str(text))
    if not m:
        raise OptionError(f"{flag} {text}: not a number; write e.g. 5e11 or 500B")
    return float(m.group(1)) * _SUFFIX[m.group(2).lower()]


def match_point(coord, value, *, dim: str = "demand", flag: str = "--demand",
                unit: str = "", where: str = "") -> float:
    """The point of ``coord`` that ``value`` names: the point itself (to
    :data:`GRID_RTOL`), or the point as printed to :data:`GRID_DIGITS` significant digits
    (``1.26T`` names 1.2589e12; ``400B`` does not name 3.981e11, printed ``398B``).

    Raises
    ------
    OptionError
        Outside the grid, or between two points (naming the nearest ones and how to add
        the point to the book).
    """
    v = parse_amount(value, flag)
    coord = np.asarray(coord, dtype=float)
    prefix = f"{where}: " if where else ""
    unit = unit_suffix(unit)
    shown = f"{flag}{v:g}" if flag.endswith("=") else f"{flag} {v:g}"
    lo, hi = float(coord.min()), float(coord.max())
    # the bounds widened by the tolerance away from the grid (whatever their sign)
    low = min(lo, _printed(lo))
    high = max(hi, _printed(hi))
    if (not math.isfinite(v) or v < low - GRID_RTOL * abs(low)
            or v > high + GRID_RTOL * abs(high)):
        raise OptionError(
            f"{prefix}{shown} is outside the grid ({lo:g} to {hi:g}{unit}); choose a "
            "value in it, or rerun with a book whose grid covers it"
        )
    rel = np.abs(coord - v) / np.maximum(np.abs(coord), 1e-300)
    i = int(np.argmin(rel))
    if rel[i] > GRID_RTOL and _printed(coord[i]) != _printed(v):
        below = coord[coord < v].max()
        above = coord[coord > v].min()
        raise OptionError(
            f"{prefix}{shown} is not a grid point; the nearest are {below:.4g} and "
            f"{above:.4g}{unit}; use one of those, or add include = [{v:g}] to the book's "
            f"[grid.{dim}] and rerun it"
        )
    return float(coord[i])


def scale_of(dim: str | None) -> str:
    """The scale ``nearest`` is measured on along ``dim`` (:data:`SCALES`; else linear)."""
    return SCALES.get(dim or "", "linear")


def point_index(coord, value) -> int | None:
    """The index of the point of ``coord`` equal to ``value`` to :data:`GRID_RTOL`, or
    None: an internal lookup of a value the package itself put on the grid."""
    coord = np.asarray(coord, dtype=float)
    v = float(value)
    hit = np.flatnonzero(np.abs(coord - v) <= GRID_RTOL * np.maximum(np.abs(coord), abs(v)))
    return int(hit[0]) if hit.size else None


def nearest_point(coord, value, scale: str = "log") -> float:
    """The point of ``coord`` nearest ``value``: by ratio (``scale="log"``, when ``value``
    and the grid are positive) or by difference (``"linear"``); the first on a tie.

    Use :func:`scale_of` for a dim's scale; :func:`match_point` for a value a person typed
    (it refuses a value that is not a point).
    """
    coord = np.asarray(coord, dtype=float)
    return float(coord[nearest_index(coord, value, scale)])


def nearest_index(coord, value, scale: str = "log") -> int:
    """The index of :func:`nearest_point`."""
    if scale not in ("log", "linear"):
        raise ValueError(f"scale must be 'log' or 'linear', not {scale!r}")
    coord = np.asarray(coord, dtype=float)
    v = float(value)
    if scale == "log" and v > 0 and (coord > 0).all():
        dist = np.abs(np.log(coord / v))
    else:
        dist = np.abs(coord - v)
    return int(np.argmin(dist))


def _printed(x: float) -> float:
    return float(f"{float(x):.{GRID_DIGITS}g}")
