"""The empirical family: a column of a CSV file standing as the input's distribution.

A book writes ``dist = "empirical"``, ``file`` (a CSV file, relative to the book's folder)
and ``column`` (the name in its header row). The values are sampled through their quantile
function, numpy's default ``"linear"`` interpolation of the order statistics (Hyndman and
Fan 1996, type 7): with the values sorted, ``x_0 <= ... <= x_{n-1}`` and ``h = (n - 1) u``,

    Q(u) = x_i + (h - i) (x_{i+1} - x_i),    i = floor(h),

so ``Q(0)`` is the smallest value, ``Q(1)`` the largest, and ``Q`` equals
``numpy.quantile(values, u)`` (bit for bit: the same interpolation formula). The
distribution is thus a mixture of ``n - 1`` uniforms, one on each gap between neighbouring
order statistics, each of weight ``1 / (n - 1)``; its cdf, density and moments follow.

The file is read as data by Python's :mod:`csv` module (never imported, evaluated or
executed): a header row, then one number per row in the column (a decimal point, no
thousands separators, no units); a comma, semicolon or tab between the fields.

References
----------
Hyndman, R. J., Fan, Y. (1996). Sample quantiles in statistical packages. The American
Statistician 50, 361-365.
"""

from __future__ import annotations

import csv
import difflib
import math
from pathlib import Path

import numpy as np

from mc_tco.distributions.family_base import Family, FieldProblem, _need

__all__ = ["EMPIRICAL", "MAX_DATA_BYTES", "Sample", "read_column",
           "read_named_column"]

#: largest data file read (64 MB: some millions of numbers)
MAX_DATA_BYTES = 64 * 2**20
#: fewest values an empirical input needs (its quantile function joins neighbours)
MIN_VALUES = 2
#: characters of a bad cell shown in a message
_SHOWN = 24


class Sample:
    """The sorted values of an empirical input (read-only), as a book's ``_data`` field.

    Two samples are equal when their values are; ``sample * factor`` scales them (a unit
    conversion, :meth:`mc_tco.book.Input.in_unit`, with ``factor > 0``).
    """

    __slots__ = ("values",)

    def __init__(self, values):
        v = np.sort(np.asarray(values, dtype=float))
        v.flags.writeable = False
        self.values = v

    def __len__(self) -> int:
        """The number of values."""
        return int(self.values.size)

    def __eq__(self, other) -> bool:
        """Equal values, in order."""
        return isinstance(other, Sample) and np.array_equal(self.values, other.values)

    def __hash__(self) -> int:
        """The hash of the values' bytes."""
        return hash(self.values.tobytes())

    def __mul__(self, factor: float) -> Sample:
        """The values times ``factor`` (a change of unit)."""
        return Sample(self.values * float(factor))

    __rmul__ = __mul__

    def __getstate__(self):
        """The values, for pickling (the engine's worker processes)."""
        return self.values

    def __setstate__(self, state) -> None:
        """Restore from :meth:`__getstate__`."""
        v = np.array(state, dtype=float)
        v.flags.writeable = False
        self.values = v

    def __repr__(self) -> str:
        """The count and the range, not the values."""
        return f"Sample({len(self)} values from {self.values[0]:g} to {self.values[-1]:g})"


