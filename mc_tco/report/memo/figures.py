"""The memo's figures: one function per figure, each taking results already computed.

Every function returns a :class:`matplotlib.figure.Figure` built without pyplot (no global
state, the Agg canvas) and writes nothing; :func:`to_png` turns one into PNG bytes. Demand
is always on a log axis in tokens/month with a second axis in heavy users at 100M tokens a
month each.
"""

from __future__ import annotations

import io

import numpy as np
import xarray as xr
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from mc_tco.decision.tco_data import TOKENS_PER_USER
from mc_tco.report.fmt import number
from mc_tco.report.memo import background
from mc_tco.report.memo.background import Pending
from mc_tco.report.memo.claims import ARTICLE_BAND
from mc_tco.report.memo.fmt import money, prob, tokens

__all__ = [
    "acceptability_figure",
    "breakeven_cdf_figure",
    "fan_chart",
    "png",
    "to_png",
]

#: one colour per strategy; reserved (12-month commitments) is orange, a warm sibling of
#: on-demand rent's red that stays apart from it
COLORS = {"api": "#222222", "buy": "#1f77b4", "rent": "#d62728", "reserved": "#ff7f0e",
          "owned": "#2ca02c", "hybrid": "#9467bd"}
LABELS = {"buy": "buy nodes", "rent": "rent GPUs on demand",
          "reserved": "reserve GPUs (12-month terms)", "owned": "GPUs already owned",
          "hybrid": "hybrid (nodes that pay for themselves, peaks to the API)", "api": "API"}
SHORT = {"buy": "buy", "rent": "rent", "reserved": "reserved", "owned": "already owned",
         "hybrid": "hybrid", "api": "API"}
#: one colour per cost component of version 3 (mc_tco.models.tco.COMPONENTS)
COMPONENT_COLORS = {"hardware": "#1f77b4", "network": "#17becf", "power": "#ff7f0e",
                    "colocation": "#bcbd22", "upkeep": "#9467bd", "storage": "#8c564b",
                    "staff": "#e377c2", "setup_api": "#7f7f7f", "tax": "#2ca02c"}
COMPONENT_LABELS = {"setup_api": "API until set up or after a stop",
                    "tax": "extra tax (negative: tax saved)"}
#: a component's names on each side of 0 where a log axis draws its size (the tax: the
#: depreciation's shield makes buying's tax lower than the API's at most demands)
SIGNED_LABELS = {"tax": ("extra tax", "tax saved")}
STRATEGIES = ("buy", "rent", "reserved", "owned", "hybrid")
BAND_COLOR = "#f2c14e"
DPI = 110


def png(fig: Figure) -> bytes | Pending:
    """A memo figure's PNG: :func:`to_png`'s bytes, or, inside
    :func:`.background.rendering` (``mc-tco memo`` and ``report``), a figure a child
    process is drawing (:func:`.background.resolve` gives the same bytes)."""
    return background.submit(fig, to_png)


def to_png(fig: Figure, dpi: int = DPI) -> bytes:
    """The figure as PNG bytes (no timestamp in the metadata, so reruns are identical)."""
    buf = io.BytesIO()
    _drop_missing_glyphs(fig)
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def _drop_missing_glyphs(fig: Figure) -> None:
    """Remove characters the figure's fonts cannot draw (an emoji in a book name) from its
    texts, so matplotlib neither warns nor draws an empty box."""
    from matplotlib.font_manager import findfont, get_font

    for text in _texts(fig):
        s = text.get_text()
        if s.isascii():
            continue
        font = get_font(findfont(text.get_fontproperties()))
        kept = "".join(ch for ch in s if ch.isspace() or font.get_char_index(ord(ch)))
        if kept != s:
            text.set_text(" ".join(part for part in kept.split(" ") if part) if kept.strip()
                          else "")


def _texts(artist):
    """Every :class:`~matplotlib.text.Text` under ``artist`` that has its text already, as
    ``artist.findobj(Text)`` but without laying out the ticks: an axis gives its label, its
    offset text and the ticks it has made so far (a tick made later, at draw time, gets
    its label from the formatter then, so ``findobj`` saw it empty too). ``findobj`` runs
    every axis's locator to make its ticks, a third of a figure's rendering time."""
    from matplotlib.axis import Axis
    from matplotlib.text import Text

    stack = [artist]
    while stack:
        a = stack.pop()
        if isinstance(a, Text):
            yield a
        if isinstance(a, Axis):
            made = [t for name in ("majorTicks", "minorTicks") for t in vars(a).get(name, ())]
            stack.extend(reversed([a.label, a.offsetText, *made]))
        else:
            stack.extend(reversed(a.get_children()))


