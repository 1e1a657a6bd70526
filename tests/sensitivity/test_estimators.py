"""Estimators and intervals against analytic indices, direct formulas and SALib.

Tolerances are stated where they are used, with the N they hold at. Coverage tests run
200 independent replications with fixed seeds (so they are deterministic); for a 95%
interval the binomial standard error of a coverage rate over 200 is 0.015.
"""

import numpy as np
import pytest
import xarray as xr
from SALib.analyze import sobol as salib_analyze
from SALib.test_functions import Ishigami, Sobol_G

from mc_tco.design import SaltelliDesign
from mc_tco.models import testfunctions as tf
from mc_tco.sensitivity.sobol import (
    ESTIMATORS,
    SobolSums,
    ci_method_text,
    flag_negative,
    poisson_weights,
    rqmc_result,
    rqmc_seeds,
    sobol_indices,
    sobol_indices_rqmc,
)

FUNCTIONS = {"ishigami": tf.ishigami(), "sobol_g": tf.sobol_g(), "linear": tf.linear()}


def qmc_outputs(f, n, seed, second_order=False):
    """Outputs (n, rows_per_sample, 1) of ``f`` on a scrambled Saltelli design."""
    design = SaltelliDesign(f.dim, seed, second_order=second_order)
    return f(design.rows(0, n))[..., None]


def iid_outputs(f, n, rng):
    """Outputs (n, D + 2, 1) of ``f`` on a Saltelli design of independent uniform rows."""
    u = rng.random((n, 2 * f.dim))
    return f(SaltelliDesign(f.dim, 0).mix(u[:, : f.dim], u[:, f.dim :]))[..., None]


def sums_of(y, estimator="saltelli", moments=False, resamples=0, seed=0, second_order=False,
            shift=None):
    k = y.shape[1] - 2 if not second_order else (y.shape[1] - 2) // 2
    shift = y[0, 0] if shift is None else shift
    s = SobolSums(k, second_order, shift, resamples, estimator, moments)
    s.add(y, poisson_weights(seed, 0, len(y), resamples))
    return s


# ------------------------------------------------------------------- test functions


def test_test_functions_agree_with_salib():
    rng = np.random.default_rng(0)
    u = rng.random((200, 8))
    ish = tf.ishigami()
    np.testing.assert_allclose(ish(u[:, :3]), Ishigami.evaluate(-np.pi + 2 * np.pi * u[:, :3]),
                               rtol=1e-13)
    np.testing.assert_allclose(ish.s1, [0.3139, 0.4424, 0.0], atol=5e-5)  # SALib's docstring
    g = tf.sobol_g()
    np.testing.assert_allclose(g(u), Sobol_G.evaluate(u), rtol=1e-13)
    np.testing.assert_allclose(g.s1, Sobol_G.sensitivity_index(tf.SOBOL_G_A), rtol=1e-13)
    np.testing.assert_allclose(g.st, Sobol_G.total_sensitivity_index(tf.SOBOL_G_A), rtol=1e-13)
    lin = tf.linear()
    assert lin.s1.sum() == pytest.approx(1.0) and lin.s1[-1] == 0


def test_borehole_reference_is_consistent():
    f = tf.borehole()
    # Hu and Hl enter as Hu - Hl with ranges of the same width: equal indices by symmetry
    assert abs(f.s1[3] - f.s1[5]) < f.error and abs(f.st[3] - f.st[5]) < f.error
    assert f.s1.sum() < 1 < f.st.sum() and np.all(f.st >= f.s1 - f.error)
    # the flow at the centre of the box, by hand: 2 pi Tu (Hu - Hl) / (ln(r/rw) (1 + ...))
    mid = f(np.full(8, 0.5))
    x = [0.1, 25050, 89335, 1050, 89.55, 760, 1400, 10950]
    lr = np.log(x[1] / x[0])
    by_hand = 2 * np.pi * x[2] * (x[3] - x[5]) / (
        lr * (1 + 2 * x[6] * x[2] / (lr * x[0] ** 2 * x[7]) + x[2] / x[4]))
    assert mid == pytest.approx(by_hand, rel=1e-12)


# ------------------------------------------------------------------- point estimates


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_estimators_converge_to_analytic(name, estimator):
    """N = 2^14 on a scrambled Sobol' design: every index within 0.005 (errors are ~5e-4)."""
    f = FUNCTIONS[name]
    res = sums_of(qmc_outputs(f, 2**14, 1), estimator).result()
    np.testing.assert_allclose(res["S1"][:, 0], f.s1, atol=0.005)
    np.testing.assert_allclose(res["ST"][:, 0], f.st, atol=0.005)


