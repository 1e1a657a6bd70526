"""The summary's chart: the nominal cash each option spends a year, with its bands.

Like :mod:`mc_tco.report.memo.figures`, it takes numbers already computed from the results
file (:func:`mc_tco.decision.budget.cash_by_year`) and returns a
:class:`matplotlib.figure.Figure` (no pyplot, writes nothing). Money axes in $k / $M on a
linear scale.
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from mc_tco.report.memo.figures import COLORS, _figure, _usd
from mc_tco.report.memo.fmt import tokens

__all__ = ["NAMES", "cash_by_year_figure"]

#: each option as the chart's legend names it
NAMES = {"api": "the API", "buy": "buy", "rent": "rent on demand",
         "reserved": "reserve (12-month terms)", "owned": "already-owned GPUs",
         "hybrid": "hybrid"}


def cash_by_year_figure(table: xr.Dataset) -> Figure:
    """The nominal cash of each option by year: its median (a line with dots) and P10-P90
    of the scenarios (a band), one small panel per option against the API's median
    (dashed), on one shared linear dollar axis.

    Parameters
    ----------
    table : xr.Dataset
        :func:`mc_tco.decision.budget.cash_by_year` (``estimate``: strategy, year,
        quantile with 0.1, 0.5 and 0.9), the API first.
    """
    options = [str(s) for s in table["strategy"].values]
    years = table["year"].values
    fig = _figure(2.6 * len(options), 3.2)
    axes = np.atleast_1d(fig.subplots(1, len(options), sharey=True))
    api = table["estimate"].sel(strategy="api", quantile=0.5).values
    for ax, s in zip(axes, options, strict=True):
        q = table["estimate"].sel(strategy=s)
        c = COLORS.get(s, "#444444")
        ax.fill_between(years, q.sel(quantile=0.1).values, q.sel(quantile=0.9).values,
                        color=c, alpha=0.2, lw=0, label="P10-P90")
        ax.plot(years, q.sel(quantile=0.5).values, color=c, lw=2, marker="o",
                label="median")
        if s != "api":
            ax.plot(years, api, color=COLORS["api"], lw=1.2, ls="--", label="API median")
        ax.set_title(NAMES.get(s, s), fontsize=10, color=c, fontweight="bold")
        ax.set_xticks(years, [f"y{int(y)}" for y in years])
        ax.yaxis.set_major_formatter(FuncFormatter(_usd))
        ax.grid(True, alpha=0.3)
    # one shared dollar axis over every option's band (set once: a shared axis set while
    # drawing would freeze at the first panel's range)
    values = table["estimate"].values
    top, bottom = float(np.nanmax(values)), float(np.nanmin(values))
    axes[0].set_ylim(min(0.0, bottom) - 0.04 * top, top * 1.06)
    axes[0].set_ylabel("nominal cash a year")
    axes[-1].legend(loc="upper right", fontsize=7)
    fig.suptitle(f"Cash each option puts in the budget, year by year, at "
                 f"{tokens(float(table.attrs['demand']))} tokens/month (median and P10-P90)",
                 fontsize=10)
    return fig
