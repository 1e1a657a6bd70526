"""The explorer's curves panel (issue 25, items 2 to 4): at the page's demand, the
cumulative curves of the target per strategy with their band, the top inputs against the
target for one strategy (winners and losers), and, when the page asks, P(beats the API)
given confined inputs (:meth:`ds.mc_tco.cdf`, :meth:`ds.mc_tco.scatter`,
:meth:`ds.mc_tco.given`; the route is ``POST /api/curves``, the page code
``static/curves.js``)."""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from mc_tco.app import bridge
from mc_tco.results.points import nearest_point, scale_of

__all__ = ["MAX_POINTS", "curves_panel"]

#: scenarios drawn per scatter panel at most (every k-th stored row beyond that)
MAX_POINTS = 2000
#: thresholds of a drawn curve
CURVE_POINTS = 81


def _list(a) -> list[float | None]:
    return [float(v) if math.isfinite(float(v)) else None for v in np.ravel(a)]


def _curves(ds: xr.Dataset, target: str, d: dict) -> dict:
    res = ds.mc_tco.cdf(target, points=CURVE_POINTS, **d)
    alt = str(res.attrs["option_dim"])
    labels = [str(s) for s in res[alt].values] if alt else [""]
    out = {}
    for s in labels:
        cell = res.sel({alt: s}) if alt else res
        out[s or target] = {"cdf": _list(cell["cdf"]), "cdf_lo": _list(cell["cdf_ci"][:, 0]),
                            "cdf_hi": _list(cell["cdf_ci"][:, 1]),
                            "ccdf": _list(cell["ccdf"]),
                            "ccdf_lo": _list(cell["ccdf_ci"][:, 0]),
                            "ccdf_hi": _list(cell["ccdf_ci"][:, 1]),
                            "rows": int(cell["rows"])}
    return {"x": _list(res["x"]), "strategies": out, "method": res.attrs["method"]}


def _scatter(ds: xr.Dataset, target: str, strategy: str | None, d: dict) -> dict:
    sc = ds.mc_tco.scatter(target, strategy=strategy, top=4, **d)
    step = max(1, math.ceil(sc.sizes["sample"] / MAX_POINTS))
    rows = sc.isel(sample=slice(None, None, step))
    units = ([str(u) for u in sc["input_unit"].values] if "input_unit" in sc.coords
             else [""] * sc.sizes["input"])
    lo, hi = (float(v) for v in sc["p_win_ci"].values)
    return {
        "strategy": sc.attrs["strategy"], "ranked_by": sc.attrs["ranked_by"],
        "ranking_target": sc.attrs["ranking_target"], "step": step,
        "inputs": [{"name": str(n), "unit": units[j], "score": _list(sc["score"][j])[0],
                    "conf": _list(sc["score_conf"][j])[0],
                    "x": _list(rows["x"].sel(input=n))}
                   for j, n in enumerate(sc["input"].values)],
        "y": _list(rows["y"]), "wins": [bool(w) for w in rows["wins"].values],
        "p_win": float(sc["p_win"]), "rows": int(sc["rows"]),
        "p_win_text": bridge.fmt_pct_ci(float(sc["p_win"]), lo, hi,
                                        float(sc.attrs["ci_prob"])),
    }


def _given(ds: xr.Dataset, target: str, given: str, d: dict) -> dict:
    try:
        res = ds.mc_tco.given(given, target=target, **d)
    except bridge.McTcoError as exc:
        return {"error": str(exc)}
    conf = float(res.attrs["ci_prob"])
    alt = str(res.attrs["option_dim"])
    labels = [str(s) for s in res[alt].values] if alt else [""]
    rows = {}
    for s in labels:
        cell = res.sel({alt: s}) if alt else res
        lo, hi = (float(v) for v in cell["p_ci"].values)
        alo, ahi = (float(v) for v in cell["p_all_ci"].values)
        rows[s or target] = {"p": float(cell["p"]), "p_all": float(cell["p_all"]),
                             "text": bridge.fmt_pct_ci(float(cell["p"]), lo, hi, conf),
                             "text_all": bridge.fmt_pct_ci(float(cell["p_all"]), alo, ahi,
                                                           conf)}
    return {"given": res.attrs["given"], "rows_given": int(res.attrs["rows_given"]),
            "rows_total": int(res.attrs["rows_total"]), "rows": rows}


def curves_panel(ds: xr.Dataset, demand: float, strategy: str | None = None,
                 given: str = "") -> dict:
    """What the curves panel draws at the grid point nearest ``demand``.

    Returns
    -------
    dict
        ``demand``, ``target``, ``unit``; ``curves`` (``x`` and per strategy ``cdf``,
        ``ccdf`` with their bands ``*_lo``, ``*_hi``); ``scatter`` (the top inputs'
        values, the target's, ``wins``, the share of winners as text, every ``step``-th
        row); ``given`` (when asked: per strategy P(target > 0) given the conditions and
        on all rows, as text, with the rows; or ``error``, the one-line refusal).
    """
    targets = [str(t) for t in ds["target"].values]
    target = next(t for t in targets if not t.endswith(">0"))
    alt = ds.mc_tco.alternatives
    dim = str(next(dd for dd in ds["p_positive"].dims if dd not in ("target", alt)))
    point = {dim: nearest_point(ds[dim].values, demand, scale_of(dim))}
    out = {"demand": point[dim], "target": target,
           "unit": str(ds[target].attrs.get("units", "")),
           "curves": _curves(ds, target, point),
           "scatter": _scatter(ds, target, strategy or None, point)}
    if given and given.strip():
        out["given"] = _given(ds, target, given, point)
    return out
