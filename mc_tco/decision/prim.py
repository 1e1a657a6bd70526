"""Scenario discovery: under which conditions does a strategy beat the API?

PRIM, the Patient Rule Induction Method (Friedman & Fisher 1999), finds a box ``B`` (one
interval per input, most of them unrestricted) of the sampled input space where a
strategy wins often (high *density*, the share of scenarios in ``B`` that win) and that
holds most of the winning scenarios (high *coverage*, the share of all winners inside ``B``;
Bryant & Lempert 2010).

* **Peeling.** Starting from the whole sample, each step removes the ``alpha`` (5%) of the
  box's scenarios with the lowest or highest value of one input, choosing the input and side
  whose removal leaves the highest density (Friedman & Fisher's criterion), until no peel
  raises the density or the box would hold less than ``min_mass`` of the sample. The
  sequence of boxes is the *peeling trajectory*: coverage falls as density rises.
* **Choosing.** Among the boxes of the trajectory holding at least ``min_coverage`` (half)
  of the winners, the largest whose density is within one standard error of the densest
  (Breiman et al.'s one-standard-error rule); the trajectory is returned so a user can
  pick another.
* **Pasting.** The chosen box is widened again, ``alpha`` of its size at a time, along the
  side that raises its density most, while that raises it (Friedman & Fisher 1999, sec. 6).
* **Pruning.** A bound whose removal does not lower the density significantly
  (quasi-p-value above 0.05: the one-sided binomial probability of the box's wins at the
  density of the box without that bound; Bryant & Lempert 2010) is dropped, so the rules
  name only inputs (and sides) that matter.
* **Covering.** The scenarios of the box are set aside and the search is repeated for a
  next box while enough winners remain.

With the run's scramble of each scenario (``replicate=``, base sample ``g`` belongs to
scramble ``g % R``), :func:`box_share_intervals` gives each found box's coverage, density
and mass, and :class:`Discovery` the share of winners, a randomized-QMC interval over the
``R`` scrambles (:func:`mc_tco.uncertainty.proportion`, Wilson's where a scramble has no
case). It measures the Monte Carlo error of the shares of *this* box, not the noise of the
box's choice, which was fitted to the same scenarios.

A bound lies halfway between the last removed and the first kept value, so ``x >= bound``
selects exactly the kept scenarios. The density of a box comes with a Wilson interval for
its Monte Carlo error; it is measured on the scenarios that chose the box, so it is
optimistic for small boxes (``min_cases`` guards against boxes fitted to a handful of
winners).

The ``prim`` package on PyPI (PRIM 1.0.0, the EMA Workbench's PRIM as a stand-alone
package) was evaluated and not used: it is GPL-3.0 (mc_tco is MIT), it silently ignores a
threshold of 0 (``if threshold:``), which is exactly "saving > 0" and then rejects the data,
its ``Prim.limits`` raises a TypeError with pandas 3, and it imports matplotlib, mplcursors
and pandas to find a box. On the same synthetic sample (4,000 points, x1 > 0.7 and x2 < 0.4
true) both restrict exactly x1 and x2, at x1 > 0.716, x2 < 0.389 (coverage 93%) there and
x1 > 0.710, x2 < 0.400 (coverage 96%) here, both with density 1. The kernel here (peel,
paste, prune, prim) is about 300 lines of numpy, tested against the known region.

References
----------
Friedman, J. H. & Fisher, N. I. (1999). Bump hunting in high-dimensional data. Statistics
and Computing 9(2), 123-143.
Breiman, L., Friedman, J. H., Olshen, R. A. & Stone, C. J. (1984). Classification and
Regression Trees. Wadsworth (sec. 3.4.3, the one-standard-error rule).
Bryant, B. P. & Lempert, R. J. (2010). Thinking inside the box: a participatory,
computer-assisted approach to scenario discovery. Technological Forecasting and Social
Change 77(1), 34-49.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import xarray as xr
from scipy import stats

from ..uncertainty import proportion, replicate_of, wilson_interval
from .data import DecisionData, check_option, decision_data, decision_spec

__all__ = [
    "MIN_CASES",
    "Box",
    "Discovery",
    "box_share_intervals",
    "discover",
    "paste",
    "peel",
    "prim",
    "prune",
]

#: fewest winning (and losing) scenarios PRIM is run on; below it a box describes noise
MIN_CASES = 50
PEEL_ALPHA = 0.05
PASTE_ALPHA = 0.05
MIN_COVERAGE = 0.5
SIGNIFICANCE = 0.05
MAX_BOXES = 3


@dataclass
class Box:
    """Bounds per input: ``lower <= x < upper`` is inside (``-inf``/``inf``: unrestricted)."""

    lower: np.ndarray
    upper: np.ndarray

    @classmethod
    def everything(cls, p: int) -> Box:
        return cls(np.full(p, -np.inf), np.full(p, np.inf))

    def copy(self) -> Box:
        return Box(self.lower.copy(), self.upper.copy())

    def contains(self, x: np.ndarray) -> np.ndarray:
        """Which rows of ``x`` (n, p) lie in the box, (n,) bool."""
        return np.all((x >= self.lower) & (x < self.upper), axis=1)

    @property
    def restricted(self) -> np.ndarray:
        return np.isfinite(self.lower) | np.isfinite(self.upper)


class _BoxShares:
    """Coverage, density, mass and restrictions of a box from its counts."""

    box: Box
    n_in: int
    wins_in: int
    n: int
    wins: int

    @property
    def coverage(self) -> float:
        return self.wins_in / self.wins if self.wins else float("nan")

    @property
    def density(self) -> float:
        return self.wins_in / self.n_in if self.n_in else float("nan")

    @property
    def mass(self) -> float:
        return self.n_in / self.n

    @property
    def n_restricted(self) -> int:
        return int(self.box.restricted.sum())


@dataclass
class Step(_BoxShares):
    """One box of a peeling trajectory with its statistics on the data it was fitted to."""

    box: Box
    n_in: int
    wins_in: int
    n: int
    wins: int


def _step(box: Box, x: np.ndarray, y: np.ndarray) -> Step:
    inside = box.contains(x)
    return Step(box, int(inside.sum()), int(y[inside].sum()), len(y), int(y.sum()))


def peel(x: np.ndarray, y: np.ndarray, *, alpha: float = PEEL_ALPHA,
         min_mass: float = 0.05) -> list[Step]:
    """The peeling trajectory of PRIM (Friedman & Fisher 1999, sec. 5).

    Parameters
    ----------
    x : ndarray, (n, p)
        Inputs.
    y : ndarray, (n,) bool
        Whether each scenario is a case of interest (e.g. the strategy wins).
    alpha : float
        Share of the box's scenarios removed per step.
    min_mass : float
        Smallest share of the ``n`` scenarios a box may hold.

    Returns
    -------
    list of Step
        From the whole space to the last box; each with coverage, density and mass.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=bool)
    n, p = x.shape
    box = Box.everything(p)
    inside = np.ones(n, dtype=bool)
    trajectory = [_step(box, x, y)]
    min_n = max(1, math.ceil(min_mass * n))
    while True:
        xs, ys = x[inside], y[inside].astype(float)
        n_in = len(ys)
        density = ys.mean()
        if density >= 1.0:
            break
        k = max(1, int(alpha * n_in))
        best = None  # (density, kept, restricted-before, -j, j, side, bound)
        for j in range(p):
            order = np.argsort(xs[:, j], kind="stable")
            v = xs[order, j]
            cum = np.concatenate([[0.0], np.cumsum(ys[order])])
            # lower side: drop every value <= the k-th smallest
            cut = int(np.searchsorted(v, v[k - 1], side="right"))
            if cut < n_in:
                kept = n_in - cut
                cand = ((cum[-1] - cum[cut]) / kept, kept, box.restricted[j], -j, j, 0,
                        (v[cut - 1] + v[cut]) / 2)
                if kept >= min_n and (best is None or cand[:4] > best[:4]):
                    best = cand
            # upper side: drop every value >= the k-th largest
            cut = int(np.searchsorted(v, v[n_in - k], side="left"))
            if cut > 0:
                cand = (cum[cut] / cut, cut, box.restricted[j], -j, j, 1,
                        (v[cut - 1] + v[cut]) / 2)
                if cut >= min_n and (best is None or cand[:4] > best[:4]):
                    best = cand
        if best is None or best[0] <= density:
            break
        _, _, _, _, j, side, bound = best
        box = box.copy()
        if side == 0:
            box.lower[j] = bound
        else:
            box.upper[j] = bound
        inside = box.contains(x)
        trajectory.append(_step(box, x, y))
    return trajectory


