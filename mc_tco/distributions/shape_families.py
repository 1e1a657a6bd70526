"""The shape families (gamma, Weibull, Gumbel, Student t, log-logistic) and the interval entry.

Each family is a frozen ``scipy.stats`` object; a book writes the fields people know:

================  =====================================================  ===========
family            fields                                                 scipy.stats
================  =====================================================  ===========
``gamma``         ``shape`` (k), ``scale`` (θ; mean k θ), ``loc`` = 0    ``gamma``
``weibull``       ``shape`` (k), ``scale`` (λ), ``loc`` = 0              ``weibull_min``
``loglogistic``   ``shape`` (β), ``scale`` (α, the median), ``loc`` = 0  ``fisk``
``gumbel``        ``loc`` (the mode), ``scale``: the largest of many     ``gumbel_r``
``gumbel_min``    ``loc`` (the mode), ``scale``: the smallest of many    ``gumbel_l``
``student_t``     ``df``, ``loc`` = 0, ``scale`` = 1                     ``t``
================  =====================================================  ===========

**The interval entry** (Guesstimate's "low to high"): ``low``, ``high`` and ``ci`` = 0.9
instead of the parameters, for every two-parameter family whose central ``ci`` interval
identifies them: ``low`` is the ``(1 - ci) / 2`` quantile and ``high`` the ``(1 + ci) / 2``
one. Location-scale families (normal, gumbel) in closed form; weibull and loglogistic
solve their shape in closed form from ``(high - loc) / (low - loc)``, gamma with
:func:`scipy.optimize.brentq` (the quantile ratio decreases in the shape). A ratio that no
shape in ``[MIN_SHAPE, MAX_SHAPE]`` gives is refused in one line.
"""

from __future__ import annotations

import math
from typing import Any

from mc_tco.distributions.family_base import MAX_SHAPE, Family, _need
from mc_tco.distributions.frozen import frozen, scipy_stats

__all__ = ["INTERVAL", "MIN_SHAPE", "SHAPE_FAMILIES", "interval_probs", "location_scale"]

#: the interval entry's fields, one of a family's alternatives
INTERVAL = ("low", "high")
#: smallest solved shape: below it the low quantile underflows (gamma(0.01)'s 5% is 1e-130)
MIN_SHAPE = 0.01


def interval_probs(p: dict[str, Any]) -> tuple[float, float]:
    """The probabilities of ``low`` and ``high``: ``(1 - ci) / 2`` and ``(1 + ci) / 2``."""
    return (1 - p["ci"]) / 2, (1 + p["ci"]) / 2


def _check_ci_interval(p: dict[str, Any], lo_bound: float | None = None, what: str = "") -> None:
    _need(0 < p["ci"] < 1, "ci", f"ci ({p['ci']:g}) must lie strictly between 0 and 1; "
          "0.9 is the usual (low and high the 5% and 95% quantiles)")
    if lo_bound is not None:
        _need(p["low"] > lo_bound, "low",
              f"low ({p['low']:g}) must be above {what} ({lo_bound:g}) for this family")
    _need(p["low"] < p["high"], "low",
          f"low ({p['low']:g}) must be below high ({p['high']:g}); swap them")


def location_scale(gen, p: dict[str, Any]) -> tuple[float, float]:
    """``(loc, scale)`` of the location-scale family ``gen`` through ``low`` and ``high``."""
    p1, p2 = interval_probs(p)
    z1, z2 = float(gen.ppf(p1)), float(gen.ppf(p2))
    _need(z2 > z1, "ci", f"ci ({p['ci']:g}) is too small: low and high would be the same "
          "quantile; 0.9 is the usual (low and high the 5% and 95% quantiles)")
    scale = (p["high"] - p["low"]) / (z2 - z1)
    return p["low"] - scale * z1, scale


def _shape_from_interval(name: str, p: dict[str, Any]) -> float:
    """The shape whose ``ci`` interval above ``loc`` has the ratio ``(high-loc)/(low-loc)``."""
    p1, p2 = interval_probs(p)
    r = math.log((p["high"] - p["loc"]) / (p["low"] - p["loc"]))
    # log odds and log(-log(1-u)) of the two probabilities: closed forms of the ratio
    if name == "weibull":
        k = math.log(math.log1p(-p2) / math.log1p(-p1)) / r
    elif name == "loglogistic":
        k = math.log((p2 / (1 - p2)) / (p1 / (1 - p1))) / r
    else:
        def f(logk: float) -> float:
            k = math.exp(logk)
            return math.log(gamma.ppf(p2, k) / gamma.ppf(p1, k)) - r
        from scipy import optimize

        gamma = scipy_stats().gamma
        lo, hi = math.log(MIN_SHAPE), math.log(MAX_SHAPE)
        if f(lo) < 0:
            k = 0.0
        elif f(hi) > 0:
            k = math.inf
        else:
            k = math.exp(optimize.brentq(f, lo, hi, xtol=1e-14, rtol=1e-15))
    why = (f"its shape would be below {MIN_SHAPE:g}; narrow the interval" if k < MIN_SHAPE
           else f"its shape would be above {MAX_SHAPE:g}; widen the interval")
    _need(MIN_SHAPE <= k <= MAX_SHAPE, "high",
          f"no {name} has low = {p['low']:g} and high = {p['high']:g} as its central "
          f"{p['ci']:g} interval above loc = {p['loc']:g} ({why}, or use a lognormal)")
    return k


