"""The one decision rule of the TCO memo: the option with the largest expected NPV against
the API, the chance that it saves, spends the same and loses beside it.

Every place that names a recommendation reads it from here: the summary's recommendation
and decision request (:mod:`mc_tco.decision.one_page`), the answer, the "why" and its
counterfactuals (:mod:`mc_tco.decision.why`), the "revisit when" thresholds
(:func:`mc_tco.decision.triggers.recommendation`) and the value of a pilot
(:mod:`mc_tco.decision.evsi`, whose "decision today" is the same ``argmax``).

**The rule.** Among the options a company can choose (:data:`OPTIONS`: the API, buy, rent,
reserve, hybrid), recommend the one whose NPV against the API (``npv``: the horizon's
discounted after-tax saving, USD; the API's is 0) is largest *on average over the
scenarios*; on a tie, the first in that order (the API: switching must pay). Expected NPV
is the rule expected value of information is defined on (EVPI, EVSI: the value of
choosing after learning, less that of choosing now by this rule), so the pilot's worth and
the recommendation cannot disagree about what "choosing now" means.

It replaces two rules that contradicted each other (issue 24): "the option cheapest in most
scenarios" gave the API every scenario in which the hybrid buys no server and so *is* the
API (a tie, 58% of the default book's scenarios at 500B), and so recommended the API in a
book where the hybrid spends the same as the API in 58%, less in 33% and more in 9% of the
scenarios, with expected NPV about +$190k; and the triggers' "an alternative beats the API
in at least half of the scenarios" was a third rule. A share of scenarios that "beats" an
option counts a tie as a loss; expected NPV counts it as what it is, a saving of zero.

**Risk beside it.** A board reads the expected value with what can go wrong: P(saves)
(npv > 0), P(the same) (npv = 0: the hybrid that never buys a server) and P(loses)
(npv < 0) of each option, its P10/P50/P90, and the mean loss in the scenarios where it
loses. Each mean and share carries the run's Monte Carlo interval (the spread of the ``R``
scrambles), and :attr:`Decision.margin` says whether the recommended option's lead over
the runner-up is beyond that interval (a lead within it is a tie of the estimates, said so).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr

from mc_tco.decision.shares import Share, share_with_interval
from mc_tco.decision.tco_data import CHOICES
from mc_tco.uncertainty.intervals import mean_interval

__all__ = ["OPTIONS", "Decision", "Outcome", "best_by_mean", "decide", "expected_npv"]

#: the options a company can choose between, in the order ties go (the API first)
OPTIONS = CHOICES


def best_by_mean(npv: np.ndarray, options=OPTIONS) -> int:
    """The rule on a matrix: the column of ``npv`` (n, len(options)) with the largest mean
    (NaN rows left out of that column); the first on a tie.

    Parameters
    ----------
    npv : ndarray, (n, k)
        NPV against the API (USD) of each of ``k`` options per scenario; the API's column,
        when present, is 0.
    options : sequence of str
        The options' names, in the order ties go.

    Returns
    -------
    int
        The index of the recommended option.
    """
    npv = np.asarray(npv, dtype=float)
    if npv.ndim != 2 or npv.shape[1] != len(options):
        raise ValueError(f"npv must be (n, {len(options)}), got {npv.shape}")
    means = np.nanmean(npv, axis=0) if npv.shape[0] else np.zeros(npv.shape[1])
    means = np.where(np.isnan(means), -np.inf, means)
    return int(np.argmax(means))  # argmax returns the first of equal values


@dataclass(frozen=True)
class Outcome:
    """One option at one demand: its expected NPV against the API (USD) with its interval
    (``mean``, ``mean_lower``, ``mean_upper``), the shares of scenarios where it saves,
    spends the same and loses (:class:`~mc_tco.decision.shares.Share`), P10 / P50 / P90 of
    its NPV (``quantiles``), its mean NPV over the scenarios where it saves (``mean_gain``,
    USD, > 0; NaN when it never saves) and over those where it loses (``mean_loss``, USD,
    < 0; NaN when it never loses). ``mean = saves.p * mean_gain + loses.p * mean_loss``."""

    strategy: str
    mean: float
    mean_lower: float
    mean_upper: float
    saves: Share
    same: Share
    loses: Share
    quantiles: tuple[float, float, float]
    mean_gain: float
    mean_loss: float


@dataclass(frozen=True)
class Decision:
    """The rule at ``demand``: ``choice`` (the recommended option), ``runner_up`` (the
    option with the next largest expected NPV: the API when an alternative is recommended,
    else the best alternative), ``best_self`` (the alternative to the API with the largest
    expected NPV), ``outcomes`` (every option of :data:`OPTIONS` but the API) and
    ``lead``: the recommended option's expected NPV less the runner-up's, USD, with its
    interval (``lead_lower``, ``lead_upper``) from the scrambles' paired differences."""

    demand: float
    choice: str
    runner_up: str
    best_self: str
    outcomes: dict[str, Outcome]
    lead: float
    lead_lower: float
    lead_upper: float
    scenarios: int

    @property
    def margin(self) -> bool:
        """The lead is beyond its Monte Carlo interval (False: a tie of the estimates; an
        interval that could not be computed, with one scramble, is taken as no margin)."""
        return bool(self.lead_lower > 0)

    def expected(self, strategy: str) -> float:
        """Expected NPV against the API of ``strategy`` (USD; 0 for the API)."""
        return 0.0 if strategy == "api" else self.outcomes[strategy].mean


