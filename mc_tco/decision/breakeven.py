"""The break-even demand of each strategy across the scenarios: its distribution function
with a Monte Carlo interval, its quantiles, and the scenarios where a strategy breaks even
below a demand yet loses there (the saving is not monotone in demand).

``breakeven_demand`` (sample, strategy) is exact per scenario (``inf``: never breaks even).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr

from mc_tco.decision.tco_data import STRATEGIES
from mc_tco.uncertainty.scrambles import proportion_from_counts, replicate_of

__all__ = ["BreakevenBand", "breakeven_band", "breakeven_cdf", "cdf_demands",
           "nonmonotone_count"]


def breakeven_cdf(
    ds: xr.Dataset, x: np.ndarray, strategies=STRATEGIES, conf_level: float = 0.95
) -> xr.Dataset:
    """P(break-even demand <= x) per strategy with its pointwise Monte Carlo interval.

    The curve reaches ``1 - P(never)`` at most: scenarios that never break even stay out.
    With the run's ``R`` scrambles (``ci = "rqmc"``) the interval at each ``x`` is the
    replicate t interval of the ``R`` per-scramble shares, Wilson's on the pooled count where
    that cannot work (:func:`mc_tco.uncertainty.scrambles.proportion_from_counts`); otherwise
    Wilson's.
    NaN samples (not applicable) are left out of the count and the sample size.

    Returns
    -------
    xr.Dataset
        ``cdf`` (strategy, x), ``cdf_ci`` (strategy, x, ci_bound) and ``cdf_fallback``
        (strategy, x; True where the interval is Wilson's), unit 1.
    """
    be = ds["breakeven_demand"].sel(strategy=list(strategies)).transpose("strategy", "sample")
    reps = ds.mc_tco.run.scrambles
    rep = replicate_of(be["sample"].values if "sample" in be.coords
                       else np.arange(be.sizes["sample"]), reps)
    x = np.asarray(x, dtype=float)
    k_r, n_r = [], []
    for r in range(reps):
        vals = np.sort(be.values[:, rep == r], axis=1)  # NaN sorts last, above every x
        k_r.append(np.stack([np.searchsorted(v, x, side="right") for v in vals]))
        n_r.append(np.broadcast_to((~np.isnan(vals)).sum(axis=1)[:, None], k_r[-1].shape))
    res = proportion_from_counts(np.stack(k_r), np.stack(n_r), conf_level)
    return xr.Dataset(
        {"cdf": (("strategy", "x"), res.estimate),
         "cdf_ci": (("strategy", "x", "ci_bound"), np.stack([res.lower, res.upper], axis=-1)),
         "cdf_fallback": (("strategy", "x"), res.fallback)},
        coords={"strategy": list(strategies), "x": x, "ci_bound": ["lower", "upper"]},
    )


def cdf_demands(ds: xr.Dataset, strategies=STRATEGIES, points: int = 400) -> np.ndarray:
    """Demands at which to draw the break-even CDF (tokens/month, log-spaced): the grid's
    range, stretched to the largest finite break-even demand of ``strategies``, at most
    100 times the grid's last demand."""
    grid = ds["demand"].values
    be = ds["breakeven_demand"].sel(strategy=list(strategies)).values
    finite = be[np.isfinite(be)]
    top = grid[-1] if finite.size == 0 else max(grid[-1], min(finite.max(), 100 * grid[-1]))
    return np.geomspace(grid[0], top, points)


@dataclass(frozen=True)
class BreakevenBand:
    """Quantiles of one strategy's break-even demand over the scenarios (tokens/month;
    ``inf`` = never): ``q05``, ``median``, ``q95``; ``p_never`` the share that never
    breaks even (unit 1, no interval: the stored ``breakeven_demand_p_never`` has one)."""

    q05: float
    median: float
    q95: float
    p_never: float


def breakeven_band(ds: xr.Dataset, strategy: str) -> BreakevenBand:
    """5%, 50% and 95% quantiles (``inverted_cdf``: a sample's own break-even demand) and
    the share of scenarios that never break even, of ``strategy``."""
    be = ds["breakeven_demand"].sel(strategy=strategy).values
    q05, q50, q95 = np.quantile(be, [0.05, 0.5, 0.95], method="inverted_cdf")
    return BreakevenBand(float(q05), float(q50), float(q95), float(np.isinf(be).mean()))


def nonmonotone_count(ds: xr.Dataset, demand: float, strategy: str = "buy") -> tuple[int, int]:
    """Scenarios where ``strategy`` breaks even at or below ``demand`` yet loses at
    ``demand`` itself (saving < 0), and the sample size."""
    be = ds["breakeven_demand"].sel(strategy=strategy).values
    loses = ds["saving"].sel(demand=demand, strategy=strategy).values < 0
    return int(np.count_nonzero((be <= demand) & loses)), int(ds.sizes["sample"])
