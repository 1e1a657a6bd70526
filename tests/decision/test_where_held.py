"""The hybrid's time numbers over the scenarios where it buys a server, by hand on a small
results-like dataset (:func:`mc_tco.decision.timeaxis.time_numbers` and
:func:`mc_tco.decision.finance.finance_numbers` with ``where_held``), and the memo's
sentence that says them: a hybrid that buys no server in most scenarios is the API there,
and a median over every scenario ("pays back in 0 months", "NPV $0, so its IRR of 64%
contradicts it") said nothing true about the scenarios where it does buy."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr

from mc_tco.decision.finance import finance_numbers
from mc_tco.decision.timeaxis import holds_server, time_numbers

R, PER = 8, 40
N = R * PER
STRATS = ["api", "buy", "rent", "reserved", "owned", "hybrid"]


def _order(v, q=0.5):
    """numpy's inverted_cdf quantile, by hand: x_(ceil(q n))."""
    v = np.sort(np.asarray(v, dtype=float))
    return v[int(np.ceil(q * v.size)) - 1]


def _ds(share_held: float = 0.4, with_nodes: bool = True):
    rng = np.random.default_rng(11)
    held = rng.uniform(size=N) < share_held
    nodes = np.where(held, rng.integers(1, 4, N), 0).astype(float)
    pay = np.where(held, rng.integers(6, 48, N), 0).astype(float)
    pay[np.flatnonzero(held)[:15]] = np.inf  # bought, never paid back
    peak = np.where(held, rng.uniform(1e5, 6e5, N), 0.0)
    npv = np.where(held, rng.normal(2e5, 1e5, N), 0.0)
    irr = np.where(held, rng.uniform(0.2, 0.9, N), np.nan)
    simple = np.where(held, pay - 1, 0.0)
    served = np.where(held, rng.uniform(0.1, 0.6, N), 0.0)
    served[np.flatnonzero(held)[:1]] = 0.0  # a node bought during a setup cut short
    rate = rng.uniform(0.06, 0.10, N)

    def cube(v):  # (sample, demand, strategy): the values on the hybrid at 5e11
        a = np.zeros((N, 1, len(STRATS)))
        a[:, 0, 5] = v
        return a

    data = {name: (("sample", "demand", "strategy"), cube(v))
            for name, v in (("payback_months", pay), ("peak_cash_need", peak), ("irr", irr),
                            ("npv", npv), ("simple_payback_months", simple),
                            ("peak_cash_need_nominal", peak * 1.1))}
    data["hybrid_served_share"] = (("sample", "demand"), served[:, None])
    if with_nodes:
        data["hybrid_nodes"] = (("sample", "demand"), nodes[:, None])
    ds = xr.Dataset(data, coords={"sample": np.arange(N), "demand": [5e11],
                                  "strategy": STRATS, "input": ["discount_rate"]})
    ds["input_value"] = (("sample", "input"), rate[:, None])
    ds.attrs.update(ci="rqmc", replicates=R, conf_level=0.95, constants="{}")
    return ds, held, pay, peak, npv, irr, simple, served


def test_the_numbers_where_the_hybrid_buys_are_those_scenarios_medians():
    ds, held, pay, peak, npv, irr, simple, _ = _ds()
    t = time_numbers(ds, 5e11, "hybrid", where_held=True)
    assert t.held is not None and t.held.value == pytest.approx(held.mean())
    assert t.held.lower <= held.mean() <= t.held.upper < 1
    assert t.payback.value == _order(pay[held])
    assert t.never.value == pytest.approx(np.isinf(pay[held]).mean())
    assert t.peak.value == _order(peak[held])
    assert t.peak_spread[0] == pytest.approx(np.quantile(peak[held], 0.05))
    assert t.irr.value == _order(irr[held]) and t.irr_defined == 1.0
    # over every scenario: the mixture's median is the API's 0
    every = time_numbers(ds, 5e11, "hybrid")
    assert every.held is None and every.payback.value == 0.0 and every.peak.value == 0.0
    f = finance_numbers(ds, 5e11, "hybrid", where_held=True)
    assert f.npv == _order(npv[held]) > 0 and f.irr_agrees
    assert f.simple_payback.value == _order(simple[held])
    assert finance_numbers(ds, 5e11, "hybrid").npv == 0.0  # (what contradicted the IRR)
    # a strategy that always buys (or never can) is not split
    assert holds_server(ds, 5e11, "buy") is None
    assert time_numbers(ds, 5e11, "buy", where_held=True).held is None


