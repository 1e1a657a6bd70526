"""Words for the conditional answer (``mc-tco explain --given``, :meth:`ds.mc_tco.given
<mc_tco.results.accessor.ResultsAccessor.given>`): a table of P(beats the API) and the
bands given the conditions beside all scenarios, and its JSON."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import xarray as xr

from mc_tco.report.fmt import fmt_value, pct_range

__all__ = ["condition_words", "given_dict", "given_lines"]


def _num(v) -> float | None:
    v = float(v)
    return v if math.isfinite(v) else None


def condition_words(res: xr.Dataset) -> str:
    """``api_price_annual_change > -0.05`` and ``414,864 <= node_price <= 474,928 (p10..p50)``
    joined by "and": each condition with its bounds as values."""
    parts = []
    for c in json.loads(res.attrs["conditions"]):
        low = f"{fmt_value(c['low'])} {'<=' if c['low_closed'] else '<'} " if (
            c["low"] is not None) else ""
        high = f" {'<=' if c['high_closed'] else '<'} {fmt_value(c['high'])}" if (
            c["high"] is not None) else ""
        text = (f"{c['input']} {'>=' if c['low_closed'] else '>'} {fmt_value(c['low'])}"
                if c["high"] is None else f"{low}{c['input']}{high}")
        if re.search(r"(?<![A-Za-z0-9_])[pP][0-9.]", c["text"].replace(c["input"], "")):
            text += f" (as written: {c['text']})"
        parts.append(text)
    return " and ".join(parts)


def _where(point: dict[str, Any]) -> str:
    return ", ".join(f"{d} = {fmt_value(float(v), 'tokens/month' if d == 'demand' else '')}"
                     if isinstance(v, float) else f"{d} = {v}" for d, v in point.items())


def given_lines(res: xr.Dataset) -> list[str]:
    """The conditional answer in lines: what is assumed and on how many scenarios, then per
    strategy P(target > threshold) given it and on all scenarios, and the 5-50-95% band."""
    unit = res.attrs.get("units", "")
    target, thr = res.attrs["target"], float(res.attrs["threshold"])
    level = float(res.attrs["ci_prob"])
    where = _where(res.attrs.get("point", {}))
    out = [f"Given {condition_words(res)}: {res.attrs['rows_given']:,} of "
           f"{res.attrs['rows_total']:,} scenarios{' at ' + where if where else ''}",
           f"P({target} > {fmt_value(thr)}{' ' + unit if unit else ''}) given that and in "
           f"all scenarios ({level:.0%} MC interval), and {target} P5 / median / P95:"]
    alt = str(res.attrs.get("option_dim") or "")
    strategies = [str(s) for s in res[alt].values] if alt else [""]
    width = max(len(s) for s in strategies) if strategies else 0
    for s in strategies:
        cell = res.sel({alt: s}) if alt else res

        def band(name: str, c=cell) -> str:
            q = c[name]
            return " / ".join(fmt_value(float(q.sel(quantile=v))) for v in (0.05, 0.5, 0.95)
                              if v in q["quantile"].values)

        given = pct_range(float(cell["p"]), *(float(v) for v in cell["p_ci"].values))
        every = pct_range(float(cell["p_all"]), *(float(v) for v in cell["p_all_ci"].values))
        mark = " (Wilson)" if bool(cell["fallback"]) else ""
        out.append(f"  {s:<{width}}  given: {given}{mark}, all: {every};  "
                   f"{band('bands')} given, {band('bands_all')} all")
    return out


def given_dict(res: xr.Dataset) -> dict[str, Any]:
    """The conditional answer as JSON-ready data."""
    rows = []
    alt = str(res.attrs.get("option_dim") or "")
    strategies = [str(s) for s in res[alt].values] if alt else [""]
    for s in strategies:
        cell = res.sel({alt: s}) if alt else res
        rows.append({
            "strategy": s or None,
            "p": _num(cell["p"]), "lower": _num(cell["p_ci"][0]),
            "upper": _num(cell["p_ci"][1]), "fallback": bool(cell["fallback"]),
            "p_all": _num(cell["p_all"]), "lower_all": _num(cell["p_all_ci"][0]),
            "upper_all": _num(cell["p_all_ci"][1]),
            "rows": int(cell["rows"]), "rows_all": int(cell["rows_all"]),
            "bands": {f"{float(q):g}": _num(cell["bands"].sel(quantile=q))
                      for q in cell["quantile"].values},
            "bands_ci": {f"{float(q):g}": [_num(v) for v in
                                           cell["bands_ci"].sel(quantile=q).values]
                         for q in cell["quantile"].values},
            "bands_all": {f"{float(q):g}": _num(cell["bands_all"].sel(quantile=q))
                          for q in cell["quantile"].values},
        })
    return {"given": res.attrs["given"], "conditions": json.loads(res.attrs["conditions"]),
            "rows_given": int(res.attrs["rows_given"]),
            "rows_total": int(res.attrs["rows_total"]), "target": res.attrs["target"],
            "threshold": float(res.attrs["threshold"]), "units": res.attrs.get("units", ""),
            "point": res.attrs.get("point", {}), "conf_level": float(res.attrs["ci_prob"]),
            "method": res.attrs.get("method", ""), "results": rows}
