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
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

from .analysis import TOKENS_PER_USER
from .fmt import pct, tokens, usd

__all__ = [
    "acceptability_figure",
    "breakeven_cdf_figure",
    "compare_figure",
    "cost_breakdown_figure",
    "fan_chart",
    "sobol_heatmap",
    "to_png",
    "tornado_figure",
]

COLORS = {"api": "#222222", "buy": "#1f77b4", "rent": "#d62728", "owned": "#2ca02c",
          "hybrid": "#9467bd"}
LABELS = {"buy": "buy nodes", "rent": "rent GPUs", "owned": "GPUs already owned",
          "hybrid": "hybrid (base load bought, peaks to the API)", "api": "API"}
SHORT = {"buy": "buy", "rent": "rent", "owned": "already owned", "hybrid": "hybrid",
         "api": "API"}
COMPONENT_COLORS = {"hardware": "#1f77b4", "power": "#ff7f0e", "upkeep": "#9467bd",
                    "storage": "#8c564b", "staff": "#e377c2", "setup_api": "#7f7f7f"}
COMPONENT_LABELS = {"setup_api": "API until set up"}
STRATEGIES = ("buy", "rent", "owned", "hybrid")
BAND_COLOR = "#f2c14e"
DPI = 110


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
    from matplotlib.text import Text

    for text in fig.findobj(Text):
        s = text.get_text()
        if s.isascii():
            continue
        font = get_font(findfont(text.get_fontproperties()))
        kept = "".join(ch for ch in s if ch.isspace() or font.get_char_index(ord(ch)))
        if kept != s:
            text.set_text(" ".join(part for part in kept.split(" ") if part) if kept.strip()
                          else "")


def _figure(width: float, height: float, **kw) -> Figure:
    fig = Figure(figsize=(width, height), layout="constrained", **kw)
    return fig


def _token_label(x, _pos=None) -> str:
    return tokens(float(x)) if x > 0 else "0"


def _users_label(x, _pos=None) -> str:
    if x >= 1e6:
        return f"{x / 1e6:g}M"
    if x >= 1e3:
        return f"{x / 1e3:g}k"
    return f"{x:g}"


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
    ax_ = abs(x)
    sign = "-" if x < 0 else ""
    if ax_ >= 1e6:
        return f"{sign}${ax_ / 1e6:g}M"
    if ax_ >= 1e3:
        return f"{sign}${ax_ / 1e3:g}k"
    return f"{sign}${ax_:g}"


def _symlog_usd(ax, linthresh: float, span: float) -> None:
    """Symmetric log y axis in USD: linear within +-linthresh, ticks at 0 and +-10^k."""
    ax.set_yscale("symlog", linthresh=linthresh, linscale=0.5)
    top = int(np.ceil(np.log10(max(span, linthresh * 10))))
    powers = [10.0**k for k in range(int(np.log10(linthresh)), top + 1)]
    ax.yaxis.set_major_locator(FixedLocator([-p for p in powers[::-1]] + [0.0] + powers))
    ax.yaxis.set_major_formatter(FuncFormatter(_usd))
    ax.yaxis.set_minor_formatter(NullFormatter())


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
    fig = _figure(3.2 * len(strategies), 4.6)
    axes = fig.subplots(1, len(strategies), sharey=True)
    span = float(np.nanmax(np.abs(q.sel(strategy=list(strategies)).values)))
    # linear near 0 up to ~1/300 of the largest saving, so the zero line has room
    lin = 10 ** np.floor(np.log10(max(span, 1e3) / 300))
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
        _symlog_usd(ax, lin, span)
        _demand_axis(ax, (d[0], d[-1]))
        _mark_demand(ax, demand)
        ax.set_title(SHORT[s], fontsize=11, color=c, fontweight="bold")
    axes[0].set_ylabel("monthly saving vs the API (USD/month)\npositive = cheaper than the API")
    axes[0].legend(loc="lower left", fontsize=8)
    fig.suptitle("Monthly saving against the API, by demand (symmetric log scale)",
                 fontsize=12)
    return fig


