"""Replicate (randomized-QMC) intervals, their fallbacks and the NaN rule, against scipy."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from mc_tco.decision.voi import evpi, evpi_replicates, evppi_replicates
from mc_tco.design import SaltelliDesign
from mc_tco.sensitivity.sobol import rqmc_seeds
from mc_tco.uncertainty.scrambles import (
    indicator,
    mean_interval,
    mean_with_interval,
    order_statistic_interval,
    probability_with_interval,
    proportion,
    proportion_from_counts,
    quantile_interval,
    quantiles_with_interval,
    replicate_interval,
    replicate_of,
    t_value,
    wilson_interval,
    z_value,
)

R = 8


def interleaved_normals(dim: int, seed: int, n: int) -> np.ndarray:
    """Standard normal base rows of R interleaved scrambles (as ``Plan.base_points``)."""
    parts = [SaltelliDesign(dim, s).base(0, n // R)[:, :dim] for s in rqmc_seeds(seed, R)]
    return stats.norm.ppf(np.stack(parts, axis=1).reshape(n, dim))


@pytest.mark.parametrize(("k", "n"), [(0, 10), (1, 10), (5, 10), (10, 10), (3, 1000),
                                      (997, 1000), (412, 1024)])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_wilson_matches_scipy_binomtest(k, n, level):
    ref = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    lo, hi = wilson_interval(k, n, level)
    assert (float(lo), float(hi)) == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_z_and_t_values():
    assert z_value(0.95) == pytest.approx(1.959963984540054)
    assert t_value(0.95, 7) == pytest.approx(stats.t.ppf(0.975, 7))
    assert np.isnan(t_value(0.95, 0))
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        z_value(1.0)


def test_replicate_interval_by_hand():
    est = np.array([[0.31, 1.0], [0.29, 2.0], [0.35, 3.0], [0.30, np.nan]])
    centre, half = replicate_interval(est, axis=0, conf_level=0.9)
    col = est[:, 0]
    by_hand = stats.t.ppf(0.95, 3) * col.std(ddof=1) / 2
    assert centre[0] == pytest.approx(col.mean())
    assert half[0] == pytest.approx(by_hand)
    assert np.isnan(half[1])  # a NaN replicate estimate gives no interval
    centre, _ = replicate_interval(est[:, :1].T, axis=1, centre=[0.3])
    assert centre == pytest.approx([0.3])


def test_replicate_of_interleaves():
    assert replicate_of(np.arange(10, 18), 8).tolist() == [2, 3, 4, 5, 6, 7, 0, 1]


def test_proportion_is_the_replicate_t_interval_on_per_scramble_shares():
    rng = np.random.default_rng(0)
    event = rng.random(800) < 0.3
    rep = replicate_of(np.arange(800), R)
    res = proportion(event, rep, R)
    p_r = np.array([event[rep == r].mean() for r in range(R)])
    half = stats.t.ppf(0.975, R - 1) * p_r.std(ddof=1) / np.sqrt(R)
    assert not res.fallback
    assert res.estimate == pytest.approx(event.mean())
    assert (res.lower, res.upper) == pytest.approx((event.mean() - half, event.mean() + half))


def test_proportion_falls_back_to_wilson_where_a_scramble_has_no_event():
    n = 800
    event = np.zeros((n, 2))
    event[[0, 9, 18], 0] = 1  # events in scrambles 0, 1, 2 only
    rep = replicate_of(np.arange(n), R)
    res = proportion(event, rep, R, axis=0)
    assert res.fallback.tolist() == [True, True]  # all-zero: Wilson too, flagged
    lo, hi = wilson_interval([3, 0], n)
    assert res.lower == pytest.approx(lo)
    assert res.upper == pytest.approx(hi)
    assert res.lower[1] == 0.0 and res.estimate[1] == 0.0


def test_proportion_from_counts_is_proportion_on_the_counts():
    """The counts kernel (used by the adaptive "settled" rule and the break-even CDF) keeps
    proportion's rule: t interval on k_r / n_r, Wilson where the scrambles agree exactly."""
    rng = np.random.default_rng(3)
    event = rng.random(800) < 0.2
    rep = replicate_of(np.arange(800), R)
    k_r = np.array([event[rep == r].sum() for r in range(R)])
    n_r = np.full(R, 100)
    a, b = proportion(event, rep, R), proportion_from_counts(k_r, n_r)
    assert not b.fallback
    np.testing.assert_allclose([b.estimate, b.lower, b.upper], [a.estimate, a.lower, a.upper])
    same = proportion_from_counts(np.full(R, 2), np.full(R, 100))  # all equal: sd = 0
    assert bool(same.fallback)
    np.testing.assert_allclose([same.lower, same.upper], wilson_interval(16, 800))


