"""Words for the cumulative curves and the scatter data (``mc-tco cdf``, ``mc-tco
scatter``): a table of P(target > x) (or <= x) by threshold and strategy, the top inputs
with their scores, and the CSV of each."""

from __future__ import annotations

import csv
import io
from typing import Any

import xarray as xr

from mc_tco.report.fmt import fmt_value, pct_ci, pct_range

__all__ = ["cdf_csv", "cdf_lines", "point_words", "scatter_csv", "scatter_lines"]


def point_words(point: dict[str, Any]) -> str:
    """``demand = 500B, strategy = buy``: a grid point in words."""
    return ", ".join(f"{d} = {fmt_value(float(v), 'tokens/month' if d == 'demand' else '')}"
                     if isinstance(v, float) else f"{d} = {v}" for d, v in point.items())


def _labels(res: xr.Dataset) -> list[str]:
    alt = str(res.attrs.get("option_dim") or "")
    return [str(s) for s in res[alt].values] if alt else [""]


def _cell(res: xr.Dataset, label: str, **at: Any) -> xr.Dataset:
    alt = str(res.attrs.get("option_dim") or "")
    return res.sel({alt: label, **at} if alt else at)


def cdf_lines(res: xr.Dataset, ascending: bool = False) -> list[str]:
    """One row per threshold: P(target > x) (``ascending``: P(target <= x)) per strategy,
    each with its interval (short form: the header names the level and the band)."""
    name = "cdf" if ascending else "ccdf"
    target, unit = res.attrs["target"], res.attrs.get("units", "")
    where = point_words(res.attrs.get("point", {}))
    level = float(res.attrs["ci_prob"])
    band = "simultaneous DKW band" if res.attrs.get("band") == "dkw" else "MC interval"
    labels = _labels(res)
    rows = sorted({int(v) for v in res["rows"].values.ravel()})
    counts = (f"{rows[0]:,} scenarios" + (" each" if len(labels) > 1 else "")
              if len(rows) == 1 else ", ".join(
                  f"{int(_cell(res, s)['rows']):,} {s}" for s in labels) + " scenarios")
    left = [(s, int(_cell(res, s)["no_server"])) for s in labels] if "no_server" in res else []
    left = [(s, k) for s, k in left if k]
    if left:  # (the hybrid's scenarios without a server: nothing invested, no payback)
        counts += " (left out: " + ", ".join(
            f"{k:,} {s} scenarios that buy no server" for s, k in left) + ")"
    head = (f"P({target} {'<=' if ascending else '>'} x){' at ' + where if where else ''}"
            f" ({level:.0%} {band}); x in {unit or 'the target unit'}, {counts}")
    cells = []
    for x in res["x"].values:
        row = [fmt_value(float(x))]
        for s in labels:
            c = _cell(res, s, x=x)
            lo, hi = (float(v) for v in c[f"{name}_ci"].values)
            row.append(pct_range(float(c[name]), lo, hi))
        cells.append(row)
    header = ["x", *[s or target for s in labels]]
    widths = [max(len(r[j]) for r in [header, *cells]) for j in range(len(header))]
    out = [head, "  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True))]
    out += ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    return out


def cdf_csv(res: xr.Dataset) -> str:
    """The curves as CSV: strategy, x, P(<= x) and P(> x) with their bounds, fallback."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["strategy", "x", "p_below_or_equal", "lower", "upper", "p_above",
                "lower_above", "upper_above", "fallback"])
    for s in _labels(res):
        cell = _cell(res, s)
        for j, x in enumerate(cell["x"].values):
            c = cell.isel(x=j)
            w.writerow([s, repr(float(x)), repr(float(c["cdf"])),
                        *(repr(float(v)) for v in c["cdf_ci"].values),
                        repr(float(c["ccdf"])), *(repr(float(v)) for v in c["ccdf_ci"].values),
                        bool(c["fallback"])])
    return buf.getvalue()


def scatter_lines(sc: xr.Dataset) -> list[str]:
    """The inputs shown with their rank and score, and the share of winners."""
    by = {"shapley": "Shapley effect", "ST": "ST"}.get(sc.attrs["ranked_by"], "")
    ranked = sc.attrs["ranking_target"]
    what = f"'{ranked[:-2]} > 0'" if ranked.endswith(">0") else f"'{ranked}'"
    where = point_words({**sc.attrs.get("point", {}),
                    **({"strategy": sc.attrs["strategy"]} if sc.attrs["strategy"] else {})})
    lo, hi = (float(v) for v in sc["p_win_ci"].values)
    out = [f"{sc.attrs['target']} > {fmt_value(float(sc.attrs['threshold']))} in "
           f"{pct_ci(float(sc['p_win']), lo, hi, float(sc.attrs['ci_prob']))} of "
           f"{int(sc['rows']):,} scenarios{' at ' + where if where else ''}",
           (f"Inputs shown, ranked by {by} for {what} as the run prints them"
            + (f" (read at {point_words(sc.attrs['ranking_point'])})"
               if sc.attrs["ranking_point"] else "") + ":") if by else "Inputs shown:"]
    units = ([str(u) for u in sc["input_unit"].values] if "input_unit" in sc.coords
             else [""] * sc.sizes["input"])
    for j, name in enumerate(sc["input"].values):
        score, half = float(sc["score"][j]), float(sc["score_conf"][j])
        out.append(f"  {j + 1}. {name}" + (f" ({units[j]})" if units[j] else "")
                   + (f"  {by} {score:.3f} ± {half:.3f}" if by else ""))
    return out


def scatter_csv(sc: xr.Dataset) -> str:
    """The plotted points as CSV: sample, each input's value, the target, wins."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    names = [str(n) for n in sc["input"].values]
    w.writerow(["sample", *names, sc.attrs["target"], "wins"])
    x = sc["x"].transpose("sample", "input").values
    for i, g in enumerate(sc["sample"].values):
        w.writerow([int(g), *(repr(float(v)) for v in x[i]), repr(float(sc["y"][i])),
                    bool(sc["wins"][i])])
    return buf.getvalue()
