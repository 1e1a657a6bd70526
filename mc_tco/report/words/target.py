"""Words for a target probability (``mc-tco target``): one line per point, and its JSON."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.report.fmt import fmt_value, pct_ci

__all__ = ["target_dict", "target_lines"]


def _where(coords: dict[str, Any]) -> str:
    return ", ".join(f"{d} = {fmt_value(float(v), 'tokens/month' if d == 'demand' else '')}"
                     if isinstance(v, float | np.floating) else f"{d} = {v}"
                     for d, v in coords.items())


def _cells(res: xr.Dataset):
    dims = [d for d in res["p"].dims]
    flat = res.stack(_cell=dims) if dims else res.expand_dims(_cell=[0])
    for i in range(flat.sizes["_cell"]):
        cell = flat.isel(_cell=i)
        coords = {str(d): cell[d].item() for d in (*res.attrs.get("point", {}), *dims)
                  if d in cell.coords}
        yield coords, cell


def _left_out(target: str, total: int, rows: int, none: int) -> str:
    """The scenarios a probability leaves out, and why: the hybrid's that buy no server
    (nothing invested: no payback to count), then those where the target is NaN."""
    nan = total - rows - none
    parts = []
    if none == total:
        parts.append(f"none of the {total:,} buys a server: nothing invested, nothing to "
                     "pay back")
    elif none:
        parts.append(f"{none:,} of the {total:,} buy no server: the API itself there, "
                     "nothing invested, nothing to pay back")
    if nan:
        parts.append(f"{nan:,}{' more' if none else ' of the ' + format(total, ',')} have "
                     f"no {target} (NaN)")
    if not parts:
        return ""
    return f" ({'; '.join(parts)}: left out, neither above nor below)"


def target_lines(res: xr.Dataset) -> list[str]:
    """``P(npv > 1,000,000 USD) at demand = 500B, strategy = buy: 3.0% (95% MC interval
    2.1-3.9%), 31 of 1024 scenarios`` per point of ``res`` (:func:`p_exceeds`)."""
    unit = res.attrs.get("units", "")
    what = (f"P({res.attrs['target']} {res.attrs['side']} "
            f"{fmt_value(float(res.attrs['threshold']))}{' ' + unit if unit else ''})")
    level = float(res.attrs["ci_prob"])
    out = []
    for coords, cell in _cells(res):
        lo, hi = (float(v) for v in cell["p_ci"].values)
        where = _where(coords)
        text = pct_ci(float(cell["p"]), lo, hi, level)
        mark = " (Wilson)" if bool(cell["fallback"]) else ""
        rows = int(cell["rows"])
        total = int(cell["samples"])
        gap = _left_out(res.attrs["target"], total, rows,
                        int(cell["no_server"]) if "no_server" in cell else 0)
        out.append(f"{what}{' at ' + where if where else ''}: {text}{mark}, "
                   f"{int(cell['events'])} of {rows} scenarios{gap}")
    return out


def target_dict(res: xr.Dataset) -> dict[str, Any]:
    """The result as JSON-ready data: the condition and one record per point."""
    def num(v: float) -> float | None:
        return float(v) if math.isfinite(float(v)) else None

    rows = []
    for coords, cell in _cells(res):
        lo, hi = (num(v) for v in cell["p_ci"].values)
        rows.append({"point": {k: (float(v) if isinstance(v, float | np.floating) else v)
                               for k, v in coords.items()},
                     "p": num(cell["p"]), "lower": lo, "upper": hi,
                     "fallback": bool(cell["fallback"]), "events": int(cell["events"]),
                     "rows": int(cell["rows"]),
                     "samples": int(cell["samples"]),
                     "no_server": int(cell["no_server"]) if "no_server" in cell else 0})
    return {"target": res.attrs["target"], "side": res.attrs["side"],
            "threshold": float(res.attrs["threshold"]), "units": res.attrs.get("units", ""),
            "conf_level": float(res.attrs["ci_prob"]),
            "method": res.attrs.get("method", ""), "results": rows}