def test_buying_a_server_is_read_from_the_hybrids_fleet_not_from_what_it_serves():
    ds, held, *_, served = _ds()
    assert (holds_server(ds, 5e11, "hybrid").values == held).all()
    assert ((served > 0) != held).sum() == 1  # the node that never served
    old = ds.drop_vars("hybrid_nodes")  # a file from before hybrid_nodes: served share
    assert (holds_server(old, 5e11, "hybrid").values == (served > 0)).all()
    assert holds_server(old.drop_vars("hybrid_served_share"), 5e11, "hybrid") is None


def test_the_sentence_says_the_share_with_no_server_first_then_those_that_buy():
    from mc_tco.report.memo.sections_time import time_sentences

    ds, held, pay, *_ = _ds()
    t = time_numbers(ds, 5e11, "hybrid", where_held=True)
    f = finance_numbers(ds, 5e11, "hybrid", where_held=True)
    text = time_sentences(t, "the hybrid", 0.95, f)
    none = round(100 * (1 - held.mean()))
    assert text.startswith(f"In {none}% ")
    assert "buys no server: it is the API itself" in text
    assert f"Among the {round(100 * held.mean())}% " in text
    assert f"pays back in {_order(pay[held]):.0f} months" in text
    assert "in 0 months" not in text and "left out" not in text  # its IRR agrees there
    assert "of those scenarios" in text
    ds0, *_ = _ds(share_held=0.0)
    t0 = time_numbers(ds0, 5e11, "hybrid", where_held=True)
    assert t0.held.value == 0.0 and math.isnan(t0.payback.value)
    assert time_sentences(t0, "the hybrid", 0.95,
                          finance_numbers(ds0, 5e11, "hybrid", where_held=True)) == (
        "In every scenario the hybrid buys no server: it is the API itself (NPV $0, "
        "nothing to pay back).")


def test_the_payback_curve_of_the_hybrid_is_over_the_scenarios_that_buy():
    """The memo's payback figure drew the hybrid from 58% at month 0 (its no-server
    scenarios counted as paid back) with "never within 48 months: 9%", beside the table's
    21% of the scenarios that buy a server. By hand on the small dataset."""
    from mc_tco.decision.timeaxis import payback_curves

    ds, held, pay, *_ = _ds()
    curves = payback_curves(ds, 5e11, ("buy", "hybrid"), 48)
    assert float(curves["held"].sel(strategy="hybrid")) == pytest.approx(held.mean())
    assert float(curves["held"].sel(strategy="buy")) == 1.0
    bought = pay[held]
    for m in (0, 6, 20, 47, 48):
        assert float(curves.sel(strategy="hybrid", month=m)) == pytest.approx(
            np.mean(bought <= m))
    assert float(curves.sel(strategy="hybrid", month=0)) == 0.0
    # its never-share is the table's (time_numbers with where_held)
    never = 1 - float(curves.sel(strategy="hybrid", month=48))
    assert never == pytest.approx(time_numbers(ds, 5e11, "hybrid", where_held=True).never.value)
    # buy (all zeros here) is over every scenario
    assert float(curves.sel(strategy="buy", month=0)) == pytest.approx(
        np.mean(ds["payback_months"].sel(strategy="buy", demand=5e11).values <= 0))


def test_the_payback_medians_of_the_terminal_are_the_memos():
    """:func:`payback_medians` (the terminal's table): the hybrid's median over the
    scenarios where it buys a server, as :func:`time_numbers` with ``where_held``, and
    the share that buys none; buy over every scenario. By hand on the small dataset."""
    from mc_tco.decision.timeaxis import payback_medians

    ds, held, pay, *_ = _ds()
    med = payback_medians(ds, [5e11], ["buy", "hybrid"])
    t = time_numbers(ds, 5e11, "hybrid", where_held=True)
    assert bool(med["where_held"].sel(strategy="hybrid"))
    assert not bool(med["where_held"].sel(strategy="buy"))
    assert float(med["estimate"].sel(strategy="hybrid", demand=5e11)) == t.payback.value
    assert float(med["estimate"].sel(strategy="hybrid", demand=5e11)) == _order(pay[held])
    lo, hi = med["ci"].sel(strategy="hybrid", demand=5e11).values
    assert (lo, hi) == (t.payback.lower, t.payback.upper)
    assert float(med["no_server"].sel(strategy="hybrid", demand=5e11)) == pytest.approx(
        1 - held.mean())
    lo, hi = med["no_server_ci"].sel(strategy="hybrid", demand=5e11).values
    assert lo <= 1 - held.mean() <= hi
    assert math.isnan(float(med["no_server"].sel(strategy="buy", demand=5e11)))
    # the mixture's median (every scenario) was the API's 0
    assert float(median_over_every(ds)) == 0.0


def median_over_every(ds):
    from mc_tco.decision.timeaxis import median_with_interval

    pay = ds["payback_months"].sel(strategy="hybrid", demand=5e11)
    return median_with_interval(ds, pay)["estimate"]
