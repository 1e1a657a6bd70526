"""Sobol' indices and their half-widths from the sums: the finishing half of
:class:`~mc_tco.sensitivity.sobol.sums.SobolSums` (:class:`IndicesFromSums`, its base class).

The point estimates, the asymptotic (delta-method) and the Poisson-bootstrap half-widths
are functions of the sums that :meth:`SobolSums.add` keeps; the sums, their merge and the
bootstrap weights are in :mod:`.sums`.
"""

from __future__ import annotations

import numpy as np

from mc_tco.distributions.frozen import norm_ppf
from mc_tco.sensitivity.sobol.estimators import (
    _A,
    _AB,
    _B,
    _BD,
    _D,
    _ESTIMATORS,
    _div,
    _pooled_var,
)

__all__ = ["IndicesFromSums"]


class IndicesFromSums:
    """S1, ST (and S2) with half-widths from the sums of a :class:`SobolSums` (its base).

    It reads the settings and sums :class:`SobolSums` keeps (declared below for the type
    checker; the dataclass defines them).
    """

    num_factors: int
    second_order: bool
    shift: np.ndarray
    resamples: int
    estimator: str
    moments: bool
    n: float
    point: dict
    boot: dict

    @property
    def rows_per_sample(self) -> int:
        """Design rows per base sample: ``K + 2``, or ``2K + 2`` with second order."""
        k = self.num_factors
        return 2 * k + 2 if self.second_order else k + 2

    def mean_a(self) -> np.ndarray:
        """Mean of the output over the ``A`` rows (C,): for an indicator, P(output > 0)."""
        return self.point[_A] / self.n + self.shift

    def _means(self, s: dict, n) -> dict:
        """Means of the sums ``s`` over ``n`` samples; shared ones get a factor axis."""
        out = {}
        for name, v in s.items():
            if not isinstance(name, tuple):
                continue
            shared = name[2] == 0
            v = v[..., None, :] if shared else v
            nn = np.reshape(n, np.shape(n) + (1,) * (v.ndim - np.ndim(n)))
            out[name] = v / nn
        return out

    def _estimates(self, s: dict, n, mean_all):
        """S1, ST (and S2) from sums ``s`` over ``n`` samples; broadcasts over a leading axis."""
        e = self._means(s, n)
        m = mean_all
        tiny = self._tiny()
        func = _ESTIMATORS[self.estimator][0]
        v = _pooled_var(e)  # (..., 1, C)
        constant = ~(v > tiny)
        s1, st = func(e, m, tiny)
        s1 = np.where(constant, np.nan, s1)
        st = np.where(constant, np.nan, st)
        out = {"S1": s1, "ST": st, "constant": constant[..., 0, :]}
        if self.second_order:
            nn = np.reshape(n, (*np.shape(n), 1, 1, 1))
            s1s = _div(e[_BD] - m * e[_D], v, tiny)  # SALib's first order, as in Saltelli 2002
            sab = s[_D] + s[_A][..., None, :]  # sum of AB_k rows
            vjk = (
                s["ba_ab"]
                - s[_AB][..., None, None, :]
                - m * (s["ba"][..., :, None, :] + sab[..., None, :, :]
                       - (s[_A] + s[_B])[..., None, None, :])
            ) / nn
            s2 = _div(vjk, v[..., None, :], tiny) - s1s[..., :, None, :] - s1s[..., None, :, :]
            k = self.num_factors
            upper = np.triu(np.ones((k, k), dtype=bool), 1)[..., None]
            out["S2"] = np.where(upper & ~constant[..., None, :], s2, np.nan)
        return out

    def _tiny(self) -> np.ndarray:
        scale = np.abs(self.shift) + np.abs(self.point["all"] / max(self.n, 1))
        return (64 * np.finfo(float).eps * np.maximum(scale, np.finfo(float).tiny)) ** 2

    def _mean_all(self) -> np.ndarray:
        return self.point["all"] / (self.n * self.rows_per_sample)

    def default_ci(self) -> str:
        """``"bootstrap"`` with resamples, else ``"asymptotic"`` with moments, else ``"none"``."""
        if self.resamples > 1:
            return "bootstrap"
        return "asymptotic" if self.moments else "none"

    def result(self, conf_level: float = 0.95, ci: str | None = None) -> dict:
        """Point estimates and confidence half-widths.

        Parameters
        ----------
        conf_level : float
            Level of the intervals.
        ci : {"bootstrap", "asymptotic", "none"}, optional
            Interval method (see the module docstring); default :meth:`default_ci`.
            ``"bootstrap"`` needs ``resamples > 1``, ``"asymptotic"`` needs
            ``moments=True``. Randomized-QMC intervals combine several sums:
            :func:`rqmc_result`.

        Returns
        -------
        dict
            ``S1``, ``ST`` (K, C); ``S1_conf``, ``ST_conf`` (K, C) half-widths (NaN with
            ``ci="none"``); ``S2``, ``S2_conf`` (K, K, C) upper triangle with second order
            (``S2_conf`` is NaN with ``"asymptotic"``: its delta method would need about 20
            ``K x K x C`` fourth-moment sums; use ``"rqmc"`` or ``"bootstrap"``);
            ``constant`` (C,) true where the output does not vary (its indices are NaN);
            ``ci`` the method used (str).
        """
        if not 0 < conf_level < 1:
            raise ValueError(f"conf_level must lie strictly between 0 and 1, got {conf_level}")
        ci = self.default_ci() if ci is None else ci
        if ci == "bootstrap" and self.resamples < 2:
            raise ValueError("ci='bootstrap' needs SobolSums(resamples=...) of at least 2")
        if ci == "asymptotic" and not self.moments:
            raise ValueError("ci='asymptotic' needs SobolSums(moments=True)")
        if ci not in ("bootstrap", "asymptotic", "none"):
            raise ValueError(
                f"unknown ci {ci!r}: use 'bootstrap', 'asymptotic' or 'none' here, and "
                "rqmc_result() for randomized-QMC intervals"
            )
        mean_all = self._mean_all()
        est = self._estimates(self.point, np.asarray(self.n, dtype=float), mean_all)
        z = norm_ppf(0.5 + conf_level / 2)
        names = ["S1", "ST"] + (["S2"] if self.second_order else [])
        for name in names:
            est[f"{name}_conf"] = np.full_like(est[name], np.nan)
        if ci == "bootstrap":
            boot = self._estimates(self.boot, self.boot["w"], mean_all)
            for name in names:
                spread = _finite_std(boot[name])
                est[f"{name}_conf"] = np.where(np.isnan(est[name]), np.nan, z * spread)
        elif ci == "asymptotic":
            var1, vart = self._delta_variance(mean_all)
            for name, var in (("S1", var1), ("ST", vart)):
                half = z * np.sqrt(np.maximum(var, 0.0) / self.n)
                est[f"{name}_conf"] = np.where(np.isnan(est[name]), np.nan, half)
        est["ci"] = ci
        return est

    def _delta_variance(self, mean_all):
        """Asymptotic variances ``n Var(S1_j)``, ``n Var(ST_j)`` (K, C) by the delta method.

        The estimate is ``g(E t)`` for the degree-2 monomials ``t``; its linearisation over
        base samples is ``grad g . t_i``, whose variance is ``sum_kl g_k g_l Cov(t_k, t_l)``
        with ``Cov(t_k, t_l) = E[t_k t_l] - E[t_k] E[t_l]`` from the sums of the monomials
        of degree up to 4. The centring ``m`` is held fixed: its derivative is ``-E[d_j]``,
        zero in the limit. Gradient by complex step (Squire & Trapp 1998).
        """
        e = self._means(self.point, np.asarray(self.n, dtype=float))
        tiny = self._tiny()
        func, terms = _ESTIMATORS[self.estimator]
        grads = []
        for t in terms:
            h = 1e-20 * np.maximum(np.abs(e[t]), 1e-100)
            shifted = dict(e)
            shifted[t] = e[t] + 1j * h
            s1, st = func(shifted, mean_all, tiny)
            grads.append((s1.imag / h, st.imag / h))
        var1 = var_t = 0.0
        for i, ti in enumerate(terms):
            for j, tj in enumerate(terms[: i + 1]):
                prod = tuple(x + y for x, y in zip(ti, tj, strict=True))
                cov = e[prod] - e[ti] * e[tj]
                weight = 1.0 if i == j else 2.0
                var1 = var1 + weight * grads[i][0] * grads[j][0] * cov
                var_t = var_t + weight * grads[i][1] * grads[j][1] * cov
        return var1, var_t



def _finite_std(x: np.ndarray) -> np.ndarray:
    """Standard deviation (ddof=1) along axis 0 over the finite values; NaN if fewer than 2."""
    ok = np.isfinite(x)
    count = ok.sum(axis=0)
    filled = np.where(ok, x, 0.0)
    mean = filled.sum(axis=0) / np.maximum(count, 1)
    ss = (np.where(ok, x - mean, 0.0) ** 2).sum(axis=0)
    return np.where(count > 1, np.sqrt(ss / np.maximum(count - 1, 1)), np.nan)
