"""The glyph check of the memo's figures walks the texts without laying out the ticks."""

from __future__ import annotations

from matplotlib.text import Text

from mc_tco.report.memo.figures import _demand_axis, _figure, _texts, to_png

ROCKET = "\N{ROCKET}"


def _busy_figure():
    fig = _figure(4, 3)
    ax, bx = fig.subplots(1, 2)
    fig.suptitle(f"suptitle {ROCKET}")
    ax.set_title(f"title {ROCKET}")
    ax.set_xlabel(f"x label {ROCKET}")
    ax.plot([1e9, 1e12], [0, 1], label=f"line {ROCKET}")
    _demand_axis(ax, (1e9, 1e12))  # a log axis and a secondary axis on top
    ax.legend(title=f"legend {ROCKET}")
    ax.annotate(f"note {ROCKET}", (1e10, 0.5), xytext=(1e11, 0.2), arrowprops={})
    bx.barh([0, 1], [1, 2])
    # tick labels set before drawing (a missing glyph there comes back from the formatter
    # at draw time: neither walk can drop it, so this one is a glyph the font has)
    bx.set_yticks([0, 1], ["tick \N{LATIN SMALL LETTER E WITH ACUTE}", "plain"])
    return fig


def test_the_walk_finds_every_text_findobj_finds():
    fig = _busy_figure()
    walked = {id(t) for t in _texts(fig) if t.get_text()}
    found = {id(t) for t in fig.findobj(Text) if t.get_text()}
    assert walked == found and len(found) >= 10


def test_every_missing_glyph_is_dropped():
    fig = _busy_figure()
    assert to_png(fig)[:4] == b"\x89PNG"
    texts = [t.get_text() for t in fig.findobj(Text)]
    assert not any(ROCKET in s for s in texts)
    assert {"suptitle", "title", "line", "legend", "note", "tick \xe9", "plain"} <= set(texts)
