"""What a book is once read: :class:`Input` (a frozen scipy distribution with its unit,
source and group), :class:`Grid` and :class:`Book`."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mc_tco.book.where import _locate
from mc_tco.distributions.copula import CorrelationMatrix
from mc_tco.distributions.families import (
    SCALED_FIELDS,
    U_MIN,
    beta_args,
    build_distribution,
    ppf,
    ppf_parsed,
)
from mc_tco.errors import BookError

_TOP_LEVEL = {"book", "grid", "analysis", "inputs", "correlation"}
_BOOK_FIELDS = {"name", "description", "model"}
_GRID_FIELDS = {"start", "stop", "num", "spacing", "unit", "include", "values", "description"}
_ANALYSIS_FIELDS = {"targets", "report", "focus", "distributions", "repair_correlations"}
_CORRELATION_FIELDS = {"between", "spearman", "kendall", "source"}
#: values of ``[analysis] repair_correlations``
REPAIRS = ("nearest",)
_INPUT_META = {"dist", "unit", "source", "group", "description"}
_MAX_GRID = 100_000
#: the family of an input that a ``[grid.<input>]`` table fixes at each of its values
GRID_FAMILY = "grid"
#: dims of the results file that the engine makes; a grid dim or an input cannot take them
RESERVED = ("sample", "input", "input_2", "target", "quantile", "ci_bound")


@dataclass(frozen=True)
class Input:
    """One input of a book: its family, parameters, frozen distribution and provenance.

    ``dist`` is a frozen ``scipy.stats`` distribution (for the common families a
    :class:`mc_tco.distributions.frozen.Frozen`: scipy's ``ppf`` and ``support`` without
    importing :mod:`scipy.stats`, the real object for anything else), or None for a
    constant, whose value is ``params["value"]``.
    """

    name: str
    family: str
    params: dict[str, Any]
    unit: str = ""
    source: str = ""
    group: str = ""
    description: str = ""
    dist: Any = None
    line: int | None = None
    #: how the book's unit was converted to the model's, e.g. "given in month, converted to
    #: year (/ 12)"; "" when the book used the model's unit
    unit_note: str = ""

    def in_unit(self, unit: str, factor: float = 1.0, note: str = "") -> Input:
        """The same input in ``unit``: every field in the input's unit multiplied by ``factor``.

        ``factor`` must be positive (a change of scale, never of sign).
        """
        if factor == 1.0:
            return dataclasses.replace(self, unit=unit, unit_note=note)
        params = {
            k: ([x * factor for x in v] if isinstance(v, list) else v * factor)
            if k in SCALED_FIELDS else v
            for k, v in self.params.items()
        }
        if self.is_grid:  # values, no distribution
            return dataclasses.replace(self, params=params, unit=unit, unit_note=note)
        dist = build_distribution(self.family, params)
        return dataclasses.replace(self, params=params, unit=unit, unit_note=note, dist=dist)

    @property
    def is_constant(self) -> bool:
        """Whether the input is a constant (``dist = "constant"``), not sampled."""
        return self.family == "constant"

    @property
    def is_grid(self) -> bool:
        """Whether the input is a grid dimension (``[grid.<input>]``): fixed at each of its
        ``values`` in turn, not sampled (family ``"grid"``, made by the book's reader)."""
        return self.family == GRID_FAMILY

    @property
    def is_sampled(self) -> bool:
        """Whether the input is a column of the design (neither a constant nor a grid)."""
        return not self.is_constant and not self.is_grid

    @property
    def grid_values(self) -> np.ndarray:
        """The values of a grid input, ascending."""
        return np.asarray(self.params["values"], dtype=float)

    @property
    def value(self) -> float:
        """The value of a constant input."""
        return float(self.params["value"])

    def ppf(self, u: np.ndarray) -> np.ndarray:
        """Map unit-cube coordinates ``u`` to values of this input.

        ``u`` is clipped to ``[U_MIN, 1 - U_MIN]`` (below the resolution of the Sobol'
        points), so a design point at exactly 0 maps to a finite value; the values are
        clipped to the support (scipy's truncnorm can overshoot it by rounding).
        """
        if self.is_constant:
            return np.full(np.shape(u), self.value)
        if self.is_grid:
            raise ValueError(f"{self.name} is a grid input: it is set per grid value, "
                             "not sampled")
        u = np.clip(np.asarray(u, dtype=float), U_MIN, 1 - U_MIN)
        lo, hi = self._support
        return np.clip(ppf_parsed(self.dist, u, self._beta_args), lo, hi)

    @functools.cached_property
    def _support(self) -> tuple[float, float]:
        # parsed once per input (scipy's support() parses the parameters at every call)
        return self.support()

    @functools.cached_property
    def _beta_args(self) -> tuple[float, float, float, float] | None:
        return beta_args(self.dist)

    def quantiles(self, q) -> np.ndarray:
        """Quantiles of the input's distribution at probabilities ``q``."""
        q = np.asarray(q, dtype=float)
        if self.is_constant:
            return np.full(np.shape(q), self.value)
        if self.is_grid:  # not a distribution: no quantiles
            return np.full(np.shape(q), np.nan)
        return ppf(self.dist, q)

    def support(self) -> tuple[float, float]:
        """The smallest and largest value the input can take (may be infinite)."""
        if self.is_constant:
            return self.value, self.value
        if self.is_grid:
            return float(self.grid_values.min()), float(self.grid_values.max())
        lo, hi = self.dist.support()
        return float(lo), float(hi)

    @property
    def is_assumption(self) -> bool:
        """True when the source says the value is an analyst's assumption (or is missing)."""
        return not self.source or self.source.lower().startswith("assumption")

    def describe(self) -> str:
        """The family with its parameters, e.g. ``pert(min=0.4, mode=0.6, max=0.8)``."""
        if self.is_constant:
            return f"constant {self.value:g}"
        if self.is_grid:
            aside = self.params.get("_set_aside")
            return (f"grid [{', '.join(f'{v:g}' for v in self.grid_values)}] ([grid.{self.name}])"
                    + (f"; the book's {aside} set aside" if aside else ""))
        args = ", ".join(
            f"{k}={_fmt_param(v)}" for k, v in self.params.items() if not k.startswith("_")
        )
        return f"{self.family}({args})"


def _fmt_param(v) -> str:
    if isinstance(v, str):  # an empirical input's file and column
        return v
    if isinstance(v, list | tuple):
        return "[" + ", ".join(f"{x:g}" for x in v) + "]"
    return f"{v:g}"


@dataclass(frozen=True, eq=False)
class Grid:
    """One grid dimension of the outcome, e.g. ``demand`` in tokens/month.

    Two grids are equal when every field is and their values are the same array
    (a dataclass's own ``==`` would compare the arrays elementwise and raise).
    """

    dim: str
    values: np.ndarray
    unit: str = ""
    spacing: str = "log"
    description: str = ""
    #: how the book's unit was converted to the model's, e.g. "given in Btok/month,
    #: converted to tokens/month (x 1e+09)"; "" when the book used the model's unit
    unit_note: str = ""

    def with_points(self, points) -> Grid:
        """The grid with ``points`` added (a point within 1e-9 relative of a grid point
        replaces the nearest such point)."""
        values = list(self.values)
        for p in points:
            p = float(p)
            close = [i for i, v in enumerate(values) if abs(v - p) <= 1e-9 * max(abs(p), abs(v))]
            if close:  # the nearest: 0 is not "close" to 5e-324, nor two points to one
                values[min(close, key=lambda i: abs(values[i] - p))] = p
            else:
                values.append(p)
        return dataclasses.replace(self, values=np.array(sorted(values)))

    def __eq__(self, other) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        return (self.dim, self.unit, self.spacing, self.description) == (
            other.dim, other.unit, other.spacing, other.description
        ) and np.array_equal(self.values, other.values)

    def __hash__(self) -> int:
        return hash((self.dim, self.unit, self.spacing, self.description,
                     np.asarray(self.values, dtype=float).tobytes()))


@dataclass
class Book:
    """An assumption book, loaded and checked (see :func:`load_book`)."""

    path: str
    text: str
    name: str
    description: str = ""
    model: str | None = None
    grid: dict[str, Grid] = field(default_factory=dict)
    analysis: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Input] = field(default_factory=dict)
    #: the ``[[correlation]]`` tables as written (between, spearman or kendall, source)
    correlations: list[dict[str, Any]] = field(default_factory=list)
    #: their validated matrix over the uncertain inputs; None when there are none
    correlation: CorrelationMatrix | None = None

    def __repr__(self) -> str:
        """Short: a notebook shows the name, the file and what is in it, not the TOML."""
        n, k = len(self.inputs), len(self.uncertain)
        grid = ", ".join([f"{d}: {g.values.size}" for d, g in self.grid.items()]
                         + [f"{d}: {i.grid_values.size} (input)"
                            for d, i in self.input_grid.items()])
        return (f"<Book {self.name!r} from {self.path!r}: {n} inputs ({k} uncertain)"
                + (f", grid {grid}" if grid else "")
                + (f", {len(self.correlations)} correlation{'s' * (len(self.correlations) > 1)}"
                   if self.correlations else "")
                + (f", model {self.model}" if self.model else "") + ">")

    @property
    def sha256(self) -> str:
        """The SHA-256 of the book's text, as results files record it."""
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def uncertain(self) -> list[Input]:
        """The sampled inputs, in book order (the order of the Sobol design's columns)."""
        return [i for i in self.inputs.values() if i.is_sampled]

    @property
    def input_grid(self) -> dict[str, Input]:
        """The inputs that are grid dimensions (``[grid.<input>]``), in book order: each
        fixed at every one of its values in turn, on the same samples of the others."""
        return {n: i for n, i in self.inputs.items() if i.is_grid}

    @property
    def constants(self) -> list[Input]:
        """The book's constant inputs, in book order."""
        return [i for i in self.inputs.values() if i.is_constant]

    @property
    def stem(self) -> str:
        """The book file's name without its suffix (``book`` for a book without a path)."""
        return Path(self.path).stem if self.path else "book"

    def error(self, where: str | None, message: str, field_name: str | None = None,
              details: Iterable[str] = ()) -> BookError:
        """A :class:`BookError` for this book, located at ``where`` (e.g. ``inputs.x.low``),
        with ``details`` lines below the message."""
        return BookError(self.path, where, message, _locate(self.text, where, field_name),
                         details)


#: the book ``mc-tco run`` and ``mc-tco inputs`` read without an argument
