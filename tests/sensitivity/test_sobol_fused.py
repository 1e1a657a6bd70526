"""The one-pass Sobol' sums (:mod:`mc_tco.sensitivity.sobol.fused`) are ``SobolSums.add``'s,
bit for bit, and a run through them gives the numbers of a run through ``add``."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from mc_tco.sensitivity.sobol import fused
from mc_tco.sensitivity.sobol.estimators import ESTIMATORS
from mc_tco.sensitivity.sobol.sums import SobolSums


def _outputs(rng, n, per, cells, targets):
    """Targets of mixed signs and magnitudes, some exactly 0 (the indicator's edge)."""
    out = []
    for _ in range(targets):
        v = rng.lognormal(3, 2, size=(n, per, cells)) * rng.choice([-1, 1], size=(n, per, cells))
        v[rng.random(v.shape) < 0.05] = 0.0
        out.append(v)
    return out


def _engine_y(values):
    """The engine's array: per target its values, then its indicator ``value > 0``."""
    n, per, cells = values[0].shape
    y = np.empty((n, per, 2 * len(values) * cells))
    for t, v in enumerate(values):
        y[:, :, 2 * t * cells:(2 * t + 1) * cells] = v
        np.greater(v, 0, out=y[:, :, (2 * t + 1) * cells:(2 * t + 2) * cells])
    return y


@pytest.mark.parametrize("estimator", ESTIMATORS)
@pytest.mark.parametrize(("n", "k", "cells", "targets", "reps"), [
    (64, 46, 30, 1, 8),     # the default run's chunk: 46 inputs, 8 scrambles
    (256, 6, 20, 1, 1),     # one scramble (all samples in one sum)
    (100, 7, 5, 3, 4),      # several targets; a chunk that is not a multiple of R
    (300, 3, 1, 1, 1),      # a single cell
    (16, 1, 3, 2, 2),
])
def test_add_outputs_equals_add_bit_for_bit(estimator, n, k, cells, targets, reps):
    rng = np.random.default_rng(n * k + cells)
    per = k + 2
    ref = [SobolSums(k, False, np.zeros(1), estimator=estimator) for _ in range(reps)]
    new = [SobolSums(k, False, np.zeros(1), estimator=estimator) for _ in range(reps)]
    for chunk in range(2):  # a second chunk merges into the first's sums
        values = _outputs(rng, n, per, cells, targets)
        y = _engine_y(values)
        if chunk == 0:
            shift = y[0, 0].copy()
            np.testing.assert_array_equal(fused.indicator_row([v[0, 0] for v in values]), shift)
            for s in ref + new:
                s.shift = shift
        for i, rep in enumerate(ref):
            rep.add(y[i::reps])
        fused.add_outputs(new, [v[:, 0] for v in values], [v[:, 1:] for v in values])
    for a, b in zip(ref, new, strict=True):
        assert a.n == b.n
        assert set(a.point) == set(b.point)
        for key, value in a.point.items():
            assert np.array_equal(value, b.point[key]), key
        got, want = b.result(0.95), a.result(0.95)
        for key in ("S1", "ST"):
            assert np.array_equal(got[key], want[key], equal_nan=True), key


def test_fused_applies_only_to_the_direct_path():
    plain = SobolSums(3, False, np.zeros(2))
    assert fused.fused_applies(plain, fused.FUSED_MIN_VALUES)
    assert not fused.fused_applies(plain, fused.FUSED_MIN_VALUES - 1)
    for other in (SobolSums(3, True, np.zeros(2)), SobolSums(3, False, np.zeros(2), 10),
                  SobolSums(3, False, np.zeros(2), moments=True)):
        assert not fused.fused_applies(other, fused.FUSED_MIN_VALUES)


MODEL = '''
import xarray as xr


def model(inputs):
    """Two targets over a grid t: a sum with an interaction, a product near 0."""
    t = inputs["t"]
    y = inputs["a"] + 2 * inputs["b"] * t + inputs["a"] * inputs["c"]
    return xr.Dataset({"y": y, "z": inputs["a"] * inputs["b"] - 0.1 * t})
'''


def test_a_run_gives_the_same_bits_through_either_path(tmp_path, monkeypatch):
    from mc_tco.book import load_book
    from mc_tco.engine import run

    (tmp_path / "fused_model.py").write_text(MODEL)
    inputs = "".join(textwrap.dedent(f"""
        [inputs.{name}]
        dist = "uniform"
        low = -1
        high = {hi}
        """) for name, hi in (("a", 1), ("b", 2), ("c", 3)))
    path = tmp_path / "fused.toml"
    path.write_text(textwrap.dedent("""
        [book]
        name = "fused"
        model = "fused_model:model"
        [grid.t]
        values = [0.5, 1.0, 2.0, 3.0]
        [analysis]
        targets = ["y", "z"]
        """) + inputs)
    book = load_book(path)
    monkeypatch.setattr(fused, "FUSED_MIN_VALUES", 0)
    one_pass = run(book, samples=256, seed=2, independence_check=False)
    monkeypatch.setattr(fused, "FUSED_MIN_VALUES", 2**62)
    numpy_path = run(book, samples=256, seed=2, independence_check=False)
    for name in ("S1", "ST", "S1_conf", "ST_conf", "p_positive", "y"):
        assert np.array_equal(one_pass[name].values, numpy_path[name].values, equal_nan=True)
