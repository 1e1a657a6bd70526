"""Fit the book's families to data by maximum likelihood, and rank them (``mc-tco fit``).

Each candidate family is fitted with its ``scipy.stats`` ``fit`` (maximum likelihood; the
positive families with ``loc = 0``, as a book writes them, the beta on ``[0, 1]``, the
uniform and loguniform in closed form: the smallest and largest value) and rebuilt as the
book builds it (:func:`mc_tco.distributions.families.build_distribution`), so that the
numbers printed are those of the block to paste. For ``k`` fitted parameters, ``n``
values and the maximised log-likelihood ``log L``:

    AIC = 2 k - 2 log L,    BIC = k log(n) - 2 log L;

the smaller, the better (Burnham and Anderson 2002: a difference above 10 is decisive).
The Kolmogorov-Smirnov distance ``D`` (:func:`scipy.stats.kstest`) and its p-value
measure the fit another way; the p-value is optimistic, since the parameters were fitted
to the same values (Lilliefors 1967), so it can refute a family, never confirm one.

scipy rather than a fitting library (fitter, distfit): scipy.stats is already the book's
distribution code, its ``fit`` is the maximum-likelihood estimator those libraries call,
and fitting the book's own parametrisation keeps the printed block exact.

References
----------
Burnham, K. P., Anderson, D. R. (2002). Model Selection and Multimodel Inference, 2nd ed.
Springer (section 2.6: AIC differences).

Lilliefors, H. W. (1967). On the Kolmogorov-Smirnov test for normality with mean and
variance unknown. Journal of the American Statistical Association 62, 399-402.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from mc_tco.distributions.families import build_distribution
from mc_tco.distributions.family_base import FieldProblem

__all__ = ["CANDIDATES", "MIN_FIT_VALUES", "DataFit", "Fit", "fit_curves", "fit_data",
           "toml_block"]

#: fewest values ``mc-tco fit`` fits families to
MIN_FIT_VALUES = 10


@dataclass(frozen=True)
class _Candidate:
    """How one book family is fitted: its support's condition and its MLE."""

    needs: str  # "", "positive", "nonnegative" or "unit" (strictly inside (0, 1))
    k: int
    fit: Callable[[np.ndarray], dict[str, float]]


def _positive(gen) -> Callable[[np.ndarray], dict[str, float]]:
    def fit(x: np.ndarray) -> dict[str, float]:
        shape, _, scale = gen.fit(x, floc=0)
        return {"shape": shape, "scale": scale}
    return fit


def _normal(x):
    loc, scale = stats.norm.fit(x)
    return {"mean": loc, "sd": scale}


def _lognormal(x):
    s, _, scale = stats.lognorm.fit(x, floc=0)
    return {"median": scale, "sigma": s}


def _exponential(x):
    _, scale = stats.expon.fit(x, floc=0)
    return {"scale": scale}


def _loc_scale(gen):
    return lambda x: dict(zip(("loc", "scale"), gen.fit(x), strict=True))


def _student_t(x):
    df, loc, scale = stats.t.fit(x)
    return {"df": df, "loc": loc, "scale": scale}


def _triangular(x):
    c, loc, scale = stats.triang.fit(x)
    return {"min": loc, "mode": loc + c * scale, "max": loc + scale}


def _beta(x):
    a, b, _, _ = stats.beta.fit(x, floc=0, fscale=1)
    return {"a": a, "b": b}


def _range(x):
    return {"low": float(x.min()), "high": float(x.max())}


#: the book's families ``mc-tco fit`` tries, in the order of the table when tied
CANDIDATES: dict[str, _Candidate] = {
    "normal": _Candidate("", 2, _normal),
    "lognormal": _Candidate("positive", 2, _lognormal),
    "gamma": _Candidate("positive", 2, _positive(stats.gamma)),
    "weibull": _Candidate("positive", 2, _positive(stats.weibull_min)),
    "loglogistic": _Candidate("positive", 2, _positive(stats.fisk)),
    "exponential": _Candidate("nonnegative", 1, _exponential),
    "gumbel": _Candidate("", 2, _loc_scale(stats.gumbel_r)),
    "gumbel_min": _Candidate("", 2, _loc_scale(stats.gumbel_l)),
    "student_t": _Candidate("", 3, _student_t),
    "uniform": _Candidate("", 2, _range),
    "loguniform": _Candidate("positive", 2, _range),
    "triangular": _Candidate("", 3, _triangular),
    "beta": _Candidate("unit", 2, _beta),
}

_NEEDS = {
    "positive": (lambda x: bool(np.all(x > 0)), "needs every value above 0"),
    "nonnegative": (lambda x: bool(np.all(x >= 0)), "needs every value at least 0"),
    "unit": (lambda x: bool(np.all((x > 0) & (x < 1))),
             "needs every value strictly between 0 and 1"),
}


@dataclass(frozen=True)
class Fit:
    """One family fitted to the values: its book fields and how well it fits."""

    family: str
    params: dict[str, float]
    dist: Any
    k: int
    loglik: float
    aic: float
    bic: float
    ks_d: float
    ks_p: float


