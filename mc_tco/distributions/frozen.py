"""Frozen distributions of the books' common families, whose ``ppf`` and ``support`` need
no :mod:`scipy.stats` (:class:`Frozen`); anything else builds scipy's own object.

Importing :mod:`scipy.stats` costs 0.3-0.6 s of one core on the 2-core machine, before a
run's first model row (issue 26: the default run under 8 s). A run of a book whose inputs
are uniform, loguniform, triangular, pert, beta, normal, lognormal, exponential or
student_t only asks its distributions for ``ppf`` and ``support``, so those are computed
here, with scipy's own formulas (``rv_continuous.ppf``: the family's ``_ppf`` of ``q``,
times ``scale`` plus ``loc``) and the same :mod:`scipy.special` functions, so the numbers
are scipy's bit for bit (``tests/distributions/test_frozen.py`` compares them). Every other
attribute (``pdf``, ``cdf``, ``mean``, ``median``, ``rvs``, ``dist``...) and every ``q``
outside the open interval (0, 1) goes to the real ``scipy.stats`` frozen distribution,
built (and :mod:`scipy.stats` imported) on first use.

Where the bits could depend on the path: numpy's ``exp`` and ``log`` have SIMD loops for
contiguous arrays and scalar ones otherwise, and scipy evaluates ``_ppf`` on its
arguments broadcast to ``q``'s size and flattened (``argsreduce``: fresh contiguous
arrays). So does :meth:`Frozen.ppf`: each parameter that meets numpy's ``exp``/``log`` is
a full array, as in scipy. Multiplication, addition, ``sqrt`` and scipy.special's
functions are the same number whichever loop computes them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special
from scipy.special import _ufuncs

#: scipy's private ufuncs behind ``beta.ppf`` and ``binom.ppf`` (scipy.special's, loaded
#: with it); a scipy without them leaves those two to scipy.stats (slower, the same numbers)
_BETA_PPF: Any = getattr(_ufuncs, "_beta_ppf", None)
_BINOM_PPF: Any = getattr(_ufuncs, "_binom_ppf", None)

__all__ = ["FAST", "Frozen", "binom_ppf", "frozen", "norm_ppf", "scipy_stats", "t_ppf"]


def scipy_stats():
    """The :mod:`scipy.stats` module, imported on first use (the books' rarer families,
    fitting, and anything a :class:`Frozen` does not compute itself)."""
    import scipy.stats

    return scipy.stats


def _q(q: np.ndarray, _p: tuple) -> np.ndarray:
    return q


def _full(v: float, n: int) -> np.ndarray:
    return np.full(n, v, dtype=float)


#: the families computed here: ``name -> (shape parameter names, _ppf(q, shapes, n),
#: support of the standard form (lower, upper) as a function of the shapes)``
FAST: dict[str, tuple[tuple[str, ...], Any, Any]] = {
    "uniform": ((), _q, lambda p: (0.0, 1.0)),
    "norm": ((), lambda q, p: special.ndtri(q), lambda p: (-math.inf, math.inf)),
    "expon": ((), lambda q, p: -special.log1p(-q), lambda p: (0.0, math.inf)),
    "lognorm": (("s",), lambda q, p: np.exp(_full(p[0], q.size) * special.ndtri(q)),
                lambda p: (0.0, math.inf)),
    "triang": (("c",), lambda q, p: np.where(
        q < p[0], np.sqrt(p[0] * q), 1 - np.sqrt((1 - p[0]) * (1 - q))),
        lambda p: (0.0, 1.0)),
    "loguniform": (("a", "b"), lambda q, p: _loguniform_ppf(q, *p), lambda p: (p[0], p[1])),
    "beta": (("a", "b"), lambda q, p: _BETA_PPF(q, p[0], p[1]), lambda p: (0.0, 1.0)),
    "t": (("df",), lambda q, p: special.stdtrit(p[0], q), lambda p: (-math.inf, math.inf)),
}
if _BETA_PPF is None:  # pragma: no cover - scipy 1.17 has it
    del FAST["beta"]


def _loguniform_ppf(q: np.ndarray, a: float, b: float) -> np.ndarray:
    la, lb = np.log(_full(a, q.size)), np.log(_full(b, q.size))
    return np.exp(la + q * (lb - la))


def _valid(name: str, shapes: tuple[float, ...], loc: float, scale: float) -> bool:
    """scipy's ``_argcheck(*shapes) & (scale > 0) & (loc == loc)`` for these families."""
    if not (scale > 0 and loc == loc):
        return False
    if name == "triang":
        return 0 <= shapes[0] <= 1
    if name == "loguniform":
        return 0 < shapes[0] < shapes[1]
    return all(s > 0 for s in shapes)