def test_borehole_estimate_within_its_reference():
    """N = 2^14: every index within 0.002 of the reference (RQMC error there ~1e-4)."""
    f = tf.borehole()
    res = sums_of(qmc_outputs(f, 2**14, 5), "janon").result()
    np.testing.assert_allclose(res["S1"][:, 0], f.s1, atol=0.002)
    np.testing.assert_allclose(res["ST"][:, 0], f.st, atol=0.002)


def _borehole_by_definition(m=2**13, nodes=32, seed=0):
    """Borehole S1 and ST from Sobol's definitions, without any pick-freeze estimator.

    ``S1_i = Var(E[Y | x_i]) / V``: ``E[Y | x_i]`` at the ``nodes`` Gauss-Legendre nodes of
    ``x_i`` (averaged over ``m`` scrambled Sobol' points of the other inputs, the same points
    at every node), then its variance by the same quadrature. ``ST_i = E[Var(Y | x_~i)] / V``:
    the variance over ``x_i`` by quadrature at each of the ``m`` points, then averaged.
    ``V`` from 2^16 scrambled Sobol' points (scipy). The quadrature is exact to rounding for
    this smooth function; the error (about 1e-5, the spread over seeds) is that of ``V``
    and of the outer averages.
    """
    from scipy.stats import qmc

    f = tf.borehole()
    x, w = np.polynomial.legendre.leggauss(nodes)
    x, w = (x + 1) / 2, w / 2
    z = qmc.Sobol(8, scramble=True, seed=seed).random(m)
    v = f.evaluate(qmc.Sobol(8, scramble=True, seed=seed + 1).random(2**16)).var()
    s1, st = [], []
    for i in range(8):
        u = np.repeat(z[None], nodes, axis=0)
        u[:, :, i] = x[:, None]
        y = f.evaluate(u)  # (nodes, m)
        cond = y.mean(axis=1)
        s1.append(w @ (cond - w @ cond) ** 2 / v)
        st.append(np.mean(w @ y**2 - (w @ y) ** 2) / v)
    return np.array(s1), np.array(st)


def test_borehole_formula_is_harper_and_guptas():
    """The function itself, written out from Harper & Gupta (1983) on its physical inputs."""
    f = tf.borehole()
    u = np.random.default_rng(3).random((50, 8))
    low = np.array([0.05, 100, 63070, 990, 63.1, 700, 1120, 9855])
    high = np.array([0.15, 50000, 115600, 1110, 116, 820, 1680, 12045])
    rw, r, tu, hu, tl, hl, length, kw = (low + (high - low) * u).T
    q = 2 * np.pi * tu * (hu - hl) / (np.log(r / rw) * (
        1 + 2 * length * tu / (np.log(r / rw) * rw**2 * kw) + tu / tl))
    np.testing.assert_allclose(f(u), q, rtol=1e-12)


def test_borehole_reference_equals_the_indices_by_definition():
    """``BOREHOLE_REFERENCE`` (from mc_tco's own estimator, benchmarks/borehole_reference.py)
    against the indices computed from their definitions by quadrature: within 5e-5."""
    s1, st = _borehole_by_definition()
    f = tf.borehole()
    np.testing.assert_allclose(f.s1, s1, atol=5e-5)
    np.testing.assert_allclose(f.st, st, atol=5e-5)


def test_borehole_estimate_within_the_indices_by_definition():
    """N = 2^14 janon estimate within 0.002 of the quadrature reference (not of a table
    made by mc_tco's own estimator)."""
    s1, st = _borehole_by_definition()
    res = sums_of(qmc_outputs(tf.borehole(), 2**14, 5), "janon").result()
    np.testing.assert_allclose(res["S1"][:, 0], s1, atol=0.002)
    np.testing.assert_allclose(res["ST"][:, 0], st, atol=0.002)


