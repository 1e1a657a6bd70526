"""What would change the answer, read from a results file: the demand from which a
self-hosting strategy beats the API in most scenarios, and the value of one input beyond
which it does.

Shares are of the stored scenarios (no model run); an input's threshold is found among the
scenarios sorted by that input.

The triggers a person can watch (:func:`watch_triggers`, issue 24) are in quantities one
measures: the invoice price (USD/Mtok), the cache-hit share on the invoice, a pilot's
tokens per GPU-hour, the monthly volume and a vendor's server quote, each mapped to the
book's inputs by the model's own equations (:data:`MAPPING`). Each threshold is found by
re-evaluating the model on the stored base rows with that one quantity set to a value in
every scenario, the other inputs as uncertain as stored, and root-finding on the
recommendation of the one decision rule (:mod:`mc_tco.decision.rule`: the value at which
the option with the largest expected NPV against the API changes).
Re-evaluation was chosen over a regression on the stored rows: it is exact for the model
(no smoother), it extrapolates to values the book rarely samples (a quote below every
sampled price), and it costs a few seconds. Correlated inputs keep their stored values
(the quantity is set, not learnt: :mod:`mc_tco.decision.stored_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr

from mc_tco.decision.costs import component_input
from mc_tco.decision.one_page import SELF as SELF_OPTIONS
from mc_tco.decision.one_page import p_beats
from mc_tco.decision.shares import MIN_EVENTS
from mc_tco.decision.stored_rows import Rows, stored_rows
from mc_tco.uncertainty.intervals import replicate_interval

__all__ = ["MAPPING", "WATCHED", "DemandTrigger", "InputTrigger", "WatchTrigger",
           "demand_trigger", "input_trigger", "recommendation", "watch_trigger",
           "watch_triggers", "watched_inputs", "watched_now"]


@dataclass(frozen=True)
class DemandTrigger:
    """The first grid demand above the decision demand where one of the strategies beats the
    API in at least half the scenarios (``found``), or, when none does, the largest grid
    demand and the strategy closest to it; ``p`` is that strategy's P(beats the API)."""

    found: bool
    demand: float
    strategy: str
    p: float


def demand_trigger(ds: xr.Dataset, demand: float,
                   strategies=("buy", "hybrid")) -> DemandTrigger | None:
    """:class:`DemandTrigger` of ``strategies`` above ``demand``; None when ``demand`` is the
    top of the grid and no larger demand wins."""
    grid = ds["demand"].values
    for d in grid[grid > demand]:
        winners = [s for s in strategies if p_beats(ds, s, d) >= 0.5]
        if winners:
            s = max(winners, key=lambda s: p_beats(ds, s, d))
            return DemandTrigger(True, float(d), s, p_beats(ds, s, d))
    if demand >= grid[-1]:
        return None
    top = max(strategies, key=lambda s: p_beats(ds, s, grid[-1]))
    return DemandTrigger(False, float(grid[-1]), top, p_beats(ds, top, grid[-1]))


@dataclass(frozen=True)
class InputTrigger:
    """The value of an input (its unit) beyond which a strategy beats the API in at least
    half of the scenarios, and the share of the scenarios beyond it (unit 1)."""

    name: str
    value: float
    share_beyond: float
    rising: bool


def input_trigger(ds: xr.Dataset, demand: float, strategy: str, name: str,
                  rising: bool = True, min_events: int = MIN_EVENTS) -> InputTrigger | None:
    """The least extreme value ``x`` of input ``name`` such that among the scenarios with
    the input beyond ``x`` (above when ``rising``, else below; at least ``min_events`` of
    them) ``strategy`` beats the API at ``demand`` in at least half.

    None when the input is not sampled (a constant, or not in the book) or no such value
    exists.
    """
    try:
        x = component_input(ds, name)
    except KeyError:
        return None
    if not isinstance(x, xr.DataArray):
        return None
    win = (ds["saving"].sel(demand=demand, strategy=strategy) > 0).values
    order = np.argsort(-x.values if rising else x.values, kind="stable")
    xs, ws = x.values[order], win[order]
    share = np.cumsum(ws) / np.arange(1, ws.size + 1)  # win rate among the most extreme k
    ok = np.flatnonzero((share >= 0.5) & (np.arange(1, ws.size + 1) >= min_events))
    if ok.size == 0:
        return None
    k = int(ok[-1])
    return InputTrigger(name, float(xs[k]), (k + 1) / ws.size, rising)


