"""Figures of what drives the answer and of the comparison: Sobol' heat map, tornado,
cost breakdown, two books side by side. Each takes computed numbers and returns a
matplotlib Figure."""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch, Rectangle
from matplotlib.ticker import FuncFormatter, NullFormatter

__all__ = ["compare_figure", "cost_breakdown_figure", "sobol_heatmap", "tornado_figure"]

from mc_tco.report.memo.claims import ARTICLE_BAND
from mc_tco.report.memo.context import VERB as _VERB
from mc_tco.report.memo.figures import (
    BAND_COLOR,
    COLORS,
    COMPONENT_COLORS,
    COMPONENT_LABELS,
    LABELS,
    SIGNED_LABELS,
    _article_band,
    _demand_axis,
    _figure,
    _mark_demand,
    _usd,
)
from mc_tco.report.memo.fmt import money, tokens

#: a heat map of at most this many demands draws them as separate, labelled columns
FEW_COLUMNS = 12


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
    labels: dict[str, str] | None = None,
    correlated: bool = False,
) -> Figure:
    """Total Sobol' index ST, inputs x demand, for the saving and for "beats the API"
    (``correlated``: the book correlates inputs, so ST is not a share of the variance and
    the colour bar says so).

    Parameters
    ----------
    st_saving, st_indicator : xr.DataArray
        ST (input, demand) of the saving and of the indicator; NaN cells (not ranked:
        too few winning scenarios, or a constant output) are drawn hatched grey.
    order : list of str
        Inputs top to bottom (grouped, most influential first).
    groups : dict
        Group of each input.
    strategy : str
        The strategy in words, in the panel titles ("buying").
    labels : dict, optional
        Plain label of each input (:func:`mc_tco.report.memo.labels.plain`), shown instead of the
        variable name.
    """
    labels = labels or {}
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
        ax.set_yticklabels([labels.get(n, n) for n in order] if ax is ax1 else [], fontsize=8)
        _demand_axis(ax, (edges[0], edges[-1]))
        _mark_demand(ax, demand, label=False)
        ax.grid(False)
        if d.size <= FEW_COLUMNS:  # the demands it was estimated at (--sobol-at report):
            for e in edges[1:-1]:  # separate columns, each labelled, not a continuous map
                ax.axvline(e, color="white", lw=2, zorder=2)
            ax.set_xticks(d, [tokens(float(v)) for v in d], fontsize=8)
            ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_title(f"ST of the {title}", fontsize=10)
        prev = None
        for i, name in enumerate(order):
            if prev is not None and groups.get(name) != groups.get(prev):
                ax.axhline(i, color="white", lw=2)
            prev = name
    _group_strip(strip, order, [groups.get(n, "") for n in order])
    assert mesh is not None  # set by the loop over the two panels
    cb = fig.colorbar(mesh, ax=[ax1, ax2], shrink=0.8, pad=0.01)
    cb.set_label("total Sobol' index ST" + (" (not a share: inputs correlated)"
                                              if correlated else " (share of variance)"))
    fig.suptitle("Which inputs drive the outcome, by demand (hatched grey: not ranked, too "
                 "few winning or losing scenarios, or no variance)", fontsize=10)
    return fig


def tornado_figure(
    swing: xr.Dataset,
    st: xr.Dataset,
    top: int = 12,
    target_label: str = "saving",
    labels: dict[str, str] | None = None,
    level: str = "95%",
    correlated: bool = False,
) -> Figure:
    """Tornado of the median saving (low -> high end of each input) beside the input's ST.

    Parameters
    ----------
    swing : xr.Dataset
        From :func:`mc_tco.decision.tornado.tornado` (sorted by absolute swing).
    st : xr.Dataset
        ``ST`` and ``ST_conf`` (input) at the same demand and strategy.
    labels : dict, optional
        Plain label of each input (what it means, its low and high values), shown instead
        of the variable name.
    top : int
        Inputs shown (largest swings).
    level : str
        The run's interval level ('95%'), in the ST axis label.
    """
    sw = swing.isel(input=slice(0, top))
    names = [str(v) for v in sw["input"].values]
    base = swing.attrs["base_median"]
    n = len(names)
    fig = _figure(14, 1.4 + 0.38 * n)
    ax, ax_st = fig.subplots(1, 2, sharey=True, width_ratios=[2.4, 1])
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
        f"Median saving of {_VERB.get(swing.attrs['strategy'], swing.attrs['strategy'])} "
        f"at {tokens(demand)} tokens/month, one "
        f"assumption at its low or high end\n(black line: median of all scenarios, "
        f"{money(base, '/month', digits=3)}; dashed: break-even)", fontsize=9)
    fig.legend(loc="outside lower center", fontsize=8, ncol=2, frameon=False)
    vals = st["ST"].sel(input=names).values
    conf = st["ST_conf"].sel(input=names).values
    ax_st.barh(y, vals, xerr=conf, color="#8c8c8c", height=0.6, capsize=2)
    reach = vals + conf  # all NaN where the target does not vary (no index to draw)
    st_top = float(np.nanmax(reach)) if np.isfinite(reach).any() else 0.0
    ax_st.set_xlim(0, max(0.05, st_top * 1.1))
    ax_st.set_xlabel(f"ST of the {target_label} (± {level} half-width)")
    ax_st.grid(True, axis="x", alpha=0.3)
    ax_st.set_title("total Sobol' index ST" + (" (not a share: inputs correlated)"
                                                  if correlated else ", share of the variance"),
                    fontsize=9)
    return fig


