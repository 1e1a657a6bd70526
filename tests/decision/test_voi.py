"""EVPI and EVPPI against closed forms (linear-Gaussian, quadratic, product)."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr
from scipy import integrate, stats

from mc_tco.decision.information import evpi_by_demand, value_of_information
from mc_tco.decision.regression import fit_smoother
from mc_tco.decision.voi import evpi, evppi
from mc_tco.errors import OptionError


def gauss_gain(m, s):
    """E[max(0, W)] for W ~ N(m, s^2)."""
    s = abs(s)
    return s * stats.norm.pdf(m / s) + m * stats.norm.cdf(m / s)


def linear_case(a, b, c, n, seed):
    """Incremental net benefit a + b x + c y (x, y, z standard normal, z irrelevant)."""
    rng = np.random.default_rng(seed)
    x, y, z = rng.standard_normal((3, n))
    nb = np.column_stack([np.zeros(n), a + b * x + c * y])
    return x, y, z, nb


@pytest.mark.parametrize(("a", "b", "c"), [(0.3, 1.0, 2.0), (-0.5, 2.0, 1.0), (0.0, 1.0, 1.0)])
def test_evppi_linear_gaussian_closed_form(a, b, c):
    x, y, z, nb = linear_case(a, b, c, 4096, seed=11)
    exact_x = gauss_gain(a, b) - max(0.0, a)  # |b| phi(a/|b|) + a Phi(a/|b|) - max(0, a)
    exact_y = gauss_gain(a, c) - max(0.0, a)
    exact_all = gauss_gain(a, np.hypot(b, c)) - max(0.0, a)
    v_all, se_all = evpi(nb)
    assert abs(v_all - exact_all) < 3 * se_all
    for inputs, exact in [(x, exact_x), (y, exact_y), (np.column_stack([x, y]), exact_all),
                          (np.column_stack([x, z]), exact_x)]:
        v, se, _ = evppi(inputs, nb, rng=0)
        assert se > 0
        assert abs(v - exact) < 3 * se + 0.01 * exact, (v, exact, se)
        assert v <= v_all + 2 * se_all  # EVPPI <= EVPI


@pytest.mark.parametrize("a", [0.0, -0.3])
def test_evppi_of_an_irrelevant_input_is_zero_within_its_error(a):
    _, _, z, nb = linear_case(a, 1.0, 2.0, 4096, seed=12)
    v, se, _ = evppi(z, nb, rng=0)
    exact_x = gauss_gain(a, 1.0) - max(0.0, a)
    assert v <= 3 * se + 1e-12
    assert v < 0.05 * exact_x  # and small against a relevant input's value


def test_evppi_sees_a_non_monotone_effect():
    """INB = -0.2 + (x^2 - 1): linear regression (voiage's default) returns 0 here."""
    rng = np.random.default_rng(13)
    x, y = rng.standard_normal((2, 4096))
    nb = np.column_stack([np.zeros_like(x), -0.2 + (x**2 - 1) + 0.5 * y])
    t = np.sqrt(1.2)
    exact = 2 * (t * stats.norm.pdf(t) - 0.2 * stats.norm.sf(t))  # E[max(0, x^2 - 1.2)]
    v, se, _ = evppi(x, nb, rng=0)
    assert abs(v - exact) < 3 * se
    slope = np.polyfit(x, nb[:, 1], 1)
    assert np.maximum(np.polyval(slope, x), 0).mean() < 0.05  # what a line would say


def test_group_evppi_captures_an_interaction():
    """INB = 0.2 + 2 x y: x alone is worth 0, (x, y) together are worth EVPI."""
    rng = np.random.default_rng(14)
    x, y = rng.standard_normal((2, 4096))
    nb = np.column_stack([np.zeros_like(x), 0.2 + 2 * x * y])
    exact = integrate.quad(lambda u: gauss_gain(0.2, 2 * u) * stats.norm.pdf(u)
                           if u != 0 else 0.2 * stats.norm.pdf(0), -9, 9, points=[0])[0] - 0.2
    v_xy, se_xy, method = evppi(np.column_stack([x, y]), nb, rng=0)
    assert "polynomial" in method
    assert abs(v_xy - exact) < 3 * se_xy + 0.02 * exact
    v_x, se_x, _ = evppi(x, nb, rng=0)
    assert v_x <= 3 * se_x + 1e-12


def test_evppi_error_is_calibrated():
    """The reported standard error matches the spread over independent replications."""
    a, b, c = 0.3, 1.0, 2.0
    exact = gauss_gain(a, b) - a
    values, ses = [], []
    for r in range(24):
        x, _, _, nb = linear_case(a, b, c, 1024, seed=100 + r)
        v, se, _ = evppi(x, nb, rng=r)
        values.append(v)
        ses.append(se)
    values, ses = np.array(values), np.array(ses)
    ratio = values.std(ddof=1) / ses.mean()
    assert 0.6 < ratio < 1.6, ratio
    assert abs(values.mean() - exact) < 3 * values.std(ddof=1) / np.sqrt(len(values))


def test_evppi_ignores_a_common_per_sample_shift():
    """Net benefit -cost and saving = cost[api] - cost give the same EVPI and EVPPI."""
    x, _, _, nb = linear_case(0.1, 1.0, 1.0, 2048, seed=15)
    nb3 = np.column_stack([nb, 0.2 * x - 0.3])
    shift = np.random.default_rng(1).normal(0, 5, size=len(x))
    shifted = nb3 + shift[:, None]
    assert evppi(x, nb3, rng=0)[0] == pytest.approx(evppi(x, shifted, rng=0)[0], rel=1e-9)
    assert evpi(nb3)[0] == pytest.approx(evpi(shifted)[0], rel=1e-9)


def test_discrete_input_uses_the_exact_level_means():
    rng = np.random.default_rng(16)
    level = rng.integers(0, 3, size=3000).astype(float)
    effect = np.array([-1.0, 0.2, 0.5])[level.astype(int)]
    nb = np.column_stack([np.zeros_like(level), effect + rng.normal(0, 1, size=3000)])
    fit = fit_smoother(level, nb[:, 1])
    assert "one mean per value" in fit.method
    for k in range(3):
        assert np.allclose(fit.fitted[level == k], nb[level == k, 1].mean())
    v, _, _ = evppi(level, nb, rng=0)
    means = np.array([nb[level == k, 1].mean() for k in range(3)])
    shares = np.array([(level == k).mean() for k in range(3)])
    expected = shares @ np.maximum(means, 0) - max(0.0, nb[:, 1].mean())
    assert v == pytest.approx(expected, rel=1e-9)


def test_nothing_to_learn_when_one_option_always_wins():
    rng = np.random.default_rng(17)
    x = rng.random(500)
    nb = np.column_stack([np.zeros(500), -1 - x])
    assert evpi(nb) == (0.0, 0.0)
    assert evppi(x, nb)[:2] == (0.0, 0.0)


# ----------------------------------------------------------------------------- on results


@pytest.mark.slow
def test_value_of_information_on_results(default_run):
    ds = default_run
    voi = value_of_information(ds, at={"demand": 3e12}, among=["api", "buy", "rent", "owned"],
                               draws=50)
    assert voi.unit == "USD/month"
    assert voi.data.options == ["api", "buy", "rent", "owned"]
    assert set(voi.evppi) == set(ds.input.values)
    assert set(voi.evppi_groups) == set(g for g in ds.input_group.values if g)
    for v, se in list(voi.evppi.values()) + list(voi.evppi_groups.values()):
        assert v >= 0 and se >= 0
        assert v <= voi.evpi + 3 * (voi.evpi_se + se)
    # the decision: the highest expected saving, with the API at 0
    means = ds.saving.sel(demand=3e12).mean("sample")
    assert voi.expected["api"] == 0
    assert voi.expected["owned"] == pytest.approx(float(means.sel(strategy="owned")))
    assert voi.best == max(voi.expected, key=voi.expected.get)
    d = voi.to_dict()
    assert set(d["evppi"]) == set(d["evppi_se"]) and d["evpi"] == voi.evpi


def test_evpi_by_demand(default_run):
    e = evpi_by_demand(default_run)
    assert e.dims == ("demand",) and e.sizes == {"demand": default_run.sizes["demand"]}
    assert (e.values >= 0).all() and "evpi_se" in e.coords and e.attrs["units"] == "USD/month"
    # every strategy but owned (decision_data's default): api, buy, rent, hybrid in v2
    nb = default_run.saving.sel(demand=3e12, strategy=["api", "buy", "rent", "hybrid"]).values
    assert float(e.sel(demand=3e12)) == pytest.approx(evpi(nb)[0])
    assert str(e.best_option.sel(demand=1e9).values) == "api"


def test_an_evpi_curve_is_computed_once_per_dataset(default_run, monkeypatch):
    """The memo reads the same curve in three sections: computed once, each caller given
    its own copy (the same numbers); other options are another curve."""
    import mc_tco.decision.information as information

    first = evpi_by_demand(default_run)
    calls = []
    real = information.decision_data
    monkeypatch.setattr(information, "decision_data",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    again = evpi_by_demand(default_run)
    assert not calls and again is not first
    xr.testing.assert_identical(again, first)
    again.attrs["units"] = "changed"
    assert evpi_by_demand(default_run).attrs["units"] == "USD/month"
    other = evpi_by_demand(default_run, among=["api", "buy"])
    assert len(calls) == default_run.sizes["demand"]
    nb = default_run.saving.sel(demand=3e12, strategy=["api", "buy"]).values
    assert float(other.sel(demand=3e12)) == pytest.approx(evpi(nb)[0])


def test_value_of_information_errors(default_run):
    ds = default_run
    with pytest.raises(OptionError, match="unknown strategy 'lease'"):
        value_of_information(ds, at={"demand": 3e12}, among=["api", "lease"])
    with pytest.raises(OptionError, match="unknown input 'pue_'"):
        value_of_information(ds, at={"demand": 3e12}, inputs=["pue_"])
    with pytest.raises(OptionError, match=r"--demand 2e\+13 is outside the grid"):
        value_of_information(ds, at={"demand": 2e13})
    with pytest.raises(OptionError, match="no such per-sample output; choose one of"):
        value_of_information(ds, at={"demand": 3e12}, target="savings")
    with pytest.raises(OptionError, match="no 'input_value'"):
        value_of_information(ds.drop_vars("input_value"), at={"demand": 3e12})


def test_value_of_information_with_replicates(article_run):
    from mc_tco.decision.information import file_replicates

    voi = value_of_information(article_run, at={"demand": 3e12}, inputs=["throughput_multiple"],
                               groups={}, replicates=file_replicates(article_run))
    assert voi.evpi_rqmc.value == pytest.approx(voi.evpi)
    assert voi.evpi_rqmc.lower <= voi.evpi <= voi.evpi_rqmc.upper
    e = voi.evppi_rqmc["throughput_multiple"]
    assert e.value == pytest.approx(voi.evppi["throughput_multiple"][0])
    assert e.per_replicate.shape == (8,)
    assert "evppi_rqmc" in voi.to_dict()
    da = evpi_by_demand(article_run, replicates=8)
    assert (da["evpi_lower"] <= da).all() and (da <= da["evpi_upper"]).all()


def test_replicates_other_than_an_int_auto_or_none_is_an_error(default_run):
    # found by mypy (issue 22 item 9): a string other than "auto" reached replicate_of
    with pytest.raises(ValueError, match="expected an int, 'auto' or None"):
        value_of_information(default_run, at={"demand": 3e12}, replicates="8")


def test_the_fits_draws_are_reduced_a_block_at_a_time_to_the_same_gains():
    """EVPPI's fit error averages max(0, max_d fitted) over the rows of each draw; made a
    few draws at a time (bounded memory on a 2^18-row file) it is the same number as from
    every draw held at once."""
    from mc_tco.decision.regression import fit_smoother

    rng = np.random.default_rng(5)
    x = rng.uniform(size=3000)
    inc = np.column_stack([np.sin(6 * x), x - 0.7]) + rng.normal(0, 0.5, (3000, 2))
    fit = fit_smoother(x, inc)
    sims = fit.draws(50, np.random.default_rng(9))
    want = np.maximum(sims.max(axis=2), 0.0).mean(axis=1)
    for held in (2**24, 3000 * 2 * 7, 1):  # one block; 7 draws; one draw at a time
        got = fit.draw_gains(50, np.random.default_rng(9), held=held)
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_the_fits_draws_hold_at_most_32_mb_of_fitted_values():
    """Issue 26: on a 2^18-sample file the memo's peak (1,581 MiB at --demand 800B) was a
    group's EVPPI, its draws' block (128 MB) made beside the fit's 264 MB design. The
    draws of a fit are now made at most ``DRAWS_HELD`` = 4M fitted values (32 MB) at a
    time: 200 draws of 2^14 rows and 4 options (105 MB at once) stay under 48 MB in all
    (the block, its maximum over the options, the coefficients), the gains unchanged."""
    import tracemalloc

    from mc_tco.decision.voi import DRAWS

    rng = np.random.default_rng(3)
    n = 2**14
    x = rng.uniform(size=n)
    inc = np.column_stack([np.sin(6 * x), x - 0.7, -x, x**2 - 0.4]) + rng.normal(0, 0.5,
                                                                                 (n, 4))
    fit = fit_smoother(x, inc)
    want = fit.draw_gains(DRAWS, np.random.default_rng(9), held=DRAWS * n * 4)
    tracemalloc.start()
    try:
        got = fit.draw_gains(DRAWS, np.random.default_rng(9))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 48 * 2**20, f"{peak / 2**20:.0f} MiB held to draw {DRAWS} x {n} x 4"
    np.testing.assert_array_equal(got, want)