# ---- triggers a person can watch (issue 24, point 6) ----------------------------------

#: the quantities a person measures, each set on the stored rows by changing the book's
#: inputs (:func:`_set`): key -> (unit, scale of the search, hard bounds)
WATCHED: dict[str, tuple[str, str, tuple[float, float]]] = {
    "invoice_price": ("USD/Mtok", "log", (0.0, np.inf)),
    "cache_hit_share": ("1", "linear", (0.0, 1.0)),
    "tokens_per_gpu_hour": ("tokens/GPU-hour", "log", (0.0, np.inf)),
    "monthly_volume": ("tokens/month", "log", (0.0, np.inf)),
    "server_quote": ("USD", "log", (0.0, np.inf)),
}
#: how each watched quantity is read from the book's inputs (the model's own equations)
MAPPING = {
    "invoice_price": "api_price_level × ((1 − output_share) × (api_cache_hit_rate × "
                     "price_input_cache_hit + (1 − api_cache_hit_rate) × "
                     "price_input_cache_miss) + output_share × price_output) × (1 − "
                     "api_offpeak_share × api_offpeak_discount); set by scaling "
                     "api_price_level",
    "cache_hit_share": "api_cache_hit_rate (the share of input tokens billed as cache hits)",
    "tokens_per_gpu_hour": "reference_tokens_per_gpu_hour × mix / throughput_multiple (one "
                           "GPU at full load in month 0, our token mix); set by scaling "
                           "throughput_multiple",
    "monthly_volume": "demand × demand_realization (the run-rate after the ramp, before "
                      "growth); set by demand_realization",
    "server_quote": "node_price (one 8-GPU node at month 0)",
}
#: the points of the first scan of a quantity's range, and the bisection steps after it
SCAN_POINTS = 9
REFINE_POINTS = 3
REFINEMENTS = 4


def watched_now(rows: Rows, demand: float, key: str) -> np.ndarray:
    """The watched quantity ``key`` in each stored scenario (its unit, :data:`WATCHED`)."""
    x = rows.x
    if key == "invoice_price":
        return rows.factors()["invoice_per_mtok"]
    if key == "tokens_per_gpu_hour":
        return rows.factors()["tokens_per_gpu_hour"]
    if key == "cache_hit_share":
        return x["api_cache_hit_rate"]
    if key == "monthly_volume":
        return demand * x["demand_realization"]
    if key == "server_quote":
        return x["node_price"]
    raise KeyError(key)


def watched_inputs(rows: Rows, demand: float, key: str, value: float) -> dict[str, np.ndarray]:
    """The book's inputs that set quantity ``key`` to ``value`` in every scenario, the
    others as stored (:data:`MAPPING`)."""
    x = rows.x
    v = np.full(rows.n, float(value))
    if key == "invoice_price":
        return {"api_price_level": x["api_price_level"] * v / watched_now(rows, demand, key)}
    if key == "tokens_per_gpu_hour":
        return {"throughput_multiple": x["throughput_multiple"]
                * watched_now(rows, demand, key) / v}
    if key == "cache_hit_share":
        return {"api_cache_hit_rate": v}
    if key == "monthly_volume":
        return {"demand_realization": v / demand}
    if key == "server_quote":
        return {"node_price": v}
    raise KeyError(key)


def recommendation(npv: np.ndarray, options=SELF_OPTIONS) -> tuple[str, float]:
    """The one decision rule (:func:`mc_tco.decision.rule.best_by_mean`) on re-evaluated
    rows: the option with the largest expected NPV against the API, the API (NPV 0) when
    no alternative's is positive; with that option's expected NPV (USD).

    ``npv`` is (n, strategy) in :data:`mc_tco.models.tco.STRATEGIES` order.
    """
    from mc_tco.decision.rule import best_by_mean
    from mc_tco.models.tco import STRATEGIES

    names = ("api", *options)
    cols = np.column_stack([np.zeros(npv.shape[0]),
                            *(npv[:, STRATEGIES.index(s)] for s in options)])
    i = best_by_mean(cols, names)
    return names[i], float(np.nanmean(cols[:, i])) if cols.shape[0] else 0.0


