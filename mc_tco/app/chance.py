"""The explorer's "chance the saving exceeds $ …" field: P(target > x) per strategy at the
page's demand, with its interval and the rows it rests on
(:meth:`ds.mc_tco.p_exceeds <mc_tco.results.accessor.ResultsAccessor.p_exceeds>`)."""

from __future__ import annotations

import math

import xarray as xr

from mc_tco.app import bridge
from mc_tco.results.points import nearest_point, parse_amount, scale_of

__all__ = ["target_chance"]


def _num(v) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def target_chance(ds: xr.Dataset, demand: float, threshold) -> dict:
    """P(target > threshold) of each strategy at the grid point nearest ``demand``.

    Returns
    -------
    dict
        ``demand``, ``target``, ``unit``, ``threshold`` and ``rows``: per strategy ``p``,
        ``lo``, ``hi`` (the run's interval), ``events``, ``rows`` and ``text``
        (``"3.0% (95% MC interval 2.1-3.9%)"``). A threshold that is not a number raises
        the CLI's one-line message.
    """
    x = parse_amount(threshold, flag="threshold")
    if not math.isfinite(x):
        raise bridge.McTcoError(f"threshold {threshold}: not a finite number; write e.g. 1e6")
    targets = [str(t) for t in ds["target"].values]
    target = next(t for t in targets if not t.endswith(">0"))
    dim = str(next(d for d in ds["p_positive"].dims if d not in ("target", "strategy")))
    d = nearest_point(ds[dim].values, demand, scale_of(dim))
    alt = ds.mc_tco.alternatives
    res = ds.mc_tco.p_exceeds(target, x, **{dim: d})
    baseline = ds.mc_tco.baseline
    names = [str(s) for s in ds[alt].values] if alt else [""]
    conf = float(res.attrs["ci_prob"])
    rows = {}
    for s in names:
        if alt and s == baseline:
            continue
        cell = res.sel({alt: s}) if alt else res
        lo, hi = (float(v) for v in cell["p_ci"].values)
        rows[s] = {"p": _num(cell["p"]), "lo": _num(lo), "hi": _num(hi),
                   "events": int(cell["events"]), "rows": int(cell["rows"]),
                   "text": bridge.fmt_pct_ci(float(cell["p"]), lo, hi, conf)}
    return {"demand": d, "target": target, "unit": res.attrs.get("units", ""),
            "threshold": x, "rows": rows}
