"""Matching an expert's quantiles (issue 25 item 8): the quantiles of a known PERT,
lognormal, gamma or beta give it back (least squares to round-off), the others their
closest compromise; the blocks load through the book."""

import numpy as np
import pytest
from scipy import stats

from mc_tco.book import loads_book
from mc_tco.distributions.elicit import match_curves, match_quantiles, parse_quantiles
from mc_tco.distributions.family_base import FieldProblem
from mc_tco.distributions.fitting import toml_block

P3 = np.array([0.05, 0.5, 0.95])


def _pert(lo, mode, hi):
    w = hi - lo
    return stats.beta(1 + 4 * (mode - lo) / w, 1 + 4 * (hi - mode) / w, loc=lo, scale=w)


@pytest.mark.parametrize(("family", "dist", "params", "probs"), [
    ("lognormal", stats.lognorm(0.4, scale=20), {"median": 20, "sigma": 0.4}, P3),
    ("gamma", stats.gamma(2.5, scale=8), {"shape": 2.5, "scale": 8}, P3),
    ("pert", _pert(10, 20, 50), {"min": 10, "mode": 20, "max": 50}, P3),
    ("beta", stats.beta(2, 5), {"a": 2, "b": 5}, P3),
    # more quantiles than parameters: still exact for the true family
    ("lognormal", stats.lognorm(1.1, scale=3), {"median": 3, "sigma": 1.1},
     np.array([0.1, 0.25, 0.5, 0.75, 0.9])),
])
def test_the_quantiles_of_a_known_distribution_give_it_back(family, dist, params, probs):
    q = dist.ppf(probs)
    matches, skipped = match_quantiles(probs, q)
    m = next(m for m in matches if m.family == family)
    assert m.rel_error < 1e-8, m
    np.testing.assert_allclose(m.fitted, q, rtol=1e-8)
    for k, v in params.items():
        assert m.params[k] == pytest.approx(v, rel=1e-6), (k, m.params)
    assert matches[0].rel_error <= m.rel_error + 1e-12  # smallest error first
    assert [x.rel_error for x in matches] == sorted(x.rel_error for x in matches)
    if family != "beta":
        assert skipped == {"beta": "on [0, 1] needs every value strictly between 0 and 1"}


def test_another_family_is_the_least_squares_compromise():
    """The lognormal's best to a gamma's quantiles: no other lognormal does better."""
    q = stats.gamma(2.5, scale=8).ppf(P3)
    m = next(m for m in match_quantiles(P3, q, ["lognormal"])[0])
    assert 0.005 < m.rel_error < 0.2

    def sse(median, sigma):
        return np.sum((stats.lognorm(sigma, scale=median).ppf(P3) - q) ** 2)

    best = sse(m.params["median"], m.params["sigma"])
    for dm, ds in [(1.01, 1), (0.99, 1), (1, 1.01), (1, 0.99)]:
        assert sse(m.params["median"] * dm, m.params["sigma"] * ds) > best


def test_two_quantiles_match_two_parameter_families_and_skip_the_pert():
    q = stats.lognorm(0.3, scale=5).ppf([0.1, 0.9])
    matches, skipped = match_quantiles([0.1, 0.9], q)
    assert skipped["pert"] == "has 3 parameters; give at least 3 quantiles"
    assert {m.family for m in matches} == {"lognormal", "gamma"}
    assert all(m.rel_error < 1e-8 for m in matches)


def test_negative_values_leave_the_pert():
    matches, skipped = match_quantiles(P3, [-5.0, 0.0, 12.0])
    assert [m.family for m in matches] == ["pert"] and matches[0].rel_error < 1e-8
    assert set(skipped) == {"lognormal", "gamma", "beta"}


def test_every_match_pastes_into_a_book_with_its_quantiles():
    probs, q = parse_quantiles("0.05=0.12,0.5=0.3,0.95=0.61")
    matches, _ = match_quantiles(probs, q)
    assert len(matches) == 4
    for m in matches:
        inp = loads_book('[book]\nname = "t"\n\n' + toml_block("share", m.family, m.params,
                                                               "assumption: expert"))
        np.testing.assert_allclose(inp.inputs["share"].quantiles(probs), m.fitted, rtol=1e-5)
    curves = match_curves(matches)
    assert [f for f, _ in curves["curves"]] == [m.family for m in matches]


def test_parse_quantiles_sorts_and_takes_percents():
    p, v = parse_quantiles("95%=50, 0.05=10,50%=20")
    np.testing.assert_allclose(p, P3)
    np.testing.assert_array_equal(v, [10, 20, 50])


@pytest.mark.parametrize(("text", "fragment"), [
    ("0.05=10", "give at least two quantiles"),
    ("0.05=10,0.5", "'0.5' is not P=VALUE"),
    ("0.05=ten,0.5=20", "'0.05=ten' is not two numbers"),
    ("0=1,0.5=2", "the probability 0 must lie strictly between 0 and 1"),
    ("5=1,0.5=2", "the probability 5 must lie strictly between 0 and 1"),
    ("0.05=30,0.5=20", "the values must increase with the probability"),
    ("0.5=1,0.5=2", "a probability is given twice"),
    ("0.05=inf,0.5=2", "must be finite"),
])
def test_bad_quantiles_are_refused_in_one_line(text, fragment):
    with pytest.raises(FieldProblem, match=fragment) as info:
        parse_quantiles(text)
    assert "\n" not in str(info.value) and str(info.value).startswith("--quantiles")
