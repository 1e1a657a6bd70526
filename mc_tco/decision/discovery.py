"""Scenario discovery on a results file: under which conditions does a strategy win?

:func:`discover` reads one grid point of a results file
(:func:`mc_tco.decision.data.decision_data`), marks the winning scenarios (the strategy's
target > 0) and runs PRIM on the stored inputs (:func:`mc_tco.decision.prim.prim`); with
too few winning or losing scenarios (:data:`mc_tco.uncertainty.scrambles.MIN_EVENTS`) it says which
and suggests the nearest grid value with enough. :func:`discover_nearest` is that search
followed, when the point has too few, by the same search at the suggested demand (what
the memo describes).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from mc_tco.decision.boxes import FoundBox
from mc_tco.decision.data import DecisionData, check_option, decision_data, decision_spec
from mc_tco.decision.prim import MAX_BOXES, MIN_CASES, MIN_COVERAGE, PEEL_ALPHA, prim
from mc_tco.results.points import nearest_index, scale_of
from mc_tco.uncertainty.scrambles import proportion, replicate_of, wilson_interval

__all__ = ["Discovery", "Scenarios", "discover", "discover_nearest"]


@dataclass
class Discovery:
    """Scenario discovery for one strategy at one grid point of a results file."""

    data: DecisionData
    option: str
    wins: int
    n: int
    boxes: list[FoundBox] = field(default_factory=list)
    status: str = "ok"  # "ok", "too few winners", "too few losers", "no box"
    min_cases: int = MIN_CASES
    suggestion: dict | None = None
    conf_level: float = 0.95
    min_coverage: float = MIN_COVERAGE
    #: the share of winners with its randomized-QMC interval (only with ``replicates=``)
    p_win_rqmc: dict | None = None

    @property
    def p_win(self) -> float:
        """The share of all scenarios in which the strategy wins."""
        return self.wins / self.n

    def p_win_ci(self) -> tuple[float, float]:
        """Interval of the share of winners: over the scrambles when known
        (:attr:`p_win_rqmc`), else Wilson's."""
        if self.p_win_rqmc:
            lo, hi = self.p_win_rqmc["ci"]
            return float(lo), float(hi)
        lo, hi = wilson_interval(self.wins, self.n, self.conf_level)
        return float(lo), float(hi)

    def to_dict(self) -> dict:
        """The discovery's numbers for ``--json``."""
        lo, hi = self.p_win_ci()
        return {
            "option": self.option,
            "winners": self.wins,
            "scenarios": self.n,
            "p_win": self.p_win,
            "p_win_ci": [lo, hi],
            "status": self.status,
            "min_cases": self.min_cases,
            "suggestion": self.suggestion,
            "boxes": [b.to_dict() for b in self.boxes],
            **({"p_win_rqmc": self.p_win_rqmc} if self.p_win_rqmc else {}),
        }