def _figure(width: float, height: float, **kw) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained", **kw)
    return fig


def _token_label(x, _pos=None) -> str:
    return tokens(float(x)) if x > 0 else "0"


def _users_label(x, _pos=None) -> str:
    """An axis tick of users: '100', '1k', '10k' (6 digits at most, as matplotlib's)."""
    return number(float(x), 6)


def _demand_axis(ax, lim, users: bool = True, xlabel: bool = True) -> None:
    """Log demand axis in tokens/month, with heavy users on top."""
    ax.set_xscale("log")
    ax.set_xlim(*lim)
    ax.xaxis.set_major_locator(LogLocator(base=10, numticks=12))
    ax.xaxis.set_major_formatter(FuncFormatter(_token_label))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if xlabel:
        ax.set_xlabel("demand (tokens/month)")
    ax.grid(True, which="major", alpha=0.3)
    if users:
        sec = ax.secondary_xaxis(
            "top", functions=(lambda d: d / TOKENS_PER_USER, lambda u: u * TOKENS_PER_USER)
        )
        sec.xaxis.set_major_locator(LogLocator(base=10, numticks=12))
        sec.xaxis.set_major_formatter(FuncFormatter(_users_label))
        sec.xaxis.set_minor_formatter(NullFormatter())
        sec.set_xlabel("heavy users (100M tokens/month each)", fontsize=9)
        sec.tick_params(labelsize=8)


def _usd(x, _pos=None) -> str:
    """An axis tick in USD: '$1k', '-$2.5k', '$0' (6 digits at most, as matplotlib's)."""
    return money(float(x), digits=6)


def _mark_demand(ax, demand: float | None, label: bool = True) -> None:
    if demand is None:
        return
    ax.axvline(demand, color="#555555", lw=1, ls=":")
    if label:
        ax.annotate(tokens(demand), (demand, 1), xycoords=("data", "axes fraction"),
                    xytext=(3, -12), textcoords="offset points", fontsize=8, color="#555555")


def _article_band(ax, band, label: str | None = "article's break-even band") -> None:
    ax.axvspan(*band, color=BAND_COLOR, alpha=0.35, lw=0, label=label)


def fan_chart(
    quantiles: xr.DataArray,
    strategies=STRATEGIES,
    demand: float | None = None,
) -> Figure:
    """Monthly saving vs demand per strategy: 5-95% and 25-75% bands and the median.

    Parameters
    ----------
    quantiles : xr.DataArray
        Saving quantiles (quantile, demand, strategy) in USD/month, with quantiles
        0.05, 0.25, 0.5, 0.75, 0.95 (``target_quantile.sel(target="saving")``).
    demand : float, optional
        A demand to mark (the memo's decision demand).
    """
    d = quantiles["demand"].values
    q = quantiles.sel(quantile=[0.05, 0.25, 0.5, 0.75, 0.95])
    # a linear dollar axis over the demands around the decision demand (a tenth to ten
    # times it): over the whole grid the savings span five orders of magnitude
    lo, hi = d[0], d[-1]
    if demand is not None:
        lo, hi = max(d[0], demand / 10), min(d[-1], demand * 10)
    window = (d >= lo * (1 - 1e-9)) & (d <= hi * (1 + 1e-9))
    shown = q.sel(strategy=list(strategies)).values[:, window]
    top, bottom = float(np.nanmax(shown)), float(np.nanmin(shown))
    pad = 0.05 * (top - bottom or 1.0)
    fig = _figure(3.2 * len(strategies), 4.6)
    axes = fig.subplots(1, len(strategies), sharey=True)
    for ax, s in zip(np.atleast_1d(axes), strategies, strict=True):
        c = COLORS[s]
        qs = q.sel(strategy=s)
        ax.fill_between(d, qs.sel(quantile=0.05), qs.sel(quantile=0.95), color=c, alpha=0.18,
                        lw=0, label="5-95% of scenarios")
        ax.fill_between(d, qs.sel(quantile=0.25), qs.sel(quantile=0.75), color=c, alpha=0.38,
                        lw=0, label="25-75%")
        ax.plot(d, qs.sel(quantile=0.5), color=c, lw=2, label="median")
        ax.axhline(0, color="black", lw=1)
        ax.annotate("break-even (saving = 0)", (d[0], 0), xytext=(4, 4),
                    textcoords="offset points", fontsize=8)
        ax.set_ylim(min(bottom, 0.0) - pad, max(top, 0.0) + pad)
        ax.yaxis.set_major_formatter(FuncFormatter(_usd))
        ax.grid(True, alpha=0.3)
        _demand_axis(ax, (lo, hi))
        _mark_demand(ax, demand)
        ax.set_title(SHORT[s], fontsize=11, color=c, fontweight="bold")
    axes[0].set_ylabel("monthly saving vs the API (USD/month)\npositive = cheaper than the API")
    axes[0].legend(loc="lower left", fontsize=8)
    fig.suptitle(f"Monthly saving against the API, {tokens(lo)} to {tokens(hi)} tokens/month "
                 "(linear dollar axis)", fontsize=12)
    return fig


