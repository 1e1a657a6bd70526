"""What a model declares about itself: its inputs' units and ranges, grid, targets, report
points, benefits and alternatives (:class:`ModelSpec`, :class:`InputRule`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from mc_tco.book import Grid

__all__ = ["TAIL", "InputRule", "ModelSpec", "spec_of"]


@dataclass(frozen=True)
class InputRule:
    """What a model accepts for one input: the unit and the range from ``low`` to ``high``.

    A bound is closed unless ``low_open`` / ``high_open`` (then a continuous distribution may
    start at it, as a lognormal starts at 0, but a constant or a discrete value may not).
    """

    unit: str
    low: float = -math.inf
    high: float = math.inf
    description: str = ""
    low_open: bool = False
    high_open: bool = False

    def range_text(self) -> str:
        """The valid range in words, e.g. ``>= 0 and < 1`` (``any finite value`` when unbounded)."""
        lo = f"> {self.low:g}" if self.low_open else f">= {self.low:g}"
        hi = f"< {self.high:g}" if self.high_open else f"<= {self.high:g}"
        if math.isinf(self.low) and math.isinf(self.high):
            return "any finite value"
        if math.isinf(self.high):
            return lo
        if math.isinf(self.low):
            return hi
        left = "(" if self.low_open else "["
        right = ")" if self.high_open else "]"
        return f"in {left}{self.low:g}, {self.high:g}{right}"

    def contains(self, values: ArrayLike) -> np.ndarray:
        """Whether each sampled value is allowed: finite and within the bounds (an open
        bound excludes the bound itself), elementwise."""
        v = np.asarray(values, dtype=float)
        if v.size:  # the usual case, every value allowed, from two reductions (NaN: min NaN)
            lo, hi = float(v.min()), float(v.max())
            if (math.isfinite(lo) and math.isfinite(hi)
                    and (lo > self.low if self.low_open else lo >= self.low)
                    and (hi < self.high if self.high_open else hi <= self.high)):
                return np.ones(v.shape, dtype=bool)
        with np.errstate(invalid="ignore"):
            low_ok = v > self.low if self.low_open else v >= self.low
            high_ok = v < self.high if self.high_open else v <= self.high
        return np.isfinite(v) & low_ok & high_ok

    def admits(self, lo: float, hi: float, continuous: bool) -> bool:
        """Whether values from ``lo`` to ``hi`` are allowed (endpoints of a continuous
        distribution carry no mass, so they may touch an open bound)."""
        low_ok = lo > self.low or (lo == self.low and (not self.low_open or continuous))
        high_ok = hi < self.high or (hi == self.high and (not self.high_open or continuous))
        return low_ok and high_ok


#: tail probability below which an unbounded distribution's mass is ignored in range checks
TAIL = 1e-12


@dataclass(frozen=True)
class ModelSpec:
    """What a model declares about itself; every field is optional."""

    inputs: dict[str, InputRule] = field(default_factory=dict)
    grid: dict[str, Grid] = field(default_factory=dict)
    targets: tuple[str, ...] = ()
    #: points the printed table and the memo report, per dim (added to the grid)
    report: dict[str, list] = field(default_factory=dict)
    #: grid points added to every run's grid, whatever the book's grid and report, per dim:
    #: demands a reader's numbers are stated at (the article's claims: mc_tco.report.memo.claims)
    points: dict[str, list] = field(default_factory=dict)
    #: the grid point whose input ranking is printed, e.g. {"demand": 5e11, "strategy": "buy"}
    focus: dict[str, Any] = field(default_factory=dict)
    #: per-sample outputs summarised by quantiles (and their share of "never" = inf)
    distributions: tuple[str, ...] = ()
    #: labels of the indicator ``target > 0`` for people, e.g. "beats the API"
    indicator_label: str = "> 0"
    #: the values each grid dim may take, e.g. {"demand": InputRule("tokens/month", 0,
    #: low_open=True)}; a book's grid point outside is refused
    grid_rules: dict[str, InputRule] = field(default_factory=dict)
    #: outputs that are a benefit (higher is better, 0 at the baseline), e.g. ("saving",
    #: "npv"); only these may be targets. Empty: every output may be
    benefits: tuple[str, ...] = ()
    #: the dim whose labels are the alternatives decided among, e.g. "strategy"
    alternatives: str | None = None
    #: the alternative every benefit is measured against, e.g. "api"
    baseline: str | None = None
    #: inputs of an earlier version of the model -> what replaced them (refused in a book)
    retired: dict[str, str] = field(default_factory=dict)
    #: inputs added by the current version -> the value that gives the earlier version back
    #: (a book that lacks some is refused with this list)
    neutral: dict[str, float] = field(default_factory=dict)
    #: the days the model counts in a month (the TCO model: 30.4), so that a book's grid in
    #: tokens/day converts to tokens/month; None: days are not converted to months
    days_per_month: float | None = None


def spec_of(model: Callable) -> ModelSpec:
    """The model's :class:`ModelSpec`, or an empty one."""
    spec = getattr(model, "spec", None)
    return spec if isinstance(spec, ModelSpec) else ModelSpec()


