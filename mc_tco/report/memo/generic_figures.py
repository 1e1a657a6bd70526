"""Figures of the generic memo (:mod:`mc_tco.report.memo.generic`): any model's P(target > 0)
across a grid dim, its bands at one point, and a tornado beside the inputs' ST.

Each function takes numbers already computed and returns a matplotlib Figure (no pyplot);
:func:`mc_tco.report.memo.figures.to_png` turns it into PNG bytes.
"""

from __future__ import annotations

import numpy as np
import xarray as xr
from matplotlib.figure import Figure

from mc_tco.report.fmt import fmt_value
from mc_tco.report.memo.figures import _figure

__all__ = ["bands_figure", "evpi_along_figure", "p_positive_figure", "tornado_generic_figure"]

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf"]


def _unit(unit: str) -> str:
    return f" ({unit})" if unit and unit != "1" else ""


def p_positive_figure(p: xr.Dataset, dim: str, dim_unit: str, label: str,
                      level: str, mark=None) -> Figure:
    """P(target > 0) along ``dim``, one line per alternative with its interval band.

    Parameters
    ----------
    p : xr.Dataset
        ``p``, ``lower``, ``upper`` over ``dim`` and, optionally, ``option`` (the
        alternatives, renamed), from :meth:`ResultsAccessor.p_beats`; unit 1.
    dim, dim_unit : str
        The grid dim on the x axis and its unit.
    label : str
        What "> 0" means, e.g. "value > 0".
    level : str
        The interval level, e.g. "95%".
    mark : float, optional
        The memo's point along ``dim``, drawn as a dotted line.
    """
    fig = _figure(8, 4.2)
    ax = fig.subplots()
    x = np.asarray(p[dim].values, dtype=float)
    options = [str(o) for o in p["option"].values] if "option" in p.dims else [None]
    for i, opt in enumerate(options):
        sub = p.sel(option=opt) if opt is not None else p
        color = PALETTE[i % len(PALETTE)]
        ax.fill_between(x, 100 * sub["lower"].values, 100 * sub["upper"].values,
                        color=color, alpha=0.2, lw=0)
        ax.plot(x, 100 * sub["p"].values, "-o", color=color, ms=3,
                label=opt if opt is not None else label)
    if x.min() > 0 and x.max() / x.min() > 20:
        ax.set_xscale("log")
    if mark is not None:
        ax.axvline(float(mark), color="#555555", ls=":", lw=1)
    ax.set_ylim(-2, 102)
    ax.set_xlabel(f"{dim}{_unit(dim_unit)}")
    ax.set_ylabel(f"P({label}) (%)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, frameon=False)
    ax.set_title(f"P({label}) along {dim}, with its {level} Monte Carlo band", fontsize=10)
    return fig


def bands_figure(q: xr.DataArray, target: str, unit: str, where: str) -> Figure:
    """The 5-95% and 25-75% ranges and the median of ``target`` for each alternative.

    Parameters
    ----------
    q : xr.DataArray
        Quantiles (``quantile`` with 0.05, 0.25, 0.5, 0.75, 0.95, and optionally
        ``option``), in ``unit``.
    where : str
        The point, for the title.
    """
    options = [str(o) for o in q["option"].values] if "option" in q.dims else [target]
    fig = _figure(8, 1.3 + 0.45 * len(options))
    ax = fig.subplots()
    for i, opt in enumerate(options):
        v = (q.sel(option=opt) if "option" in q.dims else q).sel(
            quantile=[0.05, 0.25, 0.5, 0.75, 0.95]).values
        color = PALETTE[i % len(PALETTE)]
        ax.plot([v[0], v[4]], [i, i], color=color, lw=2)
        ax.plot([v[1], v[3]], [i, i], color=color, lw=8, alpha=0.6, solid_capstyle="butt")
        ax.plot([v[2]], [i], "o", color="white", mec=color, ms=7)
    ax.axvline(0, color="#777777", ls="--", lw=0.8)
    ax.set_yticks(range(len(options)))
    ax.set_yticklabels(options)
    ax.set_ylim(len(options) - 0.5, -0.5)
    ax.set_xlabel(f"{target}{_unit(unit)}")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title(f"{target}{' at ' + where if where else ''}: 5-95% (thin), 25-75% (thick) "
                 "and median (dot) of the scenarios", fontsize=10)
    return fig


def tornado_generic_figure(swing: xr.Dataset, st: xr.Dataset, target: str, unit: str,
                           title: str, top: int = 12) -> Figure:
    """Tornado of the median ``target`` (each input at its low or high end) beside ST.

    Parameters
    ----------
    swing : xr.Dataset
        From :func:`mc_tco.decision.tornado.tornado_swing` (sorted by absolute swing).
    st : xr.Dataset
        ``ST`` and ``ST_conf`` along ``input`` at the same point.
    """
    sw = swing.isel(input=slice(0, top))
    names = [str(v) for v in sw["input"].values]
    base = swing.attrs["base_median"]
    n = len(names)
    fig = _figure(12, 1.6 + 0.38 * n)
    ax, ax_st = fig.subplots(1, 2, sharey=True, width_ratios=[2.2, 1])
    y = np.arange(n)
    ax.barh(y, sw["median_low"].values - base, left=base, color="#4c72b0", height=0.6,
            label="input at its low end (lowest 10% of scenarios)")
    ax.barh(y, sw["median_high"].values - base, left=base, color="#dd8452", height=0.6,
            label="input at its high end (highest 10%)")
    ax.axvline(base, color="black", lw=1)
    ax.axvline(0, color="#777777", lw=0.8, ls="--")
    ax.set_yticks(y)
    ax.set_yticklabels(names, fontsize=9)
    ax.set_ylim(n - 0.5, -0.5)
    ax.set_xlabel(f"median {target}{_unit(unit)}")
    ax.grid(True, axis="x", alpha=0.3)
    ax.set_title(f"{title}\n(black line: median of all scenarios, {fmt_value(base, unit)}; "
                 "dashed: 0)", fontsize=9)
    fig.legend(loc="outside lower center", fontsize=8, ncol=2, frameon=False)
    vals = st["ST"].sel(input=names).values
    conf = np.nan_to_num(st["ST_conf"].sel(input=names).values)
    ax_st.barh(y, np.nan_to_num(vals), xerr=conf, color="#8c8c8c", height=0.6, capsize=2)
    top_x = np.nanmax(vals + conf) if np.isfinite(vals).any() else 0.0
    ax_st.set_xlim(0, max(0.05, float(top_x) * 1.1))
    ax_st.set_xlabel(f"ST of {target} (± half-width)")
    ax_st.grid(True, axis="x", alpha=0.3)
    ax_st.set_title("total Sobol' index ST", fontsize=9)
    return fig


def evpi_along_figure(curve: xr.DataArray, dim_unit: str, level: str, mark=None) -> Figure:
    """EVPI along a grid dim with its Monte Carlo band.

    Parameters
    ----------
    curve : xr.DataArray
        From :func:`mc_tco.decision.information.evpi_along` (one dim), in the target's
        unit, with the coordinate ``evpi_half`` (the half-width of its interval).
    dim_unit : str
        The grid dim's unit.
    level : str
        The band's level, e.g. "95%".
    mark : float, optional
        The memo's point along the dim, drawn as a dotted line.
    """
    dim = str(curve.dims[0])
    fig = _figure(8, 3.8)
    ax = fig.subplots()
    x = np.asarray(curve[dim].values, dtype=float)
    y = curve.values
    half = curve["evpi_half"].values
    ax.fill_between(x, np.clip(y - half, 0, None), y + half, color=PALETTE[0], alpha=0.2,
                    lw=0)
    ax.plot(x, y, "-o", color=PALETTE[0], ms=3)
    if x.min() > 0 and x.max() / x.min() > 20:
        ax.set_xscale("log")
    if mark is not None:
        ax.axvline(float(mark), color="#555555", ls=":", lw=1)
    unit = str(curve.attrs.get("units", ""))
    ax.set_ylim(bottom=0)
    ax.set_xlabel(f"{dim}{_unit(dim_unit)}")
    ax.set_ylabel(f"EVPI{_unit(unit)}")
    ax.grid(True, alpha=0.3)
    ax.set_title(f"What knowing every input is worth, along {dim} (band: {level} Monte "
                 "Carlo error)", fontsize=10)
    return fig