def _direct(estimator, a, b, c):
    """The estimators written out on the output vectors, per the papers (one factor)."""
    m = np.mean(np.r_[a, b, c])  # only used by the centred ones (design = A, AB_j, B)
    v = np.var(np.r_[a, b])
    if estimator == "janon":
        mu = np.mean((b + c) / 2)
        s1 = (np.mean(b * c) - mu**2) / (np.mean((b**2 + c**2) / 2) - mu**2)
        nu = np.mean((a + c) / 2)
        st = 1 - (np.mean(a * c) - nu**2) / (np.mean((a**2 + c**2) / 2) - nu**2)
    elif estimator == "martinez":
        s1 = np.corrcoef(b, c)[0, 1]
        st = 1 - np.corrcoef(a, c)[0, 1]
    elif estimator == "sobol2007":
        s1 = np.mean((b - m) * (c - a)) / v
        st = np.mean((a - m) * (a - c)) / v
    else:
        s1 = np.mean((b - m) * (c - a)) / v
        st = np.mean((a - c) ** 2) / (2 * v)
    return s1, st


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_sums_equal_the_direct_formulas(estimator):
    """One factor (K = 1), 1000 base samples, offset output: equal to 1e-10."""
    rng = np.random.default_rng(3)
    y = iid_outputs(tf.ishigami(), 1000, rng)[:, [0, 2, 4]] + 50.0  # A, AB_2, B
    res = sums_of(y, estimator).result()
    s1, st = _direct(estimator, y[:, 0, 0], y[:, 2, 0], y[:, 1, 0])
    assert res["S1"][0, 0] == pytest.approx(s1, abs=1e-10)
    assert res["ST"][0, 0] == pytest.approx(st, abs=1e-10)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_every_estimator_streams_and_merges(estimator):
    y = qmc_outputs(tf.sobol_g(), 1024, 2)
    shift = y[0, 0]

    def total(bounds):
        acc = SobolSums(8, False, shift, 10, estimator, moments=True)
        for s, e in bounds:
            part = SobolSums(8, False, shift, 10, estimator, moments=True)
            part.add(y[s:e], poisson_weights(4, s, e, 10))
            acc = acc + part
        return acc

    one, many = total([(0, 1024)]), total([(0, 256), (256, 768), (768, 1024)])
    for ci in ("bootstrap", "asymptotic"):
        a, b = one.result(ci=ci), many.result(ci=ci)
        for name in ("S1", "ST", "S1_conf", "ST_conf"):
            np.testing.assert_allclose(a[name], b[name], rtol=1e-9, atol=1e-13)


def test_openturns_martinez_equals_ours():
    ot = pytest.importorskip("openturns")
    f, n = tf.ishigami(), 512
    y = iid_outputs(f, n, np.random.default_rng(8))
    order = [0, 4, 1, 2, 3]  # A, B, E_1..E_3 (E_i = AB_i) for OpenTURNS
    x = np.zeros(((f.dim + 2) * n, f.dim))  # the inputs are not used by the estimators
    yb = ot.Sample(y[:, order, :].transpose(1, 0, 2).reshape(-1, 1))
    algo = ot.MartinezSensitivityAlgorithm(ot.Sample(x), yb, n)
    res = sums_of(y, "martinez").result()
    np.testing.assert_allclose(np.array(algo.getFirstOrderIndices()), res["S1"][:, 0],
                               atol=1e-10)
    np.testing.assert_allclose(np.array(algo.getTotalOrderIndices()), res["ST"][:, 0],
                               atol=1e-10)


# ------------------------------------------------------------------- intervals


@pytest.mark.parametrize("name", ["ishigami", "linear"])
def test_asymptotic_intervals_cover_at_nominal_rate_on_iid_samples(name):
    """200 iid Monte Carlo replications at N = 1024; 95% intervals of every estimator.

    Coverage averaged over the indices within [0.92, 0.98], every index within
    [0.88, 0.99] (indices that are exactly 0 and estimated as exactly 0 count as covered).
    """
    f = FUNCTIONS[name]
    rng = np.random.default_rng(11)
    hits = {e: [] for e in ESTIMATORS}
    for _ in range(200):
        y = iid_outputs(f, 1024, rng)
        for est in ESTIMATORS:
            r = sums_of(y, est, moments=True).result(ci="asymptotic")
            hits[est].append(np.r_[np.abs(r["S1"][:, 0] - f.s1) <= r["S1_conf"][:, 0],
                                   np.abs(r["ST"][:, 0] - f.st) <= r["ST_conf"][:, 0]])
    for est, h in hits.items():
        rate = np.mean(h, axis=0)
        assert 0.92 <= rate.mean() <= 0.98, (est, rate)
        assert np.all((rate >= 0.88) & (rate <= 0.99 + 1e-9) | (rate == 1)), (est, rate)


