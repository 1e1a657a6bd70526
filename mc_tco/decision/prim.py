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

A bound lies halfway between the last removed and the first kept value, so ``x >= bound``
selects exactly the kept scenarios. The density, coverage and mass of a box come with an
interval for their Monte Carlo error (over the run's scrambles with ``replicate=``,
:func:`~mc_tco.decision.boxes.box_share_intervals`; Wilson's without); the density is
measured on the scenarios that chose the box, so it is optimistic for small boxes
(``min_cases`` guards against boxes fitted to a handful of winners).

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

import numpy as np
from scipy import stats

from mc_tco.decision.boxes import Box, FoundBox, Step, box_share_intervals
from mc_tco.uncertainty.scrambles import MIN_EVENTS

__all__ = [
    "MIN_CASES",
    "choose",
    "paste",
    "peel",
    "prim",
    "prune",
    "quasi_p_values",
]

#: fewest winning (and losing) scenarios PRIM is run on; below it a box describes noise
MIN_CASES = MIN_EVENTS
PEEL_ALPHA = 0.05
PASTE_ALPHA = 0.05
MIN_COVERAGE = 0.5
SIGNIFICANCE = 0.05
MAX_BOXES = 3


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
