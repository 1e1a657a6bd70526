"""The time-axis numbers the memo's time sections read, computed by
:mod:`mc_tco.decision.timeaxis` (payback, peak cash need and IRR with their Monte Carlo
intervals); gathered here under the names the sections use. Nothing here computes."""

from __future__ import annotations

from mc_tco.decision.timeaxis import Estimate, TimeNumbers, median_ci, share_ci, time_numbers

__all__ = ["Estimate", "TimeNumbers", "median_ci", "share_ci", "time_numbers"]
