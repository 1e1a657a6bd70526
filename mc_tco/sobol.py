"""Sobol' indices over a whole grid of outputs at once, from sums that stream by chunk.

Notation: for base sample ``i`` of a Saltelli design the outputs of rows ``A_i``, ``B_i``
and ``AB_i^(j)`` (``A`` with the columns of factor ``j`` from ``B``) are ``a``, ``b`` and
``c_j``; ``d_j = c_j - a``. Every estimator below is a smooth function of means over base
samples of the monomials ``a, b, a^2, b^2, a b, d_j, a d_j, b d_j, d_j^2`` (``E[.]``), so
:class:`SobolSums` keeps their sums, adds a chunk of base samples with
:meth:`SobolSums.add` and merges with ``+``: a run can be split in any chunks (or over
Dask workers, or over independent scrambles) and gives the same numbers.

Estimators (``estimator=``), with ``V = (E[a^2] + E[b^2]) / 2 - ((E[a] + E[b]) / 2)^2``:

``"saltelli"`` (SALib's ``sobol.analyze``; the default)
    first order Saltelli et al. (2010), table 2 (b): ``S1_j = E[(b - m) d_j] / V``;
    total Jansen (1999), table 2 (f): ``ST_j = E[d_j^2] / (2 V)``. The output is centred
    on ``m``, the mean of all design rows, as SALib does (its ``(Y - Y.mean()) / Y.std()``),
    so the point estimates equal SALib's on the same design.
``"sobol2007"``
    first order as ``"saltelli"`` (Sobol' et al. 2007, also Mauntz-Kucherenko);
    total Sobol' et al. (2007), table 2 (d) of Saltelli et al. (2010):
    ``ST_j = E[(a - m)(a - c_j)] / V``.
``"janon"``
    Janon et al. (2014), eq. (T_N), the estimator that takes the mean and variance from
    both samples of the pair (also Monod et al. 2006): with ``mu = (E[b] + E[c_j]) / 2``,
    ``S1_j = (E[b c_j] - mu^2) / ((E[b^2] + E[c_j^2]) / 2 - mu^2)``; total one minus the
    same closed index of the complementary pair ``(a, c_j)``, which is Jansen's numerator
    over the pair's own variance: ``ST_j = E[d_j^2] / 2 / ((E[a^2] + E[c_j^2]) / 2 - nu^2)``
    with ``nu = (E[a] + E[c_j]) / 2``.
``"martinez"``
    Martinez (2011), correlation coefficients (Baudin et al. 2016):
    ``S1_j = corr(b, c_j)``, ``ST_j = 1 - corr(a, c_j)`` (the latter computed as
    ``(var d_j - (sd a - sd c_j)^2) / (2 sd a sd c_j)``, exact and free of cancellation
    for small indices).

Second order (any estimator), Saltelli (2002) as SALib:
``S2_jk = E[(ba_j - m)(c_k - m) - (a - m)(b - m)] / V - S1_j - S1_k`` with the
``"saltelli"`` first-order terms, ``ba_j`` the output of row ``BA^(j)``.

Confidence intervals, ``ci=`` in :meth:`SobolSums.result` and :func:`rqmc_result`:

``"rqmc"`` (:func:`rqmc_result`)
    ``R`` independent scrambles of the design (randomized QMC, Owen 1997; L'Ecuyer &
    Lemieux 2002; Owen 2023, ch. 17): the half-width is ``t_{R-1, (1+c)/2} sd / sqrt(R)``
    with ``sd`` the standard deviation of the ``R`` replicate estimates, centred on the
    pooled estimate (the sums of all replicates merged). The only one of the three that
    measures the error of a scrambled Sobol' design; the other two assume independent
    base samples and overstate it, by orders of magnitude for smooth outputs.
``"asymptotic"``
    Delta method (central limit theorem for the vector of means; Janon et al. 2014,
    prop. 2.2 for their estimator): the variance of the estimator's linearisation
    ``psi_i = grad g . (t_i - E t)`` across base samples, which needs the sums of all
    monomials of ``a, b, d_j`` up to degree 4 (``moments=True``). The gradient is taken by
    complex step (Squire & Trapp 1998), exact to rounding. Normal quantile. Valid for
    independent (Monte Carlo) base samples; conservative on a scrambled Sobol' design.
``"bootstrap"``
    Poisson bootstrap (Hanley & MacGibbon 2006; Chamandy et al. 2012): resample ``b``
    weights base sample ``i`` by ``w_bi ~ Poisson(1)``; the weights of base sample ``i``
    depend only on the seed and ``i`` (drawn per fixed block of :data:`BLOCK` samples), so
    the bootstrap streams too, and every weighted sum of every cell (and the point sums,
    as a row of ones) is one matrix product ``W @ F``. As in SALib the half-width is
    ``z_(1+c)/2`` times the standard deviation of the resampled estimates, and each
    resample keeps the centring of the full sample. Assumes independent base samples.

References
----------
Baudin, M., Boumhaout, K., Delage, T., Iooss, B., Martinez, J.-M. (2016). Numerical
stability of Sobol' indices estimation formula. Proceedings of SAMO 2016, 50-51.

Chamandy, N., Muralidharan, O., Najmi, A., Naidu, S. (2012). Estimating uncertainty for
massive data streams. Google technical report.

Hanley, J. A., MacGibbon, B. (2006). Creating non-parametric bootstrap samples using
Poisson frequencies. Computer Methods and Programs in Biomedicine 83, 57-62.

Janon, A., Klein, T., Lagnoux, A., Nodet, M., Prieur, C. (2014). Asymptotic normality and
efficiency of two Sobol index estimators. ESAIM: Probability and Statistics 18, 342-364.

Jansen, M. J. W. (1999). Analysis of variance designs for model output. Computer Physics
Communications 117, 35-43.

L'Ecuyer, P., Lemieux, C. (2002). Recent advances in randomized quasi-Monte Carlo
methods. In Modeling Uncertainty, Kluwer, 419-474.

Martinez, J.-M. (2011). Analyse de sensibilité globale par décomposition de la variance.
Journée des utilisateurs de Salome, GdR MASCOT-NUM, Institut Henri Poincaré.

Monod, H., Naud, C., Makowski, D. (2006). Uncertainty and sensitivity analysis for crop
models. In Working with Dynamic Crop Models, Elsevier, 55-100.

Owen, A. B. (1997). Scrambled net variance for integrals of smooth functions. Annals of
Statistics 25, 1541-1562.

Owen, A. B. (2023). Practical Quasi-Monte Carlo Integration. https://artowen.su.domains/mc/

Saltelli, A. (2002). Making best use of model evaluations to compute sensitivity indices.
Computer Physics Communications 145, 280-297.

Saltelli, A., Annoni, P., Azzini, I., Campolongo, F., Ratto, M., Tarantola, S. (2010).
Variance based sensitivity analysis of model output. Computer Physics Communications 181,
259-270.

Sobol', I. M., Tarantola, S., Gatelli, D., Kucherenko, S. S., Mauntz, W. (2007).
Estimating the approximation error when fixing unessential factors in global sensitivity
analysis. Reliability Engineering & System Safety 92, 957-960.

Squire, W., Trapp, G. (1998). Using complex variables to estimate derivatives of real
functions. SIAM Review 40, 110-112.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import xarray as xr
from scipy import stats

__all__ = [
    "BLOCK",
    "CI_METHODS",
    "ESTIMATORS",
    "SobolSums",
    "ci_method_text",
    "flag_negative",
    "poisson_weights",
    "rqmc_result",
    "rqmc_seeds",
    "sobol_indices",
    "sobol_indices_rqmc",
]

#: base samples per block of bootstrap weights; chunks must start at a multiple of it
BLOCK = 256
_WEIGHT_STREAM = 0xB0075  # separates the bootstrap's random stream from the design's

# Monomials a^p b^q d_j^r of a base sample are keyed by their exponents (p, q, r); r = 0
# ones are shared by all factors (shape (C,)), the others are per factor (shape (K, C)).
_A, _B, _AA, _BB, _AB = (1, 0, 0), (0, 1, 0), (2, 0, 0), (0, 2, 0), (1, 1, 0)
_D, _AD, _BD, _DD = (0, 0, 1), (1, 0, 1), (0, 1, 1), (0, 0, 2)
_DEGREE2 = (_A, _B, _AA, _BB, _AB, _D, _AD, _BD, _DD)
_HIGHER = tuple(
    (p, deg - r - p, r) for deg in (3, 4) for r in range(deg + 1) for p in range(deg - r + 1)
)


def _pooled_var(e):
    """Variance of the ``A`` and ``B`` outputs together (SALib's ``np.var(np.r_[A, B])``)."""
    mu = (e[_A] + e[_B]) / 2
    return (e[_AA] + e[_BB]) / 2 - mu**2


def _div(num, den, tiny):
    """``num / den`` where ``den > tiny`` (real part), NaN elsewhere, without warnings."""
    ok = den.real > tiny
    return np.where(ok, num / np.where(ok, den, 1.0), np.nan)


def _saltelli(e, m, tiny):
    """First order Saltelli et al. (2010) table 2 (b); total Jansen (1999)."""
    v = _pooled_var(e)
    return _div(e[_BD] - m * e[_D], v, tiny), _div(e[_DD] / 2, v, tiny)


def _sobol2007(e, m, tiny):
    """First order as Saltelli (2010) (b); total Sobol' et al. (2007) ``E[(a-m)(a-c)]/V``."""
    v = _pooled_var(e)
    return _div(e[_BD] - m * e[_D], v, tiny), _div(m * e[_D] - e[_AD], v, tiny)


def _janon(e, m, tiny):
    """Janon et al. (2014): mean and variance of each pair from both of its samples."""
    ec = e[_A] + e[_D]
    ecc = e[_AA] + 2 * e[_AD] + e[_DD]
    mu = (e[_B] + ec) / 2
    s1 = _div(e[_AB] + e[_BD] - mu**2, (e[_BB] + ecc) / 2 - mu**2, tiny)
    nu = e[_A] + e[_D] / 2
    st = _div(e[_DD] / 2, (e[_AA] + ecc) / 2 - nu**2, tiny)
    return s1, st


def _martinez(e, m, tiny):
    """Martinez (2011): ``corr(b, c_j)`` and ``1 - corr(a, c_j)``."""
    var_a = e[_AA] - e[_A] ** 2
    var_b = e[_BB] - e[_B] ** 2
    var_d = e[_DD] - e[_D] ** 2
    cov_ad = e[_AD] - e[_A] * e[_D]
    var_c = var_a + 2 * cov_ad + var_d
    cov_bc = e[_AB] + e[_BD] - e[_B] * (e[_A] + e[_D])
    ok = (var_a.real > tiny) & (var_b.real > tiny) & (var_c.real > tiny)
    sd_a, sd_b, sd_c = (np.sqrt(np.where(ok, x, 1.0)) for x in (var_a, var_b, var_c))
    sd_diff = -(2 * cov_ad + var_d) / (sd_a + sd_c)  # sd_a - sd_c, without cancellation
    s1 = np.where(ok, cov_bc / (sd_b * sd_c), np.nan)
    st = np.where(ok, (var_d - sd_diff**2) / (2 * sd_a * sd_c), np.nan)
    return s1, st


_ESTIMATORS = {
    "saltelli": (_saltelli, (_A, _B, _AA, _BB, _D, _BD, _DD)),
    "sobol2007": (_sobol2007, (_A, _B, _AA, _BB, _D, _AD, _BD)),
    "janon": (_janon, _DEGREE2),
    "martinez": (_martinez, _DEGREE2),
}
#: names of the first-order/total estimator pairs (see the module docstring)
ESTIMATORS = tuple(_ESTIMATORS)
#: confidence-interval methods: ``rqmc`` via :func:`rqmc_result`, the others via ``result``
CI_METHODS = ("rqmc", "asymptotic", "bootstrap")


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


# ---------------------------------------------------------------------- randomized QMC


def rqmc_seeds(seed: int, replicates: int) -> list[int]:
    """Scrambling seeds of ``replicates`` independent randomizations of a design.

    Replicate ``r`` is scrambled with the integer drawn from
    ``np.random.SeedSequence(seed).spawn(replicates)[r]`` (``generate_state(2)`` as one
    63-bit number): independent streams, reproducible from ``seed`` alone, and a larger
    ``replicates`` keeps the seeds of the first ones (spawn key ``(r,)``).
    """
    if replicates < 1:
        raise ValueError(f"replicates must be at least 1, got {replicates}")
    out = []
    for child in np.random.SeedSequence(seed).spawn(replicates):
        lo, hi = child.generate_state(2, dtype=np.uint32)
        out.append(int(((int(hi) << 32) | int(lo)) >> 1))
    return out


def rqmc_result(replicates: Sequence[SobolSums], conf_level: float = 0.95) -> dict:
    """Randomized-QMC estimates and half-widths from ``R`` independently scrambled designs.

    Each element of ``replicates`` holds the sums of one scramble (same ``N``, estimator
    and shift). The point estimate is the pooled one (all sums merged: the ratio of the
    pooled means, which has a smaller ratio bias than the mean of the ``R`` ratios and the
    same first-order variance); the half-width is ``t_{R-1, (1+c)/2} sd / sqrt(R)`` with
    ``sd`` the standard deviation (ddof 1) of the ``R`` replicate estimates (Owen 1997;
    L'Ecuyer & Lemieux 2002). It is NaN where any replicate estimate is NaN (the output
    was constant in a replicate) or with fewer than 2 replicates.

    Returns
    -------
    dict
        As :meth:`SobolSums.result`, with ``ci = "rqmc"``, ``replicates = R`` and the
        replicate estimates ``S1_rep``, ``ST_rep`` (R, K, C) (and ``S2_rep``).
    """
    if not replicates:
        raise ValueError("rqmc_result needs at least one replicate")
    if not 0 < conf_level < 1:
        raise ValueError(f"conf_level must lie strictly between 0 and 1, got {conf_level}")
    pooled = replicates[0]
    for rep in replicates[1:]:
        pooled = pooled + rep
    est = pooled.result(conf_level, ci="none")
    reps = [rep.result(conf_level, ci="none") for rep in replicates]
    r = len(replicates)
    tq = stats.t.ppf(0.5 + conf_level / 2, r - 1) if r > 1 else np.nan
    names = ["S1", "ST"] + (["S2"] if pooled.second_order else [])
    for name in names:
        x = np.stack([rep[name] for rep in reps])
        est[f"{name}_rep"] = x
        if r > 1:
            bad = np.isnan(x).any(axis=0) | np.isnan(est[name])
            sd = np.where(bad, 0.0, x).std(axis=0, ddof=1)
            est[f"{name}_conf"] = np.where(bad, np.nan, tq * sd / np.sqrt(r))
    est["ci"] = "rqmc"
    est["replicates"] = r
    return est


# ---------------------------------------------------------------------- reporting helpers


def flag_negative(estimate, halfwidth):
    """Where an index estimate is significantly negative: ``estimate < -halfwidth``.

    A Sobol' index is non-negative, so such an estimate is an estimation artefact (too few
    samples, or an estimator biased for small indices); the estimate is kept as estimated
    and flagged. NaN estimates or half-widths are not flagged. Works on numpy arrays and,
    elementwise, on xarray objects.
    """
    return (estimate < -halfwidth) & (halfwidth == halfwidth)


def ci_method_text(
    ci: str, conf_level: float, *, resamples: int | None = None,
    replicates: int | None = None, estimator: str = "saltelli", seed: int | None = None,
) -> str:
    """One line for the ``method`` attr of a half-width: which interval, and its assumptions.

    Examples
    --------
    >>> ci_method_text("rqmc", 0.95, replicates=8, seed=0)  # doctest: +ELLIPSIS
    '95% randomized-QMC t interval over 8 independent scrambles...'
    """
    est = f"estimator {estimator}"
    if ci == "rqmc":
        seeds = "" if seed is None else f" (seeds SeedSequence({seed}).spawn({replicates}))"
        return (
            f"{conf_level:.0%} randomized-QMC t interval over {replicates} independent "
            f"scrambles of the Sobol' design{seeds}, centred on the pooled estimate; {est}"
        )
    if ci == "asymptotic":
        return (
            f"{conf_level:.0%} asymptotic normal (delta-method) interval; assumes "
            f"independent base samples, conservative on a scrambled Sobol' design; {est}"
        )
    if ci == "bootstrap":
        return (
            f"{conf_level:.0%} Poisson bootstrap over base samples, {resamples} resamples; "
            f"assumes independent base samples, overstates the error of a scrambled "
            f"Sobol' design; {est}"
        )
    if ci == "none":
        return f"no interval; {est}"
    raise ValueError(f"unknown ci {ci!r}; use one of {', '.join(CI_METHODS)} or 'none'")


# ---------------------------------------------------------------------- xarray wrappers


def _split(y: xr.DataArray, k: int, dim: str, second_order: bool):
    per = 2 * k + 2 if second_order else k + 2
    cells = [d for d in y.dims if d != dim]
    yt = y.transpose(dim, *cells)
    total = yt.sizes[dim]
    if total % per:
        raise ValueError(
            f"y has {total} rows along '{dim}', not a multiple of {per} "
            f"(= {'2K + 2' if second_order else 'K + 2'} for K = {k} factors); check "
            "'second_order' and the factor list"
        )
    values = yt.values.reshape(total // per, per, -1)
    return values, yt, cells


def _accumulate(values, k, second_order, shift, resamples, seed, estimator, moments):
    acc = SobolSums(k, second_order, shift, resamples, estimator, moments)
    n = values.shape[0]
    for start in range(0, n, BLOCK):
        stop = min(n, start + BLOCK)
        acc.add(values[start:stop], poisson_weights(seed, start, stop, resamples))
    return acc


def _to_dataset(res: dict, factors, yt, cells, second_order) -> xr.Dataset:
    k = len(factors)
    cell_shape = tuple(yt.sizes[c] for c in cells)
    coords = {c: yt.coords[c] for c in cells if c in yt.coords}
    out = xr.Dataset(coords={"input": list(factors), **coords})
    for name in ("S1", "ST", "S1_conf", "ST_conf"):
        out[name] = (("input", *cells), res[name].reshape((k, *cell_shape)))
    if second_order:
        out = out.assign_coords(input_2=list(factors))
        for name in ("S2", "S2_conf"):
            out[name] = (("input", "input_2", *cells), res[name].reshape((k, k, *cell_shape)))
    return out


def sobol_indices(
    y: xr.DataArray,
    factors: list[str],
    *,
    dim: str = "row",
    second_order: bool = False,
    resamples: int = 100,
    conf_level: float = 0.95,
    seed: int = 0,
    estimator: str = "saltelli",
    ci: str | None = None,
) -> xr.Dataset:
    """Sobol' indices of every cell of ``y``, which holds the outputs of a Saltelli design.

    Parameters
    ----------
    y : xr.DataArray
        Model outputs with dim ``dim`` of length ``N * rows_per_sample`` in SALib's order
        (as :func:`SALib.sample.sobol.sample` or :class:`mc_tco.design.SaltelliDesign`
        make it); any other dims are cells, each analysed on its own.
    factors : list of str
        Names of the inputs (or groups), in the design's column (factor) order.
    dim : str
        The design-row dim of ``y``.
    second_order : bool
        Whether the design has the ``BA`` rows; then ``S2`` is returned too.
    resamples, conf_level, seed
        Poisson bootstrap resamples, confidence level and seed of the weights.
    estimator : str
        One of :data:`ESTIMATORS`.
    ci : {"bootstrap", "asymptotic", "none"}, optional
        Interval method; default ``"bootstrap"`` when ``resamples > 1``, else ``"none"``.
        For randomized-QMC intervals see :func:`sobol_indices_rqmc`.

    Returns
    -------
    xr.Dataset
        ``S1``, ``ST``, ``S1_conf``, ``ST_conf`` with dims ``("input", *cell_dims)``;
        ``S2``, ``S2_conf`` with ``("input", "input_2", *cell_dims)`` with second order.
    """
    k = len(factors)
    values, yt, cells = _split(y, k, dim, second_order)
    if ci is None:
        ci = "bootstrap" if resamples > 1 else "none"
    boot = resamples if ci == "bootstrap" else 0
    acc = _accumulate(values, k, second_order, values[0, 0].copy(), boot, seed, estimator,
                      ci == "asymptotic")
    res = acc.result(conf_level, ci=ci)
    out = _to_dataset(res, factors, yt, cells, second_order)
    out.attrs.update(
        conf_level=conf_level, resamples=boot, ci_method=ci, estimator=estimator,
        method=ci_method_text(ci, conf_level, resamples=boot, estimator=estimator),
    )
    return out


def sobol_indices_rqmc(
    ys: Sequence[xr.DataArray],
    factors: list[str],
    *,
    dim: str = "row",
    second_order: bool = False,
    conf_level: float = 0.95,
    estimator: str = "saltelli",
) -> xr.Dataset:
    """Sobol' indices with randomized-QMC intervals from ``R`` independently scrambled runs.

    Parameters
    ----------
    ys : sequence of xr.DataArray
        The outputs of each replicate design (as ``y`` of :func:`sobol_indices`, same
        shape), e.g. from ``SaltelliDesign(D, s)`` for ``s`` in :func:`rqmc_seeds`.
    factors, dim, second_order, conf_level, estimator
        As :func:`sobol_indices`.

    Returns
    -------
    xr.Dataset
        As :func:`sobol_indices` (pooled estimates, :func:`rqmc_result` half-widths), plus
        ``S1_rep``, ``ST_rep`` with a leading ``replicate`` dim.
    """
    k = len(factors)
    parts = [_split(y, k, dim, second_order) for y in ys]
    shift = parts[0][0][0, 0].copy()
    sums = [_accumulate(v, k, second_order, shift, 0, 0, estimator, False) for v, _, _ in parts]
    res = rqmc_result(sums, conf_level)
    _, yt, cells = parts[0]
    out = _to_dataset(res, factors, yt, cells, second_order)
    cell_shape = tuple(yt.sizes[c] for c in cells)
    for name in ("S1_rep", "ST_rep"):
        out[name] = (("replicate", "input", *cells),
                     res[name].reshape((len(ys), k, *cell_shape)))
    out.attrs.update(
        conf_level=conf_level, replicates=len(ys), ci_method="rqmc", estimator=estimator,
        method=ci_method_text("rqmc", conf_level, replicates=len(ys), estimator=estimator),
    )
    return out
