"""Shares of scenarios, with their Monte Carlo interval: the share where an event is true
(:func:`share_with_interval`), where each option is the cheapest (:func:`cheapest_shares`)
and the count of winning scenarios an indicator needs before its indices are ranked.

The interval is the run's: with its ``R`` independent scrambles (``ds.mc_tco.run``), the
spread of the per-scramble shares (:func:`mc_tco.uncertainty.scrambles.probability_with_interval`,
as every probability stored in a results file); otherwise Wilson's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import xarray as xr

from mc_tco.decision.tco_data import CHOICES
from mc_tco.uncertainty.scrambles import MIN_EVENTS, probability_with_interval, wilson_interval

__all__ = [
    "MIN_EVENTS",
    "Share",
    "cheapest_sets",
    "cheapest_shares",
    "indicator_by_demand",
    "indicator_counts",
    "positive_count",
    "prob_with_ci",
    "rare_indicator",
    "share_with_interval",
]


@dataclass(frozen=True)
class Share:
    """A share of scenarios (unit 1), its Monte Carlo interval and its count.

    ``k`` scenarios of ``n`` (NaN entries, not applicable, left out of both).
    """

    p: float
    lower: float
    upper: float
    k: int
    n: int

    def __iter__(self):
        return iter((self.p, self.lower, self.upper, self.k, self.n))


def share_with_interval(event: xr.DataArray | np.ndarray, conf_level: float = 0.95,
                        replicates: int | None = None) -> Share:
    """P(event) over samples and its interval.

    Parameters
    ----------
    event : DataArray or array_like
        True/false (1/0) per sample, NaN where not applicable.
    conf_level : float
        The interval's level (``ds.mc_tco.run.conf_level``).
    replicates : int, optional
        The run's scrambles when its intervals are their spread (``ds.mc_tco.run.replicates``);
        with a DataArray over ``sample`` the interval is then the replicate one, otherwise
        Wilson's on the pooled count.

    Returns
    -------
    Share
    """
    if replicates and isinstance(event, xr.DataArray) and event.dims == ("sample",):
        valid = event.astype(float).where(event.notnull())
        res = probability_with_interval(valid, replicates=int(replicates),
                                        conf_level=conf_level)
        arr = valid.values[~np.isnan(valid.values)]
        lo, hi = (float(v) for v in res["ci"].values)
        return Share(float(res["estimate"]), lo, hi, int(np.count_nonzero(arr)), arr.size)
    arr = np.asarray(event, dtype=float).ravel()
    arr = arr[~np.isnan(arr)]
    n = arr.size
    if n == 0:
        return Share(math.nan, math.nan, math.nan, 0, 0)
    k = int(np.count_nonzero(arr))
    lo, hi = wilson_interval(np.array(k), n, conf_level)
    return Share(k / n, float(lo), float(hi), k, n)


def prob_with_ci(event: xr.DataArray | np.ndarray, conf_level: float = 0.95,
                 replicates: int | None = None) -> tuple[float, float, float, int, int]:
    """:func:`share_with_interval` as a tuple ``(p, lo, hi, k, n)``."""
    return tuple(share_with_interval(event, conf_level, replicates))


def cheapest_shares(ds: xr.Dataset, demand: float, choices=CHOICES) -> xr.Dataset:
    """Share of scenarios in which each of ``choices`` (api, buy, rent, hybrid) costs least at
    ``demand``, with the run's interval (ties go to the first, the API: switching must pay).

    Returns
    -------
    xr.Dataset
        Dims ``strategy`` (``choices``, in order) and ``ci_bound``: ``share`` (unit 1),
        ``share_ci`` (strategy, ci_bound), ``scenarios_cheapest``; attrs ``demand``,
        ``scenarios``, ``conf_level``.
    """
    choices = list(choices)
    cost = ds["cost"].sel(demand=demand, strategy=choices).transpose("sample", "strategy")
    best = xr.DataArray(np.argmin(cost.values, axis=1), dims="sample",
                        coords={"sample": cost["sample"].values})
    run = ds.mc_tco.run
    conf, reps = run.conf_level, run.replicates
    got = [share_with_interval(best == i, conf, reps) for i in range(len(choices))]
    out = xr.Dataset(
        {"share": ("strategy", [s.p for s in got]),
         "share_ci": (("strategy", "ci_bound"), [[s.lower, s.upper] for s in got]),
         "scenarios_cheapest": ("strategy", [s.k for s in got])},
        coords={"strategy": choices, "ci_bound": ["lower", "upper"]},
        attrs={"demand": float(demand), "scenarios": int(cost.sizes["sample"]),
               "conf_level": conf},
    )
    out["share"].attrs["units"] = out["share_ci"].attrs["units"] = "1"
    return out


def indicator_counts(ds: xr.Dataset, demand: float, strategy: str = "buy") -> tuple[int, int]:
    """Winning scenarios (saving > 0) and the sample size at ``demand`` for ``strategy``."""
    saving = ds["saving"].sel(demand=demand, strategy=strategy)
    return int((saving > 0).sum()), int(saving.sizes["sample"])


def indicator_by_demand(ds: xr.Dataset, strategy: str = "buy",
                        min_events: int = MIN_EVENTS) -> xr.Dataset:
    """Winning scenarios (saving > 0) of ``strategy`` at every demand, and where they are
    too few (or too many) for the indicator's Sobol' indices to rank (:func:`rare_indicator`).

    Returns
    -------
    xr.Dataset
        ``wins`` (demand; count of scenarios) and ``rare`` (demand; bool), with the
        attribute ``n`` (the sample size).
    """
    wins = (ds["saving"].sel(strategy=strategy) > 0).sum("sample")
    n = ds.sizes["sample"]
    rare = np.minimum(wins, n - wins) < min_events
    wins.attrs["units"] = "scenarios"
    return xr.Dataset({"wins": wins, "rare": rare}, attrs={"n": n})


def positive_count(y: np.ndarray) -> tuple[int, int]:
    """Scenarios where the samples ``y`` (sample,) are above 0, and their number."""
    y = np.asarray(y)
    return int((y > 0).sum()), int(y.size)


def rare_indicator(wins: int, n: int, min_events: int = MIN_EVENTS) -> bool:
    """True when the indicator has too few wins (or losses) for its Sobol' indices to rank."""
    return min(wins, n - wins) < min_events


