"""The payback figure's hybrid: over the scenarios where it buys a server, and no curve
(with no "never within the horizon: 100%") at a demand where none buys one."""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.decision.timeaxis import payback_shares
from mc_tco.report.memo.figures_time import payback_figure


def _curves(hybrid_values):
    pay = xr.DataArray(
        np.stack([np.array([6.0, 30.0, np.inf, 12.0]), np.asarray(hybrid_values, float)],
                 axis=1),
        dims=("sample", "strategy"), coords={"strategy": ["buy", "hybrid"]})
    return payback_shares(pay, 48, ("buy", "hybrid"))


def test_a_hybrid_that_buys_in_some_scenarios_is_labelled_with_that_share():
    fig = payback_figure(_curves([np.nan, 10.0, np.nan, np.inf]), ("buy", "hybrid"),
                         held={"hybrid": 0.5})
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels[0] == "buy (never within 48 months: 25%)"
    assert labels[1] == ("hybrid, the 50% of scenarios that buy a server (never within 48 "
                         "months: 50%)")


def test_a_hybrid_that_never_buys_has_no_curve():
    fig = payback_figure(_curves([np.nan] * 4), ("buy", "hybrid"), held={"hybrid": 0.0})
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[1] == "hybrid: no scenario buys a server (it is the API itself)"
    assert not any("100%" in label for label in labels[1:])
    hybrid = [ln for ln in ax.get_lines() if ln.get_label().startswith("hybrid")]
    assert len(hybrid) == 1 and len(hybrid[0].get_xdata()) == 0  # (a legend entry only)