def acceptability_figure(
    p: xr.DataArray,
    ci: xr.DataArray,
    strategies=STRATEGIES,
    band=(3e11, 5e11),
    demand: float | None = None,
    n: int = 0,
) -> Figure:
    """P(strategy beats the API) vs demand with its Monte Carlo band.

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
                 "(line: estimate; band: 95% Monte Carlo interval)", fontsize=10)
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
    band=(3e11, 5e11),
) -> Figure:
    """Distribution (CDF) of the break-even demand per strategy, with the article's band.

    Parameters
    ----------
    cdf : xr.Dataset
        ``cdf`` (strategy, x) and ``cdf_ci`` (strategy, x, ci_bound), from
        :func:`mc_tco.memo.analysis.breakeven_cdf`.
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
                label=f"{LABELS[s]} (never breaks even: {pct(p_never[s])})")
    _demand_axis(ax, (x[0], x[-1]))
    ax.set_ylim(-2, 102)
    ax.set_ylabel("scenarios that have broken even\nby this demand (%)")
    ax.set_title("When does each strategy break even? Distribution of the break-even demand\n"
                 "(band: 95% Monte Carlo interval; scenarios that never break even stay below "
                 "100%)", fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    return fig


def _group_strip(ax, names: list[str], groups: list[str]) -> None:
    """Label runs of equal groups on a narrow axis beside a heat map."""
    ax.set_ylim(len(names), 0)
    ax.set_xlim(0, 1)
    ax.axis("off")
    start = 0
    for i in range(1, len(names) + 1):
        if i == len(names) or groups[i] != groups[start]:
            ax.add_patch(Rectangle((0.9, start + 0.1), 0.08, i - start - 0.2, color="#888888"))
            ax.text(0.85, (start + i) / 2, groups[start] or "(no group)", ha="right",
                    va="center", fontsize=8, style="italic")
            start = i


def sobol_heatmap(
    st_saving: xr.DataArray,
    st_indicator: xr.DataArray,
    order: list[str],
    groups: dict[str, str],
    demand: float | None = None,
    strategy: str = "buy",
) -> Figure:
    """Total Sobol' index ST, inputs x demand, for the saving and for "beats the API".

    Parameters
    ----------
    st_saving, st_indicator : xr.DataArray
        ST (input, demand) of the saving and of the indicator; NaN cells (not ranked:
        too few winning scenarios, or a constant output) are drawn hatched grey.
    order : list of str
        Inputs top to bottom (grouped, most influential first).
    groups : dict
        Group of each input.
    """
    d = st_saving["demand"].values
    edges = np.sqrt(d[:-1] * d[1:])
    edges = np.concatenate([[d[0] ** 2 / edges[0]], edges, [d[-1] ** 2 / edges[-1]]])
    height = 1.6 + 0.26 * len(order)
    fig = _figure(13, height)
    strip, ax1, ax2 = fig.subplots(1, 3, width_ratios=[0.13, 1, 1])
    y = np.arange(len(order) + 1)
    mesh = None
    for ax, st, title in (
        (ax1, st_saving, f"monthly saving of {strategy}"),
        (ax2, st_indicator, f"'{strategy} beats the API'"),
    ):
        vals = st.sel(input=order).transpose("input", "demand").values
        # masked (NaN) cells are transparent and show this hatched background
        ax.add_patch(Rectangle((edges[0], 0), edges[-1] - edges[0], len(order),
                               facecolor="#e6e6e6", edgecolor="#b3b3b3", hatch="///", lw=0,
                               zorder=0))
        mesh = ax.pcolormesh(edges, y, np.ma.masked_invalid(np.clip(vals, 0, 1)),
                             cmap="YlOrRd", vmin=0, vmax=1, zorder=1)
        ax.set_ylim(len(order), 0)
        ax.set_yticks(y[:-1] + 0.5)
        ax.set_yticklabels(order if ax is ax1 else [], fontsize=8)
        _demand_axis(ax, (edges[0], edges[-1]))
        _mark_demand(ax, demand, label=False)
        ax.grid(False)
        ax.set_title(f"ST of the {title}", fontsize=10)
        prev = None
        for i, name in enumerate(order):
            if prev is not None and groups.get(name) != groups.get(prev):
                ax.axhline(i, color="white", lw=2)
            prev = name
    _group_strip(strip, order, [groups.get(n, "") for n in order])
    cb = fig.colorbar(mesh, ax=[ax1, ax2], shrink=0.8, pad=0.01)
    cb.set_label("total Sobol' index ST (share of variance)")
    fig.suptitle("Which inputs drive the outcome, by demand (hatched grey: not ranked, too "
                 "few winning or losing scenarios, or no variance)", fontsize=10)
    return fig


def tornado_figure(
    swing: xr.Dataset,
    st: xr.Dataset,
    top: int = 12,
    target_label: str = "saving",
    labels: dict[str, str] | None = None,
) -> Figure:
    """Tornado of the median saving (low -> high end of each input) beside the input's ST.

    Parameters
    ----------
    swing : xr.Dataset
        From :func:`mc_tco.memo.analysis.tornado` (sorted by absolute swing).
    st : xr.Dataset
        ``ST`` and ``ST_conf`` (input) at the same demand and strategy.
    labels : dict, optional
        Plain label of each input (what it means, its low and high values), shown instead
        of the variable name.
    top : int
        Inputs shown (largest swings).
    """
    sw = swing.isel(input=slice(0, top))
    names = [str(v) for v in sw["input"].values]
    base = swing.attrs["base_median"]
    n = len(names)
    fig = _figure(12, 1.4 + 0.38 * n)
    ax, ax_st = fig.subplots(1, 2, sharey=True, width_ratios=[2.2, 1])
    y = np.arange(n)
    lo = sw["median_low"].values
    hi = sw["median_high"].values
    ax.barh(y, lo - base, left=base, color="#4c72b0", height=0.6,
            label="input at its low end (lowest 10% of scenarios, ~5% quantile)")
    ax.barh(y, hi - base, left=base, color="#dd8452", height=0.6,
            label="input at its high end (highest 10%, ~95% quantile)")
    ax.axvline(base, color="black", lw=1)
    ax.axvline(0, color="#777777", lw=0.8, ls="--")
    ax.set_yticks(y)
    ax.set_yticklabels([(labels or {}).get(v, v) for v in names], fontsize=9)
    ax.set_ylim(n - 0.5, -0.5)
    ax.xaxis.set_major_formatter(FuncFormatter(_usd))
    ax.set_xlabel("median monthly saving (USD/month)")
    ax.grid(True, axis="x", alpha=0.3)
    demand = swing.attrs["demand"]
    ax.set_title(
        f"Median saving of {swing.attrs['strategy']} at {tokens(demand)} tokens/month "
        f"when one input sits at its low or high end\n(black line: median over all "
        f"scenarios, {usd(base)}; dashed: break-even)", fontsize=10)
    fig.legend(loc="outside lower center", fontsize=8, ncol=2, frameon=False)
    vals = st["ST"].sel(input=names).values
    conf = st["ST_conf"].sel(input=names).values
    ax_st.barh(y, vals, xerr=conf, color="#8c8c8c", height=0.6, capsize=2)
    ax_st.set_xlim(0, max(0.05, float(np.nanmax(vals + conf)) * 1.1))
    ax_st.set_xlabel(f"ST of the {target_label} (± 95% half-width)")
    ax_st.grid(True, axis="x", alpha=0.3)
    ax_st.set_title("its share of the variance (ST)", fontsize=10)
    return fig


def cost_breakdown_figure(breakdown: xr.Dataset, demand: float | None = None) -> Figure:
    """Buy's monthly cost by component against the API bill, over demand.

    Parameters
    ----------
    breakdown : xr.Dataset
        From :func:`mc_tco.memo.analysis.cost_breakdown`.
    """
    d = breakdown["demand"].values
    comp = breakdown["component_median"]
    fig = _figure(12, 4.8)
    ax, ax_share = fig.subplots(1, 2, width_ratios=[1.3, 1])
    api = breakdown["api_quantile"]
    buy = breakdown["buy_quantile"]
    ax.fill_between(d, api.sel(quantile=0.05), api.sel(quantile=0.95), color=COLORS["api"],
                    alpha=0.12, lw=0)
    ax.plot(d, api.sel(quantile=0.5), color=COLORS["api"], lw=2.5,
            label="API bill (median, band 5-95%)")
    ax.fill_between(d, buy.sel(quantile=0.05), buy.sel(quantile=0.95), color=COLORS["buy"],
                    alpha=0.15, lw=0)
    ax.plot(d, buy.sel(quantile=0.5), color=COLORS["buy"], lw=2.5,
            label="buy: total (median, band 5-95%)")
    for c in comp["component"].values:
        c = str(c)
        ax.plot(d, comp.sel(component=c), color=COMPONENT_COLORS.get(c), lw=1.2, ls="--",
                label=f"buy: {COMPONENT_LABELS.get(c, c)} (median)")
    ax.set_yscale("log")
    top = float(max(api.max(), buy.max()))
    ax.set_ylim(max(10.0, float(comp.where(comp > 0).min()) / 2), top * 2)
    ax.yaxis.set_major_formatter(FuncFormatter(_usd))
    ax.set_ylabel("monthly cost (USD/month, log scale)")
    _demand_axis(ax, (d[0], d[-1]))
    _mark_demand(ax, demand)
    ax.legend(fontsize=7.5, loc="upper left")
    ax.set_title("Buying vs the API bill: monthly cost", fontsize=10)

    total = comp.sum("component")
    share = (comp / total.where(total > 0)).fillna(0) * 100
    ax_share.stackplot(
        d, *[share.sel(component=str(c)).values for c in comp["component"].values],
        colors=[COMPONENT_COLORS.get(str(c)) for c in comp["component"].values],
        labels=[COMPONENT_LABELS.get(str(c), str(c)) for c in comp["component"].values],
        alpha=0.85,
    )
    ax_share.set_ylim(0, 100)
    ax_share.set_ylabel("share of buy's monthly cost (%)")
    _demand_axis(ax_share, (d[0], d[-1]))
    _mark_demand(ax_share, demand, label=False)
    ax_share.legend(fontsize=8, loc="center left")
    ax_share.set_title("What buying's cost is made of (medians of each component)",
                       fontsize=10)
    return fig


def compare_figure(
    books: list[tuple[str, xr.DataArray, xr.DataArray, xr.Dataset]],
    strategies=("buy", "owned", "hybrid"),
    band=(3e11, 5e11),
) -> Figure:
    """Two books side by side: P(beats the API) and the CDF of buy's break-even demand.

    Parameters
    ----------
    books : list of (label, p, ci, cdf)
        Per book: P(saving > 0) (demand, strategy), its interval (demand, strategy,
        ci_bound) and the break-even CDF from :func:`mc_tco.memo.analysis.breakeven_cdf`.
    """
    fig = _figure(12, 4.8)
    ax, ax_cdf = fig.subplots(1, 2)
    styles = ["-", "--", ":", "-."]
    dmin = min(float(b[1]["demand"].min()) for b in books)
    dmax = max(float(b[1]["demand"].max()) for b in books)
    _article_band(ax, band)
    _article_band(ax_cdf, band, None)
    for (_, p, ci, cdf), ls in zip(books, styles, strict=False):
        d = p["demand"].values
        for s in strategies:
            ax.fill_between(d, 100 * ci.sel(strategy=s, ci_bound="lower"),
                            100 * ci.sel(strategy=s, ci_bound="upper"), color=COLORS[s],
                            alpha=0.15, lw=0)
            ax.plot(d, 100 * p.sel(strategy=s), color=COLORS[s], ls=ls, lw=2)
        x = cdf["x"].values
        ax_cdf.fill_between(x, 100 * cdf["cdf_ci"].sel(strategy="buy", ci_bound="lower"),
                            100 * cdf["cdf_ci"].sel(strategy="buy", ci_bound="upper"),
                            color=COLORS["buy"], alpha=0.15, lw=0)
        ax_cdf.plot(x, 100 * cdf["cdf"].sel(strategy="buy"), color=COLORS["buy"], ls=ls, lw=2)
    xs = np.concatenate([b[3]["x"].values for b in books])
    _demand_axis(ax, (dmin, dmax))
    _demand_axis(ax_cdf, (xs.min(), xs.max()))
    for a in (ax, ax_cdf):
        a.set_ylim(-2, 102)
    ax.set_ylabel("P(strategy beats the API) (%)")
    ax.set_title("Share of scenarios cheaper than the API, per book", fontsize=10)
    handles = [Patch(color=BAND_COLOR, alpha=0.35, label="article's break-even band")]
    handles += [Line2D([], [], color=COLORS[s], lw=2, label=LABELS[s]) for s in strategies]
    handles += [Line2D([], [], color="#444444", ls=ls, lw=2, label=label)
                for (label, *_), ls in zip(books, styles, strict=False)]
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8,
               frameon=False)
    ax_cdf.set_ylabel("scenarios where buying has broken even\nby this demand (%)")
    ax_cdf.set_title("Break-even demand of buying, per book", fontsize=10)
    return fig
