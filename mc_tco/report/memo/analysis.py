"""The numbers the memo reads, computed by the analysis layer: this module only gathers
them under the names the memo's sections use (``A.ranking``, ``A.tornado``, ...).

Every function is defined in :mod:`mc_tco.decision` (one copy): the results file checked and
its grid points (:mod:`~mc_tco.decision.tco_data`), shares with their interval
(:mod:`~mc_tco.decision.shares`), the ranking of the inputs
(:mod:`~mc_tco.decision.indices`), the tornado (:mod:`~mc_tco.decision.tornado`), the
break-even distribution (:mod:`~mc_tco.decision.breakeven`) and the costs
(:mod:`~mc_tco.decision.costs`). Nothing here computes.
"""

from __future__ import annotations

from mc_tco.decision.breakeven import breakeven_cdf
from mc_tco.decision.costs import cost_breakdown
from mc_tco.decision.indices import Ranking, input_order, rank_intervals, ranking
from mc_tco.decision.shares import (
    MIN_EVENTS,
    indicator_counts,
    prob_with_ci,
    rare_indicator,
)
from mc_tco.decision.tco_data import (
    CHOICES,
    STRATEGIES,
    TCO_MODEL,
    TOKENS_PER_USER,
    check_results,
    focus_demand,
    grid_point,
    is_tco_model,
    nearest_point,
)
from mc_tco.decision.tornado import tornado, tornado_swing

__all__ = [
    "CHOICES",
    "MIN_EVENTS",
    "STRATEGIES",
    "TCO_MODEL",
    "TOKENS_PER_USER",
    "Ranking",
    "breakeven_cdf",
    "check_results",
    "cost_breakdown",
    "focus_demand",
    "grid_point",
    "indicator_counts",
    "input_order",
    "is_tco_model",
    "nearest_point",
    "prob_with_ci",
    "rank_intervals",
    "ranking",
    "rare_indicator",
    "tornado",
    "tornado_swing",
]
