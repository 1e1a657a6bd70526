"""Streaming Sobol' sums: :class:`SobolSums` adds chunks of design rows and merges.

``SobolSums`` is one indivisible thing: the sums, their merge, the point estimates, and the
asymptotic and bootstrap half-widths of the same sums (about 300 lines).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from mc_tco.sensitivity.sobol.estimators import (
    _A,
    _AA,
    _AB,
    _B,
    _BB,
    _BD,
    _D,
    _DD,
    _DEGREE2,
    _ESTIMATORS,
    _HIGHER,
    ESTIMATORS,
    _div,
    _pooled_var,
)

__all__ = ["BLOCK", "SobolSums", "poisson_weights"]

#: base samples per block of bootstrap weights; chunks must start at a multiple of it
BLOCK = 256
_WEIGHT_STREAM = 0xB0075  # separates the bootstrap's random stream from the design's


def poisson_weights(seed: int, start: int, stop: int, resamples: int) -> np.ndarray:
    """Poisson(1) bootstrap weights of base samples ``start .. stop-1``, shape (resamples, n).

    The weights of sample ``i`` depend only on ``seed`` and ``i``: they are drawn per block
    of :data:`BLOCK` samples from ``default_rng([seed, stream, block])``.
    """
    if resamples == 0:
        return np.zeros((0, stop - start))
    out = np.empty((resamples, stop - start))
    first, last = start // BLOCK, (stop - 1) // BLOCK
    for block in range(first, last + 1):
        rng = np.random.default_rng([seed, _WEIGHT_STREAM, block])
        w = rng.poisson(1.0, size=(resamples, BLOCK))
        lo, hi = max(start, block * BLOCK), min(stop, (block + 1) * BLOCK)
        out[:, lo - start : hi - start] = w[:, lo - block * BLOCK : hi - block * BLOCK]
    return out


@dataclass
class SobolSums:
    """Sums over base samples from which S1, ST (and S2) and their errors follow.

    Parameters
    ----------
    num_factors : int
        ``K``, the number of inputs (or groups) of the design.
    second_order : bool
        Keep the sums for S2 (needs the ``BA`` rows).
    shift : ndarray, shape (C,)
        A value subtracted from every output before summing (any value of the output will
        do; it keeps the sums of squares well conditioned). All chunks, and all replicates
        that are pooled, must use the same.
    resamples : int
        Number of Poisson bootstrap resamples (0 for none).
    estimator : str
        One of :data:`ESTIMATORS` (see the module docstring); ``"saltelli"`` is SALib's.
    moments : bool
        Also keep the sums of the monomials of degree 3 and 4 that the ``"asymptotic"``
        intervals need (about ``20 K C`` more sums, about twice the work of :meth:`add`).
    """

    num_factors: int
    second_order: bool
    shift: np.ndarray
    resamples: int = 0
    estimator: str = "saltelli"
    moments: bool = False
    n: float = 0.0
    point: dict = field(default_factory=dict)
    boot: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.estimator not in _ESTIMATORS:
            raise ValueError(
                f"unknown estimator {self.estimator!r}; use one of {', '.join(ESTIMATORS)}"
            )
        self.shift = np.asarray(self.shift, dtype=float)

    @property
    def rows_per_sample(self) -> int:
        """Design rows per base sample: ``K + 2``, or ``2K + 2`` with second order."""
        k = self.num_factors
        return 2 * k + 2 if self.second_order else k + 2

    def _terms(self) -> tuple:
        """The degree-2 monomials whose (weighted) sums the point estimates need."""
        terms = _DEGREE2 if self.moments else _ESTIMATORS[self.estimator][1]
        if self.second_order and _AB not in terms:
            terms = (*terms, _AB)
        return terms

    def add(self, y: np.ndarray, weights: np.ndarray | None = None) -> None:
        """Add base samples.

        Parameters
        ----------
        y : ndarray, shape (n, rows_per_sample, C)
            Outputs of the design rows of ``n`` base samples (order ``A, AB.., [BA..], B``)
            for ``C`` cells.
        weights : ndarray, shape (resamples, n), optional
            Poisson bootstrap weights of these samples (:func:`poisson_weights`).
        """
        k = self.num_factors
        y = np.asarray(y, dtype=float)
        n, per, c = y.shape
        if per != self.rows_per_sample:
            raise ValueError(
                f"y has {per} rows per base sample, expected {self.rows_per_sample} for "
                f"K = {k} factors{' with second order' if self.second_order else ''}"
            )
        if self.resamples and (weights is None or weights.shape != (self.resamples, n)):
            raise ValueError(f"weights must have shape ({self.resamples}, {n})")
        y = y - self.shift
        a, b = y[:, 0, :], y[:, -1, :]
        d = y[:, 1 : k + 1, :] - a[:, None, :]
        if not self.resamples and not self.second_order:
            self._add_direct(y, a, b, d)
            return
        # every summed term is a block of columns of F (n, M); one product W @ F sums them
        terms = self._terms()
        layout = [(t, (c,) if t[2] == 0 else (k, c)) for t in terms]
        if self.second_order:
            layout += [("ba", (k, c)), ("ba_ab", (k, k, c))]
        width = sum(int(np.prod(shape)) for _, shape in layout)
        f = np.empty((n, width))
        blocks, pos = {}, 0
        for name, shape in layout:
            size = int(np.prod(shape))
            block = f[:, pos : pos + size].reshape((n, *shape))
            if not np.may_share_memory(block, f):  # pragma: no cover - numpy guarantees it
                raise AssertionError("column block of F is not a view")
            blocks[name] = block
            pos += size
        ab = {_A: a, _B: b, _AA: a * a, _BB: b * b, _AB: a * b}
        for t in terms:
            p, q, r = t
            if r == 0:
                blocks[t][...] = ab[t]
            elif t == _D:
                blocks[t][...] = d
            elif t == _DD:
                np.multiply(d, d, out=blocks[t])
            else:
                np.multiply(ab[(p, q, 0)][:, None, :], d, out=blocks[t])
        if self.second_order:
            ba = y[:, k + 1 : 2 * k + 1, :]
            blocks["ba"][...] = ba
            np.multiply(ba[:, :, None, :], y[:, None, 1 : k + 1, :], out=blocks["ba_ab"])
        if self.resamples:
            w = np.empty((self.resamples + 1, n))
            w[0] = 1.0
            w[1:] = weights
            sums = w @ f
        else:
            sums = (np.ones(n) @ f)[None, :]
        point, boot, pos = {}, {}, 0
        for name, shape in layout:
            size = int(np.prod(shape))
            point[name] = sums[0, pos : pos + size].reshape(shape)
            if self.resamples:
                boot[name] = sums[1:, pos : pos + size].reshape((self.resamples, *shape))
            pos += size
        point["all"] = y.sum(axis=(0, 1))
        if self.moments:
            point.update(_higher_moments(a, b, d))
        self._merge_dict(self.point, point)
        self.n += n
        if self.resamples:
            boot["w"] = weights.sum(axis=1)
            self._merge_dict(self.boot, boot)

    def _add_direct(self, y, a, b, d) -> None:
        """:meth:`add` without bootstrap weights or second order: each term summed over
        the samples directly. The weighted path builds every term as a column block of
        ``F`` (n, ~4 K C) and multiplies once; with no weights to apply that only writes
        ``F`` (megabytes per chunk, out of cache) to add it up: 3-4x slower. The same
        sums, added in another order (last bits)."""
        ab = {_A: a, _B: b, _AA: a * a, _BB: b * b, _AB: a * b}
        point = {}
        for t in self._terms():
            p, q, r = t
            if r == 0:
                point[t] = ab[t].sum(axis=0)
            elif t == _D:
                point[t] = d.sum(axis=0)
            elif t == _DD:
                point[t] = np.einsum("nkc,nkc->kc", d, d)
            else:
                point[t] = np.einsum("nc,nkc->kc", ab[(p, q, 0)], d)
        point["all"] = y.sum(axis=(0, 1))
        if self.moments:
            point.update(_higher_moments(a, b, d))
        self._merge_dict(self.point, point)
        self.n += a.shape[0]

    @staticmethod
    def _merge_dict(into: dict, other: dict) -> None:
        for name, v in other.items():
            if name in into:
                into[name] = into[name] + v
            else:
                into[name] = np.array(v, dtype=float, copy=True)

    def _like(self) -> SobolSums:
        return SobolSums(
            self.num_factors, self.second_order, self.shift, self.resamples, self.estimator,
            self.moments,
        )

    def __add__(self, other: SobolSums) -> SobolSums:
        mine = (self.num_factors, self.second_order, self.resamples, self.estimator,
                self.moments)
        theirs = (other.num_factors, other.second_order, other.resamples, other.estimator,
                  other.moments)
        if mine != theirs:
            raise ValueError(
                "cannot merge SobolSums of different settings (num_factors, second_order, "
                f"resamples, estimator, moments): {mine} and {theirs}"
            )
        same_shift = np.array_equal(self.shift, other.shift, equal_nan=True)
        if self.point and other.point and not same_shift:
            raise ValueError(
                "cannot merge SobolSums with different shifts: give every chunk and every "
                "replicate the same shift"
            )
        out = self._like()
        if not self.point:
            out.shift = other.shift
        out.n = self.n + other.n
        for src in (self, other):
            self._merge_dict(out.point, src.point)
            self._merge_dict(out.boot, src.boot)
        return out

    # ------------------------------------------------------------------ estimates

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
        z = stats.norm.ppf(0.5 + conf_level / 2)
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


def _higher_moments(a: np.ndarray, b: np.ndarray, d: np.ndarray) -> dict:
    """Sums over base samples of the monomials ``a^p b^q d^r`` of degree 3 and 4."""
    pw_a = [np.ones_like(a), a, a * a, a * a * a, a * a * a * a]
    pw_b = [np.ones_like(b), b, b * b, b * b * b, b * b * b * b]
    dt = np.ascontiguousarray(d.transpose(2, 0, 1))  # (C, n, K): one matmul per power
    pw_d = [None, dt, dt * dt]
    pw_d += [pw_d[2] * dt, pw_d[2] * pw_d[2]]
    out = {}
    for r in range(5):
        keys = [t for t in _HIGHER if t[2] == r]
        if r == 0:
            out.update({(p, q, 0): (pw_a[p] * pw_b[q]).sum(axis=0) for p, q, _ in keys})
            continue
        mixed = [t for t in keys if t[0] + t[1] > 0]
        if len(mixed) < len(keys):  # d^r alone
            out[(0, 0, r)] = pw_d[r].sum(axis=1).T
        if mixed:
            left = np.stack([(pw_a[p] * pw_b[q]).T for p, q, _ in mixed], axis=1)  # (C, P, n)
            prod = left @ pw_d[r]  # (C, P, K)
            out.update({t: prod[:, i, :].T for i, t in enumerate(mixed)})
    return out


def _finite_std(x: np.ndarray) -> np.ndarray:
    """Standard deviation (ddof=1) along axis 0 over the finite values; NaN if fewer than 2."""
    ok = np.isfinite(x)
    count = ok.sum(axis=0)
    filled = np.where(ok, x, 0.0)
    mean = filled.sum(axis=0) / np.maximum(count, 1)
    ss = (np.where(ok, x - mean, 0.0) ** 2).sum(axis=0)
    return np.where(count > 1, np.sqrt(ss / np.maximum(count - 1, 1)), np.nan)

