"""The empirical family's distribution (:mod:`.empirical`): a ``scipy.stats`` continuous
distribution whose quantile function interpolates the sorted values linearly. In a module
of its own, imported when a book has an empirical input: subclassing scipy's generator
imports :mod:`scipy.stats`, which a run of the other families does without
(:mod:`.frozen`)."""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["EmpiricalGen"]


class EmpiricalGen(stats.rv_continuous):
    """The distribution whose quantile function interpolates sorted values linearly.

    ``ppf`` is numpy's ``"linear"`` quantile of the values (module docstring); ``cdf``
    its inverse; ``pdf`` ``1 / ((n - 1) (x_{i+1} - x_i))`` on each gap (tied values are
    atoms, where the density is not defined).
    """

    def __init__(self, values, *args, **kwargs):
        # a book's Sample (mc_tco.distributions.empirical: its sorted .values), or numbers
        xs = np.sort(np.asarray(getattr(values, "values", values), dtype=float))
        self._values = values
        self._xs = xs
        kwargs["a"] = float(xs[0])
        kwargs["b"] = float(xs[-1])
        kwargs.setdefault("name", "empirical")
        super().__init__(*args, **kwargs)

    def _ppf(self, u):
        xs = self._xs
        n = xs.size
        h = (n - 1) * np.asarray(u, dtype=float)
        i = np.clip(np.floor(h), 0, n - 2).astype(np.intp)
        t = h - i
        a, b = xs[i], xs[i + 1]
        diff = b - a
        # numpy's _lerp: from the nearer end, so that Q is monotone and exact at the ends
        return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)

    def _cdf(self, x):
        xs = self._xs
        n = xs.size
        x = np.asarray(x, dtype=float)
        i = np.clip(np.searchsorted(xs, x, side="right") - 1, 0, n - 2)
        a, b = xs[i], xs[i + 1]
        gap = b - a
        frac = np.where(gap > 0, (x - a) / np.where(gap > 0, gap, 1.0), 1.0)
        return np.where(x >= xs[-1], 1.0, np.clip((i + np.clip(frac, 0, 1)) / (n - 1), 0, 1))

    def _pdf(self, x):
        xs = self._xs
        n = xs.size
        x = np.asarray(x, dtype=float)
        i = np.clip(np.searchsorted(xs, x, side="right") - 1, 0, n - 2)
        gap = xs[i + 1] - xs[i]
        inside = (x >= xs[0]) & (x <= xs[-1]) & (gap > 0)
        return np.where(inside, 1.0 / ((n - 1) * np.where(gap > 0, gap, 1.0)), 0.0)

    def _munp(self, k):
        a, b = self._xs[:-1], self._xs[1:]
        gap = b - a
        with np.errstate(all="ignore"):
            seg = np.where(gap > 0, (b ** (k + 1) - a ** (k + 1))
                           / ((k + 1) * np.where(gap > 0, gap, 1.0)), a**k)
        return float(np.mean(seg))

    def _updated_ctor_param(self):
        dct = super()._updated_ctor_param()
        dct["values"] = self._values
        return dct
