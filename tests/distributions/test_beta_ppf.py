"""The fast beta inverse CDF (:mod:`mc_tco.distributions.beta_ppf`) against scipy's
``stats.beta.ppf``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import special, stats
from scipy.stats import qmc

from mc_tco.book import load_book
from mc_tco.distributions.beta_ppf import _solve, beta_ppf, beta_table
from mc_tco.distributions.families import FAST_PPF_MIN, U_MIN, build_distribution, ppf
from tests.paths import DEFAULT_BOOK

SHAPES = (0.3, 0.9, 1.0, 2.5, 40.0, 1e4)
EDGES = (0.0, 1e-300, 1e-12, U_MIN, 1e-6, 0.5, 1 - 1e-6, 1 - U_MIN, 1 - 1e-12, 1.0)
BOOK = DEFAULT_BOOK


def _scipy(a, b, u, loc=0.0, scale=1.0):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Error in function boost", RuntimeWarning)
        return stats.beta(a, b, loc=loc, scale=scale).ppf(u)


def _probabilities(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    tails = 10.0 ** -rng.uniform(0, 12, 300)
    return np.sort(np.concatenate([EDGES, rng.random(3000), tails, 1 - tails]))


@pytest.mark.parametrize("a", SHAPES)
@pytest.mark.parametrize("b", SHAPES)
def test_matches_scipy_and_is_monotone(a, b):
    u = _probabilities(int(a * 7 + b * 13) % 1000)
    loc, scale = -3.0, 250.0
    x = beta_ppf(a, b, u, loc, scale)
    ref = _scipy(a, b, u, loc, scale)
    assert np.array_equal(np.isnan(x), np.isnan(ref))
    assert np.nanmax(np.abs(x - ref)) <= 1e-12 * scale, (a, b)
    assert x[0] == loc and x[-1] == loc + scale                      # u = 0 and u = 1
    inner = (u >= 1e-12) & (u <= 1 - 1e-12)
    assert np.all(np.diff(x[inner]) >= 0), (a, b)


@pytest.mark.parametrize(("a", "b"), [(2.5, 40.0), (0.3, 0.9), (3.4, 2.6), (40.0, 1e4)])
def test_the_fast_path_answers_nearly_everything(a, b):
    """The table's guesses are good enough that scipy answers only u outside it (0, 1)."""
    u = np.concatenate([[0.0, 1.0], qmc.Sobol(1, seed=1).random(2**12).ravel()])
    u = np.clip(u, 0.0, 1.0)
    with np.errstate(all="ignore"):
        _, todo = _solve(beta_table(a, b), u)
    assert set(u[todo]) <= {0.0, 1.0}


def test_bad_probabilities_and_huge_shapes():
    u = np.array([np.nan, -0.5, 1.5, 0.25, 0.75])
    for a, b in [(2.5, 3.5), (1e6, 1e6), (1e6, 2.0), (0.3, 1e6)]:
        x = beta_ppf(a, b, u)
        ref = _scipy(a, b, u)
        assert np.array_equal(np.isnan(x), np.isnan(ref))
        assert np.nanmax(np.abs(x - ref)) <= 1e-12, (a, b)


def test_uniform_and_shapes():
    u = np.linspace(0, 1, 11).reshape(11, 1) * np.ones((1, 3))
    assert np.array_equal(beta_ppf(1.0, 1.0, u), u)
    assert beta_ppf(2.0, 3.0, u).shape == (11, 3)


def test_ppf_uses_it_without_boost_warnings():
    """``distributions.ppf`` takes the fast path for a beta (and keeps the warning filter for
    the values scipy answers: beta(2, 0.5) warns within 1e-8 of u = 1)."""
    dist = build_distribution("beta", {"a": 2.0, "b": 0.5, "low": 1.0, "high": 5.0})
    u = np.concatenate([np.linspace(0, 1, FAST_PPF_MIN), 1 - np.logspace(-16, -8, 64)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = ppf(dist, u)
    assert np.array_equal(x, beta_ppf(2.0, 0.5, u, 1.0, 4.0))
    near_one = u > 1 - 1e-8
    assert np.max(np.abs(x - _scipy(2.0, 0.5, u, 1.0, 4.0))[~near_one]) <= 4e-12
    # the quantile is within 1e-16 of the top there, 5.0 in floating point (scipy's ppf
    # gives 3.0, the middle, at u = 1 - 2^-53)
    assert np.all(x[near_one] == 5.0)


@pytest.mark.slow
def test_default_book_perts_at_sobol_points():
    """The default book's 34 pert inputs at 2^16 Sobol' points: the quantile's CDF gives back
    u (to the rounding of x), and ``Input.ppf`` is scipy's ppf on 2^12 of the points."""
    book = load_book(BOOK)
    perts = [inp for inp in book.uncertain if inp.family == "pert"]
    assert len(perts) == 34
    u = np.clip(qmc.Sobol(len(perts), seed=7).random(2**16), U_MIN, 1 - U_MIN)
    eps = np.finfo(float).eps
    seen = set()
    for j, inp in enumerate(perts):
        a, b = inp.dist.args
        lo, hi = inp.support()
        head = u[: 2**12, j]
        ref = np.clip(_scipy(a, b, head, **inp.dist.kwds), lo, hi)
        assert np.max(np.abs(inp.ppf(head) - ref)) <= 1e-13 * (hi - lo), inp.name
        if (a, b) in seen:                  # the same x at these points: checked already
            continue
        seen.add((a, b))
        x = beta_ppf(a, b, u[:, j])
        # the residual in the better-conditioned tail: CDF below 1/2, survival above (as
        # beta(b, a)'s CDF at 1 - x, exact for x >= 1/2; scipy's betaincc is 8x slower)
        res = np.empty_like(x)
        up = u[:, j] >= 0.5
        res[~up] = special.betainc(a, b, x[~up]) - u[~up, j]
        res[up] = special.betainc(b, a, 1 - x[up]) - (1 - u[up, j])
        pdf = stats.beta.pdf(x, a, b)
        tol = 8 * eps * np.minimum(u[:, j], 1 - u[:, j]) + 4 * pdf * np.spacing(np.maximum(x, 0.5))
        assert np.all(np.abs(res) <= tol), inp.name