def acceptability_figure(
    p: xr.DataArray,
    ci: xr.DataArray,
    strategies=STRATEGIES,
    band=ARTICLE_BAND,
    demand: float | None = None,
    n: int = 0,
    level: str = "95%",
) -> Figure:
    """P(strategy beats the API) vs demand with its Monte Carlo band (at ``level``).

    Two panels: a linear scale (how likely), and a log scale that shows rare wins.

    Parameters
    ----------
    p : xr.DataArray
        P(saving > 0), dims (demand, strategy), unit 1.
    ci : xr.DataArray
        Its interval (demand, strategy, ci_bound).
    n : int
        Sample size (marks the smallest non-zero share, one scenario in n).
    """
    d = p["demand"].values
    fig = _figure(12, 4.6)
    ax, ax_log = fig.subplots(1, 2, width_ratios=[1.5, 1])
    for a in (ax, ax_log):
        _article_band(a, band, "article's break-even band" if a is ax else None)
        for s in strategies:
            ps = p.sel(strategy=s).values
            lo = ci.sel(strategy=s, ci_bound="lower").values
            hi = ci.sel(strategy=s, ci_bound="upper").values
            if a is ax_log:  # zero is off a log scale: draw only where some scenario wins
                lo, hi, ps = (np.where(ps > 0, v, np.nan) for v in (lo, hi, ps))
            a.fill_between(d, 100 * lo, 100 * hi, color=COLORS[s], alpha=0.25, lw=0)
            a.plot(d, 100 * ps, color=COLORS[s], lw=2, label=LABELS[s])
        _demand_axis(a, (d[0], d[-1]))
        _mark_demand(a, demand)
    ax.axhline(50, color="#777777", lw=0.8, ls="--")
    ax.set_ylim(-2, 102)
    ax.set_ylabel("P(strategy beats the API) (%)")
    ax.set_title("Share of scenarios where the strategy is cheaper than the API\n"
                 f"(line: estimate; band: {level} Monte Carlo interval)", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    ax_log.set_yscale("log")
    one = 100 / n if n else 0.01
    ax_log.axhline(one, color="#777777", lw=0.8, ls="--")
    ax_log.annotate(f"one scenario in {n:,}", (d[0], one), xytext=(3, 3),
                    textcoords="offset points", fontsize=8, color="#555555")
    ax_log.set_ylim(one / 3, 150)
    ax_log.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}%"))
    ax_log.set_title("Same, log scale (shows rare wins; 0% is off the scale)", fontsize=10)
    return fig


def breakeven_cdf_figure(
    cdf: xr.Dataset,
    p_never: dict[str, float],
    band=ARTICLE_BAND,
    level: str = "95%",
    grid: tuple[float, float] | None = None,
) -> Figure:
    """Distribution (CDF) of the break-even demand per strategy, with the article's band.

    Parameters
    ----------
    cdf : xr.Dataset
        ``cdf`` (strategy, x) and ``cdf_ci`` (strategy, x, ci_bound), from
        :func:`mc_tco.decision.breakeven.breakeven_cdf`.
    p_never : dict
        Share of scenarios that never break even, per strategy.
    """
    x = cdf["x"].values
    fig = _figure(10, 4.8)
    ax = fig.subplots()
    _article_band(ax, band, "article: break-even at ~300-500B")
    for s in cdf["strategy"].values:
        s = str(s)
        ax.fill_between(x, 100 * cdf["cdf_ci"].sel(strategy=s, ci_bound="lower"),
                        100 * cdf["cdf_ci"].sel(strategy=s, ci_bound="upper"),
                        color=COLORS[s], alpha=0.25, lw=0)
        ax.plot(x, 100 * cdf["cdf"].sel(strategy=s), color=COLORS[s], lw=2,
                label=f"{LABELS[s]} (never breaks even: {prob(p_never[s])})")
    lim = (x[0], x[-1]) if grid is None else (max(x[0], grid[0]), min(x[-1], grid[1]))
    _demand_axis(ax, lim)
    ax.set_ylim(-2, 102)
    ax.set_ylabel("scenarios that have broken even\nby this demand (%)")
    ax.set_title("When does each strategy break even? Distribution of the break-even demand\n"
                 f"(band: {level} Monte Carlo interval; scenarios that never break even stay below "
                 "100%)", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    return fig
