"""What ``mc-tco explain`` prints and what ``--json`` writes, from a computed
:class:`~mc_tco.decision.discovery.Discovery` and
:class:`~mc_tco.decision.information.VoiResult`."""

from __future__ import annotations

import xarray as xr

from mc_tco.decision.discovery import Discovery
from mc_tco.decision.information import VoiResult
from mc_tco.report.words.prim import prim_text
from mc_tco.report.words.voi import voi_text

__all__ = ["explain_dict", "explain_text"]


def _data(disc: Discovery | None, voi: VoiResult | None):
    """The decision data the analyses were computed on (at least one of them is given)."""
    found = disc if disc is not None else voi
    if found is None:
        raise ValueError("explain: neither a scenario discovery nor a value of information")
    return found.data


def explain_text(disc: Discovery | None, voi: VoiResult | None, ds: xr.Dataset,
                 path: str = "", command: str | None = None) -> str:
    """What ``mc-tco explain`` prints: the scenario discovery, then the value of information."""
    data = _data(disc, voi)
    out = [f"{path} ({ds.mc_tco.run.book_name}): {data.n:,} scenarios, "
           f"{len(data.inputs)} uncertain inputs"]
    if disc is not None:
        out += ["", *prim_text(disc, ds, command)]
    if voi is not None:
        out += ["", *voi_text(voi, ds)]
    return "\n".join(out)


def explain_dict(disc: Discovery | None, voi: VoiResult | None, path: str = "") -> dict:
    """What ``mc-tco explain --json`` writes: the printed numbers and their errors."""
    data = _data(disc, voi)
    out: dict = {
        "results": path,
        "target": data.target,
        "unit": data.unit,
        "point": data.point,
        "scenarios": data.n,
    }
    if voi is not None:
        out.update(voi.to_dict())
    if disc is not None:
        d = disc.to_dict()
        out["boxes"] = d.pop("boxes")
        out["scenario_discovery"] = d
    return out
