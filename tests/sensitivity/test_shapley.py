"""Shapley effects: closed forms (linear-Gaussian, Ishigami, additive), half-widths, SALib."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mc_tco.models.testfunctions import ishigami
from mc_tco.sensitivity.shapley import (
    evaluation_count,
    linear_gaussian_shapley,
    shapley_effects,
)

# Owen & Prieur (2017), Iooss & Prieur (2019): Y = X1 + X2 + X3, X ~ N(0, diag(1, 1, 4)),
# corr(X2, X3) = 0.9.
OWEN_SD = np.array([1.0, 1.0, 2.0])
OWEN_R = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.9], [0.0, 0.9, 1.0]])
OWEN_SHAPLEY = np.array([0.10417, 0.41823, 0.47760])


def normal_ppf(sd):
    return [lambda u, s=s: stats.norm.ppf(u, scale=s) for s in sd]


def covers(res, truth, cell=0):
    err = np.abs(res["shapley"][cell] - truth)
    return np.all(err <= res["shapley_conf"][cell]), err


def random_correlation(rng, d):
    g = rng.standard_normal((d, d + 1))
    c = g @ g.T
    s = np.sqrt(np.diag(c))
    return c / np.outer(s, s)


# ------------------------------------------------------------------ the closed form


def test_linear_gaussian_closed_form_owen_prieur():
    cov = OWEN_R * np.outer(OWEN_SD, OWEN_SD)
    assert linear_gaussian_shapley([1, 1, 1], cov) == pytest.approx(OWEN_SHAPLEY, abs=5e-6)


def test_linear_gaussian_closed_form_independent_and_two_inputs():
    beta, sd = np.array([1.0, -2.0, 0.5]), np.array([2.0, 1.0, 3.0])
    share = (beta * sd) ** 2 / np.sum((beta * sd) ** 2)
    assert linear_gaussian_shapley(beta, np.diag(sd**2)) == pytest.approx(share)
    # two inputs: Sh1 = (Var E[Y|X1] + Var Y - Var E[Y|X2]) / 2 / Var Y, by hand
    rho = 0.6
    assert linear_gaussian_shapley([1, 1], [[1, rho], [rho, 1]]) == pytest.approx([0.5, 0.5])
    # X2 has sd 2: Var E[Y | X1] = Var((1 + 2 rho) X1), Var E[Y | X2] = Var((1 + rho/2) X2)
    cov2 = np.array([[1.0, rho * 2], [rho * 2, 4.0]])
    v2 = 1 + 4 + 4 * rho
    c1 = (1 + 2 * rho) ** 2
    c2 = (2 + rho) ** 2
    expect = np.array([c1 + v2 - c2, c2 + v2 - c1]) / 2 / v2
    assert linear_gaussian_shapley([1, 1], cov2) == pytest.approx(expect)


# ------------------------------------------------------------------ the estimator


@pytest.mark.parametrize("method", ["random", "exact"])
def test_owen_prieur_example(method):
    kw = {"n_perm": 2048} if method == "random" else {"n_outer": 2048}
    res = shapley_effects(lambda x: x.sum(axis=1), normal_ppf(OWEN_SD), OWEN_R,
                          method=method, seed=11, conf_level=0.99, **kw)
    ok, _ = covers(res, OWEN_SHAPLEY)
    assert ok, (res["shapley"], res["shapley_conf"])
    assert res["shapley_conf"][0].max() < 0.05
    assert res["shapley"].sum() == pytest.approx(1.0)
    assert res["evaluations"] == evaluation_count(3, method=method, **kw)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_random_covariance_non_normal_margins(seed):
    """Y = beta^T Phi^-1(F(X)) with lognormal / uniform / gamma margins in a Gaussian copula
    is the linear-Gaussian model on the normal scores: same Shapley effects (checks the
    conditional sampling on the normal scores and the ppf plumbing)."""
    rng = np.random.default_rng(seed)
    d = 4
    r = random_correlation(rng, d)
    beta = rng.uniform(-2, 2, d)
    margins = [stats.lognorm(0.8), stats.uniform(10, 5), stats.gamma(2.0), stats.norm(3, 2)]

    def evaluate(x):
        z = np.column_stack([stats.norm.ppf(m.cdf(x[:, j])) for j, m in enumerate(margins)])
        return z @ beta

    truth = linear_gaussian_shapley(beta, r)
    res = shapley_effects(evaluate, [m.ppf for m in margins], r, n_perm=1024, seed=seed,
                          conf_level=0.99)
    ok, _ = covers(res, truth)
    assert ok, (res["shapley"], truth, res["shapley_conf"])


def test_exact_method_random_covariance():
    rng = np.random.default_rng(5)
    d = 5
    r = random_correlation(rng, d)
    sd = rng.uniform(0.5, 2.0, d)
    beta = rng.uniform(-1, 2, d)
    truth = linear_gaussian_shapley(beta, r * np.outer(sd, sd))
    res = shapley_effects(lambda x: x @ beta, normal_ppf(sd), r, method="exact",
                          n_outer=256, seed=3, conf_level=0.99)
    ok, _ = covers(res, truth)
    assert ok, (res["shapley"], truth, res["shapley_conf"])


def ishigami_shapley(a=7.0, b=0.1):
    """Independent inputs: each input gets its main effect plus an equal share of its
    interactions; Ishigami's only interaction is V13."""
    v1 = 0.5 * (1 + b * np.pi**4 / 5) ** 2
    v2 = a**2 / 8
    v13 = b**2 * np.pi**8 * (1 / 18 - 1 / 50)
    return np.array([v1 + v13 / 2, v2, v13 / 2]) / (v1 + v2 + v13)