def paste(x: np.ndarray, y: np.ndarray, box: Box, *, alpha: float = PASTE_ALPHA) -> Box:
    """Widen ``box`` while that raises its density (Friedman & Fisher 1999, sec. 6).

    Each step tries, for every restricted side, to add the ``alpha`` share (of the box's
    size) of the nearest scenarios just outside it that meet every other restriction, and
    keeps the one that raises the density most.
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=bool)
    box = box.copy()
    while True:
        inside = box.contains(x)
        n_in, w_in = int(inside.sum()), int(y[inside].sum())
        if n_in == 0:
            return box
        density = w_in / n_in
        k = max(1, int(alpha * n_in))
        best = None
        for j in np.flatnonzero(box.restricted):
            others = box.copy()
            others.lower[j], others.upper[j] = -np.inf, np.inf
            ok = others.contains(x) & ~inside
            for side in (0, 1):
                if side == 0:
                    if not np.isfinite(box.lower[j]):
                        continue
                    cand = ok & (x[:, j] < box.lower[j])
                    v = np.sort(x[cand, j])[::-1]  # nearest first
                else:
                    if not np.isfinite(box.upper[j]):
                        continue
                    cand = ok & (x[:, j] >= box.upper[j])
                    v = np.sort(x[cand, j])
                if v.size == 0:
                    continue
                m = min(k, v.size)
                last = v[m - 1]
                if side == 0:
                    add = cand & (x[:, j] >= last)
                    rest = v[v < last]
                    bound = (last + rest[0]) / 2 if rest.size else -np.inf
                else:
                    add = cand & (x[:, j] <= last)
                    rest = v[v > last]
                    bound = (last + rest[0]) / 2 if rest.size else np.inf
                new_density = (w_in + y[add].sum()) / (n_in + add.sum())
                if best is None or new_density > best[0]:
                    best = (new_density, j, side, bound)
        if best is None or best[0] <= density:
            return box
        _, j, side, bound = best
        if side == 0:
            box.lower[j] = bound
        else:
            box.upper[j] = bound


def quasi_p_values(x: np.ndarray, y: np.ndarray, box: Box) -> dict[int, float]:
    """Quasi-p-value of each restricted input of ``box`` (Bryant & Lempert 2010).

    For input ``j``: the probability of at least the box's wins among its scenarios if they
    won at the density of the box without ``j``'s restriction (one-sided binomial).
    """
    inside = box.contains(x)
    n_in, w_in = int(inside.sum()), int(y[inside].sum())
    out = {}
    for j in np.flatnonzero(box.restricted):
        wider = box.copy()
        wider.lower[j], wider.upper[j] = -np.inf, np.inf
        m = wider.contains(x)
        p0 = y[m].mean()
        out[int(j)] = float(stats.binom.sf(w_in - 1, n_in, p0)) if n_in else 1.0
    return out


def prune(x: np.ndarray, y: np.ndarray, box: Box, *,
          significance: float = SIGNIFICANCE) -> tuple[Box, dict[int, float]]:
    """Drop restrictions that do not matter; return the box and its quasi-p-values.

    One bound at a time (the lower or upper side of one input), the bound whose removal
    gives the largest quasi-p-value above ``significance`` is dropped (Bryant & Lempert
    2010). The quasi-p-values returned are per restricted input (both its sides dropped).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=bool)
    box = box.copy()
    while True:
        inside = box.contains(x)
        n_in, w_in = int(inside.sum()), int(y[inside].sum())
        worst = None
        for j in np.flatnonzero(box.restricted):
            for side, bounds in ((0, box.lower), (1, box.upper)):
                if not np.isfinite(bounds[j]):
                    continue
                wider = box.copy()
                (wider.lower if side == 0 else wider.upper)[j] = -np.inf if side == 0 else np.inf
                p0 = y[wider.contains(x)].mean()
                qp = float(stats.binom.sf(w_in - 1, n_in, p0))
                if worst is None or qp > worst[0]:
                    worst = (qp, j, side)
        if worst is None or worst[0] <= significance:
            return box, quasi_p_values(x, y, box)
        _, j, side = worst
        if side == 0:
            box.lower[j] = -np.inf
        else:
            box.upper[j] = np.inf