def test_proportion_nan_rule_excludes_nan_from_both_counts():
    event = np.array([1, 0, np.nan, 1, 0, 1, np.nan, 0] * 100, dtype=float)
    rep = replicate_of(np.arange(event.size), 4)
    res = proportion(event, rep, 4)
    assert res.estimate == pytest.approx(0.5)  # 300 events / 600 valid rows, not / 800
    assert np.isnan(proportion(np.full(8, np.nan), replicate_of(np.arange(8), 4), 4).estimate)


def test_never_share_and_quantiles_share_the_nan_rule():
    n = 64
    b = np.tile([1.0, 2.0, np.inf, np.nan], n // 4)
    da = xr.DataArray(b, dims="sample", coords={"sample": np.arange(n)})
    never = probability_with_interval(indicator(np.isinf(da), da), replicates=4)
    assert float(never["estimate"]) == pytest.approx(1 / 3)
    q = quantiles_with_interval(da, [0.5, 0.9], replicates=4)
    assert q["estimate"].values.tolist() == [2.0, np.inf]  # over the 48 non-NaN rows
    assert bool(q["fallback"].sel(quantile=0.9))  # infinite: order-statistics interval


def test_order_statistic_interval_matches_the_binomial_ranks():
    x = np.sort(np.random.default_rng(1).standard_normal(200))[:, None]
    lo, hi = order_statistic_interval(x, np.array([200]), 0.5, 0.95)
    l_rank = int(stats.binom.ppf(0.025, 200, 0.5))
    u_rank = int(stats.binom.ppf(0.975, 200, 0.5)) + 1
    assert (lo[0], hi[0]) == (x[l_rank - 1, 0], x[u_rank - 1, 0])
    cover = stats.binom.cdf(u_rank - 1, 200, 0.5) - stats.binom.cdf(l_rank - 1, 200, 0.5)
    assert cover >= 0.95
    lo, hi = order_statistic_interval(x, np.array([200]), 0.999, 0.95)
    assert hi[0] == np.inf  # no sample above a far-tail quantile bounds it


def test_order_statistic_interval_ranks_each_cell_by_its_own_count():
    # cells of different non-NaN counts (NaN sorted last): each cell's ranks are
    # scipy's binomial ranks for its own count, as one cell at a time
    rng = np.random.default_rng(2)
    x = rng.standard_normal((60, 3, 4))
    counts = np.array([[60, 60, 0, 7], [31, 60, 1, 60], [59, 7, 60, 31]])
    x[np.arange(60)[:, None, None] >= counts] = np.nan
    x = np.sort(x, axis=0)
    for q in (0.05, 0.5, 0.95):
        lo, hi = order_statistic_interval(x, counts, q, 0.9)
        for i, j in np.ndindex(counts.shape):
            one = order_statistic_interval(x[:, i, j][:, None], counts[i, j][None], q, 0.9)
            assert (lo[i, j], hi[i, j]) == pytest.approx((one[0][0], one[1][0]), nan_ok=True)
            n = counts[i, j]
            if n:
                l_rank = int(stats.binom.ppf(0.05, n, q))
                assert lo[i, j] == (x[l_rank - 1, i, j] if l_rank >= 1 else -np.inf)

def test_quantile_and_mean_intervals_contain_the_truth_of_a_normal_difference():
    n = 4096
    x = interleaved_normals(2, 5, n)
    y = x[:, 0] - x[:, 1] - 0.5
    rep = replicate_of(np.arange(n), R)
    qs = [0.001, 0.05, 0.5, 0.95]
    res = quantile_interval(y, qs, rep, R)
    truth = -0.5 + np.sqrt(2) * stats.norm.ppf(qs)
    assert np.all((res.lower <= truth) & (truth <= res.upper))
    assert res.fallback.tolist() == [True, False, False, False]  # 0.001 * 512 < MIN_TAIL
    assert np.all(res.upper[1:] - res.lower[1:] < 0.1)
    m = mean_interval(y, rep, R)
    assert m.lower <= -0.5 <= m.upper
    p = proportion(y > 0, rep, R)
    assert p.lower <= stats.norm.sf(0.5 / np.sqrt(2)) <= p.upper and not p.fallback


def test_xarray_wrappers_name_their_dims():
    n = 256
    y = interleaved_normals(1, 2, n)[:, 0]
    da = xr.DataArray(np.stack([y, y + 1, y + 2]), dims=("demand", "sample"),
                      coords={"demand": [1.0, 2.0, 3.0], "sample": np.arange(n)})
    p = probability_with_interval(indicator(da > 0, da), replicates=R)
    assert p["ci"].sizes == {"demand": 3, "ci_bound": 2}
    assert p["ci_bound"].values.tolist() == ["lower", "upper"]
    assert p.attrs["conf_level"] == 0.95 and "t interval" in p.attrs["method"]
    q = quantiles_with_interval(da, [0.25, 0.75], replicates=R)
    assert q["ci"].sizes == {"quantile": 2, "demand": 3, "ci_bound": 2}
    m = q["estimate"].sel(quantile=0.75, demand=1.0)
    assert float(m) == pytest.approx(np.quantile(y, 0.75, method="inverted_cdf"))


def test_the_targets_summaries_over_scrambles_are_the_wrappers_on_the_stacked_targets():
    # summarize_targets calls the array kernels itself: its numbers, dims and attrs are
    # the xarray wrappers' on stack_targets, and P(y > 0) is the t interval by hand
    from mc_tco.uncertainty.statistics import indicator_of, stack_targets, summarize_targets

    n = 256
    y = interleaved_normals(1, 4, n)[:, 0]
    ys = np.stack([y, y + 1, y - 1], axis=1)
    ys[:9, 2] = np.nan  # the NaN rule: out of the count and the rows
    ys[3, 1] = np.inf
    base = xr.Dataset({"y": (("sample", "demand"), ys), "z": ("sample", y * 2)},
                      coords={"sample": np.arange(n), "demand": [1.0, 2.0, 3.0]})
    out = summarize_targets(base, ["y", "z"], replicates=R, conf_level=0.9, label="(wins)")
    stacked = stack_targets(base, ["y", "z"])
    pr = probability_with_interval(indicator_of(stacked), replicates=R, conf_level=0.9)
    mn = mean_with_interval(stacked, replicates=R, conf_level=0.9)
    qs = quantiles_with_interval(stacked, [0.05, 0.25, 0.5, 0.75, 0.95], replicates=R,
                                 conf_level=0.9)
    for name, ref in (("p_positive", pr["estimate"]), ("p_positive_ci", pr["ci"]),
                      ("target_mean", mn["estimate"]), ("target_mean_ci", mn["ci"]),
                      ("target_quantile", qs["estimate"]), ("target_quantile_ci", qs["ci"])):
        got = out[name]
        xr.testing.assert_equal(got.drop_attrs(), ref.transpose(*got.dims).drop_attrs())
    assert out["p_positive_ci"].attrs["method"] == pr.attrs["method"]
    assert out["target_quantile_ci"].attrs["method"] == qs.attrs["method"]
    np.testing.assert_array_equal(out["p_positive_fallback"], pr["fallback"].astype(np.int8))
    assert out["target_quantile"].dims == ("target", "quantile", "demand")
    # by hand: P(y + 1 > 0) over the 8 scrambles, the t interval around the pooled share
    rep = replicate_of(np.arange(n), R)
    col = ys[:, 1]
    p_r = np.array([(col[rep == r] > 0).mean() for r in range(R)])
    half = stats.t.ppf(0.95, R - 1) * p_r.std(ddof=1) / np.sqrt(R)
    cell = out.sel(target="y>0", demand=2.0)
    assert float(cell["p_positive"]) == pytest.approx((col > 0).mean())
    np.testing.assert_allclose(cell["p_positive_ci"], [(col > 0).mean() - half,
                                                       (col > 0).mean() + half])
    assert float(out["target_mean"].sel(target="y", demand=3.0)) == pytest.approx(
        np.nanmean(ys[:, 2]))


def gauss_gain(m, s):
    return m * stats.norm.cdf(m / s) + s * stats.norm.pdf(m / s)


def test_evpi_replicate_interval_covers_the_closed_form():
    n = 2048
    x = interleaved_normals(3, 9, n)
    b = np.array([1.0, 0.7, 0.5])
    nb = np.column_stack([np.zeros(n), -0.3 + x @ b])
    rep = replicate_of(np.arange(n), R)
    res = evpi_replicates(nb, rep, R)
    exact = gauss_gain(-0.3, np.linalg.norm(b))
    assert res.value == pytest.approx(evpi(nb)[0])
    assert res.lower <= exact <= res.upper
    assert res.half < 0.3 * 1.96 * evpi(nb)[1]  # far narrower than the i.i.d. error
    v = evppi_replicates(x[:, 0], nb, rep, R)
    assert v.lower <= gauss_gain(-0.3, 1.0) <= v.upper
    assert v.per_replicate.shape == (R,)


def _never_sample(counts, per=50):
    """A break-even-like output over R = len(counts) interleaved scrambles: scramble r has
    ``counts[r]`` infinite ("never") rows of ``per``; column 1 is NaN in every 5th row."""
    reps = len(counts)
    n = reps * per
    rep = replicate_of(np.arange(n), reps)
    x = np.ones((n, 2))
    for r, c in enumerate(counts):
        x[np.flatnonzero(rep == r)[:c], :] = np.inf
    x[::5, 1] = np.nan
    return xr.DataArray(x, dims=("sample", "strategy"),
                        coords={"sample": np.arange(n), "strategy": ["buy", "rent"]})


def test_p_never_is_the_replicate_t_interval_of_the_per_scramble_shares():
    from mc_tco.uncertainty.statistics import quantiles_with_never

    counts = [3, 5, 4, 6, 2, 5, 4, 3]
    res = quantiles_with_never(_never_sample(counts), replicates=R).sel(strategy="buy")
    p_r = np.array(counts) / 50
    half = stats.t.ppf(0.975, R - 1) * p_r.std(ddof=1) / np.sqrt(R)
    assert float(res.p_never) == pytest.approx(p_r.mean())
    np.testing.assert_allclose(res.p_never_ci.values, [p_r.mean() - half, p_r.mean() + half])
    assert not bool(res.p_never_fallback)
    assert "randomized-QMC" in res.p_never_ci.attrs["method"]
    # narrower than Wilson's on the pooled count, which treats the rows as independent
    w_lo, w_hi = wilson_interval(sum(counts), 400)
    assert 2 * half < w_hi - w_lo


def test_p_never_falls_back_to_wilson_where_a_scramble_has_no_never():
    from mc_tco.uncertainty.statistics import quantiles_with_never

    counts = [3, 5, 0, 6, 2, 5, 4, 3]  # scramble 2 never "never"
    res = quantiles_with_never(_never_sample(counts), replicates=R)
    buy = res.sel(strategy="buy")
    assert bool(buy.p_never_fallback)
    np.testing.assert_allclose(buy.p_never_ci.values, wilson_interval(sum(counts), 400))
    # the NaN rule: NaN rows are out of numerator and denominator, per scramble
    rent = res.sel(strategy="rent")
    da = _never_sample(counts).sel(strategy="rent")
    valid = da.notnull().values
    assert float(rent.p_never) == pytest.approx(np.isinf(da.values[valid]).mean())
    # one scramble (or independent rows): Wilson's, as before
    one = quantiles_with_never(_never_sample([3, 5, 4, 6, 2, 5, 4, 3]), replicates=1)
    np.testing.assert_allclose(one.p_never_ci.sel(strategy="buy").values,
                               wilson_interval(32, 400))


def test_stacked_targets_of_the_same_dims_are_those_of_the_general_case():
    # one array for targets of the same dims; the general case (xarray's broadcast and
    # concat) for a target of other dims: the same values, dims, coords, name, no attrs
    from mc_tco.uncertainty.statistics import stack_targets

    rng = np.random.default_rng(5)
    y = rng.normal(size=(12, 3))
    y[0, 0], y[1, 1] = np.nan, np.inf
    base = xr.Dataset({"y": (("sample", "demand"), y, {"units": "USD"}),
                       "n": (("sample", "demand"), rng.integers(-2, 3, (12, 3))),
                       "w": (("demand", "sample"), y.T.copy())},
                      coords={"sample": np.arange(12), "demand": ("demand", [1.0, 2, 3],
                                                                   {"units": "t"}),
                              "label": ("demand", list("abc"), {"long_name": "x"})})
    alike = stack_targets(base, ["y", "n"])
    general = stack_targets(base, ["y", "n", "w"])  # w: other dims, the general case
    xr.testing.assert_identical(alike, general.isel(target=slice(0, 4)))
    assert alike.dims == ("target", "sample", "demand") and alike.name == "y"
    assert alike["target"].values.tolist() == ["y", "y>0", "n", "n>0"]
    np.testing.assert_array_equal(alike.sel(target="y>0"), np.where(y > 0, 1.0, 0.0))
    assert alike.dtype == np.float64 and not alike.attrs
    assert all(not alike[c].attrs for c in alike.coords)


def test_quantiles_with_never_leave_the_warning_filters_alone(monkeypatch):
    """A cell NaN everywhere (the API's break-even) is NaN without a warning to silence:
    the quantiles no longer change the process's warning filters (``catch_warnings``), which
    the threads of a run beside them (a ppf's) change too: a filter list restored by one
    thread undid the other's, and the "All-NaN slice" warning, an error under pytest,
    failed a run beside its Shapley pass (``.ci/newest``, 2026-12-06). The other cells are
    numpy's ``nanquantile`` of them."""
    import warnings

    from mc_tco.uncertainty.statistics import quantiles_with_never

    rng = np.random.default_rng(3)
    values = rng.lognormal(size=(400, 3, 2))
    values[:, 0, 0] = np.nan  # a cell NaN everywhere
    values[::7, 1, 1] = np.nan  # some NaN samples
    values[::5, 2, 0] = np.inf  # some "never"
    da = xr.DataArray(values, dims=("sample", "demand", "strategy"),
                      coords={"sample": np.arange(400)})

    def no_filters(*args, **kwargs):
        raise AssertionError("the warning filters were changed")

    monkeypatch.setattr(warnings, "catch_warnings", no_filters)
    res = quantiles_with_never(da, replicates=4)
    q = res["quantiles"].transpose("quantile", "demand", "strategy").values
    assert np.isnan(q[:, 0, 0]).all()
    flat = values.reshape(400, -1)[:, 1:]
    np.testing.assert_array_equal(
        q.reshape(q.shape[0], -1)[:, 1:],
        np.nanquantile(flat, list(res["quantile"].values), axis=0, method="inverted_cdf"))