def ishigami_on_x():
    f = ishigami()
    return (lambda x: f((x / np.pi + 1) / 2)), [lambda u: np.pi * (2 * u - 1)] * 3


def test_ishigami():
    assert ishigami_shapley() == pytest.approx([0.4358, 0.4424, 0.1218], abs=1e-4)
    evaluate, ppf = ishigami_on_x()
    res = shapley_effects(evaluate, ppf, n_perm=4096, seed=4, conf_level=0.99)
    ok, _ = covers(res, ishigami_shapley())
    assert ok, (res["shapley"], res["shapley_conf"])


def test_additive_independent_equals_s1_and_st():
    """Independent inputs, additive model: Shapley = S1 = ST = Var(g_i(X_i)) / Var(Y)."""
    margins = [stats.uniform(0, 1), stats.expon(), stats.norm(0, 0.5)]
    # g1 = 3 x (var 9/12), g2 = x^2 (Exp(1): var E[x^4] - 4 = 20), g3 = x (var 0.25)
    parts = np.array([9 / 12, 20.0, 0.25])
    evaluate = lambda x: 3 * x[:, 0] + x[:, 1] ** 2 + x[:, 2]  # noqa: E731
    res = shapley_effects(evaluate, [m.ppf for m in margins], n_perm=1024, n_var=2**15,
                          seed=6, conf_level=0.99)
    ok, _ = covers(res, parts / parts.sum())
    assert ok, (res["shapley"], parts / parts.sum(), res["shapley_conf"])


