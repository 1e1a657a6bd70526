"""The memo's cumulative curves and scatter plots (issue 25, items 2 and 3).

Like :mod:`mc_tco.report.memo.figures`, each function takes numbers already computed
(:meth:`ds.mc_tco.cdf <mc_tco.results.accessor.ResultsAccessor.cdf>`,
:meth:`ds.mc_tco.scatter <mc_tco.results.accessor.ResultsAccessor.scatter>`) and returns a
:class:`matplotlib.figure.Figure` (no pyplot, writes nothing).
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, PercentFormatter

from mc_tco.report.fmt import fmt_value
from mc_tco.report.memo.figures import COLORS, SHORT, _figure, _usd
from mc_tco.report.memo.generic_figures import PALETTE

__all__ = ["cdf_figure", "scatter_figure"]

WIN, LOSE = "#2a9d4b", "#b0b0b0"


def _money_axis(unit: str) -> bool:
    return "USD" in unit


def _value_formatter(unit: str) -> FuncFormatter:
    return FuncFormatter(_usd if _money_axis(unit) else
                         (lambda v, _p=None: fmt_value(float(v))))


def _color(label: str, i: int) -> str:
    return COLORS.get(label, PALETTE[i % len(PALETTE)])


def cdf_figure(res: xr.Dataset, where: str = "") -> Figure:
    """Ascending (P(target <= x)) and descending (P(target > x)) cumulative curves, one
    line per strategy with its Monte Carlo band, a dotted line at 0.

    Parameters
    ----------
    res : xr.Dataset
        :func:`mc_tco.results.curves.cdf` (dims (strategy, x) or (x,)).
    where : str
        The point, for the title (e.g. ``"at 500B tokens/month"``).
    """
    unit = str(res.attrs.get("units", ""))
    target = str(res.attrs.get("target", "target"))
    fig = _figure(12, 4.6)
    axes = fig.subplots(1, 2, sharex=True)
    x = res["x"].values
    alt = str(res.attrs.get("option_dim") or "")
    labels = [str(s) for s in res[alt].values] if alt else [""]
    for ax, name, title in ((axes[0], "cdf", f"P({target} <= x): ascending"),
                            (axes[1], "ccdf", f"P({target} > x): descending")):
        for i, s in enumerate(labels):
            cell = res.sel({alt: s}) if alt else res
            c = _color(s, i)
            lo, hi = cell[f"{name}_ci"].values.T
            ax.fill_between(x, lo, hi, color=c, alpha=0.22, lw=0)
            ax.plot(x, cell[name].values, color=c, lw=1.8, label=SHORT.get(s, s) or target)
        if x[0] < 0 < x[-1]:
            ax.axvline(0, color="black", lw=0.8, ls=":")
        ax.set_ylim(0, 1)
        ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
        ax.xaxis.set_major_formatter(_value_formatter(unit))
        ax.set_xlabel(f"x ({unit})" if unit else "x")
        ax.set_title(title, fontsize=10)
        ax.grid(True, alpha=0.3)
    axes[0].set_ylabel("share of scenarios")
    axes[1].legend(loc="upper right", fontsize=8)
    level = float(res.attrs.get("ci_prob", 0.95))
    band = ("simultaneous DKW band" if res.attrs.get("band") == "dkw"
            else "pointwise MC band from the scrambles")
    fig.suptitle(f"Cumulative curves of the {target} {where} (shaded: {level:.0%} {band})",
                 fontsize=11)
    return fig


def scatter_figure(sc: xr.Dataset, where: str = "") -> Figure:
    """Each input of ``sc`` against the target, one panel each: winners (target above the
    threshold) in green, losers in grey, a dashed line at the threshold.

    Parameters
    ----------
    sc : xr.Dataset
        :func:`mc_tco.results.curves.scatter`.
    where : str
        The point and strategy, for the title.
    """
    names = [str(v) for v in sc["input"].values]
    cols = min(len(names), 2) or 1
    rows = -(-len(names) // cols)
    fig = _figure(6 * cols, 3.6 * rows)
    axes = np.atleast_1d(fig.subplots(rows, cols, sharey=True)).ravel()
    y = sc["y"].values
    wins = sc["wins"].values
    unit = str(sc.attrs.get("units", ""))
    units = ([str(u) for u in sc["input_unit"].values] if "input_unit" in sc.coords
             else [""] * len(names))
    thr = float(sc.attrs.get("threshold", 0.0))
    by = {"shapley": "Shapley effect", "ST": "ST"}.get(str(sc.attrs.get("ranked_by")), "")
    for j, (ax, name) in enumerate(zip(axes, names, strict=False)):
        x = sc["x"].sel(input=name).values
        ax.scatter(x[~wins], y[~wins], s=5, color=LOSE, alpha=0.6, lw=0, label="loses",
                   rasterized=True)
        ax.scatter(x[wins], y[wins], s=6, color=WIN, alpha=0.8, lw=0, label="wins",
                   rasterized=True)
        ax.axhline(thr, color="black", lw=0.8, ls="--")
        ax.yaxis.set_major_formatter(_value_formatter(unit))
        ax.set_xlabel(f"{name}" + (f" ({units[j]})" if units[j] else ""))
        score, half = float(sc["score"][j]), float(sc["score_conf"][j])
        if by and np.isfinite(score):
            ax.set_title(f"{j + 1}. {name}: {by} {score:.2f} ± {half:.2f}", fontsize=9)
        ax.grid(True, alpha=0.3)
    for ax in axes[len(names):]:
        ax.set_visible(False)
    axes[0].set_ylabel(f"{sc.attrs.get('target', '')} ({unit})" if unit else
                       str(sc.attrs.get("target", "")))
    axes[0].legend(loc="best", fontsize=8, markerscale=3)
    fig.suptitle(f"The top inputs against the {sc.attrs.get('target', 'target')} {where}: "
                 f"scenarios above {fmt_value(thr)} in green", fontsize=11)
    return fig
