"""PAWN and delta against SALib on the same rows, and ~0 for an input y ignores."""

import numpy as np
import pytest
from SALib.analyze import delta as salib_delta
from SALib.analyze import pawn as salib_pawn

from mc_tco.models.testfunctions import ishigami
from mc_tco.sensitivity import moment_independent as mi


@pytest.fixture(scope="module")
def rows():
    """Ishigami on 2,048 random rows plus a fourth input it does not read."""
    rng = np.random.default_rng(1)
    u = rng.random((2048, 4))
    return u, ishigami().evaluate(u[:, :3])


def test_pawn_equals_salib(rows):
    u, y = rows
    for s in (5, 10, 17):
        ref = salib_pawn.analyze({"num_vars": 4, "names": list("abcd")}, u, y, S=s)
        got = mi.pawn(u, y, S=s)
        want = np.column_stack([ref[k] for k in mi.PAWN_STATS])
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_delta_and_s1_equal_salib(rows):
    u, y = rows
    for n in (300, 2048):
        x, z = u[:n], y[:n]
        grid = np.linspace(z.min(), z.max(), 100)
        m = mi.classes(n)
        want = [salib_delta.calc_delta(z, grid, x[:, i], m) for i in range(4)]
        np.testing.assert_allclose(mi.delta(x, z), want, rtol=0, atol=1e-10)
        s1 = [salib_delta.sobol_first(z, x[:, i], m) for i in range(4)]
        np.testing.assert_allclose(mi.first_order(x, z), s1, rtol=0, atol=1e-12)


def test_bias_reduced_delta_equals_salib_on_its_resamples(rows):
    u, y = rows
    x, z = u[:500], y[:500]
    grid = np.linspace(z.min(), z.max(), 100)
    np.random.seed(3)  # noqa: NPY002 (SALib draws from the legacy global state)
    want = salib_delta.bias_reduced_delta(z, grid, x[:, 1], mi.classes(500), 20, 0.95, 500,
                                          "raw", np.linspace(0, 1, 11), "b", 10)[:2]
    np.random.seed(3)  # noqa: NPY002 (SALib draws from the legacy global state)
    resamples = [np.random.randint(500, size=500) for _ in range(21)]  # noqa: NPY002
    est, half = mi.bias_reduced_delta(x[:, 1:2], z, resamples)
    np.testing.assert_allclose([est[0], half[0]], want, rtol=0, atol=1e-10)


def test_an_input_y_ignores_scores_near_zero(rows):
    u, y = rows
    d = mi.delta(u, y)
    p = mi.pawn(u, y)[:, 2]
    # ~0 up to the estimators' positive bias at n = 2,048 (a KS distance of a 205-row slice
    # is ~1/sqrt(205) = 0.07 by chance; delta's kernel estimates add ~0.06)
    assert d[3] < 0.08 and d[3] < d[2] / 2 and d[3] < min(d[:2]) / 3
    assert p[3] < 0.08 < 0.2 < min(p[:2])
    assert abs(mi.first_order(u, y)[3]) < 0.02


def test_constant_output_and_bad_shapes():
    x = np.random.default_rng(0).random((50, 2))
    np.testing.assert_array_equal(mi.delta(x, np.ones(50)), 0.0)
    with pytest.raises(ValueError, match="same n"):
        mi.delta(x, np.ones(49))


def test_discrete_delta_closed_form():
    # y = 1{x0 > 1/2}: every class is all 0 or all 1 (when the split falls on an edge),
    # so delta = E|p_c - p| = 1/2 exactly; the unread x1 gets ~0
    rng = np.random.default_rng(2)
    x = rng.random((4096, 2))
    y = (x[:, 0] > np.median(x[:, 0])).astype(float)
    d = mi.delta_discrete(x, y)
    assert mi.classes(4096).size % 2 == 1  # an even number of classes: the median is an edge
    assert d[0] == pytest.approx(0.5, abs=1e-12)
    assert d[1] < 0.05
    # four levels split at class edges (16 classes): each class pure, half L1 = 3/4
    four = np.digitize(x[:, 0], np.quantile(x[:, 0], [0.25, 0.5, 0.75]), right=True)
    assert mi.delta_discrete(x, four.astype(float))[0] == pytest.approx(0.75, abs=1e-12)


def test_dataset_interval_only_with_scrambles(rows):
    from mc_tco.sensitivity.moment_dataset import moment_independent_dataset

    u, y = rows
    one = moment_independent_dataset(u, y, list("abcd"))
    assert np.isnan(one["delta_ci"].values).all() and "none" in one.attrs["interval"]
    eight = moment_independent_dataset(u, y, list("abcd"), replicates=8)
    np.testing.assert_array_equal(one["delta"].values, eight["delta"].values)
    lo, hi = eight["delta_ci"].values.T
    assert (lo < eight["delta"].values).all() and (eight["delta"].values < hi).all()
    assert eight["pawn"].dims == ("input", "stat")
    assert eight.attrs["delta_estimator"] == "kernel densities (SALib's)"