def test_vector_outputs_zero_variance_and_chunking():
    """K cells in one pass: scaled copies share the effects, a constant cell is NaN, and
    the result does not depend on how the rows are split into evaluate calls."""
    scales = np.array([1.0, -3.0, 0.0, 10.0])
    calls = []

    def evaluate(x):
        calls.append(len(x))
        y = (x.sum(axis=1))[:, None] * scales[None, :] + 5.0
        y[:, 2] += 5e-14 * np.sin(x[:, 0])  # rounding-level noise: still constant
        return y

    kw = {"n_perm": 64, "n_var": 256, "seed": 9}
    res = shapley_effects(evaluate, normal_ppf(OWEN_SD), OWEN_R, max_rows=2**14, **kw)
    assert res["shapley"].shape == res["shapley_conf"].shape == (4, 3)
    assert np.isnan(res["shapley"][2]).all() and np.isnan(res["shapley_conf"][2]).all()
    assert np.allclose(res["shapley"][[0, 1, 3]], res["shapley"][0])
    assert np.allclose(np.nansum(res["shapley"], axis=1)[[0, 1, 3]], 1.0)
    # per permutation: the outer draw's row, then 2 fresh inner rows for each of d - 1 = 2 sets
    assert sum(calls) == res["evaluations"] == 256 + 64 * (1 + 2 * 2)
    small = shapley_effects(evaluate, normal_ppf(OWEN_SD), OWEN_R, max_rows=50, **kw)
    assert np.allclose(small["shapley"], res["shapley"], equal_nan=True, rtol=1e-12)


def test_threads_give_the_same_numbers_and_match_the_closed_form():
    """Blocks of rows evaluated on 3 threads: bit for bit the result of one thread (sums
    added in block order), and the Owen-Prieur closed form within the half-widths."""
    kw = {"n_perm": 600, "n_var": 2048, "seed": 4, "max_rows": 200}

    def evaluate(x):
        return x.sum(axis=1)

    one = shapley_effects(evaluate, normal_ppf(OWEN_SD), OWEN_R, **kw)
    three = shapley_effects(evaluate, normal_ppf(OWEN_SD), OWEN_R, workers=3, **kw)
    assert np.array_equal(one["shapley"], three["shapley"])
    assert np.array_equal(one["shapley_conf"], three["shapley_conf"])
    assert covers(three, OWEN_SHAPLEY)[0]
    with pytest.raises(ValueError, match="workers"):
        shapley_effects(evaluate, normal_ppf(OWEN_SD), OWEN_R, workers=0, **kw)


def test_stratified_permutations():
    res = shapley_effects(lambda x: x.sum(axis=1), normal_ppf(OWEN_SD), OWEN_R, n_perm=1000,
                          seed=2, stratified=True, conf_level=0.99)
    ok, _ = covers(res, OWEN_SHAPLEY)
    assert ok, (res["shapley"], res["shapley_conf"])
    assert res["evaluations"] == 4096 + 1002 * (1 + 2 * 2) == evaluation_count(
        3, n_perm=1000, stratified=True)
    with pytest.raises(ValueError, match="two groups"):
        shapley_effects(lambda x: x.sum(1), normal_ppf(OWEN_SD), n_perm=3, stratified=True)


def test_half_widths_cover_at_their_level():
    """Over 40 independent runs the 95% half-widths cover the closed form about 95% of the
    time (binomial: >= 85% of 120 (run, input) pairs with probability > 0.999)."""
    cov = OWEN_R * np.outer(OWEN_SD, OWEN_SD)
    truth = linear_gaussian_shapley([1, 1, 1], cov)
    hits = []
    for seed in range(40):
        res = shapley_effects(lambda x: x.sum(axis=1), normal_ppf(OWEN_SD), OWEN_R,
                              n_perm=128, n_var=512, seed=seed)
        hits.append(np.abs(res["shapley"][0] - truth) <= res["shapley_conf"][0])
    assert np.mean(hits) >= 0.85


def test_cross_check_salib_ishigami():
    """SALib 1.6 (Goda 2021, independent inputs only) agrees within the combined
    half-widths. A cross-check, not the implementation."""
    salib_sample = pytest.importorskip("SALib.sample.shapley")
    salib_analyze = pytest.importorskip("SALib.analyze.shapley")
    problem = {"num_vars": 3, "names": ["x1", "x2", "x3"], "bounds": [[-np.pi, np.pi]] * 3}
    x = salib_sample.sample(problem, 2**13, seed=1)
    evaluate, ppf = ishigami_on_x()
    theirs = salib_analyze.analyze(problem, x, evaluate(x), conf_level=0.99)
    ours = shapley_effects(evaluate, ppf, n_perm=4096, seed=1, conf_level=0.99)
    gap = np.abs(ours["shapley"][0] - theirs["shapley_normalized"])
    allowed = np.hypot(ours["shapley_conf"][0], theirs["shapley_normalized_conf"])
    assert np.all(gap <= allowed), (ours["shapley"], theirs["shapley_normalized"])