class Frozen:
    """``scipy.stats.<name>(*shapes, loc=loc, scale=scale)``, with ``ppf`` and ``support``
    computed without :mod:`scipy.stats` (module docstring) for the families of
    :data:`FAST`; every other attribute is the real frozen distribution's.

    ``args`` and ``kwds`` are scipy's frozen object's (the shapes; ``loc`` and ``scale``).
    """

    __slots__ = ("_loc", "_ok", "_real", "_scale", "_shapes", "args", "kwds", "name")

    def __init__(self, name: str, *args: float, **kwds: float):
        self.name = name
        self.args = args
        self.kwds = kwds
        names = FAST[name][0] if name in FAST else ("?",)  # (not computed here: scipy's)
        # scipy's _parse_args: the shapes, then loc and scale, by position or by name
        given = dict(zip((*names, "loc", "scale"), args, strict=False))
        twice = set(given) & set(kwds)
        given.update(kwds)
        try:
            self._shapes = tuple(float(given[k]) for k in names)
            self._loc = float(given.get("loc", 0.0))
            self._scale = float(given.get("scale", 1.0))
            self._ok = (name in FAST and not twice and len(args) <= len(names) + 2
                        and set(given) <= {*names, "loc", "scale"}
                        and _valid(name, self._shapes, self._loc, self._scale))
        except (KeyError, TypeError, ValueError):  # missing or array-valued: scipy decides
            self._shapes, self._loc, self._scale, self._ok = (), 0.0, 1.0, False
        self._real = None

    @property
    def real(self):
        """The ``scipy.stats`` frozen distribution (imports :mod:`scipy.stats`)."""
        if self._real is None:
            self._real = getattr(scipy_stats(), self.name)(*self.args, **self.kwds)
        return self._real

    def __getattr__(self, attr: str):
        if attr.startswith("_"):  # (the slots, pickling's and copying's probes)
            raise AttributeError(attr)
        return getattr(self.real, attr)

    def __reduce__(self):
        return (_rebuild, (self.name, self.args, self.kwds))

    def __repr__(self) -> str:
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwds.items()]
        return f"Frozen({self.name}({', '.join(parts)}))"

    def ppf(self, q):
        """scipy's ``ppf(q)``, the same numbers (the real object's for any ``q`` outside
        (0, 1), NaN, or not float64)."""
        qa = np.asarray(q)
        if not (self._ok and qa.dtype == np.float64 and qa.size
                and bool(np.all((qa > 0) & (qa < 1)))):
            return self.real.ppf(q)
        flat = np.atleast_1d(qa).ravel()  # (a copy where qa is not contiguous: as argsreduce)
        out = FAST[self.name][1](flat, self._shapes) * self._scale + self._loc
        out = out.reshape(qa.shape)
        return out[()] if out.ndim == 0 else out

    def support(self) -> tuple[np.float64, np.float64]:
        """scipy's ``support()``: ``(a scale + loc, b scale + loc)`` as numpy floats."""
        if not self._ok:
            return self.real.support()
        a, b = FAST[self.name][2](self._shapes)
        return np.float64(a * self._scale + self._loc), np.float64(b * self._scale + self._loc)


def _rebuild(name: str, args: tuple, kwds: dict) -> Frozen:
    return Frozen(name, *args, **kwds)


def frozen(name: str, *args: float, **kwds: float):
    """``scipy.stats.<name>(*args, **kwds)``: a :class:`Frozen` for the families of
    :data:`FAST`, else scipy's own object (importing :mod:`scipy.stats`)."""
    if name in FAST:
        return Frozen(name, *args, **kwds)
    return getattr(scipy_stats(), name)(*args, **kwds)


def norm_ppf(q):
    """``scipy.stats.norm.ppf(q)``, the same numbers (:class:`Frozen`)."""
    return _NORM.ppf(q)


def t_ppf(q: float, df):
    """``scipy.stats.t.ppf(q, df)`` for one probability ``q`` and degrees of freedom
    ``df`` (a number or an array): ``stdtrit(df, q)`` where every ``df`` is positive and
    ``0 < q < 1`` (scipy's numbers), else scipy's own."""
    d = np.asarray(df)
    if not (0 < q < 1 and d.size and d.dtype.kind in "iuf" and bool(np.all(d > 0))):
        return scipy_stats().t.ppf(q, df)
    out = special.stdtrit(np.atleast_1d(d).astype(float).ravel(), q) * 1.0 + 0.0
    out = out.reshape(d.shape)
    return out[()] if out.ndim == 0 else out


def binom_ppf(q, n, p: float):
    """``scipy.stats.binom.ppf(q, n, p)`` for probabilities ``q`` in (0, 1), counts ``n``
    (whole numbers >= 0) and one ``p`` in [0, 1]: scipy's ``_binom_ppf`` (the same
    numbers), else scipy's own."""
    qa, na = np.asarray(q), np.asarray(n)
    if not (_BINOM_PPF is not None and qa.dtype == np.float64 and na.dtype.kind in "iu"
            and 0 <= p <= 1
            and qa.size and na.size and bool(np.all((qa > 0) & (qa < 1)))
            and bool(np.all(na >= 0))):
        return scipy_stats().binom.ppf(q, n, p)
    qb, nb = np.broadcast_arrays(qa, na)
    out = _BINOM_PPF(qb.ravel(), nb.ravel(), np.full(qb.size, float(p))) + 0
    out = out.astype(float).reshape(qb.shape)
    return out[()] if out.ndim == 0 else out


_NORM = Frozen("norm")
