"""The results file: its contract (:mod:`.schema`), the ``ds.mc_tco`` accessor
(:mod:`.accessor`) and grid points as people write them (:mod:`.points`)."""

from mc_tco.results import accessor as _accessor  # noqa: F401  (registers ds.mc_tco)
from mc_tco.results.points import (
           GRID_DIGITS,
           GRID_RTOL,
           match_point,
           nearest_point,
           parse_amount,
           point_index,
)
from mc_tco.results.ranking import rank_order
from mc_tco.results.schema import SCHEMA_VERSION

__all__ = ["GRID_DIGITS", "GRID_RTOL", "SCHEMA_VERSION", "match_point", "nearest_point",
           "parse_amount", "point_index", "rank_order"]