@dataclass(frozen=True)
class WatchTrigger:
    """The value of a watched quantity at which the recommendation flips.

    ``threshold`` (the quantity's unit) with its randomized-QMC interval ``lower`` ..
    ``upper`` (NaN without scrambles, or when a scramble has no crossing); ``now`` the
    median over the scenarios of the quantity as the book assumes it; ``beyond`` the
    recommendation on the far side of the threshold from ``now`` and ``here`` the one on
    the side of ``now`` (``here_side``: "below" when ``now`` < ``threshold``);
    ``found`` False when no value in the scanned range ``scanned`` flips it;
    ``bracket`` the last values either side of the flip (``threshold`` is their mean, the
    geometric one on a log scale).
    """

    key: str
    unit: str
    found: bool
    threshold: float
    lower: float
    upper: float
    now: float
    here: str
    beyond: str
    scanned: tuple[float, float]
    bracket: tuple[float, float]
    #: the recommendation with the quantity as uncertain as the book has it
    current: str = "api"

    @property
    def rising(self) -> bool:
        """The flip comes with a rise of the quantity."""
        return self.threshold > self.now


def _mid(a: float, b: float, scale: str) -> float:
    return float(np.sqrt(a * b) if scale == "log" else (a + b) / 2)


def _grid(lo: float, hi: float, scale: str, k: int) -> np.ndarray:
    return np.geomspace(lo, hi, k) if scale == "log" else np.linspace(lo, hi, k)


def _recs(rows: Rows, demand: float, key: str, jobs: list[tuple[np.ndarray, float]]
          ) -> list[str]:
    """The recommendation on the rows ``idx`` with quantity ``key`` set to ``v``, for each
    job ``(idx, v)``, in one model call.

    Jobs at the same ``v`` share their rows: each row is evaluated once per value (a
    scramble's bracket is often the pooled one, so its points are the pooled rows' points)
    and each job reads its own rows, in its order, from that evaluation. The model is
    row by row, so every job's NPVs are the ones its rows alone would give.
    """
    by_value: dict[float, np.ndarray] = {}
    for idx, v in jobs:
        got = by_value.get(v)
        by_value[v] = np.unique(idx) if got is None else np.union1d(got, idx)
    cols = []
    for v, idx in by_value.items():
        part = rows.subset(idx)
        cols.append(part.with_inputs(watched_inputs(part, demand, key, v)))
    stacked = Rows({name: np.concatenate([c[name] for c in cols]) for name in rows.x})
    npv = stacked.evaluate(demand, None, ("npv",))["npv"]
    start, at = 0, {}
    for v, idx in by_value.items():
        at[v] = (start, idx)
        start += idx.size
    out = []
    for idx, v in jobs:
        first, union = at[v]
        out.append(recommendation(npv[first + np.searchsorted(union, idx)])[0])
    return out


def _crossings(rows: Rows, demand: float, key: str, parts: list[np.ndarray],
               grid: np.ndarray, scale: str, near: float
               ) -> list[tuple[float, float, str, str] | None]:
    """For each set of rows in ``parts`` (the first: all of them), the flip along ``grid``
    nearest ``near`` (the others': nearest the first's), refined: the bracket ``(low,
    high, rec. at low, rec. at high)``, or None where the recommendation never changes
    along ``grid``.

    The scan evaluates every row once per grid point (each part reads its own rows); each
    refinement scans :data:`REFINE_POINTS` points inside every part's bracket in one model
    call, :data:`REFINEMENTS` times (the bracket shrinks 4-fold each time).
    """
    outs = rows.evaluate_each(demand, [watched_inputs(rows, demand, key, v) for v in grid])

    def mid(a: float, b: float) -> float:
        return float(np.sqrt(a * b) if scale == "log" else (a + b) / 2)

    def dist(v: float, to: float) -> float:
        return float(abs(np.log(v) - np.log(to)) if scale == "log" else abs(v - to))

    Bracket = tuple[float, float, str, str]
    brackets: list[Bracket | None] = []
    target = near
    for k, idx in enumerate(parts):
        recs = [recommendation(o["npv"][idx])[0] for o in outs]
        cuts = [i for i in range(len(grid) - 1) if recs[i] != recs[i + 1]]
        if not cuts:
            brackets.append(None)
            continue
        g = [float(v) for v in grid]
        i = min(cuts, key=lambda i: dist(mid(g[i], g[i + 1]), target))
        brackets.append((g[i], g[i + 1], recs[i], recs[i + 1]))
        if k == 0:
            target = mid(g[i], g[i + 1])
    for _ in range(REFINEMENTS):
        live = {k: b for k, b in enumerate(brackets) if b is not None}
        if not live:
            break
        inner = {k: [float(v) for v in _grid(b[0], b[1], scale, REFINE_POINTS + 2)[1:-1]]
                 for k, b in live.items()}
        got = _recs(rows, demand, key, [(parts[k], v) for k in live for v in inner[k]])
        for n_k, (k, (lo, hi, below, above)) in enumerate(live.items()):
            pts = [lo, *inner[k], hi]
            seq = [below, *got[n_k * REFINE_POINTS:(n_k + 1) * REFINE_POINTS], above]
            j = next(j for j in range(len(seq) - 1) if seq[j] != seq[j + 1])
            brackets[k] = (pts[j], pts[j + 1], seq[j], seq[j + 1])
    return brackets


