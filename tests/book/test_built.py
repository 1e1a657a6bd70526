"""The reader's distributions built once per family and fields (mc_tco.book.built)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mc_tco.book import loads_book
from mc_tco.book.built import checked_distribution
from mc_tco.distributions.family_base import FieldProblem
from mc_tco.errors import BookError
from tests.paths import DEFAULT_BOOK

TEXT = DEFAULT_BOOK.read_text(encoding="utf-8")


def test_an_unchanged_input_gets_the_distribution_built_before_and_a_changed_one_its_own():
    a = loads_book(TEXT, "a.toml")
    b = loads_book(TEXT.replace("low = 400000", "low = 399000", 1), "b.toml")
    changed = next(k for k, v in b.inputs.items() if v.params != a.inputs[k].params)
    assert changed == "node_price"
    assert b.inputs[changed].dist is not a.inputs[changed].dist
    shared = [k for k in a.inputs if k != changed and a.inputs[k].dist is not None]
    assert shared and all(b.inputs[k].dist is a.inputs[k].dist for k in shared)
    # the same numbers as a distribution built now (scipy's own)
    u = np.linspace(0.01, 0.99, 7)
    np.testing.assert_array_equal(b.inputs[changed].dist.ppf(u),
                                  stats.uniform(399000, 550000 - 399000).ppf(u))


def test_fields_of_another_type_or_sign_are_another_distribution():
    one = checked_distribution("uniform", {"low": 1, "high": 2.0})
    assert checked_distribution("uniform", {"low": 1.0, "high": 2.0}) is not one
    assert checked_distribution("uniform", {"low": 1, "high": 2.0}) is one
    assert checked_distribution("normal", {"mean": -0.0, "sd": 1.0}) is not \
        checked_distribution("normal", {"mean": 0.0, "sd": 1.0})


def test_refused_fields_are_refused_every_time():
    for _ in range(2):
        with pytest.raises(FieldProblem, match="below"):
            checked_distribution("uniform", {"low": 3.0, "high": 2.0})
    bad = TEXT.replace("low = 400000", "low = 600000", 1)
    for _ in range(2):
        with pytest.raises(BookError, match=r"node_price\.low"):
            loads_book(bad, "bad.toml")
