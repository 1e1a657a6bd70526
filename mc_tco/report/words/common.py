"""Shared pieces of the decision analyses' words: wrapping, tables, value ± error."""

from __future__ import annotations

import textwrap

import xarray as xr

from mc_tco.report.fmt import fmt_pct, fmt_value, to_error
from mc_tco.uncertainty.scrambles import z_value

__all__ = ["WIDTH", "at_text", "md_table", "pm", "point_text", "share", "table", "unit_suffix",
           "wrap"]

#: columns of the terminal text
WIDTH = 100


def wrap(text: str, indent: str = "  ", hanging: str | None = None) -> list[str]:
    """A paragraph wrapped to :data:`WIDTH` columns."""
    return textwrap.wrap(text, WIDTH, initial_indent=indent,
                         subsequent_indent=indent if hanging is None else hanging,
                         break_on_hyphens=False) or [indent]


def table(header: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    """A plain-text table: the first ``left`` columns left-aligned, the rest right-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    out = []
    for r in [header, *rows]:
        cells = [c.ljust(w) if i < left else c.rjust(w)
                 for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append("  ".join(cells).rstrip())
    return out


def md_table(header: list[str], rows: list[list[str]], align: str | None = None) -> list[str]:
    """A Markdown table; ``align`` is one letter per column, ``l`` or ``r`` (default: the
    first column left, the rest right)."""
    align = align or "l" + "r" * (len(header) - 1)
    sep = ["---" if a == "l" else "--:" for a in align]
    return ["| " + " | ".join(r) + " |" for r in [header, sep, *rows]]


def pm(value: float, se: float, conf_level: float = 0.95) -> str:
    """``1,150 ± 190``: an amount with its Monte Carlo half-width ``z se`` (95% by
    default), with no more digits than the half-width supports
    (:func:`mc_tco.report.fmt.to_error`)."""
    amount, half = to_error(value, z_value(conf_level) * se)
    return f"{amount} ± {half}"


def unit_suffix(unit: str) -> str:
    """' USD/month' after a number, or nothing for a unitless target."""
    return f" {unit}" if unit and unit != "1" else ""


def at_text(point: dict, ds) -> str:
    """' at demand 500B tokens/month', or nothing when the target has no grid dims."""
    where = point_text(point, ds)
    return f" at {where}" if where else ""


def share(v: float, total: float) -> str:
    """``v / total`` in percent, or '-' when the total is not positive."""
    return fmt_pct(v / total, 0) if total > 0 else "-"


def point_text(point: dict, ds: xr.Dataset | None = None, skip=()) -> str:
    """``demand 500B tokens/month`` for a grid point."""
    parts = []
    for k, v in point.items():
        if k in skip:
            continue
        unit = ds[k].attrs.get("units", "") if ds is not None and k in ds else ""
        if isinstance(v, str):
            parts.append(f"{k} {v}")
        else:
            parts.append(f"{k} {fmt_value(v, unit)}" + (f" {unit}" if unit else ""))
    return ", ".join(parts)