def _shape_scale(name: str, gen, p: dict[str, Any]) -> tuple[float, float]:
    """``(shape, scale)`` of a book's shape family, given directly or by its interval."""
    if "shape" in p:
        return p["shape"], p["scale"]
    k = _shape_from_interval(name, p)
    p1, _ = interval_probs(p)
    return k, (p["low"] - p["loc"]) / float(gen.ppf(p1, k))


def _check_shape(name: str, p: dict[str, Any]) -> None:
    if "shape" in p:
        _need(p["shape"] > 0, "shape", f"shape ({p['shape']:g}) must be positive")
        _need(p["shape"] <= MAX_SHAPE, "shape",
              f"shape ({p['shape']:g}) above {MAX_SHAPE:g} makes the {name} a constant in "
              "disguise; use dist = \"constant\" or a smaller shape")
        _need(p["scale"] > 0, "scale", f"scale ({p['scale']:g}) must be positive")
    else:
        _check_ci_interval(p, p["loc"], "loc")
        _shape_from_interval(name, p)


def _shape_family(name: str, scipy_name: str, example: str) -> Family:
    def build(p: dict[str, Any]):
        gen = getattr(scipy_stats(), scipy_name)  # (imported when a book uses the family)
        k, scale = _shape_scale(name, gen, p)
        return gen(k, loc=p["loc"], scale=scale)

    return Family(
        name, (), optional={"loc": 0.0, "ci": 0.9},
        alternatives=(("shape", "scale"), INTERVAL),
        build=build, check=lambda p: _check_shape(name, p), example=example,
    )


def _gumbel_family(name: str, scipy_name: str, example: str) -> Family:
    def params(p: dict[str, Any]) -> tuple[float, float]:
        gen = getattr(scipy_stats(), scipy_name)
        return (p["loc"], p["scale"]) if "scale" in p else location_scale(gen, p)

    def check(p: dict[str, Any]) -> None:
        if "scale" in p:
            _need(p["scale"] > 0, "scale", f"scale ({p['scale']:g}) must be positive")
        else:
            _check_ci_interval(p)

    def build(p: dict[str, Any]):
        loc, scale = params(p)
        return getattr(scipy_stats(), scipy_name)(loc=loc, scale=scale)

    return Family(name, (), optional={"ci": 0.9}, alternatives=(("loc", "scale"), INTERVAL),
                  build=build, check=check, example=example)


def _check_student_t(p: dict[str, Any]) -> None:
    _need(p["df"] > 0, "df", f"df ({p['df']:g}) must be positive (degrees of freedom; "
          "1 is the Cauchy, 30 and more almost a normal)")
    _need(p["scale"] > 0, "scale", f"scale ({p['scale']:g}) must be positive")


SHAPE_FAMILIES: list[Family] = [
    _shape_family("gamma", "gamma",
                  "shape = 2, scale = 18  (mean 36; or low = 6.4, high = 85, ci = 0.9)"),
    _shape_family("weibull", "weibull_min",
                  "shape = 1.5, scale = 40  (or low = 5.5, high = 83, ci = 0.9)"),
    _shape_family("loglogistic", "fisk",
                  "shape = 3, scale = 36  (median 36; or low = 13.5, high = 96, ci = 0.9)"),
    _gumbel_family("gumbel", "gumbel_r",
                   "loc = 100, scale = 15  (the largest of many; or low = 83.5, high = 144.5)"),
    _gumbel_family("gumbel_min", "gumbel_l",
                   "loc = 100, scale = 15  (the smallest of many; or low = 55.5, high = 116.5)"),
    Family(
        "student_t", ("df",), optional={"loc": 0.0, "scale": 1.0},
        build=lambda p: frozen("t", p["df"], loc=p["loc"], scale=p["scale"]),
        check=_check_student_t, example="df = 4, loc = 1, scale = 0.1",
    ),
]
