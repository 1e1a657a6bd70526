"""The context of the generic memo: any model's results file, the point the memo explains
and which alternative (:class:`GenericContext`), chosen by :func:`generic_context`.

The point is the file's focus point; a grid dim without a focus takes ``at`` (``--at
DIM=VALUE``) or the middle of its grid, and the memo says so. Every target gets its
P(target > 0), bands and ranking; the tornado, PRIM, the value of information and the
family check are for the focus target (``[analysis] focus = { target = "..." }``, else the
first of ``targets``). The memo itself is :mod:`mc_tco.report.memo.generic`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from mc_tco.decision.choice import leader
from mc_tco.errors import OptionError
from mc_tco.report.fmt import fmt_value
from mc_tco.report.memo.base import MemoBase

__all__ = [
    "BANDS",
    "GenericContext",
    "check_generic",
    "generic_context",
    "in_unit",
    "mean_of",
    "p_of",
    "pm",
]

_NEEDED = ("input_value", "p_positive", "p_positive_ci", "target_quantile", "target_mean",
           "ST", "ST_conf", "S1", "S1_conf")
#: the quantiles of the bands tables
BANDS = [0.05, 0.25, 0.5, 0.75, 0.95]


def check_generic(ds: xr.Dataset, path: str = "results") -> None:
    """Raise :class:`OptionError` unless ``ds`` is a results file of ``mc-tco run``."""
    missing = [v for v in _NEEDED if v not in ds.variables]
    if not ds.mc_tco.targets:
        missing.insert(0, "the attribute 'targets'")
    if missing:
        raise OptionError(
            f"{path}: not a results file of 'mc-tco run' (it lacks {', '.join(missing[:4])}); "
            "the memo reads what 'mc-tco run BOOK' writes: run your book with it"
        )


@dataclass
class GenericContext(MemoBase):
    """A results file, its point and what the memo says about which alternative.

    ``target`` is the target explained, ``alt`` the alternatives' dim (None without
    alternatives) and ``options`` its values, ``point`` the grid point (``chosen``: its dims
    set to the middle of their grid, not by a focus), ``option`` the alternative explained
    (the focus one, else the best on average that is not the baseline).
    """

    target: str
    alt: str | None
    options: list[str]
    point: dict
    chosen: list[str]
    option: str | None
    #: the tornado of :func:`section_ranking` (for its CSV table)
    tornado: xr.Dataset | None = None
    #: every target, the one this context explains (the focus target) first
    targets: list[str] = field(default_factory=list)
    #: grid dims of the stored summaries that the target lacks (its values are the same
    #: along them): the value used to select the summaries, not part of :attr:`where`
    broadcast: dict = field(default_factory=dict)

    @property
    def unit(self) -> str:
        """The target's unit."""
        return str(self.ds[self.target].attrs.get("units", ""))

    @property
    def baseline(self) -> str | None:
        """The model's baseline option, or None."""
        return self.ds.mc_tco.baseline

    @property
    def where(self) -> str:
        """The memo's grid point in words."""
        from mc_tco.report.words.common import point_text

        return point_text(self.point, self.ds)

    def at(self, option: str | None = None) -> dict:
        """The point, with the alternative when there is one."""
        return {**self.broadcast, **self.point,
                **({self.alt: option} if self.alt and option else {})}

    def label(self) -> str:
        """The decision indicator as the memo names it."""
        return f"{self.target} > 0"

    def grid_dim(self) -> str | None:
        """The target's first numeric grid dim with more than one value (its curves'
        x axis), if any."""
        dims = [d for d in self.ds[self.target].dims if d not in ("sample", self.alt)
                and self.ds.sizes[d] > 1 and np.issubdtype(self.ds[d].dtype, np.number)]
        return str(dims[0]) if dims else None

    def for_target(self, target: str) -> GenericContext:
        """The same point for another target (its own dims, its own best alternative)."""
        if target == self.target:
            return self
        dims = self.ds[target].dims
        here = {**self.broadcast, **self.point}
        return _context(self.ds, target, {k: v for k, v in here.items() if k in dims},
                        self.paths.get("results", "results"), command=self.command,
                        paths=self.paths, created=self.created, targets=self.targets,
                        fill={k: v for k, v in here.items() if k not in dims})