@dataclass
class FoundBox(_BoxShares):
    """A box chosen, pasted and pruned, with its statistics on all ``n`` scenarios."""

    box: Box
    inputs: list[str]
    n_in: int
    wins_in: int
    n: int
    wins: int
    new_wins: int
    qp: dict[str, float]
    trajectory: list[Step]
    chosen: int
    conf_level: float = 0.95
    #: randomized-QMC intervals of the shares (only with ``replicate=``), see
    #: :func:`box_share_intervals`
    shares_rqmc: dict | None = None

    @property
    def coverage_new(self) -> float:
        """Share of all winners inside this box and in no earlier box."""
        return self.new_wins / self.wins

    def density_ci(self) -> tuple[float, float]:
        lo, hi = wilson_interval(self.wins_in, self.n_in, self.conf_level)
        return float(lo), float(hi)

    def rules(self) -> dict[str, list[float | None]]:
        """``{input: [low, high]}`` for the restricted inputs; None where a side is open."""
        out = {}
        for j in np.flatnonzero(self.box.restricted):
            lo, hi = self.box.lower[j], self.box.upper[j]
            out[self.inputs[j]] = [float(lo) if np.isfinite(lo) else None,
                                   float(hi) if np.isfinite(hi) else None]
        return out

    def to_dict(self) -> dict:
        lo, hi = self.density_ci()
        return {
            "rules": self.rules(),
            "coverage": self.coverage,
            "density": self.density,
            "density_ci": [lo, hi],
            "density_ci_level": self.conf_level,
            "mass": self.mass,
            "n_restricted": self.n_restricted,
            "scenarios_in_box": self.n_in,
            "winners_in_box": self.wins_in,
            "coverage_new": self.coverage_new,
            "quasi_p_values": self.qp,
            "trajectory": [
                {"coverage": s.coverage, "density": s.density, "mass": s.mass,
                 "n_restricted": s.n_restricted}
                for s in self.trajectory
            ],
            "chosen_step": self.chosen,
            **({"shares_rqmc": self.shares_rqmc} if self.shares_rqmc else {}),
        }