def test_asymptotic_halfwidth_matches_the_bootstrap_on_iid_samples():
    """N = 4096 iid: both estimate the same sampling sd; ratio within [0.8, 1.25]."""
    f = tf.sobol_g()
    y = iid_outputs(f, 4096, np.random.default_rng(5))
    for est in ESTIMATORS:
        s = sums_of(y, est, moments=True, resamples=400, seed=2)
        asy, boot = s.result(ci="asymptotic"), s.result(ci="bootstrap")
        for name in ("S1_conf", "ST_conf"):
            ratio = asy[name] / boot[name]
            assert np.all((ratio > 0.8) & (ratio < 1.25)), (est, name, ratio.ravel())


@pytest.mark.slow
def test_rqmc_intervals_cover_at_nominal_rate():
    """200 replications of R = 8 scrambles x 256 base samples of Ishigami, 95% intervals.

    Coverage averaged over the 6 indices within [0.92, 0.99], each within [0.88, 0.99]
    (the t interval on scrambled-net estimates is slightly conservative: ~0.97).
    """
    f, r, n = tf.ishigami(), 8, 256
    seeds = rqmc_seeds(99, 200 * r)
    hits = []
    for rep in range(200):
        reps = [sums_of(qmc_outputs(f, n, s), shift=np.zeros(1))
                for s in seeds[rep * r : (rep + 1) * r]]
        res = rqmc_result(reps)
        hits.append(np.r_[np.abs(res["S1"][:, 0] - f.s1) <= res["S1_conf"][:, 0],
                          np.abs(res["ST"][:, 0] - f.st) <= res["ST_conf"][:, 0]])
    rate = np.mean(hits, axis=0)
    assert 0.92 <= rate.mean() <= 0.99, rate
    assert np.all((rate >= 0.88) & (rate <= 0.99)), rate