def test_bad_arguments():
    ppf = normal_ppf(OWEN_SD)
    with pytest.raises(ValueError, match="shape"):
        shapley_effects(lambda x: x.sum(1), ppf, np.eye(2))
    with pytest.raises(ValueError, match="n_inner >= 2"):
        shapley_effects(lambda x: x.sum(1), ppf, n_inner=1)
    with pytest.raises(ValueError, match="n_outer >= 2"):
        shapley_effects(lambda x: x.sum(1), ppf, method="exact", n_outer=1)
    with pytest.raises(ValueError, match="method"):
        shapley_effects(lambda x: x.sum(1), ppf, method="owen")


def test_evaluation_count_d30_default():
    assert evaluation_count(30) == 4096 + 2048 * (1 + 29 * 2) == 124_928
    assert evaluation_count(30, shared=False) == 4096 + 2048 * 29 * 3 == 182_272
    assert evaluation_count(3, method="exact", n_outer=10) == 4096 + 6 * 10 * 3


def _random_linear_case(seed, d, density, smallest):
    """``beta`` uniform in (smallest, 2) and a random covariance (a sparse factor plus the
    identity: correlated pairs and triples) of a linear-Gaussian case, with its SDs."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((d, d)) * (rng.uniform(size=(d, d)) < density)
    cov = a @ a.T + np.eye(d)
    return rng.uniform(smallest, 2.0, d), cov, np.sqrt(np.diag(cov))


@pytest.mark.parametrize("shared", [True, False])
def test_shared_and_fresh_inner_draws_cover_the_closed_form(shared):
    """Both estimators (the outer draw as every set's first inner draw, or Song et al.'s
    fresh inner draws) cover the closed form of a 6-input linear-Gaussian case with
    correlated pairs; the shared one evaluates its outer rows once per permutation."""
    d = 6
    beta, cov, sd = _random_linear_case(3, d, density=0.3, smallest=0.5)
    calls = []

    def evaluate(x):
        calls.append(len(x))
        return x @ beta

    res = shapley_effects(evaluate, normal_ppf(sd), cov / np.outer(sd, sd), n_perm=2000,
                          n_var=8000, seed=11, conf_level=0.99, shared=shared)
    ok, _ = covers(res, linear_gaussian_shapley(beta, cov))
    assert ok, (res["shapley"], linear_gaussian_shapley(beta, cov), res["shapley_conf"])
    per_perm = 1 + (d - 1) * 2 if shared else (d - 1) * 3
    assert sum(calls) == res["evaluations"] == 8000 + 2000 * per_perm


def test_shared_inner_draws_are_as_precise_for_fewer_rows():
    """Over 30 seeds at the same permutations, the shared estimator's error on a 10-input
    linear-Gaussian case is within 15% of the fresh one's (measured: 0.024 against 0.027
    root-mean-square) for 19 rows a permutation instead of 27; each is unbiased (mean
    error within 3 standard errors of 0)."""
    beta, cov, sd = _random_linear_case(1, 10, density=0.2, smallest=0.2)
    truth = linear_gaussian_shapley(beta, cov)
    errors = {}
    for shared in (True, False):
        est = np.array([shapley_effects(lambda x: x @ beta, normal_ppf(sd),
                                        cov / np.outer(sd, sd), n_perm=256, n_var=1024,
                                        seed=s, shared=shared)["shapley"][0]
                        for s in range(30)])
        err = est - truth
        assert np.all(np.abs(err.mean(0)) <= 3 * err.std(0, ddof=1) / np.sqrt(30) + 1e-3)
        errors[shared] = np.sqrt((err**2).mean())
    assert errors[True] <= 1.15 * errors[False], errors
