"""Words for results with an input as a grid dim (``[grid.<input>]``): the one line a
reader that shows one value of it says (:func:`input_grid_note`)."""

from __future__ import annotations

import xarray as xr

from mc_tco.report.fmt import fmt_value

__all__ = ["input_grid_note"]


def input_grid_note(view: xr.Dataset, how: str = "") -> str:
    """One line naming the value of each grid input that ``view`` shows, or "".

    Parameters
    ----------
    view : xr.Dataset
        Results selected by ``ds.mc_tco.at_input_grid(...)``.
    how : str
        How the reader shows the other values (e.g. ``"the table below"``, ``"mc-tco memo
        --at node_price=VALUE"``), said after the value.

    Examples
    --------
    ``node_price is a grid dim of these results (300,000 / 450,000 / 600,000 USD, each fixed on the
    same scenarios): shown at node_price = 450,000 USD, the middle value; the others: ...``
    """
    at = view.mc_tco.input_grid_at
    if not at:
        return ""
    declared = view.mc_tco.input_grid_declared
    parts = []
    for name, value in at.items():
        grid = declared.get(name, {})
        values, unit = list(grid.get("values", [])), str(grid.get("unit", ""))
        unit = "" if unit == "1" else unit  # (a pure number)
        shown = " / ".join(fmt_value(float(v)) for v in values)
        middle = bool(values) and value == float(values[(len(values) - 1) // 2])
        focus = grid.get("focus")
        which = ("as asked" if focus is None or value != float(focus) else
                 "the middle value" if middle else "the book's focus")
        parts.append(f"{name} is a grid dim of these results ({shown} {unit}".rstrip()
                     + f", each fixed on the same scenarios): shown at {name} = "
                     + f"{fmt_value(value, unit)} {unit}".rstrip() + f", {which}")
    return "; ".join(parts) + (f"; the others: {how}" if how else "")