def test_st_half_width_is_the_larger_of_the_t_and_the_log_scale_interval():
    """The stored ST half-width, written out with numpy/scipy from the replicate estimates:
    max(t sd / sqrt(R), ST (exp(t sd(log ST_r) / sqrt(R)) - 1)); S1 keeps the plain t
    interval. Sobol' G with 12 inputs at a = 0.5 (heavy-tailed: the log side is wider for
    some inputs) and the linear model with an input of no effect (ST_r = 0: no log side)."""
    from scipy import stats

    for f in (tf.sobol_g(np.full(12, 0.5)), tf.linear()):
        seeds = rqmc_seeds(5, 8)
        ys = [qmc_outputs(f, 64, s) for s in seeds]
        res = rqmc_result([sums_of(y, shift=ys[0][0, 0]) for y in ys])
        rep = res["ST_rep"][:, :, 0]
        tq = stats.t.ppf(0.975, 7)
        plain = tq * rep.std(axis=0, ddof=1) / np.sqrt(8)
        pos = (rep > 0).all(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_side = res["ST"][:, 0] * np.expm1(
                tq * np.log(rep).std(axis=0, ddof=1) / np.sqrt(8))
        want = np.where(pos, np.maximum(plain, log_side), plain)
        np.testing.assert_allclose(res["ST_conf"][:, 0], want, rtol=1e-12, atol=1e-15)
        s1_plain = tq * res["S1_rep"][:, :, 0].std(axis=0, ddof=1) / np.sqrt(8)
        np.testing.assert_allclose(res["S1_conf"][:, 0], s1_plain, rtol=1e-12)
        assert np.isnan(res["ST_conf_log"][:, 0][~pos]).all()
        if f.name == "sobol_g":  # heavy-tailed: the log side is the wider one somewhere
            assert (log_side[pos] > plain[pos]).any()
        else:  # the input of no effect has ST_r = 0: the plain t interval (0)
            assert not pos.all()


def test_a_replicate_at_rounding_noise_keeps_the_plain_interval():
    """A replicate ST of 3.9e-31 (an input whose rows differ from the base rows in their
    last bits, as two kernels rounding a cell differently gave) beside 6e-5: the log scale
    would give 6e-5 (exp(t sd(log ST_r) / sqrt(R)) - 1), about 3e3; below LOG_FLOOR it does
    not apply and the half-width is the plain t one, written out here."""
    from scipy import stats

    from mc_tco.sensitivity.sobol.rqmc import LOG_FLOOR, log_scale_halfwidth

    rep = np.array([[6e-5], [5e-5], [7e-5], [3.9e-31], [6.5e-5], [5.5e-5], [6e-5], [6e-5]])
    tq = stats.t.ppf(0.975, 7)
    pooled = np.array([6e-5])
    with np.errstate(divide="ignore"):
        unguarded = pooled * np.expm1(tq * np.log(rep).std(axis=0, ddof=1) / np.sqrt(8))
    assert unguarded[0] > 1e3  # what the log side was
    assert np.isnan(log_scale_halfwidth(rep, pooled, tq)).all()
    assert LOG_FLOOR < 1e-9
    above = rep.copy()
    above[3] = 2 * LOG_FLOOR  # a tiny but representable index: the log side applies
    assert np.isfinite(log_scale_halfwidth(above, pooled, tq)).all()


@pytest.mark.slow
def test_rqmc_is_far_narrower_than_the_bootstrap_on_borehole_and_covers():
    """Borehole, R = 8 scrambles of 2^12: the row bootstrap on the pooled 2^15 rows is more
    than 4x wider than the RQMC interval for every index above 0.005 (more than 10x for
    rw; observed 5x to 18x), and the RQMC interval still covers the reference value."""
    f = tf.borehole()
    ys = [xr.DataArray(qmc_outputs(f, 2**12, s).reshape(-1), dims="row")
          for s in rqmc_seeds(7, 8)]
    rq = sobol_indices_rqmc(ys, list(f.names))
    pooled = xr.concat(ys, dim="row")
    boot = sobol_indices(pooled, list(f.names), resamples=200)
    big = f.s1 > 0.005  # rw, Hu, Hl, L, Kw
    assert np.all(boot.S1_conf.values[big] > 4 * rq.S1_conf.values[big])
    assert boot.S1_conf.values[0] > 10 * rq.S1_conf.values[0]
    assert np.all(np.abs(rq.S1.values - f.s1)[big] <= rq.S1_conf.values[big] + f.error)
    assert rq.sizes == {"input": 8, "replicate": 8}
    assert rq.attrs["ci_method"] == "rqmc" and "8 independent scrambles" in rq.attrs["method"]


def test_rqmc_seeds_are_reproducible_distinct_and_prefix_stable():
    s8 = rqmc_seeds(5, 8)
    assert s8 == rqmc_seeds(5, 8) and s8[:4] == rqmc_seeds(5, 4)
    assert len(set(s8)) == 8 and all(0 <= s < 2**63 for s in s8)
    assert rqmc_seeds(6, 8) != s8


def test_sums_with_a_nan_shift_still_merge():
    """A cell whose first output is NaN: the merge must not mistake NaN != NaN for a
    different shift."""
    shift = np.array([np.nan, 1.0])
    a, b = SobolSums(1, False, shift), SobolSums(1, False, shift.copy())
    a.add(np.ones((4, 3, 2)))
    b.add(np.ones((4, 3, 2)))
    assert (a + b).n == 8


def test_rqmc_result_needs_one_shift():
    f = tf.linear()
    a = sums_of(qmc_outputs(f, 64, 1))
    b = sums_of(qmc_outputs(f, 64, 2))
    with pytest.raises(ValueError, match="same shift"):
        rqmc_result([a, b])


# ------------------------------------------------------------------- second order


def test_second_order_intervals_every_method():
    """Ishigami with second order: bootstrap S2_conf within [0.7, 1.4] of SALib's (same
    resamples count); RQMC (R = 8 x 2^11) covers the analytic S2 within 0.02; asymptotic
    S2_conf is NaN by design (documented)."""
    f = tf.ishigami()
    v = 0.5 * (1 + 0.1 * np.pi**4 / 5) ** 2 + 49 / 8 + 0.01 * np.pi**8 * (1 / 18 - 1 / 50)
    s2_13 = 0.01 * np.pi**8 * (1 / 18 - 1 / 50) / v
    y = qmc_outputs(f, 2048, 3, second_order=True)
    ref = salib_analyze.analyze({"num_vars": 3, "names": list(f.names), "bounds": [[0, 1]] * 3},
                                y.reshape(-1), calc_second_order=True, num_resamples=500,
                                seed=2)
    boot = sums_of(y, resamples=500, seed=1, second_order=True).result()
    upper = np.triu_indices(3, 1)
    np.testing.assert_allclose(boot["S2"][..., 0][upper], ref["S2"][upper], atol=1e-10)
    ratio = boot["S2_conf"][..., 0][upper] / ref["S2_conf"][upper]
    assert np.all((ratio > 0.7) & (ratio < 1.4)), ratio
    reps = [sums_of(qmc_outputs(f, 2048, s, True), second_order=True, shift=np.zeros(1))
            for s in rqmc_seeds(3, 8)]
    rq = rqmc_result(reps)
    exact = np.array([0.0, s2_13, 0.0])
    got, half = rq["S2"][..., 0][upper], rq["S2_conf"][..., 0][upper]
    assert np.all(np.isfinite(half)) and np.all(np.abs(got - exact) < 0.02)
    asy = sums_of(y, moments=True, second_order=True).result(ci="asymptotic")
    assert np.isnan(asy["S2_conf"]).all() and np.isfinite(asy["S1_conf"]).all()


# ------------------------------------------------------------------- degenerate cases


def _degenerate_outputs():
    """Cells: varying, constant, all-zero indicator, indicator 1 in one A row only."""
    u = SaltelliDesign(3, 0).rows(0, 256)
    x = u[..., 0] + u[..., 1] ** 2
    rare = np.zeros_like(x)
    rare[5, 0] = 1.0  # varies in A only: B and every AB_j are constant
    return np.stack([x, np.full_like(x, 3.0), np.zeros_like(x), rare], axis=-1)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_constant_outputs_give_nan_without_warnings_for_every_method(estimator):
    y = _degenerate_outputs()
    s = sums_of(y, estimator, moments=True, resamples=20)
    for ci in ("bootstrap", "asymptotic", "none"):
        res = s.result(ci=ci)
        assert np.isfinite(res["S1"][:, 0]).all() and np.isfinite(res["ST"][:, 0]).all()
        assert np.isnan(res["S1"][:, 1:3]).all() and np.isnan(res["ST"][:, 1:3]).all()
        assert np.isnan(res["S1_conf"][:, 1:3]).all() and np.isnan(res["ST_conf"][:, 1:3]).all()
        assert list(res["constant"]) == [False, True, True, False]
    reps = [sums_of(y[i::4], estimator, shift=y[0, 0]) for i in range(4)]
    rq = rqmc_result(reps)
    assert np.isfinite(rq["S1_conf"][:, 0]).all()
    assert np.isnan(rq["S1"][:, 1:3]).all() and np.isnan(rq["ST_conf"][:, 1:]).all()


def test_flag_negative():
    est = np.array([-0.02, -0.005, 0.3, np.nan, -0.1])
    half = np.array([0.01, 0.01, 0.01, 0.01, np.nan])
    assert flag_negative(est, half).tolist() == [True, False, False, False, False]
    da = xr.DataArray(est, dims="input")
    assert flag_negative(da, xr.DataArray(half, dims="input")).values.tolist()[0] is True


# ------------------------------------------------------------------- API


def test_bad_options_say_what_to_do():
    with pytest.raises(ValueError, match="unknown estimator 'foo'; use one of saltelli"):
        SobolSums(3, False, np.zeros(1), estimator="foo")
    s = sums_of(qmc_outputs(tf.linear(), 64, 0))
    with pytest.raises(ValueError, match="moments=True"):
        s.result(ci="asymptotic")
    with pytest.raises(ValueError, match="resamples"):
        s.result(ci="bootstrap")
    with pytest.raises(ValueError, match="rqmc_result"):
        s.result(ci="rqmc")
    with pytest.raises(ValueError, match="different settings"):
        s + SobolSums(6, False, s.shift, estimator="janon")
    with pytest.raises(ValueError, match="rows per base sample"):
        s.add(np.zeros((4, 5, 1)))


def test_ci_method_text_names_the_method_and_its_assumption():
    assert ci_method_text("rqmc", 0.95, replicates=8, seed=3).startswith(
        "95% randomized-QMC t interval over 8 independent scrambles")
    assert "SeedSequence(3).spawn(8)" in ci_method_text("rqmc", 0.95, replicates=8, seed=3)
    assert "overstates" in ci_method_text("bootstrap", 0.9, resamples=100)
    assert "delta-method" in ci_method_text("asymptotic", 0.95, estimator="janon")
    assert "janon" in ci_method_text("asymptotic", 0.95, estimator="janon")
    with pytest.raises(ValueError, match="unknown ci"):
        ci_method_text("jackknife", 0.95)


def test_sobol_indices_records_the_method():
    f = tf.ishigami()
    y = xr.DataArray(qmc_outputs(f, 512, 0).reshape(-1), dims="row")
    ds = sobol_indices(y, list(f.names), ci="asymptotic", estimator="janon")
    assert ds.attrs["ci_method"] == "asymptotic" and ds.attrs["estimator"] == "janon"
    assert np.isfinite(ds.S1_conf.values).all()
    boot = sobol_indices(y, list(f.names))
    assert boot.attrs["ci_method"] == "bootstrap" and boot.attrs["resamples"] == 100
