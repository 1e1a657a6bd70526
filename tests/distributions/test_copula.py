"""The Gaussian copula: rank-to-normal correlation, validation, Higham, correlated sampling."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.stats import qmc

from mc_tco.distributions.copula import (
    CorrelationError,
    check_correlation_matrix,
    nearest_correlation,
    normal_correlation,
    rank_correlation,
    to_correlated_unit,
)


def sobol_unit(d, m=12, seed=3):
    return qmc.Sobol(d=d, scramble=True, seed=seed).random_base2(m)


# ------------------------------------------------------------------ rank <-> normal


@pytest.mark.parametrize("kind", ["spearman", "kendall"])
def test_normal_correlation_round_trip(kind):
    r = np.linspace(-0.95, 0.95, 39)
    assert np.allclose(rank_correlation(normal_correlation(r, kind), kind), r, atol=1e-14)
    assert normal_correlation(0.0, kind) == 0.0


def test_normal_correlation_values():
    assert normal_correlation(0.7) == pytest.approx(2 * np.sin(np.pi * 0.7 / 6))
    assert normal_correlation(0.5, "kendall") == pytest.approx(np.sin(np.pi / 4))
    with pytest.raises(ValueError, match="spearman"):
        normal_correlation(0.5, "pearson")


# ------------------------------------------------------------------ correlated sampling


@pytest.mark.parametrize(("kind", "target"), [("spearman", 0.7), ("spearman", -0.4),
                                              ("kendall", 0.5)])
def test_achieved_rank_correlation_equals_target(kind, target):
    """2^12 scrambled Sobol' points: achieved rank correlation within 0.02 of the target
    (the Monte Carlo standard error of Spearman's rho at n = 4096 is about 0.008), where
    using the target as the normal correlation (no correction) misses a 0.7 by 0.017."""
    u = sobol_unit(4)
    r = np.eye(4)
    r[0, 2] = r[2, 0] = normal_correlation(target, kind)
    x = to_correlated_unit(u, r)
    measure = stats.spearmanr if kind == "spearman" else stats.kendalltau
    achieved = measure(x[:, 0], x[:, 2]).statistic
    assert achieved == pytest.approx(target, abs=0.02)
    # uncorrelated columns stay bit-identical; margins stay uniform
    assert np.array_equal(x[:, [1, 3]], u[:, [1, 3]])
    for j in range(4):
        assert stats.kstest(x[:, j], "uniform").pvalue > 0.05
        assert np.allclose(np.quantile(x[:, j], [0.05, 0.5, 0.95]), [0.05, 0.5, 0.95],
                           atol=0.01)


def test_uncorrected_iman_conover_misses():
    """The reason for the correction: rho = rho_S gives a Spearman below the target."""
    u = sobol_unit(2, m=14)
    r = np.array([[1.0, 0.7], [0.7, 1.0]])
    achieved = stats.spearmanr(*to_correlated_unit(u, r).T).statistic
    assert achieved == pytest.approx(6 / np.pi * np.arcsin(0.35), abs=0.005)  # 0.683
    assert achieved < 0.69


def test_three_way_correlation_and_chunking():
    names = ["a", "b", "c", "d"]
    cm = check_correlation_matrix(names, [("a", "b", 0.6), ("b", "c", 0.5, "kendall"),
                                          ("a", "c", 0.4)])
    u = sobol_unit(4)
    x = to_correlated_unit(u, cm.used)
    # row by row: any chunking gives the same values, bit for bit
    parts = np.vstack([to_correlated_unit(u[s:s + 700], cm.used) for s in range(0, 4096, 700)])
    assert np.array_equal(parts, x)
    assert stats.spearmanr(x[:, 0], x[:, 1]).statistic == pytest.approx(0.6, abs=0.02)
    assert stats.kendalltau(x[:, 1], x[:, 2]).statistic == pytest.approx(0.5, abs=0.02)
    assert stats.spearmanr(x[:, 0], x[:, 2]).statistic == pytest.approx(0.4, abs=0.02)
    assert np.array_equal(x[:, 3], u[:, 3])
    assert list(cm.correlated) == [True, True, True, False]
    assert np.allclose(cm.achieved, cm.requested)


def test_extreme_points_stay_inside_unit_interval():
    u = np.array([[1e-300, 1 - 2**-53], [0.5, 0.5], [1 - 2**-53, 1 - 2**-53]])
    x = to_correlated_unit(u, [[1, 0.99], [0.99, 1]])
    assert np.all((x > 0) & (x < 1))


# ------------------------------------------------------------------ validation


NAMES = ["node_price", "gpu_rent", "api_price", "fixed_cost"]
UNCERTAIN = ["node_price", "gpu_rent", "api_price"]


@pytest.mark.parametrize(
    ("pairs", "field", "index", "message"),
    [
        ([{"between": ["node_price", "gpu_rnt"], "spearman": 0.5}], "between", 0,
         "'gpu_rnt' is not an input"),
        ([{"between": ["node_price", "fixed_cost"], "spearman": 0.5}], "between", 0,
         "'fixed_cost' is fixed"),
        ([{"between": ["node_price", "node_price"], "spearman": 0.5}], "between", 0,
         "with itself"),
        ([{"between": ["node_price", "gpu_rent"], "spearman": 0.5},
          {"between": ["gpu_rent", "node_price"], "kendall": 0.2}], "between", 1,
         "already correlated in correlation 1"),
        ([{"between": ["node_price", "gpu_rent"], "spearman": 1.0}], "spearman", 0,
         r"must be in \(-1, 1\)"),
        ([{"between": ["node_price", "gpu_rent"], "kendall": -1.5}], "kendall", 0,
         r"must be in \(-1, 1\)"),
        ([{"between": ["node_price", "gpu_rent"], "spearman": "high"}], "spearman", 0,
         "must be a number"),
        ([{"between": ["node_price", "gpu_rent"], "spearman": 0.2, "kendall": 0.1}],
         "spearman", 0, "exactly one of"),
        ([{"between": "node_price", "spearman": 0.2}], "between", 0, "two input names"),
    ],
)
def test_bad_pairs(pairs, field, index, message):
    with pytest.raises(CorrelationError, match=message) as err:
        check_correlation_matrix(NAMES, pairs, UNCERTAIN)
    assert err.value.field == field
    assert err.value.index == index
    assert "\n" not in str(err.value)


def test_not_positive_definite_names_eigenvalue_and_pair():
    pairs = [{"between": ["node_price", "gpu_rent"], "spearman": 0.9},
             {"between": ["gpu_rent", "api_price"], "spearman": 0.9},
             {"between": ["node_price", "api_price"], "spearman": -0.5}]
    with pytest.raises(CorrelationError, match=r"smallest eigenvalue -0\.\d") as err:
        check_correlation_matrix(NAMES, pairs, UNCERTAIN)
    assert err.value.index is None
    assert 'repair_correlations = "nearest"' in str(err.value)
    assert "moves" in str(err.value) and err.value.pair is not None
    cm = check_correlation_matrix(NAMES, pairs, UNCERTAIN, repair="nearest")
    assert cm.repaired and cm.min_eigenvalue < 0
    assert np.linalg.eigvalsh(cm.used)[0] > 0
    assert np.allclose(np.diag(cm.used), 1)
    np.linalg.cholesky(cm.used)
    i, j = (UNCERTAIN.index(n) for n in err.value.pair)
    moved = np.abs(cm.used - cm.normal)
    assert moved[i, j] == pytest.approx(moved.max())


def test_no_pairs_is_identity():
    cm = check_correlation_matrix(NAMES, [], UNCERTAIN)
    assert np.array_equal(cm.used, np.eye(3)) and not cm.correlated.any()
    u = sobol_unit(3, m=4)
    assert np.array_equal(to_correlated_unit(u, cm.used), u)


# ------------------------------------------------------------------ Higham


def test_higham_published_example():
    """Higham (2002), section 4: the nearest correlation matrix to [[1,1,0],[1,1,1],[0,1,1]]
    has off-diagonals 0.7607 and 0.1573. The normalised [[2,-1,0],[-1,2,-1],[0,-1,2]]
    (off-diagonals -1/2) is already a correlation matrix and is left alone."""
    x = nearest_correlation([[1, 1, 0], [1, 1, 1], [0, 1, 1]])
    assert x[0, 1] == pytest.approx(0.7607, abs=1e-4)
    assert x[1, 2] == pytest.approx(0.7607, abs=1e-4)
    assert x[0, 2] == pytest.approx(0.1573, abs=1e-4)
    valid = np.array([[1, -0.5, 0], [-0.5, 1, -0.5], [0, -0.5, 1]])
    assert np.allclose(nearest_correlation(valid), valid, atol=1e-10)


@pytest.mark.parametrize("seed", range(4))
def test_nearest_correlation_is_optimal(seed):
    """Optimality of the projection onto the convex set of correlation matrices:
    <A - X, C - X> <= 0 for every correlation matrix C; and X beats eigenvalue clipping."""
    rng = np.random.default_rng(seed)
    d = 6
    a = np.triu(rng.uniform(-1, 1, (d, d)), 1)
    a = a + a.T + np.eye(d)
    assert np.linalg.eigvalsh(a)[0] < 0
    x = nearest_correlation(a, min_eigenvalue=0.0)
    assert np.allclose(np.diag(x), 1) and np.allclose(x, x.T)
    assert np.linalg.eigvalsh(x)[0] > -1e-10
    for _ in range(200):
        g = rng.standard_normal((d, d + 1))
        c = g @ g.T
        c = c / np.sqrt(np.outer(np.diag(c), np.diag(c)))
        assert np.sum((a - x) * (c - x)) < 1e-7
    w, v = np.linalg.eigh(a)
    clipped = (v * np.maximum(w, 0)) @ v.T
    s = 1 / np.sqrt(np.diag(clipped))
    clipped = clipped * np.outer(s, s)
    assert np.linalg.norm(a - x) <= np.linalg.norm(a - clipped) + 1e-12
    pd = nearest_correlation(a)
    assert np.linalg.eigvalsh(pd)[0] > 0
    assert np.linalg.norm(pd - x) < 1e-6


def _three_way_tie(order):
    """x~y and y~z at 0.9 and x~z at -0.9: the nearest matrix moves all three alike."""
    pairs = {"xy": {"between": ["x", "y"], "spearman": 0.9},
             "yz": {"between": ["y", "z"], "spearman": 0.9},
             "xz": {"between": ["x", "z"], "spearman": -0.9}}
    return [pairs[k] for k in order]


@pytest.mark.parametrize("order", [("xy", "yz", "xz"), ("xz", "xy", "yz"), ("yz", "xz", "xy")])
def test_a_tie_names_every_pair_in_book_order(order):
    """A symmetric three-way tie (moves equal up to ~1e-8 of rounding) names all three pairs,
    in the order the book writes them, and blames the first written: never a pair chosen
    by an argmax over floating-point noise (issue 21)."""
    names = ["x", "y", "z"]
    with pytest.raises(CorrelationError) as err:
        check_correlation_matrix(names, _three_way_tie(order), names)
    written = [tuple(p["between"]) for p in _three_way_tie(order)]
    assert [tuple(sorted(p)) for p in err.value.pairs] == [tuple(sorted(p)) for p in written]
    assert set(err.value.pair) == set(written[0])
    assert "about equally" in str(err.value)
    # the moves really are equal to well within the tolerance (the premise of the tie)
    cm = check_correlation_matrix(names, _three_way_tie(order), names, repair="nearest")
    moved = np.abs(cm.used - cm.normal)[np.triu_indices(3, 1)]
    assert moved.max() - moved.min() < 1e-6 * moved.max()


def test_a_clear_largest_move_is_named_alone():
    """Without a tie exactly one pair is named (the one that moved most); a symmetric
    two-way tie (x~y and y~z equal) names both."""
    names = ["x", "y", "z"]
    pairs = [{"between": ["x", "y"], "spearman": 0.9},
             {"between": ["y", "z"], "spearman": 0.6},
             {"between": ["x", "z"], "spearman": -0.5}]
    with pytest.raises(CorrelationError) as err:
        check_correlation_matrix(names, pairs, names)
    cm = check_correlation_matrix(names, pairs, names, repair="nearest")
    moved = np.abs(cm.used - cm.normal)
    assert len(err.value.pairs) == 1
    i, j = (names.index(n) for n in err.value.pair)
    assert moved[i, j] == pytest.approx(moved.max())
    assert "about equally" not in str(err.value)
    pairs[1]["spearman"] = 0.9
    with pytest.raises(CorrelationError) as err:
        check_correlation_matrix(names, pairs, names)
    assert err.value.pairs == (("x", "y"), ("y", "z"))
