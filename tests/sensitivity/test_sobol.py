"""Sobol' estimators: equal to SALib's on the same design, right on analytic functions."""

import numpy as np
import pytest
import xarray as xr
from SALib.analyze import sobol as salib_analyze
from SALib.sample import sobol as salib_sample
from SALib.test_functions import Ishigami

from mc_tco.design import SaltelliDesign
from mc_tco.sensitivity.sobol import BLOCK, SobolSums, poisson_weights, sobol_indices

ISHIGAMI = {"num_vars": 3, "names": ["x1", "x2", "x3"], "bounds": [[-np.pi, np.pi]] * 3}


def ishigami_analytic(a=7.0, b=0.1):
    """Analytic S1 and ST of the Ishigami function (Homma & Saltelli 1996)."""
    v1 = 0.5 * (1 + b * np.pi**4 / 5) ** 2
    v2 = a**2 / 8
    v13 = b**2 * np.pi**8 * (1 / 18 - 1 / 50)
    v = v1 + v2 + v13
    return np.array([v1, v2, 0]) / v, np.array([v1 + v13, v2, v13]) / v


def sobol_g(x, a):
    return np.prod((np.abs(4 * x - 2) + a) / (1 + a), axis=-1)


def sobol_g_analytic(a):
    """Analytic S1 and ST of the Sobol' G function (Saltelli et al. 2010)."""
    a = np.asarray(a, dtype=float)
    vi = 1 / (3 * (1 + a) ** 2)
    v = np.prod(1 + vi) - 1
    st = vi * np.prod(1 + vi) / (1 + vi) / v
    return vi / v, st


@pytest.mark.parametrize("second_order", [False, True])
def test_point_estimates_equal_salib(second_order):
    x = salib_sample.sample(ISHIGAMI, 1024, calc_second_order=second_order, seed=11)
    y = Ishigami.evaluate(x)
    ref = salib_analyze.analyze(ISHIGAMI, y, calc_second_order=second_order, seed=1)
    got = sobol_indices(xr.DataArray(y, dims="row"), ISHIGAMI["names"],
                        second_order=second_order)
    np.testing.assert_allclose(got.S1.values, ref["S1"], rtol=0, atol=1e-10)
    np.testing.assert_allclose(got.ST.values, ref["ST"], rtol=0, atol=1e-10)
    if second_order:
        upper = np.triu_indices(3, 1)
        np.testing.assert_allclose(got.S2.values[upper], ref["S2"][upper], atol=1e-10)


def test_grid_of_cells_equals_salib_cell_by_cell():
    """One vectorised pass over 12 cells equals 12 SALib calls, to 1e-10."""
    x = salib_sample.sample(ISHIGAMI, 512, calc_second_order=False, seed=5)
    scale = np.linspace(0.5, 3, 4)[:, None]
    shift = np.array([-100.0, 0.0, 1e4])[None, :]
    y = Ishigami.evaluate(x)[:, None, None] * scale + shift + x[:, :1, None] ** 2 * scale
    da = xr.DataArray(y, dims=("row", "a", "b"))
    got = sobol_indices(da, ISHIGAMI["names"], resamples=0)
    for i in range(4):
        for j in range(3):
            ref = salib_analyze.analyze(ISHIGAMI, y[:, i, j], calc_second_order=False,
                                        num_resamples=2, seed=1)
            np.testing.assert_allclose(got.S1.values[:, i, j], ref["S1"], atol=1e-10)
            np.testing.assert_allclose(got.ST.values[:, i, j], ref["ST"], atol=1e-10)


def test_ishigami_analytic():
    n = 2**14
    x = salib_sample.sample(ISHIGAMI, n, calc_second_order=False, seed=2)
    got = sobol_indices(xr.DataArray(Ishigami.evaluate(x), dims="row"), ISHIGAMI["names"])
    s1, st = ishigami_analytic()
    # errors of the Saltelli/Jansen estimators at N = 2^14 on Ishigami are ~0.005
    np.testing.assert_allclose(got.S1.values, s1, atol=0.02)
    np.testing.assert_allclose(got.ST.values, st, atol=0.02)
    # and the bootstrap intervals are of the size of that error, not far wider
    assert (got.S1_conf.values < 0.05).all() and (got.S1_conf.values > 0.002).all()


