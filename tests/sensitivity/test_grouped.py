"""Correlations inside groups keep the groups independent, so grouped Sobol' stays exact."""

from __future__ import annotations

import numpy as np

from mc_tco.design import SaltelliDesign
from mc_tco.distributions.copula import check_correlation_matrix, to_correlated_unit
from mc_tco.sensitivity.grouped import crossing_pairs, groups_independent

GROUPS = {"node_price": "hardware", "gpu_rent": "hardware", "api_price": "api",
          "api_decline": "api", "demand": "demand"}


def test_pairs_within_groups():
    pairs = [{"between": ["node_price", "gpu_rent"], "spearman": 0.6},
             ("api_price", "api_decline", 0.4)]
    assert groups_independent(GROUPS, pairs)
    assert groups_independent(GROUPS, [])


def test_crossing_pairs_are_named():
    pairs = [("node_price", "gpu_rent", 0.6), ("gpu_rent", "api_price", 0.3),
             ("demand", "ramp", 0.5)]
    assert crossing_pairs(GROUPS, pairs) == [("gpu_rent", "api_price"), ("demand", "ramp")]
    assert not groups_independent(GROUPS, pairs)


def test_grouped_ab_rows_are_joint_draws():
    """With correlations inside groups, the grouped AB rows keep the within-group rank
    correlation (they swap whole groups between two correlated joint draws)."""
    names = ["a", "b", "c"]
    cm = check_correlation_matrix(names, [("a", "b", 0.7)])
    design = SaltelliDesign(3, seed=1, groups=(0, 0, 1))
    base = design.base(0, 2**12)
    a = to_correlated_unit(base[:, :3], cm.used)
    b = to_correlated_unit(base[:, 3:], cm.used)
    rows = design.mix(a, b)
    for k in range(rows.shape[1]):
        rho = np.corrcoef(np.argsort(np.argsort(rows[:, k, :2], axis=0), axis=0).T)[0, 1]
        assert abs(rho - 0.7) < 0.02
    # and the per-input design breaks it: AB^(a) pairs B's a with A's b
    single = SaltelliDesign(3, seed=1).mix(a, b)[:, 1, :2]
    assert abs(np.corrcoef(np.argsort(np.argsort(single, axis=0), axis=0).T)[0, 1]) < 0.05
