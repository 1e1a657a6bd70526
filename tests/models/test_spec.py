"""``InputRule.contains``: finite and within the bounds, elementwise (its shortcut when every
value is allowed gives the same answers)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mc_tco.models.spec import InputRule


def _by_definition(rule, v):
    with np.errstate(invalid="ignore"):
        low = v > rule.low if rule.low_open else v >= rule.low
        high = v < rule.high if rule.high_open else v <= rule.high
    return np.isfinite(v) & low & high


@pytest.mark.parametrize("rule", [
    InputRule("1", 0.0, 1.0), InputRule("1", 0.0, 1.0, low_open=True),
    InputRule("1", 0.0, 1.0, high_open=True), InputRule("1", 0.0, low_open=True),
    InputRule("1"), InputRule("1", -math.inf, 5.0),
])
def test_contains_is_finite_and_within_the_bounds(rule):
    rng = np.random.default_rng(1)
    inside = rng.uniform(0.2, 0.8, size=50)
    cases = [inside, inside.reshape(5, 10), np.array([]), np.array([0.0, 0.5, 1.0]),
             np.append(inside, np.nan), np.append(inside, np.inf), np.append(inside, -np.inf),
             np.append(inside, 1.5), np.append(inside, -0.5), np.array([0.0]), np.array([1.0])]
    for v in cases:
        got = rule.contains(v)
        assert got.shape == v.shape and got.dtype == bool
        np.testing.assert_array_equal(got, _by_definition(rule, v))
