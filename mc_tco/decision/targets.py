"""Target probabilities P(target > x), P(target < x) with their interval, and the flag on a
ranking of the decision indicator that rests on too few events: the readers' door to
:mod:`mc_tco.results.targets` (where the accessor, one layer down, computes them)."""

from __future__ import annotations

from mc_tco.results.targets import p_exceeds, parse_condition, rare_ranking

__all__ = ["p_exceeds", "parse_condition", "rare_ranking"]
