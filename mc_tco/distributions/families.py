"""Distribution families of the assumption books, each turned into a frozen ``scipy.stats`` object.

A family is a name, its required and optional fields, a check of the values and a builder.
The checks return the message a user sees; :mod:`mc_tco.book` adds the file, line and input.

The families scipy.stats calls ``uniform``, ``loguniform``, ``triang``, ``beta``,
``norm``, ``lognorm``, ``expon`` and ``t`` are built as :class:`.frozen.Frozen` (their
``ppf`` and ``support`` computed here as scipy computes them, bit for bit; the rest is
scipy's object, built on first use): a run of a book of those families never imports
:mod:`scipy.stats` (0.3-0.6 s). The others (truncnormal, discrete, the shape families,
empirical) import it when a book uses them.

===============  ====================================================  =====================
family           fields                                                scipy.stats
===============  ====================================================  =====================
``constant``     ``value``                                             (not sampled)
``uniform``      ``low``, ``high``                                     ``uniform``
``loguniform``   ``low``, ``high`` (both > 0)                          ``loguniform``
``triangular``   ``min``, ``mode``, ``max``                            ``triang``
``pert``         ``min``, ``mode``, ``max``, ``shape`` = 4             ``beta`` (beta-PERT)
``normal``       ``mean``, ``sd``; or ``low``, ``high``, ``ci`` = 0.9  ``norm``
                 (a central interval)
``truncnormal``  ``mean``, ``sd``, ``low`` = -inf, ``high`` = inf      ``truncnorm``
                 (at least one of them)
``lognormal``    ``median``, ``sigma``; or ``mean``, ``sd`` (of the    ``lognorm``
                 variable itself); or ``low``, ``high``, ``ci`` = 0.9
``beta``         ``a``, ``b``, ``low`` = 0, ``high`` = 1               ``beta``
``discrete``     ``values``, ``weights``                               ``rv_discrete``
``exponential``  ``scale`` (the mean above ``loc``), ``loc`` = 0       ``expon``
``gamma``        ``shape``, ``scale``, ``loc`` = 0; or ``low``,        ``gamma``
``weibull``      ``high``, ``ci`` = 0.9 (the shape solved from         ``weibull_min``
``loglogistic``  the interval), ``loc`` = 0                            ``fisk``
``gumbel``       ``loc``, ``scale``; or ``low``, ``high``, ``ci``      ``gumbel_r`` (maxima)
``gumbel_min``   ``loc``, ``scale``; or ``low``, ``high``, ``ci``      ``gumbel_l`` (minima)
``student_t``    ``df``, ``loc`` = 0, ``scale`` = 1                    ``t``
``empirical``    ``file`` (a CSV file next to the book), ``column``    (linear quantiles)
===============  ====================================================  =====================

A one-sided truncnormal leaves ``low`` or ``high`` out (or writes ``low = -inf`` /
``high = inf``); the shape families are in :mod:`.shape_families`, the empirical in
:mod:`.empirical` (its values, read by the book, are the hidden field ``_data``).
The lognormal by ``mean`` m and ``sd`` s has
``sigma**2 = log(1 + s**2 / m**2)`` and ``median = m / sqrt(1 + s**2 / m**2)``.

The beta-PERT of cost estimation (Malcolm et al. 1959; Vose 2008, ch. 9) with
``shape`` = λ has ``alpha = 1 + λ (mode - min) / (max - min)`` and
``beta = 1 + λ (max - mode) / (max - min)`` on ``[min, max]``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mc_tco.distributions.beta_ppf import beta_ppf
from mc_tco.distributions.empirical import EMPIRICAL
from mc_tco.distributions.family_base import MAX_SHAPE, Family, FieldProblem, _need
from mc_tco.distributions.frozen import Frozen, frozen, norm_ppf, scipy_stats
from mc_tco.distributions.shape_families import (
    INTERVAL,
    SHAPE_FAMILIES,
    _check_ci_interval,
    location_scale,
)
from mc_tco.quiet import ignoring

__all__ = ["FAMILIES", "U_MIN", "Family", "build_distribution"]

#: smallest unit-cube coordinate mapped through a ``ppf`` (and ``1 - U_MIN`` the largest):
#: half the resolution of scipy's scrambled Sobol' points (multiples of 2**-30), so that a
#: design point at exactly 0 gives a finite value for an unbounded family, not ``-inf``.
U_MIN = 2.0**-31

#: unit-cube coordinates at which every distribution must give finite, ordered values
#: (and at the 1e-12 tails where the model checks a book's unbounded distributions)
PROBES = (1e-12, U_MIN, 2 * U_MIN, 1e-6, 0.5, 1 - 1e-6, 1 - 2 * U_MIN, 1 - U_MIN, 1 - 1e-12)
def _check_interval(p: dict, lo: str, hi: str) -> None:
    _need(p[lo] < p[hi], lo, f"{lo} ({p[lo]:g}) must be below {hi} ({p[hi]:g}); swap them")


def _check_uniform(p: dict) -> None:
    _check_interval(p, "low", "high")


def _check_loguniform(p: dict) -> None:
    _need(p["low"] > 0, "low", f"low ({p['low']:g}) must be positive for a loguniform")
    _check_interval(p, "low", "high")


def _check_three_point(p: dict) -> None:
    _check_interval(p, "min", "max")
    _need(
        p["min"] <= p["mode"] <= p["max"],
        "mode",
        f"mode ({p['mode']:g}) must lie in [min, max] = [{p['min']:g}, {p['max']:g}]",
    )


def _check_pert(p: dict) -> None:
    _check_three_point(p)
    _need(p["shape"] > 0, "shape", f"shape ({p['shape']:g}) must be positive; 4 is the usual")
    _need(
        p["shape"] <= MAX_SHAPE,
        "shape",
        f"shape ({p['shape']:g}) above {MAX_SHAPE:g} makes the pert a constant in disguise; "
        "4 is the usual, or use dist = \"constant\"",
    )


def _check_normal(p: dict) -> None:
    _need(p["sd"] > 0, "sd", f"sd ({p['sd']:g}) must be positive")


def _check_normal_or_interval(p: dict) -> None:
    if "sd" in p:
        _check_normal(p)
    else:
        _check_ci_interval(p)


def _check_truncnormal(p: dict) -> None:
    _check_normal(p)
    _need(math.isfinite(p["low"]) or math.isfinite(p["high"]), "low",
          "a truncnormal without low and high is a normal; give low or high (one-sided), "
          "or use dist = \"normal\"")
    _need(p["low"] != math.inf, "low", "low must not be inf; leave it out for no lower bound")
    _need(p["high"] != -math.inf, "high",
          "high must not be -inf; leave it out for no upper bound")
    _check_interval(p, "low", "high")


def _check_lognormal(p: dict) -> None:
    if "median" in p:
        _need(p["median"] > 0, "median", f"median ({p['median']:g}) must be positive")
        _need(p["sigma"] > 0, "sigma", f"sigma ({p['sigma']:g}) must be positive")
    elif "mean" in p:
        _need(p["mean"] > 0, "mean", f"mean ({p['mean']:g}) must be positive for a lognormal")
        _need(p["sd"] > 0, "sd", f"sd ({p['sd']:g}) must be positive")
    else:
        _need(p["low"] > 0, "low", f"low ({p['low']:g}) must be positive for a lognormal")
        _check_interval(p, "low", "high")
        _need(0 < p["ci"] < 1, "ci", f"ci ({p['ci']:g}) must lie strictly between 0 and 1")


def _check_beta(p: dict) -> None:
    for k in ("a", "b"):
        _need(p[k] > 0, k, f"{k} ({p[k]:g}) must be positive")
        _need(
            p[k] <= MAX_SHAPE,
            k,
            f"{k} ({p[k]:g}) above {MAX_SHAPE:g} makes the beta a constant in disguise; "
            "use dist = \"constant\" or smaller a and b",
        )
    _check_interval(p, "low", "high")


def _check_exponential(p: dict) -> None:
    _need(p["scale"] > 0, "scale",
          f"scale ({p['scale']:g}) must be positive: it is the mean above loc "
          "(e.g. months until an event)")


def _check_discrete(p: dict) -> None:
    values, weights = p["values"], p["weights"]
    _need(len(values) > 0, "values", "values must list at least one value")
    _need(
        len(values) == len(weights),
        "weights",
        f"weights has {len(weights)} entries but values has {len(values)}; "
        "give one weight per value",
    )
    _need(len(set(values)) == len(values), "values", "values must not repeat")
    _need(min(weights) >= 0, "weights", "weights must not be negative")
    try:
        total = math.fsum(weights)
    except OverflowError:
        total = math.inf
    _need(
        abs(total - 1) <= 1e-9,
        "weights",
        f"weights sum to {total:g}, not 1; divide each by {total:g}",
    )


def lognormal_mean_sd(mean: float, sd: float) -> tuple[float, float]:
    """``(median, sigma)`` of the lognormal with this ``mean`` and ``sd`` (closed form)."""
    cv2 = (sd / mean) ** 2
    return mean / math.sqrt(1 + cv2), math.sqrt(math.log1p(cv2))


def _lognormal(p: dict):
    if "median" in p:
        return frozen("lognorm", s=p["sigma"], scale=p["median"])
    if "mean" in p:
        median, sigma = lognormal_mean_sd(p["mean"], p["sd"])
        return frozen("lognorm", s=sigma, scale=median)
    z = norm_ppf(0.5 + p["ci"] / 2)
    sigma = (math.log(p["high"]) - math.log(p["low"])) / (2 * z)
    return frozen("lognorm", s=sigma, scale=math.sqrt(p["low"] * p["high"]))


def _normal(p: dict):
    if "sd" in p:
        return frozen("norm", loc=p["mean"], scale=p["sd"])
    return frozen("norm", *location_scale(Frozen("norm"), p))


def _pert(p: dict):
    width = p["max"] - p["min"]
    a = 1 + p["shape"] * (p["mode"] - p["min"]) / width
    b = 1 + p["shape"] * (p["max"] - p["mode"]) / width
    return frozen("beta", a, b, loc=p["min"], scale=width)


def _discrete(p: dict):
    order = np.argsort(p["values"])
    values = np.asarray(p["values"], dtype=float)[order]
    weights = np.asarray(p["weights"], dtype=float)[order]
    return scipy_stats().rv_discrete(values=(values, weights / weights.sum()))


FAMILIES: dict[str, Family] = {
    f.name: f
    for f in [
        Family("constant", ("value",), example="value = 8"),
        Family(
            "uniform",
            ("low", "high"),
            build=lambda p: frozen("uniform", loc=p["low"], scale=p["high"] - p["low"]),
            check=_check_uniform,
            example="low = 400000, high = 550000",
        ),
        Family(
            "loguniform",
            ("low", "high"),
            build=lambda p: frozen("loguniform", p["low"], p["high"]),
            check=_check_loguniform,
            example="low = 1, high = 100",
        ),
        Family(
            "triangular",
            ("min", "mode", "max"),
            build=lambda p: frozen(
                "triang",
                c=(p["mode"] - p["min"]) / (p["max"] - p["min"]),
                loc=p["min"],
                scale=p["max"] - p["min"],
            ),
            check=_check_three_point,
            example="min = 0.4, mode = 0.6, max = 0.8",
        ),
        Family(
            "pert",
            ("min", "mode", "max"),
            optional={"shape": 4.0},
            build=_pert,
            check=_check_pert,
            example="min = 0.4, mode = 0.6, max = 0.8",
        ),
        Family(
            "normal",
            (),
            optional={"ci": 0.9},
            alternatives=(("mean", "sd"), INTERVAL),
            build=_normal,
            check=_check_normal_or_interval,
            example="mean = 1, sd = 0.1  (or low = 0.836, high = 1.164, ci = 0.9)",
        ),
        Family(
            "truncnormal",
            ("mean", "sd"),
            optional={"low": -math.inf, "high": math.inf},
            build=lambda p: scipy_stats().truncnorm(
                (p["low"] - p["mean"]) / p["sd"],
                (p["high"] - p["mean"]) / p["sd"],
                loc=p["mean"],
                scale=p["sd"],
            ),
            check=_check_truncnormal,
            example="mean = 1, sd = 0.1, low = 0.5, high = 1.5  (or only low = 0: one-sided)",
        ),
        Family(
            "lognormal",
            (),
            optional={"ci": 0.9},
            alternatives=(("median", "sigma"), ("mean", "sd"), INTERVAL),
            build=_lognormal,
            check=_check_lognormal,
            example="median = 1, sigma = 0.25  (or mean = 1.03, sd = 0.26; or low = 0.67, "
            "high = 1.5, ci = 0.9)",
        ),
        Family(
            "beta",
            ("a", "b"),
            optional={"low": 0.0, "high": 1.0},
            build=lambda p: frozen(
                "beta", p["a"], p["b"], loc=p["low"], scale=p["high"] - p["low"]),
            check=_check_beta,
            example="a = 2, b = 5, low = 0, high = 1",
        ),
        Family(
            "discrete",
            ("values", "weights"),
            build=_discrete,
            check=_check_discrete,
            example="values = [3, 4, 5], weights = [0.25, 0.5, 0.25]",
        ),
        Family(
            "exponential",
            ("scale",),
            optional={"loc": 0.0},
            build=lambda p: frozen("expon", loc=p["loc"], scale=p["scale"]),
            check=_check_exponential,
            example="scale = 36, loc = 0  (mean 36 above loc)",
        ),
        *SHAPE_FAMILIES,
        EMPIRICAL,
    ]
}

#: fields that hold lists of numbers rather than one number
LIST_FIELDS = frozenset({"values", "weights"})
#: fields that hold a string (the empirical family's file and column)
STRING_FIELDS = frozenset({"file", "column"})
#: fields given in the input's unit (scaled when a book's unit is converted to the model's);
#: the others (shape, sigma, ci, a, b, df, weights) have no unit
SCALED_FIELDS = frozenset(
    {"value", "low", "high", "min", "mode", "max", "mean", "sd", "median", "values", "scale",
     "loc", "_data"}
)


#: arrays at least this long go through :func:`mc_tco.distributions.beta_ppf.beta_ppf` (a beta or
#: pert
#: input): ~2x faster than scipy at 64 values (scipy's ppf has ~0.1 ms of overhead per
#: call), ~3x at the engine's 256-512; its table, built once per (a, b) and process,
#: costs ~0.5 ms, so a few probes (build_distribution's) stay with scipy
FAST_PPF_MIN = 64


def _beta_args(dist) -> tuple[float, float, float, float] | None:
    """``(a, b, loc, scale)`` of a frozen scipy beta worth the fast ppf, else None.

    Not for a or b = 1 nor a = b = 1/2: boost inverts those in closed form, as fast.
    """
    if isinstance(dist, Frozen):  # (its parameters parsed: no scipy.stats)
        if dist.name != "beta" or not dist._ok:
            return None
        (a, b), loc, scale = dist._shapes, dist._loc, dist._scale
    else:
        gen = getattr(dist, "dist", None)
        if gen is None or getattr(gen, "name", None) != "beta":
            return None
        try:
            (a, b), loc, scale = gen._parse_args(*dist.args, **dist.kwds)
            a, b, loc, scale = (float(v) for v in (a, b, loc, scale))
        except (AttributeError, TypeError, ValueError):      # array-valued parameters
            return None
    if not (0 < a <= MAX_SHAPE and 0 < b <= MAX_SHAPE and scale > 0 and math.isfinite(loc)):
        return None
    if a == 1 or b == 1 or a == b == 0.5:
        return None
    return a, b, loc, scale


def ppf(dist, u) -> np.ndarray:
    """``dist.ppf(u)`` as floats, without boost's warning that its root finding gave up.

    scipy's beta ppf warns (``RuntimeWarning: Error in function boost::math::ibeta``) for
    ``u`` within 1e-8 of 1 with ``b < 1`` (e.g. beta(2, 0.5)) while returning the right
    value, the upper bound; the Sobol' design reaches such ``u``.

    A beta (or pert) and at least :data:`FAST_PPF_MIN` values: :func:`beta_ppf`, ~3x
    faster and as accurate (scipy's ppf for the values it cannot certify).
    """
    return ppf_parsed(dist, u, _beta_args(dist) if np.size(u) >= FAST_PPF_MIN else None)


def ppf_parsed(dist, u, beta_args: tuple[float, float, float, float] | None) -> np.ndarray:
    """:func:`ppf` with ``beta_args`` = ``_beta_args(dist)`` parsed beforehand (an input
    parses its distribution once, not at every call: :meth:`mc_tco.book.Input.ppf`)."""
    if beta_args is not None and np.size(u) >= FAST_PPF_MIN:
        a, b, loc, scale = beta_args
        return beta_ppf(a, b, u, loc, scale, fallback=lambda v: _quiet_ppf(dist, v))
    return _quiet_ppf(dist, u)


def beta_args(dist) -> tuple[float, float, float, float] | None:
    """``(a, b, loc, scale)`` of a beta worth the fast ppf, else None (for
    :func:`ppf_parsed`)."""
    return _beta_args(dist)


def _quiet_ppf(dist, u) -> np.ndarray:
    with ignoring("Error in function boost", RuntimeWarning):  # (thread-safe: mc_tco.quiet)
        return np.asarray(dist.ppf(u), dtype=float)


def build_distribution(family: str, params: dict[str, Any]):
    """Check ``params`` for ``family`` and return the frozen ``scipy.stats`` distribution.

    ``params`` must already hold numbers (floats, or lists of floats for ``discrete``),
    with the family's defaults filled in. Raises :class:`FieldProblem` naming the field.
    Returns None for ``constant``.
    """
    fam = FAMILIES[family]
    if fam.check is not None:
        fam.check(params)
    if fam.build is None:
        return None
    with np.errstate(all="ignore"):
        dist = fam.build(params)
        try:
            values = ppf(dist, np.array(PROBES))
        except (ArithmeticError, ValueError):  # boost's OverflowError for beta(6, 5e-324)
            values = np.array([np.nan])
    # Extreme parameters (1e300-wide ranges, a subnormal sd, ...) pass the checks above but
    # overflow inside scipy: the model would be fed inf or NaN.
    if not (np.all(np.isfinite(values)) and np.all(np.diff(values) >= 0)):
        bad = next((v for v in values if not math.isfinite(v)), values[0])
        raise FieldProblem(
            None,
            f"the {family} distribution with these fields gives non-finite or disordered "
            f"values (e.g. {bad:g}) at its tails; its numbers are too extreme for floating "
            "point, use a range of sensible size",
        )
    return dist