@dataclass(frozen=True)
class OddsOverDemand:
    """Where on the demand grid a strategy beats the API in at least half the scenarios
    (``first_half``, the smallest such demand, or None), and its highest stored
    P(beats the API) with its interval (``top``) at ``top_demand``."""

    first_half: float | None
    top_demand: float
    top: tuple[float, float, float]


def odds_over_demand(ds: xr.Dataset, strategy: str) -> OddsOverDemand:
    """:class:`OddsOverDemand` of ``strategy``, from the stored ``p_positive`` and
    ``p_positive_ci`` of the target ``saving>0`` (the first grid point on a tie)."""
    p_all = ds["p_positive"].sel(target="saving>0", strategy=strategy).values
    ci_all = ds["p_positive_ci"].sel(target="saving>0", strategy=strategy).values
    grid = ds["demand"].values
    half = grid[p_all >= 0.5]
    j = int(np.argmax(p_all))
    return OddsOverDemand(float(half[0]) if half.size else None, float(grid[j]),
                          (float(p_all[j]), float(ci_all[j][0]), float(ci_all[j][1])))


def cheapest_sets(ds: xr.Dataset, demand: float, choices=CHOICES, rtol: float = 1e-12
                  ) -> dict[tuple[str, ...], Share]:
    """Share of scenarios, with the run's interval, in which each set of ``choices`` costs
    least together at ``demand``: a tie is a tie (the hybrid that buys no server costs what
    the API does), not a win of the first (:func:`cheapest_shares` gives ties to the API).

    Costs within ``rtol`` of the scenario's least (relative) tie. Returns ``{set: Share}``,
    the sets in ``choices`` order, the most common first; the shares add up to 1.
    """
    choices = list(choices)
    cost = ds["cost"].sel(demand=demand, strategy=choices).transpose("sample", "strategy")
    c = np.asarray(cost.values, dtype=float)
    low = np.nanmin(c, axis=1, keepdims=True)
    at_min = c <= low + rtol * np.abs(low)
    keys = [tuple(s for s, m in zip(choices, row, strict=True) if m) for row in at_min]
    run = ds.mc_tco.run
    samples = cost["sample"].values
    out: dict[tuple[str, ...], Share] = {}
    for key in dict.fromkeys(keys):
        event = xr.DataArray(np.array([k == key for k in keys], dtype=float), dims="sample",
                             coords={"sample": samples})
        out[key] = share_with_interval(event, run.conf_level, run.replicates)
    return dict(sorted(out.items(), key=lambda kv: -kv[1].p))
