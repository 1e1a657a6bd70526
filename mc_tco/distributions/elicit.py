"""The distribution that matches an expert's quantiles (``mc-tco fit --quantiles``).

An expert gives a few quantiles, e.g. ``0.05=10, 0.5=20, 0.95=50``. For each family (PERT
with the usual shape 4, lognormal, gamma, beta on ``[0, 1]``) the parameters minimise the
sum of squares of the quantile errors, each divided by the spread of the given values
(:func:`scipy.optimize.least_squares`, trust region, from a closed-form start):

    min over theta of  sum_i ((Q_theta(p_i) - q_i) / (q_max - q_min))**2.

With as many quantiles as parameters a family that can match them does, to round-off; with
more, the least-squares compromise. The error reported is the largest ``|Q(p_i) - q_i|``,
also as a share of the spread. The parameters are searched in unconstrained coordinates
that keep them valid (logarithms of positive ones; for the PERT the gaps below the first
and above the last quantile and the mode's place between min and max).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import optimize, special, stats

from mc_tco.distributions.families import build_distribution
from mc_tco.distributions.family_base import MAX_SHAPE, FieldProblem
from mc_tco.distributions.shape_families import MIN_SHAPE

__all__ = ["ELICITED", "Match", "match_curves", "match_quantiles", "parse_quantiles"]

#: the families matched to quantiles, in the order of the table when tied
ELICITED = ("pert", "lognormal", "gamma", "beta")
#: parameters of each (what least squares solves for)
_K = {"pert": 3, "lognormal": 2, "gamma": 2, "beta": 2}


@dataclass(frozen=True)
class Match:
    """One family matched to the quantiles: its book fields and its errors."""

    family: str
    params: dict[str, float]
    dist: Any
    #: the family's quantiles at the given probabilities
    fitted: np.ndarray
    #: the largest |fitted - given|, in the values' unit
    max_error: float
    #: max_error over the spread of the given values (max - min)
    rel_error: float


def parse_quantiles(text: str, flag: str = "--quantiles") -> tuple[np.ndarray, np.ndarray]:
    """``"0.05=10,0.5=20,0.95=50"`` -> probabilities and values, by probability.

    Raises
    ------
    FieldProblem
        A pair that is not ``P=VALUE``, a probability outside ``(0, 1)`` or repeated, fewer
        than two pairs, or values that do not increase with the probability.
    """
    pairs = []
    for item in text.split(","):
        p_text, sep, v_text = item.partition("=")
        if not sep:
            raise FieldProblem(flag, f"{flag} {text}: '{item.strip()}' is not P=VALUE; write "
                               "e.g. 0.05=10,0.5=20,0.95=50")
        try:
            p_raw = p_text.strip()
            p = float(p_raw[:-1]) / 100 if p_raw.endswith("%") else float(p_raw)
            v = float(v_text)
        except ValueError:
            raise FieldProblem(flag, f"{flag} {text}: '{item.strip()}' is not two numbers "
                               "P=VALUE; write e.g. 0.05=10 (or 5%=10)") from None
        if not 0 < p < 1:
            raise FieldProblem(flag, f"{flag}: the probability {p:g} must lie strictly "
                               "between 0 and 1 (e.g. 0.05 for the 5% quantile)")
        if not math.isfinite(v):
            raise FieldProblem(flag, f"{flag}: the value {v_text.strip()} must be finite")
        pairs.append((p, v))
    pairs.sort()
    probs = np.array([p for p, _ in pairs])
    values = np.array([v for _, v in pairs])
    if probs.size < 2:
        raise FieldProblem(flag, f"{flag} {text}: give at least two quantiles, e.g. "
                           "0.05=10,0.5=20,0.95=50")
    if np.any(np.diff(probs) == 0):
        raise FieldProblem(flag, f"{flag} {text}: a probability is given twice")
    if np.any(np.diff(values) <= 0):
        raise FieldProblem(flag, f"{flag} {text}: the values must increase with the "
                           "probability (a larger quantile is a larger value)")
    return probs, values


def _lognormal_start(p: np.ndarray, q: np.ndarray) -> tuple[float, float]:
    """``(log median, sigma)`` through the first and last quantile (closed form)."""
    z = stats.norm.ppf(p)
    sigma = (math.log(q[-1]) - math.log(q[0])) / (z[-1] - z[0])
    return math.log(q[0]) - sigma * z[0], sigma


def _family(name: str, p: np.ndarray, q: np.ndarray):
    """``(start, bounds, theta -> book fields)`` of one family's least squares."""
    spread = float(q[-1] - q[0])
    if name == "lognormal":
        mu, sigma = _lognormal_start(p, q)
        return ([mu, math.log(sigma)], None,
                lambda t: {"median": math.exp(t[0]), "sigma": math.exp(t[1])})
    if name == "gamma":
        mu, sigma = _lognormal_start(p, q)
        shape = min(max(1 / math.expm1(sigma**2), 2 * MIN_SHAPE), MAX_SHAPE / 2)
        scale = math.exp(mu + sigma**2 / 2) / shape
        bounds = ([math.log(MIN_SHAPE), -np.inf], [math.log(MAX_SHAPE), np.inf])
        return ([math.log(shape), math.log(scale)], bounds,
                lambda t: {"shape": math.exp(t[0]), "scale": math.exp(t[1]),
                           "loc": 0.0})
    if name == "beta":
        m = float(np.interp(0.5, p, q))
        sd = spread / (stats.norm.ppf(p[-1]) - stats.norm.ppf(p[0]))
        nu = max(m * (1 - m) / sd**2 - 1, 0.5)
        bounds = ([-np.inf, -np.inf], [math.log(MAX_SHAPE), math.log(MAX_SHAPE)])
        return ([math.log(m * nu), math.log((1 - m) * nu)], bounds,
                lambda t: {"a": math.exp(t[0]), "b": math.exp(t[1]), "low": 0.0,
                           "high": 1.0})
    # pert: min below the first quantile, max above the last, the mode between them
    mode = float(np.interp(0.5, p, q))

    def pert(t):
        lo = float(q[0] - spread * math.exp(t[0]))
        hi = float(q[-1] + spread * math.exp(t[1]))
        return {"min": lo, "mode": lo + (hi - lo) * float(special.expit(t[2])), "max": hi,
                "shape": 4.0}
    return ([math.log(0.2), math.log(0.2), float(special.logit(
        (mode - q[0] + 0.2 * spread) / (1.4 * spread)))], None, pert)


