"""The tornado: the swing of an output's median when each input goes from its low to its
high end, read from the stored base rows (no model run), with a bootstrap interval.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.results.ranking import rank_order

__all__ = ["tornado", "tornado_swing"]

#: most resampled values the bootstrap holds at once (4M: 32 MB of floats; 200 resamples
#: of a 2^18-row file held at once took 1.7 GB)
BOOTSTRAP_HELD = 2**22


def tornado(
    ds: xr.Dataset,
    demand: float,
    strategy: str = "buy",
    tail: float = 0.10,
    resamples: int = 200,
    conf_level: float = 0.95,
    seed: int = 0,
) -> xr.Dataset:
    """Swing of the median saving when each input goes from its low to its high end.

    Computed on the stored base rows, without re-running the model: the scenarios are
    split by each input's value, and the median saving among the ``tail`` share with the
    lowest values (centred on the input's 5% quantile when ``tail`` = 0.1) is compared with
    the median among the ``tail`` share with the highest (centred on 95%). The other
    inputs keep their sampled spread, so the swing is the input's effect on the median with
    everything else uncertain, not a one-at-a-time change around a base case. Its Monte
    Carlo interval is a percentile bootstrap over the whole sample (the tails re-chosen in
    each resample).

    Returns
    -------
    xr.Dataset
        Dim ``input`` (sorted by absolute swing, largest first) and ``ci_bound``:
        ``low_value``, ``high_value`` (the input's 5% and 95% sample quantiles, its unit),
        ``median_low``, ``median_high`` (USD/month), ``swing`` = high - low (USD/month),
        ``swing_ci`` (input, ci_bound); attrs ``base_median`` (USD/month), ``tail``,
        ``demand``, ``strategy``.
    """
    y = ds["saving"].sel(demand=demand, strategy=strategy).values
    x = ds["input_value"].transpose("sample", "input").values
    res = tornado_swing(y, x, ds["input"].values, tail=tail, resamples=resamples,
                        conf_level=conf_level, seed=seed, units="USD/month")
    res.attrs.update(demand=demand, strategy=strategy)
    return res


def tornado_swing(
    y: np.ndarray,
    x: np.ndarray,
    inputs,
    tail: float = 0.10,
    resamples: int = 200,
    conf_level: float = 0.95,
    seed: int = 0,
    units: str = "",
) -> xr.Dataset:
    """The kernel of :func:`tornado` for any output: ``y`` (sample,) of the output,
    ``x`` (sample, input) of the inputs, ``inputs`` their names; ``units`` the output's.

    Returns the Dataset :func:`tornado` describes, without the ``demand`` and ``strategy``
    attrs.
    """
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    n, d = x.shape
    m = max(1, round(tail * n))
    rng = np.random.default_rng(seed)
    # whole-sample bootstrap: the tails are re-chosen in every resample, so the interval
    # holds the error of where the tails end as well as that of the medians
    # int32 draws are the same stream as int64's (numpy's bounded Lemire on 32 bits for
    # a range below 2^32): half the memory, the same resamples
    idx = rng.integers(0, n, size=(resamples, n),
                       dtype=np.int32 if n < 2**31 else np.int64) if resamples else None
    block = max(1, BOOTSTRAP_HELD // max(n, 1))  # resamples held at once
    out = {k: np.empty(d) for k in ("low_value", "high_value", "median_low", "median_high")}
    ci = np.full((d, 2), np.nan)
    alpha = (1 - conf_level) / 2
    swings = np.empty((d, resamples))
    for j in range(d):
        low, high = _tail_medians(x[:, j], y, m)
        out["low_value"][j], out["high_value"][j] = np.quantile(x[:, j], [0.05, 0.95])
        out["median_low"][j], out["median_high"][j] = low, high
    if idx is not None:
        # a block of resamples at a time, every input on it: the outputs of a resample
        # are gathered once for all the inputs, and each input's values from a
        # contiguous copy of its column (a gather across x's rows is 4x slower); the
        # same medians
        for b in range(0, resamples, block):  # each resample's medians are its own
            rows = idx[b:b + block]
            yb = y[rows]
            for j in range(d):
                blow, bhigh = _tail_medians(np.ascontiguousarray(x[:, j])[rows], yb, m)
                swings[j, b:b + block] = bhigh - blow
        for j in range(d):
            ci[j] = np.quantile(swings[j], [alpha, 1 - alpha])
    res = xr.Dataset(
        {k: ("input", v) for k, v in out.items()},
        coords={"input": np.asarray(inputs), "ci_bound": ["lower", "upper"]},
    )
    res["swing"] = res["median_high"] - res["median_low"]
    res["swing_ci"] = (("input", "ci_bound"), ci)
    res["swing_ci"].attrs.update(ci_prob=conf_level, method=f"bootstrap, {resamples} resamples")
    for k in ("median_low", "median_high", "swing", "swing_ci"):
        res[k].attrs["units"] = units
    res.attrs.update(base_median=float(np.median(y)), tail=tail, samples_per_end=m)
    order = rank_order(np.abs(res["swing"].values))
    return res.isel(input=order)


def _tail_medians(x: np.ndarray, y: np.ndarray, m: int):
    """Median of ``y`` over the ``m`` smallest and the ``m`` largest ``x`` (last axis)."""
    k = x.shape[-1]
    part = np.argpartition(x, [m - 1, k - m], axis=-1)
    low = np.take_along_axis(y, part[..., :m], axis=-1)
    high = np.take_along_axis(y, part[..., k - m:], axis=-1)
    return np.median(low, axis=-1), np.median(high, axis=-1)
