"""The tornado's bootstrap, a few resamples at a time (bounded memory on a 2^18-row file),
gives the interval of every resample held at once."""

from __future__ import annotations

import numpy as np

from mc_tco.decision import tornado as tornado_mod
from mc_tco.decision.tornado import tornado_swing


def test_the_bootstrap_in_blocks_is_the_bootstrap_held_at_once(monkeypatch):
    rng = np.random.default_rng(2)
    n, tail, resamples = 2000, 0.1, 60
    x = rng.uniform(size=(n, 3))
    y = 3 * x[:, 0] - x[:, 1] + rng.normal(0, 0.3, n)
    # the bootstrap written out whole: int64 draws, every resample's tail medians at once
    idx = np.random.default_rng(0).integers(0, n, size=(resamples, n))
    m = round(tail * n)
    want = []
    for j in range(3):
        xs, ys = x[idx, j], y[idx]
        part = np.argpartition(xs, [m - 1, n - m], axis=-1)
        low = np.median(np.take_along_axis(ys, part[:, :m], axis=-1), axis=-1)
        high = np.median(np.take_along_axis(ys, part[:, n - m:], axis=-1), axis=-1)
        want.append(np.quantile(high - low, [0.025, 0.975]))
    monkeypatch.setattr(tornado_mod, "BOOTSTRAP_HELD", 7 * n)  # 7 resamples at a time
    got = tornado_swing(y, x, ["a", "b", "c"], tail=tail, resamples=resamples, seed=0)
    # to rounding: numpy's median of a block may sum its middle pair in another order
    np.testing.assert_allclose(got["swing_ci"].sel(input=["a", "b", "c"]).values,
                               np.array(want), rtol=1e-13, atol=0)
