"""Cumulative curves (P(target <= x), P(target > x) with their band), scatter data of the
top inputs against a target, and the conditional answer given confined inputs: the
readers' door to :mod:`mc_tco.results.curves` and :mod:`mc_tco.results.given` (where the
accessor, one layer down, computes them)."""

from __future__ import annotations

from mc_tco.results.curves import cdf, dkw_halfwidth, scatter, target_at
from mc_tco.results.given import MIN_ROWS, Condition, given, parse_given

__all__ = ["MIN_ROWS", "Condition", "cdf", "dkw_halfwidth", "given", "parse_given",
           "scatter", "target_at"]