def cost_breakdown_figure(breakdown: xr.Dataset, demand: float | None = None) -> Figure:
    """Buy's monthly cost by component against the API bill, over demand.

    Parameters
    ----------
    breakdown : xr.Dataset
        From :func:`mc_tco.decision.costs.cost_breakdown`.
    """
    d = breakdown["demand"].values
    comp = breakdown["component_median"]
    fig = _figure(13.5, 6.0)
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
    # a log axis cannot show a negative median (the tax saved by depreciation, at most
    # demands): it was drawn only where it turns positive, as a line rising from nothing
    # near 1.5T. Its size is drawn instead, dotted and named for what it is.
    for c in comp["component"].values:
        c = str(c)
        series = comp.sel(component=c)
        below = series < 0
        plus, minus = SIGNED_LABELS.get(c, (COMPONENT_LABELS.get(c, c),
                                            f"{COMPONENT_LABELS.get(c, c)} below 0"))
        if bool(below.any()):
            ax.plot(d, (-series).where(below), color=COMPONENT_COLORS[c], lw=1.4, ls=":",
                    label=f"buy: {minus} (median, its size)")
        if bool((~below).any()):
            ax.plot(d, series.where(~below), color=COMPONENT_COLORS[c], lw=1.2, ls="--",
                    label=f"buy: {plus if bool(below.any()) else COMPONENT_LABELS.get(c, c)}"
                          " (median)")
    ax.set_yscale("log")
    top = float(max(api.max(), buy.max()))
    size = abs(comp).where(comp != 0)
    ax.set_ylim(max(10.0, float(size.min()) / 2), top * 2)
    ax.yaxis.set_major_formatter(FuncFormatter(_usd))
    ax.set_ylabel("monthly cost (USD/month, log scale)")
    _demand_axis(ax, (d[0], d[-1]))
    _mark_demand(ax, demand)
    # below the axes: inside, it hid the hardware, staff and tax lines at low demand
    ax.legend(fontsize=7.5, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=3,
              frameon=False)
    ax.set_title("Buying vs the API bill: monthly cost", fontsize=10)

    # a share is of the costs only: a component whose median is negative (tax saved) is
    # not a slice of what buying costs, it is drawn on the left only
    gross = comp.clip(min=0)
    total = gross.sum("component")
    share = (gross / total.where(total > 0)).fillna(0) * 100
    stacked = [str(c) for c in comp["component"].values
               if bool((gross.sel(component=c) > 0).any())]
    ax_share.stackplot(
        d, *[share.sel(component=c).values for c in stacked],
        colors=[COMPONENT_COLORS[c] for c in stacked],
        labels=[SIGNED_LABELS[c][0] if c in SIGNED_LABELS else COMPONENT_LABELS.get(c, c)
                for c in stacked],  # (the positive part only: a saving is no slice)
        alpha=0.85,
    )
    ax_share.set_ylim(0, 100)
    ax_share.set_ylabel("share of buy's monthly cost (%)")
    _demand_axis(ax_share, (d[0], d[-1]))
    _mark_demand(ax_share, demand, label=False)
    ax_share.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False)
    ax_share.set_title("What buying's cost is made of (medians of each component)",
                       fontsize=10)
    return fig


def compare_figure(
    books: list[tuple[str, xr.DataArray, xr.DataArray, xr.Dataset]],
    strategies=("buy", "owned", "hybrid"),
    band=ARTICLE_BAND,
) -> Figure:
    """Two books side by side: P(beats the API) and the CDF of buy's break-even demand.

    Parameters
    ----------
    books : list of (label, p, ci, cdf)
        Per book: P(saving > 0) (demand, strategy), its interval (demand, strategy,
        ci_bound) and the break-even CDF from :func:`mc_tco.decision.breakeven.breakeven_cdf`.
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
    handles: list[Artist] = [Patch(color=BAND_COLOR, alpha=0.35,
                                   label="article's break-even band")]
    handles += [Line2D([], [], color=COLORS[s], lw=2, label=LABELS[s]) for s in strategies]
    handles += [Line2D([], [], color="#444444", ls=ls, lw=2, label=label)
                for (label, *_), ls in zip(books, styles, strict=False)]
    fig.legend(handles=handles, loc="outside lower center", ncol=min(len(handles), 4), fontsize=8,
               frameon=False)
    ax_cdf.set_ylabel("scenarios where buying has broken even\nby this demand (%)")
    ax_cdf.set_title("Break-even demand of buying, per book", fontsize=10)
    return fig