def watch_trigger(rows: Rows, demand: float, key: str, *, scrambles: bool = True,
                  conf_level: float = 0.95, here: str | None = None) -> WatchTrigger:
    """:class:`WatchTrigger` of quantity ``key`` (:data:`WATCHED`) at ``demand``.

    Threshold analysis on the stored base rows: the quantity is set to one value in every
    scenario (:func:`watched_inputs`), the model re-evaluated, and the recommendation
    (:func:`recommendation`: the option with the largest expected NPV against the API)
    read. The range scanned runs from a quarter of the quantity's 0.5%
    quantile to four times its 99.5% quantile (log scale; a share over [0, 1]) in
    :data:`SCAN_POINTS` points; the flip nearest the median is refined to ``4^-4`` of its
    bracket (:func:`_crossings`). Each scramble's rows give their own threshold (the same
    scan, the flip nearest the pooled one): the interval is ``t_{R-1}`` over the ``R``
    estimates (of the log for a log-scaled quantity), centred on the pooled one
    (:func:`replicate_interval`); NaN where a scramble has no flip. ``here`` is the
    recommendation on the rows as stored, if already known (:func:`watch_triggers` reads
    it once for every quantity).
    """
    unit, scale, (lo_b, hi_b) = WATCHED[key]
    now_rows = watched_now(rows, demand, key)
    now = float(np.median(now_rows))
    if scale == "log":
        lo = max(float(np.quantile(now_rows, 0.005)) / 4, np.nextafter(lo_b, 1))
        hi = min(float(np.quantile(now_rows, 0.995)) * 4, hi_b)
    else:
        lo, hi = lo_b, hi_b
    grid = _grid(lo, hi, scale, SCAN_POINTS)
    parts = [np.arange(rows.n)]
    if scrambles and rows.replicate is not None and rows.replicates:
        parts += [np.flatnonzero(rows.replicate == r) for r in range(rows.replicates)]
    hits = _crossings(rows, demand, key, parts, grid, scale, now)
    if here is None:
        here = recommendation(rows.evaluate(demand, None, ("npv",))["npv"])[0]
    if hits[0] is None:
        return WatchTrigger(key, unit, False, np.nan, np.nan, np.nan, now, here, here,
                            (lo, hi), (np.nan, np.nan), here)
    b_lo, b_hi, below, above = hits[0]
    t = _mid(b_lo, b_hi, scale)
    reps = [_mid(h[0], h[1], scale) if h is not None else np.nan for h in hits[1:]]
    lower = upper = np.nan
    if len(reps) >= 2:
        est = np.log(reps) if scale == "log" else np.asarray(reps)
        c = np.log(t) if scale == "log" else t
        _, half = replicate_interval(est, 0, conf_level, centre=c)
        if np.isfinite(half):
            lower, upper = ((float(np.exp(c - half)), float(np.exp(c + half)))
                            if scale == "log" else (float(c - half), float(c + half)))
    here_rec, beyond = (below, above) if now < t else (above, below)
    return WatchTrigger(key, unit, True, t, lower, upper, now, here_rec, beyond, (lo, hi),
                        (b_lo, b_hi), here)


def watch_triggers(ds: xr.Dataset, demand: float, keys=tuple(WATCHED), *,
                   rows: Rows | None = None, scrambles: bool = True) -> list[WatchTrigger]:
    """:func:`watch_trigger` of each watched quantity at ``demand``, on the results'
    stored rows (with the run's scrambles and level)."""
    rows = rows if rows is not None else stored_rows(ds)
    level = ds.mc_tco.run.conf_level
    here = recommendation(rows.evaluate(demand, None, ("npv",))["npv"])[0] if keys else None
    return [watch_trigger(rows, demand, k, scrambles=scrambles, conf_level=level, here=here)
            for k in keys]