def box_share_intervals(box: Box, x: np.ndarray, y: np.ndarray, replicate, replicates: int,
                        conf_level: float = 0.95) -> dict:
    """Coverage, density and mass of ``box`` with randomized-QMC intervals.

    Each share is a proportion over a subset of the scenarios (coverage: of the winners;
    density: of the box's scenarios; mass: of all), so :func:`mc_tco.uncertainty.proportion`
    gives the pooled share and its interval over the ``R`` scrambles, or Wilson's on the
    pooled count where a scramble has no case in the subset (``fallback``).

    Returns
    -------
    dict
        ``{"coverage" | "density" | "mass": {"value", "ci", "fallback"}}`` plus
        ``conf_level`` and ``replicates``.
    """
    y = np.asarray(y, dtype=bool)
    replicate = np.asarray(replicate)
    inside = box.contains(np.asarray(x, dtype=float))
    out: dict = {"conf_level": conf_level, "replicates": replicates}
    for name, event, among in (("coverage", inside, y), ("density", y, inside),
                               ("mass", inside, np.ones_like(y))):
        res = proportion(event[among], replicate[among], replicates, conf_level)
        out[name] = {"value": float(res.estimate), "ci": [float(res.lower), float(res.upper)],
                     "fallback": bool(res.fallback)}
    return out


def choose(trajectory: list[Step], min_coverage: float = MIN_COVERAGE) -> int:
    """Index of the box picked from a peeling trajectory.

    Among the boxes holding at least ``min_coverage`` of the winners, take the densest, then
    the largest box whose density is within one standard error of it (the one-standard-error
    rule of Breiman et al. 1984): the extra density of a smaller box is then within its
    Monte Carlo noise, and the larger box is the more robust description.
    """
    ok = [i for i, s in enumerate(trajectory) if s.coverage >= min_coverage] or [0]
    top = max(ok, key=lambda i: (trajectory[i].density, trajectory[i].coverage))
    d = trajectory[top].density
    se = math.sqrt(d * (1 - d) / trajectory[top].n_in)
    near = [i for i in ok if trajectory[i].density >= d - se]
    return min(near)  # the trajectory only shrinks: the first is the largest