def discover(
    ds: xr.Dataset,
    *,
    strategy: str | None = None,
    at: dict | None = None,
    target: str | None = None,
    inputs: list[str] | None = None,
    alpha: float = PEEL_ALPHA,
    min_mass: float | None = None,
    min_coverage: float = MIN_COVERAGE,
    max_boxes: int = MAX_BOXES,
    min_cases: int = MIN_CASES,
    path: str | None = None,
    replicates: int | str | None = "auto",
) -> Discovery:
    """Boxes of the input space where ``strategy`` wins (its target > 0) at one grid point.

    Parameters
    ----------
    ds : xr.Dataset
        A results file; needs ``input_value`` and the target (``saving`` by default).
    strategy : str, optional
        The strategy explained (default: the file's focus strategy, e.g. ``buy``). For a
        model without a ``strategy`` dim, the case of interest is "target > 0".
    at : dict, optional
        The grid point, e.g. ``{"demand": 5e11}`` (default: the focus point).
    inputs : list of str, optional
        Inputs the boxes may restrict (default all).
    min_cases : int
        PRIM runs only with at least this many winning and losing scenarios; otherwise
        ``status`` says which are too few and ``suggestion`` names the nearest demand (or
        grid value) with enough of both.
    replicates : int, "auto" or None
        ``R`` of the run's interleaved scrambles; "auto" (default) reads the file's
        (:func:`mc_tco.decision.information.file_replicates`). With ``R`` the share of winners
        and each box's coverage, density and mass get randomized-QMC intervals (the ones
        :meth:`Discovery.p_win_ci` and :meth:`FoundBox.density_ci` return); None, or a file
        without scrambles: Wilson's.

    Returns
    -------
    Discovery
    """
    from mc_tco.errors import OptionError

    focus = ds.mc_tco.focus
    name = target or _first_target(ds)
    alt = decision_spec(ds).alternatives
    if name in ds and alt is not None and alt in ds[name].dims:
        strategy = strategy or focus.get(alt)
        if not strategy:
            raise OptionError(f"{path or 'the results'}: choose a strategy with --strategy")
        check_option(ds, strategy, path or "the results")
        data = decision_data(ds, at=at, among=[strategy], target=target, path=path)
        option = strategy
    else:
        if strategy:
            raise OptionError(
                f"{path or 'the results'}: --strategy {strategy}: '{name}' has no strategy "
                "dim; drop --strategy (the case of interest is then target > 0)"
            )
        data = decision_data(ds, at=at, target=target, path=path)
        option = "act"
    y = data.option_values(option) > 0
    wins, n = int(y.sum()), data.n
    conf = ds.mc_tco.run.conf_level
    out = Discovery(data, option, wins, n, min_cases=min_cases, conf_level=conf,
                    min_coverage=min_coverage)
    rep = None
    if isinstance(replicates, str):
        if replicates != "auto":
            raise ValueError(f"replicates: {replicates!r}: expected an int, 'auto' or None")
        from mc_tco.decision.information import file_replicates

        replicates = file_replicates(ds)
    if replicates:
        rep = replicate_of(ds["sample"].values if "sample" in ds.coords else np.arange(n),
                           replicates)
        res = proportion(y, rep, replicates, conf)
        out.p_win_rqmc = {"value": float(res.estimate), "ci": [float(res.lower),
                          float(res.upper)], "fallback": bool(res.fallback),
                          "conf_level": conf, "replicates": replicates}
    if wins < min_cases or n - wins < min_cases:
        out.status = "too few winners" if wins < min_cases else "too few losers"
        out.suggestion = _suggest(ds, data, option, min_cases)
        return out
    names = data.check_inputs(inputs) if inputs else list(data.inputs)
    cols = [data.inputs.index(v) for v in names]
    out.boxes = prim(
        data.x[:, cols], y, names, alpha=alpha, min_mass=min_mass, min_coverage=min_coverage,
        max_boxes=max_boxes, min_cases=min_cases, conf_level=conf, replicate=rep,
        replicates=replicates,
    )
    if not out.boxes:
        out.status = "no box"
    return out


def _first_target(ds: xr.Dataset) -> str:

    targets = ds.mc_tco.targets
    return targets[0] if targets else "saving"


def _suggest(ds: xr.Dataset, data: DecisionData, option: str, min_cases: int) -> dict | None:
    """The grid value nearest to the requested one (in log distance for a positive grid)
    where the option has at least ``min_cases`` winners and losers."""
    numeric = [d for d, v in data.point.items() if not isinstance(v, str)]
    if not numeric:
        return None
    dim = "demand" if "demand" in numeric else numeric[0]
    da = ds[data.target]
    if data.has_strategy:
        da = da.sel({data.alternatives: option})
    others = {k: v for k, v in data.point.items() if k != dim}
    da = da.sel(others)
    counts = (da > 0).sum("sample").values
    values = ds[dim].values.astype(float)
    n = da.sizes["sample"]
    ok = (counts >= min_cases) & (n - counts >= min_cases)
    if not ok.any():
        return None
    eligible = np.flatnonzero(ok)
    i = int(eligible[nearest_index(values[ok], float(data.point[dim]), scale_of(dim))])
    return {"dim": dim, "value": float(values[i]), "winners": int(counts[i]), "scenarios": n}


@dataclass(frozen=True)
class Scenarios:
    """Scenario discovery at a requested demand and, when that has too few winning or losing
    scenarios, at the nearest demand with enough (``nearest``; None otherwise)."""

    requested: Discovery
    nearest: Discovery | None = None

    @property
    def described(self) -> Discovery:
        """The discovery whose boxes are described: ``nearest`` if there is one."""
        return self.nearest if self.nearest is not None else self.requested


def discover_nearest(ds: xr.Dataset, *, strategy: str | None = None,
                     demand: float | None = None, min_cases: int = MIN_CASES) -> Scenarios:
    """:func:`discover` at ``demand`` (default: the file's focus point) and, when there are
    too few winners or losers there, again at the nearest demand with enough of both."""
    at = {"demand": demand} if demand is not None else None
    first = discover(ds, strategy=strategy, at=at, min_cases=min_cases)
    s = first.suggestion
    if first.status.startswith("too few") and s and s["dim"] == "demand":
        return Scenarios(first, discover(ds, strategy=strategy, at={"demand": s["value"]},
                                         min_cases=min_cases))
    return Scenarios(first)
