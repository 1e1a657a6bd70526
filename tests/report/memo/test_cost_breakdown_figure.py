"""The cost-breakdown figure draws a negative median (the tax saved) where a log axis can
show it: its size, dotted, named "tax saved". It was drawn only where it turned positive
(a line rising from nothing near 1.5T), and the legend hid the lines at low demand."""

from __future__ import annotations

import numpy as np

from mc_tco.decision.costs import cost_breakdown
from mc_tco.report.memo.figures_drivers import cost_breakdown_figure
from mc_tco.results.io import open_results


def test_the_tax_saved_is_drawn_as_its_size(result_files):
    bd = cost_breakdown(open_results(result_files["default"]))
    tax = bd["component_median"].sel(component="tax").values
    assert (tax < 0).any() and (tax > 0).any()  # (the default book: both sides of 0)
    fig = cost_breakdown_figure(bd, demand=5e11)
    left = fig.axes[0]
    lines = {ln.get_label(): ln for ln in left.get_lines()}
    saved, extra = lines["buy: tax saved (median, its size)"], lines["buy: extra tax (median)"]
    assert saved.get_linestyle() == ":" and extra.get_linestyle() == "--"
    y_saved = np.asarray(saved.get_ydata(), dtype=float)
    y_extra = np.asarray(extra.get_ydata(), dtype=float)
    np.testing.assert_allclose(y_saved[tax < 0], -tax[tax < 0])
    assert np.isnan(y_saved[tax >= 0]).all()
    np.testing.assert_allclose(y_extra[tax >= 0], tax[tax >= 0])
    assert np.isnan(y_extra[tax < 0]).all()
    # every line of a cost drawn is positive (a log axis shows it) and within the y range
    lo, hi = left.get_ylim()
    for ln in left.get_lines():
        if ln.get_label().startswith("_"):  # (the demand's marker, in axes coordinates)
            continue
        y = np.asarray(ln.get_ydata(), dtype=float)
        y = y[np.isfinite(y)]
        assert (y > 0).all(), ln.get_label()
    assert lo <= float(np.nanmin(-tax[tax < 0])) <= hi
    # the legend sits below the axes, not over the lines
    legend = left.get_legend()
    assert legend is not None and legend.get_bbox_to_anchor().y1 < left.bbox.y0
    # the shares on the right stack the positive part only, named as such
    right_labels = [t.get_text() for t in fig.axes[1].get_legend().get_texts()]
    assert "extra tax" in right_labels
