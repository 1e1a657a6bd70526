"""The Saltelli design equals SALib's and does not depend on how it is chunked."""

import numpy as np
import pytest
from SALib.sample import sobol as salib_sobol

from mc_tco.design import SaltelliDesign


def _problem(d, groups=None):
    p = {"num_vars": d, "names": [f"x{i}" for i in range(d)], "bounds": [[0, 1]] * d}
    if groups is not None:
        p["groups"] = [f"g{g}" for g in groups]
    return p


@pytest.mark.parametrize("second_order", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 12345])
def test_design_equals_salib(second_order, seed):
    d, n = 5, 64
    expected = salib_sobol.sample(_problem(d), n, calc_second_order=second_order, seed=seed)
    design = SaltelliDesign(d, seed, second_order=second_order)
    got = design.rows(0, n).reshape(-1, d)
    assert got.shape == expected.shape == (n * design.rows_per_sample, d)
    np.testing.assert_array_equal(got, expected)


def test_grouped_design_equals_salib():
    groups = (0, 0, 1, 2, 1)
    expected = salib_sobol.sample(_problem(5, groups), 32, calc_second_order=False, seed=4)
    design = SaltelliDesign(5, 4, groups=groups)
    assert design.rows_per_sample == 5  # 3 groups + 2
    np.testing.assert_array_equal(design.rows(0, 32).reshape(-1, 5), expected)


def test_chunks_are_independent_of_chunking():
    design = SaltelliDesign(7, 9)
    whole = design.rows(0, 1024)
    pieces = np.concatenate([design.rows(s, s + 256) for s in range(0, 1024, 256)])
    odd = np.concatenate([design.rows(0, 100), design.rows(100, 1024)])
    np.testing.assert_array_equal(whole, pieces)
    np.testing.assert_array_equal(whole, odd)


def test_mix_of_values_equals_mapping_the_rows():
    from scipy import stats

    design = SaltelliDesign(3, 2)
    base = design.base(0, 16)
    dist = stats.norm(3, 2)
    mapped_first = dist.ppf(design.rows(0, 16))
    mixed = design.mix(dist.ppf(base[:, :3]), dist.ppf(base[:, 3:]))
    np.testing.assert_array_equal(mixed, mapped_first)
