"""What a pilot is worth before deciding: the expected value of sample information (EVSI).

A pilot does not learn an input exactly (that is EVPPI, :mod:`mc_tco.decision.voi`); it
returns noisy data ``X`` whose distribution depends on the inputs. Its value is

    EVSI = E_X[max_d E(NB_d | X)] - max_d E(NB_d),

estimated here by the regression method of Strong, Oakley, Brennan & Breeze (2015): for
each stored sample ``i`` (inputs ``theta_i``) simulate one data set ``X_i ~ p(X |
theta_i)``, reduce it to a summary statistic ``T(X_i)`` (here the sufficient statistic, a
mean), and regress the incremental net benefits on ``T`` instead of on ``theta``: the
fitted values estimate ``E(NB_d | T)``, and their ``max`` averaged over the samples, less
the best mean, is EVSI. The smoother and the per-scramble interval are EVPPI's
(:func:`mc_tco.decision.voi.evppi`, :func:`~mc_tco.decision.voi.evppi_replicates`): no new
model runs. Since the data are noisier than the truth, EVSI <= EVPPI of the same inputs
(:attr:`PilotValue.ceiling`).

The pilot (:class:`Pilot`): rent ``nodes`` nodes for ``weeks`` weeks and measure, each day,
our tokens per GPU-hour (full load, our token mix, month 0:
``reference_tokens_per_gpu_hour * mix / throughput_multiple``) and our cache-hit share
(``self_cache_hit_ratio * api_cache_hit_rate``). Day-to-day noise is an assumption of the
pilot, stated with it: a coefficient of variation ``throughput_cv`` of the daily
throughput (log-normal) and a standard deviation ``cache_sd`` of the daily share; the
pilot's means then have standard errors ``throughput_cv / sqrt(days)`` (of the log) and
``cache_sd / sqrt(days)``. The learning that follows month 0 (``throughput_final_ratio``,
``learning_months``) stays unknown. The pilot's cost is the rent of its nodes for its
weeks and the book's team (``staff_fte * staff_cost_per_fte``) for the same weeks, the
mean over the scenarios; its delay to the decision is not priced.

The net benefit is the npv against the API (USD, the horizon's present value), among the
options a company can choose (:data:`mc_tco.decision.tco_data.CHOICES`): EVSI and the
pilot's cost are in the same dollars. Like EVPI, EVSI values a decision by expected npv
(the option best on average): the memo's one decision rule (:mod:`mc_tco.decision.rule`),
so "the decision today" of the pilot is the memo's recommendation.

References
----------
Strong, M., Oakley, J. E., Brennan, A. & Breeze, P. (2015). Estimating the expected value
of sample information using the probabilistic sensitivity analysis sample: a fast,
nonparametric regression-based method. Medical Decision Making 35(5), 570-583.
Ades, A. E., Lu, G. & Claxton, K. (2004). Expected value of sample information
calculations in medical decision modeling. Medical Decision Making 24(2), 207-227 (the
normal-normal closed form the tests use).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import xarray as xr

from mc_tco.decision.stored_rows import Rows, stored_rows
from mc_tco.decision.voi import ReplicateVoi, evppi, evppi_replicates

__all__ = ["Pilot", "PilotValue", "evsi", "pilot_value"]

HOURS_PER_WEEK = 24 * 7


def evsi(summary: np.ndarray, nb: np.ndarray, replicate=None, replicates: int | None = None,
         conf_level: float = 0.95) -> ReplicateVoi:
    """EVSI from a summary statistic of simulated data (Strong et al. 2015).

    Parameters
    ----------
    summary : ndarray, (n,) or (n, p)
        ``T(X_i)``: the summary of the data set simulated from sample ``i``'s inputs.
    nb : ndarray, (n, D)
        Net benefit of each option at the same samples.
    replicate, replicates
        The scramble of each row and ``R``, for the randomized-QMC interval (without
        them the half-width is NaN).

    Returns
    -------
    ReplicateVoi
        EVSI in the unit of ``nb``, with its interval.
    """
    summary = np.asarray(summary, dtype=float)
    nb = np.asarray(nb, dtype=float)
    value = evppi(summary, nb, draws=0)[0]
    if replicate is None or not replicates:
        return ReplicateVoi(value, math.nan, np.array([]), conf_level)
    return evppi_replicates(summary, nb, replicate, replicates, conf_level, value=value)


@dataclass(frozen=True)
class Pilot:
    """A pilot: ``nodes`` rented nodes for ``weeks`` weeks, measuring our throughput and
    our cache-hit share every day (day-to-day noise ``throughput_cv``, of the log of the
    daily tokens per GPU-hour, and ``cache_sd``, of the daily share; assumptions)."""

    weeks: float = 3.0
    nodes: int = 1
    throughput_cv: float = 0.25
    cache_sd: float = 0.10

    @property
    def days(self) -> float:
        """Days of measurement."""
        return 7.0 * self.weeks

    @property
    def throughput_se(self) -> float:
        """Standard error of the log of the pilot's mean tokens per GPU-hour."""
        return self.throughput_cv / math.sqrt(self.days)

    @property
    def cache_se(self) -> float:
        """Standard error of the pilot's mean cache-hit share."""
        return self.cache_sd / math.sqrt(self.days)


