"""The moment-independent indices beside the Shapley effects, as a terminal table.

Words only: the numbers and their order come from
:func:`mc_tco.decision.moment_independent.moment_independent`.
"""

from __future__ import annotations

import math

import xarray as xr

__all__ = ["moment_independent_text"]


def _v(x: float) -> str:
    return "-" if not math.isfinite(x) else f"{x:.3f}"


def _ci(lo: float, hi: float) -> str:
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    return f"[{lo:.3f}, {hi:.3f}]"


def moment_independent_text(mi: xr.Dataset, rows: int | None = 12) -> str:
    """A table: per input Shapley (± half-width), delta, PAWN median with intervals, S1.

    Parameters
    ----------
    mi : xr.Dataset
        The result of :func:`mc_tco.decision.moment_independent.moment_independent`.
    rows : int, optional
        The most inputs shown (None: all).
    """
    point = ", ".join(f"{k} = {v:.3g}" if isinstance(v, float) else f"{k} = {v}"
                      for k, v in mi.attrs.get("point", {}).items())
    level = f"{100 * mi['delta_ci'].attrs['conf_level']:.0f}%"
    head = (f"Moment-independent indices of {mi.attrs['target']} ({point}), from the "
            f"{mi.attrs['n']} stored base rows; valid under correlated inputs. Intervals: "
            f"{level}, {mi.attrs['interval']}. Ranked by {mi.attrs['ranked_by']}.")
    has_shapley = "shapley" in mi
    cols = ["input"] + (["Shapley"] if has_shapley else []) + [
        "delta", f"delta {level}", "PAWN median", f"PAWN {level}", "S1"]
    lines = []
    shown = mi["input"].size if rows is None else min(rows, mi["input"].size)
    for i in range(shown):
        row = mi.isel(input=i)
        cells = [str(row["input"].values)]
        if has_shapley:
            cells.append(f"{_v(float(row['shapley']))} ± {_v(float(row['shapley_conf']))}")
        med = row["pawn"].sel(stat="median")
        med_ci = row["pawn_ci"].sel(stat="median").values
        d_ci = row["delta_ci"].values
        cells += [_v(float(row["delta"])), _ci(float(d_ci[0]), float(d_ci[1])),
                  _v(float(med)), _ci(float(med_ci[0]), float(med_ci[1])),
                  _v(float(row["S1"]))]
        lines.append(cells)
    widths = [max(len(c), *(len(r[j]) for r in lines)) for j, c in enumerate(cols)]
    table = ["  ".join(c.ljust(w) if j == 0 else c.rjust(w)
                       for j, (c, w) in enumerate(zip(row_cells, widths, strict=True)))
             for row_cells in [cols, *lines]]
    foot = []
    if shown < mi["input"].size:
        foot.append(f"({mi['input'].size - shown} more inputs in --json)")
    foot.append(f"delta: Borgonovo's, from {mi.attrs['delta_estimator']} on equal-frequency "
                "classes of each input; PAWN: KS distance over input slices (as SALib); "
                "both ~1/sqrt(rows per class) for an input the output ignores.")
    return "\n".join([head, *table, *foot])
