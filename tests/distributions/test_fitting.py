"""Fitting the book's families to data (issue 25 item 8): scipy's maximum likelihood,
AIC, BIC and KS by their definitions, the true family first on clear cases, and a block
that a book loads to the same distribution."""

import math

import numpy as np
import pytest
from scipy import stats

from mc_tco.book import loads_book
from mc_tco.distributions.family_base import FieldProblem
from mc_tco.distributions.fitting import CANDIDATES, fit_curves, fit_data, toml_block

#: the two-parameter families (fast fits); student_t and triangular are in the gamma case
QUICK = ["normal", "lognormal", "gamma", "weibull", "loglogistic", "exponential", "gumbel",
         "gumbel_min", "uniform", "loguniform", "beta"]


@pytest.mark.parametrize(("family", "dist", "truth", "families"), [
    ("gamma", stats.gamma(2.5, scale=18), {"shape": 2.5, "scale": 18}, None),
    ("lognormal", stats.lognorm(0.5, scale=20), {"median": 20, "sigma": 0.5}, QUICK),
    ("weibull", stats.weibull_min(1.5, scale=40), {"shape": 1.5, "scale": 40}, QUICK),
    ("normal", stats.norm(5, 2), {"mean": 5, "sd": 2}, QUICK),
    ("gumbel", stats.gumbel_r(100, 15), {"loc": 100, "scale": 15}, QUICK),
    ("beta", stats.beta(2, 5), {"a": 2, "b": 5}, QUICK),
])
def test_a_large_sample_gives_back_its_family_first_and_its_parameters(family, dist, truth,
                                                                      families):
    x = dist.rvs(4000, random_state=np.random.default_rng(11))
    res = fit_data(x, families)
    assert res.best.family == family, [(f.family, round(f.aic, 1)) for f in res.fits[:3]]
    assert res.delta_aic[1] > 10  # decisive (Burnham and Anderson)
    for k, v in truth.items():
        assert res.best.params[k] == pytest.approx(v, rel=0.06), (k, res.best.params)
    assert res.best.ks_p > 0.01


def test_aic_bic_and_ks_are_their_definitions_on_the_normal():
    x = stats.norm(3, 0.5).rvs(500, random_state=np.random.default_rng(2))
    res = fit_data(x, ["normal"])
    f = res.best
    n, sd = x.size, x.std()  # the MLE: the mean and the sd with 1/n
    assert f.params == pytest.approx({"mean": x.mean(), "sd": sd}, rel=1e-9)
    loglik = -n / 2 * (math.log(2 * math.pi * sd**2) + 1)  # closed form at the MLE
    assert f.loglik == pytest.approx(loglik, rel=1e-10)
    assert f.aic == pytest.approx(4 - 2 * loglik, rel=1e-10)
    assert f.bic == pytest.approx(2 * math.log(n) - 2 * loglik, rel=1e-10)
    ks = stats.kstest(x, stats.norm(x.mean(), sd).cdf)
    assert (f.ks_d, f.ks_p) == pytest.approx((ks.statistic, ks.pvalue), rel=1e-9)


def test_families_that_cannot_hold_the_values_are_skipped_saying_why():
    x = stats.norm(0, 1).rvs(200, random_state=np.random.default_rng(3))
    res = fit_data(x)
    assert res.skipped == {
        "lognormal": "needs every value above 0", "gamma": "needs every value above 0",
        "weibull": "needs every value above 0", "loglogistic": "needs every value above 0",
        "exponential": "needs every value at least 0",
        "loguniform": "needs every value above 0",
        "beta": "needs every value strictly between 0 and 1",
    }
    assert {f.family for f in res.fits} | set(res.skipped) == set(CANDIDATES)
    assert [f.aic for f in res.fits] == sorted(f.aic for f in res.fits)
    assert sorted(res.bic_rank) == list(range(1, len(res.fits) + 1))


def test_the_uniforms_are_the_range_in_closed_form():
    x = stats.uniform(2, 3).rvs(300, random_state=np.random.default_rng(4))
    f = fit_data(x, ["uniform"]).best
    assert f.params == {"low": x.min(), "high": x.max()}
    assert f.loglik == pytest.approx(-x.size * math.log(x.max() - x.min()), rel=1e-12)


@pytest.mark.parametrize(("values", "families", "fragment"), [
    (np.arange(5.0), None, "5 values are too few to fit a family to; give at least 10"),
    (np.full(12, 3.0), None, 'every value is 3: a constant, no family to fit; write dist = '
                             '"constant", value = 3'),
    (np.arange(1.0, 30), ["pert"], "cannot fit 'pert' to data"),
    (-np.arange(1.0, 30), ["gamma"], "no family could be fitted: gamma needs every value"),
])
def test_refusals(values, families, fragment):
    with pytest.raises(FieldProblem, match=fragment):
        fit_data(values, families)


def test_the_printed_block_loads_through_the_book_to_the_fitted_distribution():
    x = stats.weibull_min(1.5, scale=40).rvs(1000, random_state=np.random.default_rng(5))
    res = fit_data(x, QUICK)
    for f in res.fits:
        block = toml_block("x", f.family, f.params, 'data "a.csv", 1,000 rows')
        inp = loads_book(f'[book]\nname = "t"\n\n{block}').inputs["x"]
        assert inp.family == f.family and inp.source == 'data "a.csv", 1,000 rows'
        q = [0.01, 0.25, 0.5, 0.75, 0.99]
        np.testing.assert_allclose(inp.quantiles(q), f.dist.ppf(q), rtol=2e-5)


def test_the_figures_curves_are_the_histogram_ecdf_and_fits():
    x = stats.gamma(2, scale=3).rvs(400, random_state=np.random.default_rng(6))
    res = fit_data(x, QUICK)
    c = fit_curves(res, top=2)
    density, edges = np.histogram(x, bins="auto", density=True)
    np.testing.assert_array_equal(c["density"], density)
    np.testing.assert_array_equal(c["edges"], edges)
    np.testing.assert_array_equal(c["ecdf_x"], np.sort(x))
    assert c["ecdf_y"][-1] == 1 and [f for f, _, _ in c["curves"]] == [
        f.family for f in res.fits[:2]]
    np.testing.assert_allclose(c["curves"][0][2], res.best.dist.cdf(c["x"]))