def generic_context(ds: xr.Dataset, *, at: dict | None = None, command: str = "",
                    paths: dict | None = None, created: str | None = None) -> GenericContext:
    """Check ``ds`` and choose the memo's point (focus, ``at``, else the grid's middle) and
    its focus target (``[analysis] focus.target``, else the first target)."""
    paths = dict(paths or {})
    where = paths.get("results", "results")
    check_generic(ds, where)
    targets = ds.mc_tco.targets
    first = ds.mc_tco.focus.get("target")
    if first in targets:  # [analysis] focus = { target = "..." } puts it first
        targets = [first, *(t for t in targets if t != first)]
    at, own = dict(at or {}), ds[targets[0]].dims
    others = {d for t in targets[1:] for d in ds[t].dims}
    fill = {k: at.pop(k) for k in list(at) if k not in own and k in others}
    return _context(ds, targets[0], at, where, command=command, paths=paths,
                    created=created, targets=targets, fill=fill)


def _context(ds: xr.Dataset, target: str, at: dict | None, where: str, *, command: str,
             paths: dict, created: str | None, targets: list[str],
             fill: dict | None = None) -> GenericContext:
    """The context of ``target`` at ``at`` (the focus, else the grid's middle); ``fill``:
    values of the summaries' grid dims that ``target`` lacks (default their first)."""
    from mc_tco.decision.data import decision_spec, select_point

    alt = decision_spec(ds).alternatives
    da = ds[target]
    alt = alt if alt in da.dims else None
    focus = ds.mc_tco.focus
    at = dict(at or {})
    chosen: list[str] = []
    for dim in map(str, da.dims):
        if dim in ("sample", alt) or dim in at:
            continue
        if dim in focus:
            at[dim] = focus[dim]
        elif ds.sizes[dim] > 1:
            at[dim] = ds[dim].values[(ds.sizes[dim] - 1) // 2].item()
            chosen.append(dim)
    point = select_point(ds, da, at, where, alternatives=alt)
    options = [str(v) for v in ds[alt].values] if alt else []
    fill = dict(fill or {})
    for d in ds["target_mean"].dims:
        if d in ("target", alt) or d in point or d in fill:
            continue
        v = focus.get(d)
        fill[d] = v if v is not None else ds[d].values[(ds.sizes[d] - 1) // 2].item()
    broadcast = ds.mc_tco.point(**{d: v for d, v in fill.items()
                                   if d in ds["target_mean"].dims and d not in point})
    ctx = GenericContext(ds, target=target, alt=alt, options=options, point=point,
                         chosen=chosen, option=None, command=command, paths=paths,
                         targets=list(targets), broadcast=broadcast)
    if created:
        ctx.created = created
    ctx.option = _explained(ctx, focus)
    return ctx


def mean_of(ctx: GenericContext, option: str | None) -> tuple[float, float, float]:
    """The mean of ``ctx.target`` for ``option`` at the point, with its interval (NaN
    without ``target_mean_ci``)."""
    sel = {"target": ctx.target, **ctx.at(option)}
    m = float(ctx.ds["target_mean"].sel(sel))
    if "target_mean_ci" in ctx.ds:
        lo, hi = (float(v) for v in ctx.ds["target_mean_ci"].sel(sel).values)
        return m, lo, hi
    return m, np.nan, np.nan


def _explained(ctx: GenericContext, focus: dict) -> str | None:
    """The alternative the ranking, tornado and PRIM explain: the focus one, else the best
    on average that is not the baseline."""
    if not ctx.alt:
        return None
    if str(focus.get(ctx.alt)) in ctx.options and focus.get(ctx.alt) != ctx.baseline:
        return str(focus[ctx.alt])
    others = [o for o in ctx.options if o != ctx.baseline] or ctx.options
    return leader({o: mean_of(ctx, o)[0] for o in others})


def p_of(ctx: GenericContext, option: str | None,
         target: str | None = None) -> tuple[float, float, float]:
    """P(target > 0) for ``option`` at the point: ``(p, lower, upper)``."""
    p = ctx.ds.mc_tco.p_beats(option, target or ctx.target,
                              **{**ctx.broadcast, **ctx.point})
    return float(p["p"]), float(p["lower"]), float(p["upper"])


def pm(v: float, c: float) -> str:
    """An index with its half-width: '0.412 ± 0.031'."""
    return "n/a" if not np.isfinite(v) else f"{v:.3f} ± {c:.3f}"


def in_unit(x: float, unit: str) -> str:
    """A value in ``unit``, as the memo prints it."""
    return fmt_value(float(x), unit)