def test_sobol_g_analytic():
    a = np.array([0, 1, 4.5, 9, 99, 99, 99, 99])
    d, n = len(a), 2**13
    design = SaltelliDesign(d, 7)
    y = sobol_g(design.rows(0, n), a).reshape(-1)
    got = sobol_indices(xr.DataArray(y, dims="row"), [f"x{i}" for i in range(d)])
    s1, st = sobol_g_analytic(a)
    np.testing.assert_allclose(got.S1.values, s1, atol=0.02)
    np.testing.assert_allclose(got.ST.values, st, atol=0.02)


def test_bootstrap_halfwidth_is_comparable_to_salib():
    x = salib_sample.sample(ISHIGAMI, 2048, calc_second_order=False, seed=3)
    y = Ishigami.evaluate(x)
    ref = salib_analyze.analyze(ISHIGAMI, y, calc_second_order=False, num_resamples=500, seed=2)
    got = sobol_indices(xr.DataArray(y, dims="row"), ISHIGAMI["names"], resamples=500)
    ratio = got.ST_conf.values / ref["ST_conf"]
    assert np.all((ratio > 0.7) & (ratio < 1.4)), ratio
    ratio1 = got.S1_conf.values / ref["S1_conf"]
    assert np.all((ratio1 > 0.7) & (ratio1 < 1.4)), ratio1


def test_sums_do_not_depend_on_chunking():
    design = SaltelliDesign(3, 5)
    n = 4 * BLOCK
    y = Ishigami.evaluate(-np.pi + 2 * np.pi * design.rows(0, n).reshape(-1, 3))
    y = y.reshape(n, 5, 1)

    def total(bounds):
        acc = SobolSums(3, False, y[0, 0], resamples=20)
        for s, e in bounds:
            part = SobolSums(3, False, y[0, 0], resamples=20)
            part.add(y[s:e], poisson_weights(9, s, e, 20))
            acc = acc + part
        return acc.result()

    one = total([(0, n)])
    many = total([(0, 256), (256, 512), (512, 1024)])
    for name in ("S1", "ST", "S1_conf", "ST_conf"):
        np.testing.assert_allclose(one[name], many[name], rtol=1e-12, atol=1e-14)


def test_constant_output_gives_nan_without_warnings():
    design = SaltelliDesign(2, 0)
    u = design.rows(0, 64).reshape(-1, 2)
    y = np.stack([u[:, 0] + u[:, 1], np.full(len(u), 3.0), (u[:, 0] > 2).astype(float)], axis=1)
    got = sobol_indices(xr.DataArray(y, dims=("row", "cell")), ["a", "b"])
    assert np.isfinite(got.S1.values[:, 0]).all()
    assert np.isnan(got.S1.values[:, 1:]).all() and np.isnan(got.ST_conf.values[:, 1:]).all()


def test_poisson_weights_depend_only_on_index():
    whole = poisson_weights(3, 0, 1000, 7)
    np.testing.assert_array_equal(whole[:, 300:700], poisson_weights(3, 300, 700, 7))
    assert abs(whole.mean() - 1) < 0.05


@pytest.mark.parametrize("estimator", ["saltelli", "sobol2007", "janon", "martinez"])
@pytest.mark.parametrize("moments", [False, True])
def test_direct_sums_equal_the_weighted_path(estimator, moments):
    """Without bootstrap weights the sums are taken term by term (no matrix F); they equal
    the weighted path's point sums (every weight 1) up to the order of the additions."""
    from mc_tco.sensitivity.sobol.sums import SobolSums

    rng = np.random.default_rng(3)
    y = rng.lognormal(size=(3, 40, 6, 7)) * 1e4  # three chunks, K = 4, 7 cells
    direct = SobolSums(4, False, y[0, 0, 0], 0, estimator, moments)
    weighted = SobolSums(4, False, y[0, 0, 0], 1, estimator, moments)
    for chunk in y:
        direct.add(chunk)
        weighted.add(chunk, np.ones((1, 40)))
    assert direct.n == weighted.n == 120
    assert set(direct.point) == set(weighted.point)
    for name, value in direct.point.items():
        np.testing.assert_allclose(value, weighted.point[name], rtol=1e-12, err_msg=name)