def _replicates(ds: xr.Dataset) -> tuple[np.ndarray | None, int | None, float]:
    run = ds.mc_tco.run
    reps = run.replicates
    if not reps or reps < 2:
        return None, None, run.conf_level
    rep = np.asarray(ds["sample"].values, dtype=np.int64) % int(reps)
    return rep, int(reps), run.conf_level


def _mean(x: np.ndarray, rep, reps, conf) -> tuple[float, float, float]:
    if rep is None:
        m = float(np.nanmean(x)) if x.size else float("nan")
        return m, float("nan"), float("nan")
    got = mean_interval(x, rep, reps, conf)
    return float(got.estimate), float(got.lower), float(got.upper)


def expected_npv(ds: xr.Dataset, demand: float, strategy: str) -> tuple[float, float, float]:
    """The expected NPV against the API of ``strategy`` at ``demand`` (a grid point), USD,
    with its Monte Carlo interval: ``(mean, lower, upper)``, as :func:`decide` has it (NaN
    bounds without scrambles)."""
    x = np.asarray(ds["npv"].sel(demand=demand, strategy=strategy).values, dtype=float)
    rep, reps, conf = _replicates(ds)
    return _mean(x, rep, reps, conf)


def decide(ds: xr.Dataset, demand: float, options=OPTIONS) -> Decision:
    """:class:`Decision` at ``demand`` (a grid point of ``ds``) among ``options`` (the API
    first), from the stored ``npv`` of every scenario (no model run).

    Parameters
    ----------
    ds : xr.Dataset
        A TCO results file (``npv`` over sample, demand, strategy).
    demand : float
        A point of its demand grid (tokens/month).
    options : sequence of str
        The options, in the order ties go; ``"api"`` (NPV 0) may be among them.

    Returns
    -------
    Decision
    """
    options = tuple(options)
    npv = ds["npv"].sel(demand=demand)
    n = int(npv.sizes["sample"])
    cols = {s: (np.zeros(n) if s == "api" else
                np.asarray(npv.sel(strategy=s).values, dtype=float)) for s in options}
    rep, reps, conf = _replicates(ds)
    outcomes = {}
    for s, x in cols.items():
        if s == "api":
            continue
        m, lo, hi = _mean(x, rep, reps, conf)
        ok = ~np.isnan(x)
        lost, won = x[ok & (x < 0)], x[ok & (x > 0)]
        q = tuple(float(v) for v in np.quantile(x[ok], [0.1, 0.5, 0.9], method="inverted_cdf")
                  ) if ok.any() else (float("nan"),) * 3
        event = xr.DataArray(np.where(ok, x, np.nan), dims="sample",
                             coords={"sample": ds["sample"].values})
        saves, same, loses = (share_with_interval((f(event)).where(event.notnull()), conf, reps)
                              for f in (lambda e: e > 0, lambda e: e == 0, lambda e: e < 0))
        outcomes[s] = Outcome(s, m, lo, hi, saves, same, loses, q,  # type: ignore[arg-type]
                              float(won.mean()) if won.size else float("nan"),
                              float(lost.mean()) if lost.size else float("nan"))
    matrix = np.column_stack([cols[s] for s in options])
    i = best_by_mean(matrix, options)
    choice = options[i]
    means = np.where(np.isnan(np.nanmean(matrix, axis=0)), -np.inf, np.nanmean(matrix, axis=0))
    rest = [j for j in np.argsort(-means, kind="stable") if j != i]
    runner = options[rest[0]] if rest else choice
    self_options = [s for s in options if s != "api"]
    best_self = options[i] if options[i] != "api" else (
        max(self_options, key=lambda s: np.nan_to_num(outcomes[s].mean, nan=-np.inf))
        if self_options else "api")
    lead, lead_lo, lead_hi = _mean(cols[choice] - cols[runner], rep, reps, conf)
    return Decision(float(demand), choice, runner, best_self, outcomes, lead, lead_lo,
                    lead_hi, n)
