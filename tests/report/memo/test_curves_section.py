"""The memo's appendix of cumulative curves and scatter plots (issue 25, items 2 and 3):
its figures draw what ``ds.mc_tco.cdf`` and ``ds.mc_tco.scatter`` computed, and its words
quote their numbers; both memos list it."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from mc_tco.report.fmt import pct_ci
from mc_tco.report.memo.figures_cdf import cdf_figure, scatter_figure
from mc_tco.report.memo.render import Figure, Paragraph
from mc_tco.report.memo.sections_curves import section_curves
from mc_tco.results.io import open_results


@pytest.fixture(scope="module")
def ds(result_files):
    return open_results(result_files["default"])


def test_the_figures_draw_the_computed_curves_and_points(ds):
    curves = ds.mc_tco.cdf("saving", demand=5e11, points=51)
    fig = cdf_figure(curves, "at 500B")
    left, right = fig.axes
    lines = [ln for ln in left.get_lines() if len(ln.get_xdata()) == 51]  # not the 0 line
    assert len(lines) == curves.sizes["strategy"]
    np.testing.assert_allclose(lines[0].get_ydata(),
                               curves["cdf"].isel(strategy=0).values)
    back = [ln for ln in right.get_lines() if len(ln.get_xdata()) == 51]
    np.testing.assert_allclose(back[0].get_ydata(), curves["ccdf"].isel(strategy=0).values)
    sc = ds.mc_tco.scatter("saving", strategy="buy", demand=5e11, top=3)
    fig = scatter_figure(sc, "at 500B")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 3
    wins, loses = panels[0].collections[1], panels[0].collections[0]
    assert len(wins.get_offsets()) == int(sc["wins"].sum())
    assert len(loses.get_offsets()) == sc.sizes["sample"] - int(sc["wins"].sum())
    assert str(sc["input"].values[0]) in panels[0].get_title()


def test_the_section_quotes_the_library(ds, no_png):
    ctx = SimpleNamespace(ds=ds, target="saving", option="buy", point={"demand": 5e11},
                          level="95%")
    sec = section_curves(ctx)
    assert sec is not None and sec.anchor == "curves"
    figs = [b.name for b in sec.blocks if isinstance(b, Figure)]
    assert figs == ["cumulative_curves", "scatter_top_inputs"]
    sc = ds.mc_tco.scatter("saving", strategy="buy", demand=5e11, top=4)
    text = " ".join(b.text for b in sec.blocks if isinstance(b, Paragraph))
    lo, hi = sc["p_win_ci"].values
    assert pct_ci(float(sc["p_win"]), lo, hi, ds.mc_tco.conf_level) in text
    for name in sc["input"].values:
        assert f"`{name}`" in text
    assert f"{ds.sizes['sample']:,} stored scenarios" in text


def test_both_memos_list_the_section():
    from mc_tco.report.memo import generic, sections

    assert section_curves in sections.SECTIONS and sections.APPENDIX["curves"] == "F"
    assert section_curves in generic.SECTIONS
