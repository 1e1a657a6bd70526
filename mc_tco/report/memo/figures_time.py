"""The memo's time-axis figures (cost model version 3): the cash position month by month
and the distribution of the payback month.

Like :mod:`mc_tco.report.memo.figures`, each function takes numbers already computed from the
results file and returns a :class:`matplotlib.figure.Figure` (no pyplot, writes nothing).
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from mc_tco.report.memo.figures import COLORS, SHORT, _figure, _usd
from mc_tco.report.memo.fmt import prob, tokens

__all__ = ["cash_fan_figure", "payback_figure"]


def cash_fan_figure(bands: xr.DataArray, demand: float,
                    strategies=("buy", "hybrid")) -> Figure:
    """Cumulative discounted cash position against the API, by month: median, 25-75% and
    5-95% of scenarios, one panel per strategy.

    Parameters
    ----------
    bands : xr.DataArray
        :func:`mc_tco.decision.timeaxis.cash_bands` at one demand: dims (strategy,
        quantile, month) with the quantiles 0.05, 0.25, 0.5, 0.75 and 0.95, USD.
    demand : float
        That demand (tokens/month), for the title.
    """
    months = bands["month"].values + 1  # flows at the start of month t; show end-of-month t+1
    fig = _figure(12, 4.6)
    axes = np.atleast_1d(fig.subplots(1, len(strategies), sharey=True))
    for ax, s in zip(axes, strategies, strict=True):
        c = COLORS[s]
        q = bands.sel(strategy=s, quantile=[0.05, 0.25, 0.5, 0.75, 0.95]).values
        ax.fill_between(months, q[0], q[4], color=c, alpha=0.18, lw=0,
                        label="5-95% of scenarios")
        ax.fill_between(months, q[1], q[3], color=c, alpha=0.38, lw=0, label="25-75%")
        ax.plot(months, q[2], color=c, lw=2, label="median")
        ax.axhline(0, color="black", lw=1)
        ax.annotate("paid back (above this line)", (months[0], 0), xytext=(4, 4),
                    textcoords="offset points", fontsize=8)
        ax.yaxis.set_major_formatter(FuncFormatter(_usd))
        ax.set_xlabel("month")
        ax.set_xlim(months[0], months[-1])
        ax.grid(True, alpha=0.3)
        ax.set_title(SHORT[s], fontsize=11, color=c, fontweight="bold")
    axes[0].set_ylabel("cumulative discounted cash vs the API (USD)\n"
                       "below 0: money still to be earned back")
    axes[0].legend(loc="lower left", fontsize=8)
    fig.suptitle(f"Cash position against paying the API, month by month, at "
                 f"{tokens(demand)} tokens/month (resale of the hardware counted at the end)",
                 fontsize=11)
    return fig


def payback_figure(paid_back: xr.DataArray, strategies=("buy", "hybrid"),
                   held: dict[str, float] | None = None) -> Figure:
    """Share of scenarios paid back by each month, per strategy (a CDF that stays below
    100% by the share that never pays back within the horizon).

    Parameters
    ----------
    paid_back : xr.DataArray
        :func:`mc_tco.decision.timeaxis.payback_shares` at one demand: dims (strategy,
        month), month 0 to the horizon, unit 1.
    held : dict, optional
        For a strategy whose curve is over the scenarios where it buys a server (the
        hybrid), that share of all scenarios: its legend says so.
    """
    held = held or {}
    fig = _figure(10, 4.4)
    ax = fig.subplots()
    months = paid_back["month"].values
    horizon_months = int(months[-1])
    # the y axis up to the highest curve (not 100% when most scenarios never pay back)
    top = float(np.nanmax(paid_back.sel(strategy=list(strategies)).values)) * 100
    for s in strategies:
        if held.get(s, 1.0) == 0.0:  # no scenario buys a server: no curve, no "never"
            ax.plot([], [], color=COLORS[s], lw=2,
                    label=f"{SHORT[s]}: no scenario buys a server (it is the API itself)")
            continue
        share = paid_back.sel(strategy=s).values * 100
        never = 100 - share[-1]
        among = (f", the {prob(held[s])} of scenarios that buy a server" if s in held
                 else "")
        ax.step(months, share, where="post", color=COLORS[s], lw=2,
                label=f"{SHORT[s]}{among} (never within {horizon_months} months: "
                      f"{never:.0f}%)")
    ax.set_xlim(0, horizon_months)
    ax.set_ylim(-2, min(102.0, max(10.0, 10 * np.ceil(top / 10) + 5)))
    ax.set_xlabel("month")
    ax.set_ylabel("scenarios paid back by this month (%)")
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title("When does self-hosting pay back? Share of scenarios whose cumulative "
                 "discounted cash position\nhas turned positive (the rest never pay back "
                 "within the horizon)", fontsize=10)
    return fig