def _delimiter(header: str) -> str:
    """The field separator of a CSV file from its header line: comma, semicolon or tab."""
    counts = {d: header.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def _cell(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def read_column(path: str | Path, column: str | None, shown: str | None = None) -> np.ndarray:
    """The numbers of ``column`` in the CSV file ``path``, in file order.

    :func:`read_named_column` without the column's name; the same parameters and errors.
    """
    return read_named_column(path, column, shown)[1]


def read_named_column(path: str | Path, column: str | None,
                      shown: str | None = None) -> tuple[str, np.ndarray]:
    """The name and the numbers of ``column`` in the CSV file ``path``, in file order.

    Parameters
    ----------
    path : str or Path
        The CSV file: a header row, then one row per value.
    column : str or None
        The column's name in the header; None takes the only column of a one-column file.
    shown : str, optional
        How messages name the file (default ``path`` as given).

    Returns
    -------
    (str, numpy.ndarray)
        The column's name (as in the header) and its values as floats (at least
        :data:`MIN_VALUES`).

    Raises
    ------
    FieldProblem
        One line naming the file and what is wrong (its ``field`` is ``"file"`` or
        ``"column"``): no such file, not UTF-8 text, no such column (with the columns it
        has), an empty or non-numeric cell (with its row), fewer than two values.
    """
    p = Path(path)
    name = shown if shown is not None else str(path)
    _need(p.is_file(), "file", f"{name}: no such file" + (
        "" if str(p.resolve()) == name else f" (looked for {p.resolve()})"))
    size = p.stat().st_size
    _need(size <= MAX_DATA_BYTES, "file", f"{name} is {size:,} bytes; a data file is at most "
          f"{MAX_DATA_BYTES:,} bytes (64 MB): keep the column you need, or a sample of it")
    try:
        text = p.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FieldProblem("file", f"{name} is not UTF-8 text (byte {exc.start}: "
                           f"{exc.reason}); save it as CSV UTF-8") from None
    except OSError as exc:
        raise FieldProblem("file", f"{name} cannot be read ({exc.strerror})") from None
    lines = text.splitlines()
    _need(bool(lines) and bool(lines[0].strip()), "file",
          f"{name} is empty; a data file has a header row, then one value per row")
    rows = csv.reader(lines, delimiter=_delimiter(lines[0]))
    header = [h.strip() for h in next(rows)]
    if column is None:
        _need(len(header) == 1, "column", f"{name} has {len(header)} columns "
              f"({', '.join(header)}); say which one (--column, or column = \"...\")")
        j = 0
    else:
        if column not in header:
            close = difflib.get_close_matches(column, header, n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise FieldProblem("column", f"{name} has no column '{column}'; {hint}its "
                               f"columns: {', '.join(header)}")
        j = header.index(column)
    label = header[j]
    values = []
    for number, row in enumerate(rows, start=2):
        if not row or not any(c.strip() for c in row):
            continue  # a blank line is no row
        cell = row[j] if j < len(row) else ""
        _need(bool(cell.strip()), "column", f"{name}: row {number} of column '{label}' is "
              "empty; fill it in or delete the row")
        try:
            v = float(cell)
        except ValueError:
            raise FieldProblem("column", f"{name}: row {number} of column '{label}' is "
                               f"'{_cell(cell)}', not a number; write numbers with a decimal "
                               "point and no thousands separators or units") from None
        _need(math.isfinite(v), "column", f"{name}: row {number} of column '{label}' is "
              f"{cell.strip()}; every value must be a finite number")
        values.append(v)
    _need(len(values) >= MIN_VALUES, "column", f"{name}: column '{label}' has "
          f"{len(values)} value{'s' * (len(values) != 1)}; an empirical distribution needs "
          f"at least {MIN_VALUES}")
    return label, np.asarray(values, dtype=float)


def _check_empirical(p: dict) -> None:
    _need("_data" in p, "file", "the empirical input's file was not read; load it through a "
          "book (mc_tco.book.load_book), which reads the file next to the book")
    data = p["_data"]
    _need(len(data) >= MIN_VALUES, "column",
          f"an empirical input needs at least {MIN_VALUES} values")
    values = data.values if isinstance(data, Sample) else np.asarray(data, dtype=float)
    _need(bool(values[0] < values[-1]), "column",
          f"{p['file']}: every value of column '{p['column']}' is {values[0]:g}: a constant; write "
          f"dist = \"constant\", value = {values[0]:g}")


def _empirical(p: dict):
    from mc_tco.distributions.empirical_gen import EmpiricalGen  # (imports scipy.stats)

    return EmpiricalGen(p["_data"])()


def __getattr__(name: str):
    if name == "EmpiricalGen":  # (in its own module: it subclasses scipy.stats' generator)
        from mc_tco.distributions.empirical_gen import EmpiricalGen

        return EmpiricalGen
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


EMPIRICAL = Family(
    "empirical", ("file", "column"), build=_empirical, check=_check_empirical,
    example='file = "prices.csv", column = "price"  (a CSV file next to the book)',
)
