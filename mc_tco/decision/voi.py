"""Value of information: what is it worth to learn an assumption before deciding?

The decision picks one option ``d`` (e.g. api, buy, rent) with net benefit ``NB_d``; with
the current uncertainty one picks the option with the highest expected net benefit. Then

* **EVPI** ``= E[max_d NB_d] - max_d E[NB_d]``, the expected gain from learning every
  input before deciding (Raiffa & Schlaifer 1961), and
* **EVPPI(x)** ``= E_x[max_d E[NB_d | x]] - max_d E[NB_d]``, the gain from learning only
  the inputs ``x`` (one input or a group).

Both are in the unit of the net benefit (USD/month for ``-cost``; USD for an NPV).

The net benefit of the TCO model is ``-cost[d]``; subtracting the API's cost from every
option (a per-sample constant) changes neither EVPI nor EVPPI, so the estimators work on the
incremental net benefit ``saving[d] = cost[api] - cost[d]`` that the results file stores
(and on ``npv`` for the net present value). The API's cost, the largest source of variance,
then drops out of every regression.

EVPPI is estimated on the stored samples alone by non-parametric regression (Strong,
Oakley & Brennan 2014): regress the incremental net benefit of each option against the best
option on ``x`` (see :mod:`mc_tco.decision.regression`: a P-spline for one input, a
penalised multivariate polynomial for a group), then average ``max(0, max_d g_d(x_i))``
over the samples. The single-input case is the regression counterpart of Strong & Oakley
(2013), whose ordered-sample estimator it replaces because a smoother wastes fewer samples
than bins. No new model runs are needed.

Monte Carlo error: EVPI's is the standard error of the mean of ``max_d NB_d - NB_{d*}``.
EVPPI's combines (in quadrature) the spread of EVPPI over draws of the fitted curves from
the regression posterior (Strong et al. 2014, sec. 3.3) and the standard error of the outer
mean over the samples. The regression estimator is biased upwards by the noise of the fit
(``E max >= max E``); the GCV smoothing keeps that bias below the reported error in the
tests (an irrelevant input gets EVPPI ~ 0 within its error).

Both errors above treat the rows as independent; the rows of a run are ``R`` interleaved,
independently scrambled Sobol' sequences, and on them these errors are 10-40 times the
real spread (``benchmarks/interval_coverage.py``). With ``replicate=`` labels (base sample ``g``
belongs to scramble ``g % R``) :func:`evpi_replicates` and :func:`evppi_replicates` give
the randomized-QMC interval instead (:mod:`mc_tco.uncertainty.scrambles`): the estimator applied to
the rows of each scramble alone, its own best option and, for EVPPI, its own regression
fit, so that the spread holds the noise of the fit and of the choice of the best option as
well as that of the outer mean; the interval is centred on the estimate from all rows,
``+- t_{R-1} sd / sqrt(R)``. A pooled fit with per-scramble outer means was the other
choice; it misses the fit's noise, which is shared by every scramble.

The regression estimator is biased upwards for weak inputs, and the replicate interval
does not see a bias: measured over 200 seeds on a linear-Gaussian case
(``benchmarks/interval_coverage.py``, ``INB = -0.3 + x1 + 0.7 x2 + 0.5 x3``, R = 8 scrambles), the
pooled EVPPI of ``x3`` (true 0.084) is high by +0.0030 at N = 2^10 and +0.0016 at 2^12,
that of ``x2`` (true 0.154) by +0.0027 and +0.0005 (s.e. <= 0.0001); on independent rows
(40 seeds) ``x3``'s bias is about +0.005 and +0.003. It shrinks more slowly than ``1/n``
for ``x3``, and at these N exceeds the scrambles' spread, so the interval of ``x3`` covers
the truth in 68% (2^10) and 16% (2^12) of the seeds instead of 95%. Three corrections were
tried and none tracks it: the split estimate ``(mean of the replicate estimates - pooled) /
(R - 1)`` (x3: +0.0001, +0.0004), the EVPPI of a permuted copy of the input (about 0: a
null input's fitted curve stays below 0) and the parametric-bootstrap bias from the
posterior draws (+0.0011, +0.0003). The bias is stated, not corrected: it is 2-4% of the
value, and 0 for an input whose EVPPI is 0.

The ``voiage`` package (PyPI 0.2.1, the only version installable here) was evaluated and not
used: its default regression is ordinary *linear* regression, which returns EVPPI = 0 for
an input that acts through ``x^2`` (true value 0.42 in our test); it reports no Monte Carlo
error, draws its subsample from numpy's global random state, is marked "Pre-Alpha", and pins
``xarray<2025`` and ``scipy<1.17``, which conflict with this project's versions.

References
----------
Raiffa, H. & Schlaifer, R. (1961). Applied Statistical Decision Theory. Harvard.
Strong, M. & Oakley, J. E. (2013). An efficient method for computing single-parameter
partial expected value of perfect information. Medical Decision Making 33(6), 755-766.
Strong, M., Oakley, J. E. & Brennan, A. (2014). Estimating multiparameter partial expected
value of perfect information from a probabilistic sensitivity analysis sample: a
nonparametric regression approach. Medical Decision Making 34(3), 311-326.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mc_tco.decision.regression import fit_smoother
from mc_tco.uncertainty.scrambles import replicate_interval

__all__ = [
    "DRAWS",
    "CurveExtremes",
    "ReplicateVoi",
    "curve_extremes",
    "evpi",
    "evpi_replicates",
    "evppi",
    "evppi_replicates",
]

#: draws of the fitted curves for the Monte Carlo error of EVPPI
DRAWS = 200


def evpi(nb: np.ndarray) -> tuple[float, float]:
    """EVPI and its standard error from net benefits ``nb`` of shape (n, D).

    Returns
    -------
    (float, float)
        ``E[max_d NB_d] - max_d E[NB_d]`` and the standard error of that mean.
    """
    nb = np.asarray(nb, dtype=float)
    n = nb.shape[0]
    best = int(np.argmax(nb.mean(axis=0)))
    loss = nb.max(axis=1) - nb[:, best]
    se = float(loss.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return float(loss.mean()), se


def evppi(
    x: np.ndarray, nb: np.ndarray, *, draws: int = DRAWS, rng=None
) -> tuple[float, float, str]:
    """EVPPI of the inputs ``x`` by non-parametric regression (Strong et al. 2014).

    Parameters
    ----------
    x : ndarray, (n,) or (n, p)
        The inputs of interest at the samples.
    nb : ndarray, (n, D)
        Net benefit of each of the ``D`` options at the same samples.
    draws : int
        Draws of the fitted curves for the Monte Carlo error (0: outer-mean error only).
    rng : int or numpy.random.Generator, optional
        Seed of the draws.

    Returns
    -------
    (float, float, str)
        EVPPI, its standard error, and the smoother used.
    """
    rng = np.random.default_rng(rng)
    nb = np.asarray(nb, dtype=float)
    n = nb.shape[0]
    means = nb.mean(axis=0)
    best = int(np.argmax(means))
    inc = np.delete(nb - nb[:, [best]], best, axis=1)  # (n, D-1), each with mean <= 0
    if inc.shape[1] == 0 or not np.any(inc > 0):
        # no sample where another option beats the best one: E[inc | x] <= 0, nothing to learn
        return 0.0, 0.0, "none (one option is best in every sample)"
    fit = fit_smoother(x, inc)
    gain = np.maximum(fit.fitted.max(axis=1), 0.0)
    value = float(gain.mean())
    var_outer = float(gain.var(ddof=1) / n)
    var_fit = 0.0
    if draws:
        values = fit.draw_gains(draws, rng)  # a block of the (draws, n, D-1) at a time
        var_fit = float(values.var(ddof=1))
    return value, float(np.sqrt(var_outer + var_fit)), fit.method


@dataclass
class ReplicateVoi:
    """A value of information with its randomized-QMC interval (unit of the net benefit).

    ``value`` is the estimate from all rows, ``half`` the half-width
    ``t_{R-1, (1+c)/2} sd / sqrt(R)`` of the ``R`` per-scramble estimates ``per_replicate``.
    The interval holds the Monte Carlo spread, not the regression bias of a weak input's
    EVPPI (see the module docstring).
    """

    value: float
    half: float
    per_replicate: np.ndarray
    conf_level: float = 0.95

    @property
    def lower(self) -> float:
        """The lower end of the interval."""
        return self.value - self.half

    @property
    def upper(self) -> float:
        """The upper end of the interval."""
        return self.value + self.half

    def to_dict(self) -> dict:
        """The value, its interval and level for ``--json``."""
        return {"value": self.value, "ci": [self.lower, self.upper], "half_width": self.half,
                "conf_level": self.conf_level,
                "per_replicate": [float(v) for v in self.per_replicate]}


def _split(replicate, replicates: int, n: int) -> list[np.ndarray]:
    replicate = np.asarray(replicate)
    if replicate.shape != (n,):
        raise ValueError(f"replicate must have one label per sample ({n}), got {replicate.shape}")
    return [np.flatnonzero(replicate == r) for r in range(replicates)]


def evpi_replicates(nb: np.ndarray, replicate, replicates: int,
                    conf_level: float = 0.95) -> ReplicateVoi:
    """EVPI with its randomized-QMC interval from ``R`` interleaved scrambles.

    Parameters
    ----------
    nb : ndarray, (n, D)
        Net benefit of each option.
    replicate : ndarray of int, (n,)
        The scramble of each row (``g % R``, :func:`mc_tco.uncertainty.scrambles.replicate_of`).
    replicates : int
        ``R`` (at least 2).
    """
    nb = np.asarray(nb, dtype=float)
    rows = _split(replicate, replicates, nb.shape[0])
    reps = np.array([evpi(nb[i])[0] for i in rows])
    value = evpi(nb)[0]
    _, half = replicate_interval(reps, 0, conf_level)
    return ReplicateVoi(value, float(half), reps, conf_level)


def evppi_replicates(x: np.ndarray, nb: np.ndarray, replicate, replicates: int,
                     conf_level: float = 0.95, *, value: float | None = None) -> ReplicateVoi:
    """EVPPI with its randomized-QMC interval: one regression fit per scramble.

    ``value`` is the estimate from all rows if already computed (:func:`evppi`). Each
    scramble's estimate comes from its own fit on its ``n / R`` rows, so the spread holds
    the fit's noise; the upward bias of a weak input's estimate is not in it.
    """
    x = np.asarray(x, dtype=float)
    nb = np.asarray(nb, dtype=float)
    rows = _split(replicate, replicates, nb.shape[0])
    if value is None:
        value = evppi(x, nb, draws=0)[0]
    reps = np.array([evppi(x[i], nb[i], draws=0)[0] for i in rows])
    _, half = replicate_interval(reps, 0, conf_level)
    return ReplicateVoi(float(value), float(half), reps, conf_level)


@dataclass(frozen=True)
class CurveExtremes:
    """Where a curve (an EVPI curve along a grid dim) is highest and lowest.

    highest, lowest : int or None
        Index of the highest and of the lowest finite point (the first one on a tie);
        None when no point is finite.
    flat : bool
        Every point equals the highest within a relative 1e-9 (NaN is never equal).
    size : int
        The number of points.
    """

    highest: int | None
    lowest: int | None
    flat: bool
    size: int


def curve_extremes(values) -> CurveExtremes:
    """The highest and lowest finite points of ``values`` (1-d), NaN left out."""
    y = np.asarray(values, dtype=float)
    finite = np.isfinite(y)
    if not finite.any():
        return CurveExtremes(None, None, False, int(y.size))
    hi = int(np.argmax(np.nan_to_num(y, nan=-np.inf)))
    lo = int(np.argmin(np.nan_to_num(y, nan=np.inf)))
    return CurveExtremes(hi, lo, bool(np.allclose(y, y[hi], rtol=1e-9, atol=0)), int(y.size))
