"""Moment-independent indices of a results file against SALib on the same stored rows."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from SALib.analyze import delta as salib_delta
from SALib.analyze import pawn as salib_pawn
from scipy.stats import rankdata

from mc_tco.decision.data import decision_data
from mc_tco.decision.moment_independent import moment_independent
from mc_tco.errors import OptionError
from mc_tco.results.io import open_results
from mc_tco.sensitivity.moment_independent import PAWN_STATS, classes
from mc_tco.uncertainty.intervals import replicate_interval, t_value


@pytest.fixture(scope="module")
def ds(result_files):
    return open_results(str(result_files["default"]))


def _salib(x, y):
    problem = {"num_vars": x.shape[1], "names": [f"x{i}" for i in range(x.shape[1])]}
    grid = np.linspace(y.min(), y.max(), 100)
    m = classes(y.size)
    d = np.array([salib_delta.calc_delta(y, grid, x[:, i], m) for i in range(x.shape[1])])
    p = salib_pawn.analyze(problem, x, y, S=10)
    return d, np.column_stack([p[k] for k in PAWN_STATS])


@pytest.mark.parametrize("target", ["saving>0", "saving"])
def test_equals_salib_on_the_stored_rows(ds, target):
    got = moment_independent(ds, target)
    data = decision_data(ds, among=["buy"], target="saving")
    y = data.option_values("buy")
    if target == "saving>0":
        y = (y > 0).astype(float)
    d, p = _salib(data.x, y)
    back = got.sel(input=data.inputs)  # the result is ranked; SALib's in book order
    if target == "saving>0":  # a 0/1 output: delta from class frequencies, not kernels
        assert got.attrs["delta_estimator"] == "class frequencies (a 0/1 output)"
        m = classes(y.size)
        d = []
        for i in range(data.x.shape[1]):
            r = rankdata(data.x[:, i], method="ordinal")
            d.append(sum(((r > lo) & (r <= hi)).mean()
                          * abs(y[(r > lo) & (r <= hi)].mean() - y.mean())
                          for lo, hi in itertools.pairwise(m)))
    np.testing.assert_allclose(back["delta"].values, d, rtol=0, atol=1e-10)
    np.testing.assert_allclose(back["pawn"].values, p, rtol=0, atol=1e-12)
    assert got.attrs["point"] == {"demand": 5e11} and got.attrs["strategy"] == "buy"


def test_interval_is_the_t_interval_of_salib_per_scramble(ds):
    got = moment_independent(ds, "saving")
    data = decision_data(ds, among=["buy"], target="saving")
    y = data.option_values("buy")
    reps = ds.mc_tco.run.replicates
    rep = ds["sample"].values % reps
    per = [_salib(data.x[rep == r], y[rep == r]) for r in range(reps)]
    _, half = replicate_interval([e[0] for e in per], conf_level=ds.mc_tco.run.conf_level)
    d = got.sel(input=data.inputs)
    np.testing.assert_allclose(d["delta_ci"].sel(ci_bound="upper") - d["delta"], half,
                               rtol=1e-9, atol=1e-12)
    sd = np.std([e[1][:, 2] for e in per], axis=0, ddof=1)
    pawn_half = t_value(0.95, reps - 1) * sd / np.sqrt(reps)
    np.testing.assert_allclose(d["pawn_ci"].sel(stat="median", ci_bound="upper")
                               - d["pawn"].sel(stat="median"), pawn_half, rtol=1e-9)


def test_shapley_beside_and_ranked(ds):
    got = moment_independent(ds, "saving>0")
    stored = ds["shapley"].sel(target="saving>0", demand=5e11, strategy="buy")
    np.testing.assert_array_equal(got["shapley"].values,
                                  stored.sel(input=got["input"].values).values)
    assert got.attrs["ranked_by"] == "shapley"
    s = got["shapley"].values
    assert (np.diff(s[np.isfinite(s)]) <= 0).all()


def test_accessor_equals_the_decision_function(ds):
    a = ds.mc_tco.moment_independent("saving>0", strategy="buy", demand="500B")
    b = moment_independent(ds, "saving>0").sel(input=a["input"].values)
    np.testing.assert_array_equal(a["delta"].values, b["delta"].values)
    np.testing.assert_array_equal(a["pawn_ci"].values, b["pawn_ci"].values)
    assert a["delta"].attrs["units"] == "1"


def test_refusals_name_the_fix(ds):
    with pytest.raises(OptionError, match="--slices 1: PAWN needs at least 2"):
        moment_independent(ds, "saving", slices=1)
    with pytest.raises(OptionError, match="baseline"):
        moment_independent(ds, "saving", strategy="api")
    with pytest.raises(OptionError, match="no such per-sample output"):
        ds.mc_tco.moment_independent("nothing")