def _needs(name: str, q: np.ndarray) -> str | None:
    if name in ("lognormal", "gamma") and q[0] <= 0:
        return "needs every value above 0"
    if name == "beta" and not (q[0] > 0 and q[-1] < 1):
        return "on [0, 1] needs every value strictly between 0 and 1"
    if q.size < _K[name]:
        return f"has {_K[name]} parameters; give at least {_K[name]} quantiles"
    return None


def _match(name: str, p: np.ndarray, q: np.ndarray) -> Match:
    start, bounds, fields = _family(name, p, q)
    spread = q[-1] - q[0]

    def residuals(t):
        try:
            dist = build_distribution(name, fields(t))
        except (FieldProblem, OverflowError, ValueError):
            return np.full(q.size, 1e3)
        with np.errstate(all="ignore"):
            r = (np.asarray(dist.ppf(p), dtype=float) - q) / spread
        return np.where(np.isfinite(r), r, 1e3)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kw = {"bounds": bounds} if bounds is not None else {}
        sol = optimize.least_squares(residuals, start, xtol=1e-14, ftol=1e-14, gtol=1e-14,
                                     max_nfev=2000, **kw)
    params = fields(sol.x)
    dist = build_distribution(name, params)
    fitted = np.asarray(dist.ppf(p), dtype=float)
    err = float(np.max(np.abs(fitted - q)))
    shown = {k: v for k, v in params.items()
             if not (k == "shape" and name == "pert") and not (k == "loc" and v == 0)
             and not (name == "beta" and k in ("low", "high"))}
    return Match(name, shown, dist, fitted, err, err / spread)


def match_quantiles(probs, values, families: Sequence[str] = ELICITED
                    ) -> tuple[list[Match], dict[str, str]]:
    """Each family's least-squares match to the quantiles, smallest error first.

    Parameters
    ----------
    probs, values : array_like
        The probabilities (in ``(0, 1)``, increasing) and the expert's values there.
    families : sequence of str
        Some of :data:`ELICITED`.

    Returns
    -------
    (list of Match, dict)
        The matches by ``rel_error``, and why each family not matched was skipped.
    """
    p = np.asarray(probs, dtype=float)
    q = np.asarray(values, dtype=float)
    unknown = [f for f in families if f not in ELICITED]
    if unknown:
        raise FieldProblem("families", f"cannot match '{unknown[0]}' to quantiles; the "
                           f"families matched: {', '.join(ELICITED)}")
    out, skipped = [], {}
    for name in families:
        why = _needs(name, q)
        if why is None:
            try:
                out.append(_match(name, p, q))
                continue
            except (FieldProblem, ValueError, ArithmeticError) as exc:
                why = f"not matched ({exc})"
        skipped[name] = why
    out.sort(key=lambda m: m.rel_error)
    return out, skipped



def match_curves(matches: Sequence[Match], points: int = 400) -> dict[str, Any]:
    """What the matches' figure draws: each match's cdf over its 0.5%-99.5% range.

    Returns
    -------
    dict
        ``x`` (a grid covering every match's 0.5% to 99.5% quantiles) and ``curves``:
        ``[(family, cdf on x), ...]`` in the order of ``matches``.
    """
    lo = min(float(m.dist.ppf(0.005)) for m in matches)
    hi = max(float(m.dist.ppf(0.995)) for m in matches)
    x = np.linspace(lo, hi, points)
    return {"x": x, "curves": [(m.family, np.asarray(m.dist.cdf(x), dtype=float))
                               for m in matches]}
