"""The Shapley pass's draws: input values from normal scores, the same bits as the
straightforward per-column ``np.unique`` of the probabilities."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr

from mc_tco.distributions.families import ppf as family_ppf
from mc_tco.sensitivity.shapley.draws import _U_HIGH, _U_LOW, _conditional_scores, _to_inputs


def _reference(z, ppf):
    """The former implementation: Phi and the clip on every row, np.unique per column."""
    u = np.clip(ndtr(z.reshape(-1, z.shape[-1])), _U_LOW, _U_HIGH)
    columns = []
    for j, f in enumerate(ppf):
        distinct, where = np.unique(u[:, j], return_inverse=True)
        columns.append(np.asarray(f(distinct), dtype=float)[where])
    return np.column_stack(columns)


@pytest.mark.parametrize("distinct_min", [0, 2**62])
def test_to_inputs_equals_the_per_column_unique_bit_for_bit(monkeypatch, distinct_min):
    import mc_tco.sensitivity.shapley.draws as draws

    monkeypatch.setattr(draws, "_DISTINCT_MIN", distinct_min)
    rng = np.random.default_rng(4)
    d, s, o, i = 6, 20, 1, 3
    g = rng.standard_normal((d, d + 1))
    c = g @ g.T
    r = c / np.sqrt(np.outer(np.diag(c), np.diag(c)))
    r[:3, 3:] = r[3:, :3] = 0.0  # three inputs independent of the others: repeated scores
    r[:3, :3] = np.eye(3)
    order = np.stack([rng.permutation(d) for _ in range(s)])[:, ::-1]
    chol = np.linalg.cholesky(r[order[:, :, None], order[:, None, :]])
    n_fixed = np.broadcast_to(d - np.arange(1, d)[None, :], (s, d - 1))
    z = _conditional_scores(chol, order, n_fixed, rng.standard_normal((s, o, d)),
                            rng.standard_normal((s, o, i, d)))
    dists = [stats.beta(2.5, 4.0, loc=1, scale=3), stats.lognorm(0.4), stats.uniform(2, 5),
             stats.beta(1.3, 7.0), stats.norm(1, 2), stats.expon(scale=3)]
    ppf = [lambda u, dist=dist: family_ppf(dist, u) for dist in dists]
    got = _to_inputs(z, ppf)
    z_columns = np.moveaxis(np.ascontiguousarray(np.moveaxis(z, -1, 0)), 0, -1)
    assert np.array_equal(_to_inputs(z_columns, ppf), got)  # the kernel's layout
    assert got.shape == (s * (d - 1) * o * i, d)
    assert np.array_equal(got, _reference(z, ppf))
    # the independent inputs repeat: their ppf ran on a few distinct scores
    assert len(np.unique(got[:, 0])) <= s * (1 + i)  # the outer score and I fresh ones


def test_conditional_scores_kernel_gives_einsums_bits(monkeypatch):
    from mc_tco.sensitivity.shapley import scores

    if not scores.kernel_matches():
        pytest.skip("numpy's einsum adds in another order here: the engine keeps einsum")
    monkeypatch.setattr(scores, "KERNEL_MIN_TERMS", 0)
    rng = np.random.default_rng(7)
    for d, s, i in ((2, 3, 2), (9, 5, 3), (17, 4, 3), (46, 3, 3)):
        g = rng.standard_normal((d, d + 2))
        c = g @ g.T
        r = c / np.sqrt(np.outer(np.diag(c), np.diag(c)))
        r[0, 1:] = r[1:, 0] = 0.0  # an independent input: zeros below the diagonal too
        order = np.stack([rng.permutation(d) for _ in range(s)])[:, ::-1]
        chol = np.linalg.cholesky(r[order[:, :, None], order[:, None, :]])
        n_fixed = np.broadcast_to(d - np.arange(1, d)[None, :], (s, d - 1))
        w_outer, w_fresh = rng.standard_normal((s, 1, d)), rng.standard_normal((s, 1, i, d))
        got = _conditional_scores(chol, order, n_fixed, w_outer, w_fresh)
        want = scores.einsum_scores(chol, order, n_fixed, w_outer, w_fresh)
        assert got.shape == want.shape
        assert np.array_equal(got, want)


@pytest.mark.parametrize("kernel_min", [0, 2**62])
def test_inner_var_is_numpys_var_bit_for_bit(monkeypatch, kernel_min):
    import mc_tco.sensitivity.shapley.draws as draws

    monkeypatch.setattr(draws, "_INNER_KERNEL_MIN", kernel_min)
    rng = np.random.default_rng(3)
    for shape in ((7, 5, 1, 3, 11), (4, 3, 2, 2, 6), (3, 2, 1, 5, 4)):
        y = rng.lognormal(2, 3, size=shape) * rng.choice([-1, 1], size=shape)
        y[..., -2:] = y[..., :2] > 0  # indicator cells
        assert np.array_equal(draws._inner_var(y), y.var(axis=3, ddof=1))


@pytest.mark.parametrize("kernel_min", [0, 2**62])
def test_shared_var_is_numpys_var_of_the_outer_row_and_the_fresh_ones(monkeypatch,
                                                                      kernel_min):
    """The sample variance of each set's draws, its first the permutation's outer row
    (shared by every set): numpy's ``var(ddof=1)`` of them stacked, bit for bit, in the
    numba loop and in numpy."""
    import mc_tco.sensitivity.shapley.draws as draws

    monkeypatch.setattr(draws, "_INNER_KERNEL_MIN", kernel_min)
    rng = np.random.default_rng(5)
    for p, j, o, f, k in ((7, 5, 1, 2, 11), (4, 3, 2, 1, 6), (3, 2, 1, 4, 4)):
        y0 = rng.lognormal(2, 3, size=(p, o, k)) * rng.choice([-1, 1], size=(p, o, k))
        y = rng.lognormal(2, 3, size=(p, j, o, f, k))
        y0[..., -2:] = y0[..., :2] > 0  # indicator cells
        y[..., -2:] = y[..., :2] > 0
        stacked = np.concatenate([np.broadcast_to(y0[:, None, :, None], (p, j, o, 1, k)), y],
                                 axis=3)
        assert np.array_equal(draws._shared_var(y0, y), stacked.var(axis=3, ddof=1))


def test_distinct_scores_by_bits_in_order_of_appearance():
    from mc_tco.sensitivity.shapley.scores import distinct_scores

    rng = np.random.default_rng(0)
    scores = rng.choice(rng.standard_normal(40), size=(3, 500))
    scores[1, :7] = [0.0, -0.0, np.nan, 1.5, np.nan, 0.0, 1.5]
    codes, distinct = distinct_scores(scores)
    for j in range(3):
        np.testing.assert_array_equal(distinct[j][codes[j]], scores[j])
        firsts = [k for k, v in enumerate(scores[j].view(np.uint64))
                  if v not in scores[j, :k].view(np.uint64)]
        np.testing.assert_array_equal(distinct[j], scores[j, firsts])
