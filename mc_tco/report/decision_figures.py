"""Figures of the decision analyses for the memo (matplotlib, Agg; nothing is shown).

Each function takes a results dataset (or what was computed from it) and returns a
``matplotlib.figure.Figure``; saving it is the caller's business.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

__all__ = ["evpi_figure"]


def evpi_figure(ds: xr.Dataset, *, among_sets=None, evpi: list[xr.DataArray] | None = None,
                ax=None):
    """EVPI against demand, with its 95% Monte Carlo band.

    Parameters
    ----------
    ds : xr.Dataset
        A results file (its ``demand`` grid and ``saving`` are used).
    among_sets : list of list of str, optional
        One curve per set of options (default one curve: every strategy but ``owned``).
    evpi : list of xr.DataArray, optional
        Curves already computed by :func:`mc_tco.decision.information.evpi_by_demand` (then
        ``among_sets`` is ignored).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure
        Log demand axis (tokens/month), EVPI in the target's unit (USD/month), the report
        demands marked, the peak of each curve labelled.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    from mc_tco.decision.information import evpi_by_demand
    from mc_tco.report.fmt import fmt_tokens

    if evpi is None:
        evpi = [evpi_by_demand(ds, among=among) for among in (among_sets or [None])]
    if ax is None:
        fig = Figure(figsize=(7.0, 4.0), layout="constrained")
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    from matplotlib.ticker import FuncFormatter, NullFormatter

    from mc_tco.report.fmt import money

    for k, e in enumerate(evpi):
        d = e["demand"].values
        y = e.values
        half = 1.959963984540054 * e["evpi_se"].values
        (line,) = ax.plot(d, y, marker="o", ms=3, label=f"among {e.attrs.get('options', '')}")
        ax.fill_between(d, np.clip(y - half, 0, None), y + half, color=line.get_color(),
                        alpha=0.2, lw=0)
        for i in _peaks(y):
            # each curve's labels on their own line, so that two curves' peaks at one
            # demand are not drawn over each other
            ax.annotate(f"{money(float(y[i]), digits=2)} at {fmt_tokens(float(d[i]))}",
                        (d[i], y[i]), textcoords="offset points", xytext=(-6, 8 + 13 * k),
                        ha="right", fontsize=8, color=line.get_color())
    for dr in ds.mc_tco.report.get("demand", []):
        ax.axvline(dr, color="0.85", lw=0.8, zorder=0)
    ax.set_xscale("log")
    # one token axis style in every figure (1B ... 10T), money in $k / $M
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _p: fmt_tokens(float(x))))
    ax.xaxis.set_minor_formatter(NullFormatter())
    if ds.mc_tco.run.is_tco_model:
        ax.yaxis.set_major_formatter(FuncFormatter(lambda x, _p: money(float(x), digits=3)))
    unit = evpi[0].attrs.get("units", "")
    dunit = ds["demand"].attrs.get("units", "tokens/month")
    ax.set_xlabel(f"demand ({dunit})")
    ax.set_ylabel(f"EVPI ({unit})")
    ax.set_title("Expected value of perfect information: what knowing every input is worth",
                 fontsize=10)
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8, loc="upper left", frameon=False)
    ax.grid(True, which="major", color="0.92")
    return fig


def _peaks(y: np.ndarray) -> list[int]:
    """The global maximum and every interior local maximum above a fifth of it."""
    if not len(y) or y.max() <= 0:
        return []
    top = int(np.argmax(y))
    inner = [i for i in range(1, len(y) - 1)
             if y[i] > y[i - 1] and y[i] >= y[i + 1] and y[i] > 0.2 * y[top]]
    return sorted(set(inner) | {top})