@dataclass(frozen=True)
class PilotValue:
    """The pilot's worth and cost at ``demand``, USD (present value of the horizon).

    ``worth`` is EVSI with its interval; ``ceiling`` the EVPPI of the same two quantities
    known exactly (the most any pilot measuring them can be worth; its value only, no
    interval: a bound, not a finding); ``cost`` the mean cost
    of the pilot (``rent`` + ``team``); ``best`` the option best on average today.
    """

    pilot: Pilot
    demand: float
    worth: ReplicateVoi
    ceiling: ReplicateVoi
    cost: float
    rent: float
    team: float
    best: str
    options: tuple[str, ...]

    @property
    def run_it(self) -> bool:
        """Worth more than it costs, beyond its Monte Carlo interval (when it has one)."""
        low = self.worth.lower if math.isfinite(self.worth.half) else self.worth.value
        return low > self.cost


def pilot_value(ds: xr.Dataset, demand: float, pilot: Pilot | None = None, *,
                among: tuple[str, ...] | None = None, seed: int = 0,
                rows: Rows | None = None) -> PilotValue:
    """:class:`PilotValue` of ``pilot`` at ``demand`` (a grid point) on the stored samples.

    One pilot data set is simulated per stored sample (seeded by ``seed``) from the
    sample's own throughput and cache-hit share; the summary is the pair (mean log
    throughput, mean share).
    """
    from mc_tco.decision.tco_data import CHOICES
    pilot = pilot or Pilot()
    options = tuple(among or CHOICES)
    rows = rows if rows is not None else stored_rows(ds)
    x = rows.x
    npv = ds["npv"].sel(demand=demand)
    nb = np.stack([npv.sel(strategy=s).values for s in options], axis=1)
    truth = np.column_stack([np.log(rows.factors()["tokens_per_gpu_hour"]),
                             x["self_cache_hit_ratio"] * x["api_cache_hit_rate"]])
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(truth.shape) * [pilot.throughput_se, pilot.cache_se]
    summary = truth + noise
    level = ds.mc_tco.run.conf_level
    worth = evsi(summary, nb, rows.replicate, rows.replicates, level)
    ceiling = evsi(truth, nb, conf_level=level)  # a bound: its value, no interval
    hours = HOURS_PER_WEEK * pilot.weeks
    rent = float(np.mean(pilot.nodes * x["gpus_per_node"] * x["gpu_rent_per_hour"] * hours))
    team = float(np.mean(x["staff_fte"] * x["staff_cost_per_fte"] * pilot.weeks / 52.0))
    from mc_tco.decision.rule import best_by_mean

    best = options[best_by_mean(nb, options)]
    return PilotValue(pilot, float(demand), worth, ceiling, rent + team, rent, team, best,
                      options)