def prim(
    x: np.ndarray,
    y: np.ndarray,
    inputs: list[str] | None = None,
    *,
    alpha: float = PEEL_ALPHA,
    paste_alpha: float = PASTE_ALPHA,
    min_mass: float | None = None,
    min_coverage: float = MIN_COVERAGE,
    max_boxes: int = MAX_BOXES,
    min_cases: int = MIN_CASES,
    significance: float = SIGNIFICANCE,
    conf_level: float = 0.95,
    replicate=None,
    replicates: int | None = None,
) -> list[FoundBox]:
    """PRIM with pasting, pruning and covering on inputs ``x`` (n, p) and cases ``y`` (n,).

    ``min_mass`` defaults to half the share of winners, at most 5%, at least 10 scenarios:
    rare winners need small boxes. A next box is searched while at least ``min_cases``
    winners lie outside the boxes found. Returns the boxes with statistics on all ``n``;
    with ``replicate`` (the scramble of each scenario, (n,)) and ``replicates`` each box
    also carries ``shares_rqmc`` (:func:`box_share_intervals`).
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=bool)
    n, p = x.shape
    inputs = list(inputs) if inputs is not None else [f"x{j + 1}" for j in range(p)]
    wins = int(y.sum())
    if min_mass is None:
        min_mass = max(min(0.05, wins / n / 2), 10 / n)
    found: list[FoundBox] = []
    remaining = np.ones(n, dtype=bool)
    while len(found) < max_boxes and int(y[remaining].sum()) >= min_cases:
        xr_, yr = x[remaining], y[remaining]
        trajectory = peel(xr_, yr, alpha=alpha, min_mass=min_mass * n / len(yr))
        chosen = choose(trajectory, min_coverage)
        box = paste(xr_, yr, trajectory[chosen].box, alpha=paste_alpha)
        box, qp = prune(xr_, yr, box, significance=significance)
        if not box.restricted.any():
            break  # no restriction is significant: the winners are spread everywhere
        inside = box.contains(x)
        new = inside & remaining
        fb = FoundBox(
            box=box, inputs=inputs, n_in=int(inside.sum()), wins_in=int(y[inside].sum()),
            n=n, wins=wins, new_wins=int(y[new].sum()),
            qp={inputs[j]: v for j, v in qp.items()}, trajectory=trajectory, chosen=chosen,
            conf_level=conf_level,
        )
        base_rate = yr.mean()
        if fb.density <= base_rate:
            break
        if replicate is not None and replicates:
            fb.shares_rqmc = box_share_intervals(box, x, y, replicate, replicates, conf_level)
        found.append(fb)
        remaining &= ~inside
    return found


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
        return self.wins / self.n

    def p_win_ci(self) -> tuple[float, float]:
        lo, hi = wilson_interval(self.wins, self.n, self.conf_level)
        return float(lo), float(hi)

    def to_dict(self) -> dict:
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
    replicates: int | None = None,
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
    replicates : int, optional
        ``R`` of the run's interleaved scrambles
        (:func:`mc_tco.decision.voi.file_replicates`): adds randomized-QMC intervals of
        the share of winners and of each box's coverage, density and mass.

    Returns
    -------
    Discovery
    """

    from ..errors import OptionError

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
    conf = float(ds.attrs.get("conf_level", 0.95))
    out = Discovery(data, option, wins, n, min_cases=min_cases, conf_level=conf,
                    min_coverage=min_coverage)
    rep = None
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
    here = float(data.point[dim])
    if (values > 0).all() and here > 0:
        dist = np.abs(np.log(values) - np.log(here))
    else:
        dist = np.abs(values - here)
    dist = np.where(ok, dist, np.inf)
    i = int(np.argmin(dist))
    return {"dim": dim, "value": float(values[i]), "winners": int(counts[i]), "scenarios": n}