@dataclass(frozen=True)
class DataFit:
    """The families fitted to one column, best (smallest AIC) first.

    ``skipped`` says, for each candidate not in ``fits``, why (its support, or a fit that
    failed). ``delta_aic`` and ``delta_bic`` are each fit's distance to the best.
    """

    values: np.ndarray
    fits: list[Fit]
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def n(self) -> int:
        """The number of values."""
        return int(self.values.size)

    @property
    def best(self) -> Fit:
        """The family with the smallest AIC."""
        return self.fits[0]

    @property
    def delta_aic(self) -> list[float]:
        """AIC minus the smallest AIC, for each fit in order."""
        return [f.aic - self.fits[0].aic for f in self.fits]

    @property
    def delta_bic(self) -> list[float]:
        """BIC minus the smallest BIC, for each fit in order."""
        low = min(f.bic for f in self.fits)
        return [f.bic - low for f in self.fits]

    @property
    def bic_rank(self) -> list[int]:
        """Each fit's place (1 = best) when ranked by BIC instead."""
        order = sorted(range(len(self.fits)), key=lambda i: self.fits[i].bic)
        rank = [0] * len(self.fits)
        for place, i in enumerate(order, start=1):
            rank[i] = place
        return rank

    @property
    def summary(self) -> dict[str, float]:
        """The values' count, smallest, median and largest."""
        v = self.values
        return {"n": float(v.size), "min": float(v[0]), "median": float(np.median(v)),
                "max": float(v[-1])}


def _fit_one(name: str, x: np.ndarray) -> Fit:
    cand = CANDIDATES[name]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        params = {k: float(v) for k, v in cand.fit(x).items()}
        if not all(math.isfinite(v) for v in params.values()):
            raise FieldProblem(None, "the fit did not converge")
        full = dict(params)
        if name in ("gamma", "weibull", "loglogistic", "exponential"):
            full["loc"] = 0.0
        if name == "beta":
            full.update(low=0.0, high=1.0)
        dist = build_distribution(name, full)
        lo, hi = dist.support()
        loglik = float(np.sum(dist.logpdf(np.clip(x, lo, hi))))
        ks = stats.kstest(x, dist.cdf)
    if not math.isfinite(loglik):
        raise FieldProblem(None, "a value has zero density under the fitted parameters")
    n = x.size
    return Fit(name, params, dist, cand.k, loglik, 2 * cand.k - 2 * loglik,
               cand.k * math.log(n) - 2 * loglik, float(ks.statistic), float(ks.pvalue))


def fit_data(values, families: Sequence[str] | None = None) -> DataFit:
    """Fit each candidate family to ``values`` by maximum likelihood; rank them by AIC.

    Parameters
    ----------
    values : array_like
        At least :data:`MIN_FIT_VALUES` finite numbers.
    families : sequence of str, optional
        The book's families to try (default every one in :data:`CANDIDATES`).

    Returns
    -------
    DataFit
        The fits, smallest AIC first, and why the others were skipped.

    Raises
    ------
    FieldProblem
        Too few values, an unknown family, or no family that fits.
    """
    x = np.sort(np.asarray(values, dtype=float))
    if x.size < MIN_FIT_VALUES:
        raise FieldProblem("column", f"{x.size} values are too few to fit a family to; "
                           f"give at least {MIN_FIT_VALUES}")
    if x[0] == x[-1]:
        raise FieldProblem("column", f"every value is {x[0]:g}: a constant, no family to fit; "
                           f"write dist = \"constant\", value = {x[0]:g}")
    names = list(CANDIDATES) if families is None else list(families)
    unknown = [f for f in names if f not in CANDIDATES]
    if unknown:
        raise FieldProblem("families", f"cannot fit '{unknown[0]}' to data; the families "
                           f"fitted: {', '.join(CANDIDATES)}")
    fits, skipped = [], {}
    for name in names:
        need = CANDIDATES[name].needs
        if need and not _NEEDS[need][0](x):
            skipped[name] = _NEEDS[need][1]
            continue
        try:
            fits.append(_fit_one(name, x))
        except (FieldProblem, ValueError, ArithmeticError, RuntimeError) as exc:
            skipped[name] = f"not fitted ({exc})"
    if not fits:
        raise FieldProblem("families", "no family could be fitted: " + "; ".join(
            f"{k} {v}" for k, v in skipped.items()))
    fits.sort(key=lambda f: f.aic)
    return DataFit(x, fits, skipped)


def fit_curves(result: DataFit, top: int = 3, points: int = 400) -> dict[str, Any]:
    """What the fit's figure draws: the histogram, the ECDF and the ``top`` fits' curves.

    Returns
    -------
    dict
        ``edges`` and ``density`` (the histogram, numpy's ``"auto"`` bins, as a density),
        ``ecdf_x`` and ``ecdf_y`` (the sorted values and ``i / n``), ``x`` (a grid over the
        values' range), and ``curves``: ``[(family, pdf on x, cdf on x), ...]``, best
        first.
    """
    x = result.values
    density, edges = np.histogram(x, bins="auto", density=True)
    pad = 0.05 * (x[-1] - x[0]) or 1.0
    grid = np.linspace(x[0] - pad, x[-1] + pad, points)
    curves = []
    with np.errstate(all="ignore"):
        for f in result.fits[:top]:
            curves.append((f.family, np.nan_to_num(f.dist.pdf(grid), posinf=0.0),
                           f.dist.cdf(grid)))
    return {"edges": edges, "density": density, "ecdf_x": x,
            "ecdf_y": np.arange(1, x.size + 1) / x.size, "x": grid, "curves": curves}


def _toml_value(v) -> str:
    if isinstance(v, str):  # JSON's escapes are TOML's, but for DEL
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    return f"{float(v):.6g}"


def toml_block(name: str, family: str, params: dict[str, Any], source: str) -> str:
    """An ``[inputs.<name>]`` table in the book's syntax: ``dist``, the fields, ``source``.

    Numbers carry six significant digits; strings are TOML basic strings.
    """
    lines = [f"[inputs.{name}]", f"dist = {_toml_value(family)}"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in params.items()]
    lines.append(f"source = {_toml_value(source)}")
    return "\n".join(lines) + "\n"
