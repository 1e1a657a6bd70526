"""Issue 24, points 2 and 8, by hand on small results-like datasets: the gap in nominal
cash between two options over the horizon (:func:`mc_tco.decision.budget.cash_gap`), the
nominal twins of the payback and peak cash need and the check of an IRR against its NPV
(:func:`mc_tco.decision.finance.finance_numbers`), and the request sentence built on them."""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.decision.budget import cash_by_year, cash_gap
from mc_tco.decision.finance import finance_numbers

R, PER = 8, 30
N = R * PER
STRATS = ["api", "buy", "rent", "reserved", "owned", "hybrid"]


def _order(v, q):
    """numpy's inverted_cdf quantile, by hand: x_(ceil(q n))."""
    v = np.sort(np.asarray(v, dtype=float))
    return v[int(np.ceil(q * v.size)) - 1]


def _cash_ds():
    rng = np.random.default_rng(7)
    cash = rng.lognormal(12, 0.8, (N, 2, 4, len(STRATS)))
    ds = xr.Dataset({"cash_by_year": (("sample", "cash_demand", "year", "strategy"), cash)},
                    coords={"sample": np.arange(N), "cash_demand": [1e11, 5e11],
                            "year": [1, 2, 3, 4], "strategy": STRATS})
    ds.attrs.update(ci="rqmc", replicates=R, conf_level=0.95)
    return ds


def test_cash_gap_is_the_quantile_of_each_scenarios_difference_of_totals():
    ds = _cash_ds()
    got = cash_gap(ds, 5e11, "buy", "api")
    total = ds.cash_by_year.sel(cash_demand=5e11).sum("year")
    diff = (total.sel(strategy="buy") - total.sel(strategy="api")).values
    for q in (0.1, 0.5, 0.9):
        assert float(got["estimate"].sel(quantile=q)) == _order(diff, q)
    # not the difference of the quantiles
    tb = cash_by_year(ds, 5e11)["total_estimate"]
    assert float(got["estimate"].sel(quantile=0.5)) != float(
        tb.sel(strategy="buy", quantile=0.5) - tb.sel(strategy="api", quantile=0.5))
    lo, hi = got["ci"].sel(quantile=0.5).values
    assert lo <= _order(diff, 0.5) <= hi
    assert got.attrs["demand"] == 5e11


def _finance_ds(irr_shift: float):
    rng = np.random.default_rng(3)
    rate = rng.uniform(0.06, 0.10, N)
    npv = rng.normal(-2e5, 1e5, N)  # mostly negative
    irr = rate + irr_shift + rng.normal(0, 0.01, N)
    irr[:20] = np.nan  # flows that never change sign
    simple = rng.integers(10, 40, N).astype(float)
    simple[:50] = np.inf
    peak = rng.uniform(1e5, 9e5, N)

    def cube(v):  # (sample, demand, strategy): the values on buy at 5e11
        a = np.zeros((N, 1, len(STRATS)))
        a[:, 0, 1] = v
        return a

    ds = xr.Dataset(
        {name: (("sample", "demand", "strategy"), cube(v))
         for name, v in (("npv", npv), ("irr", irr), ("simple_payback_months", simple),
                         ("peak_cash_need_nominal", peak))},
        coords={"sample": np.arange(N), "demand": [5e11], "strategy": STRATS,
                "input": ["discount_rate"]})
    ds["input_value"] = (("sample", "input"), rate[:, None])
    ds.attrs.update(ci="rqmc", replicates=R, conf_level=0.95, constants="{}")
    return ds, rate, npv, irr, simple, peak


def test_an_irr_above_the_cost_of_capital_with_a_negative_npv_contradicts_it():
    ds, rate, npv, irr, simple, peak = _finance_ds(+0.05)  # IRR above the rate, NPV < 0
    f = finance_numbers(ds, 5e11, "buy")
    ok = np.isfinite(irr)
    assert f.irr == _order(irr[ok], 0.5) and f.cost_of_capital == _order(rate, 0.5)
    assert f.npv == _order(npv, 0.5) < 0
    assert not f.irr_agrees
    assert f.disagree == np.mean((irr[ok] > rate[ok]) != (npv[ok] > 0))
    assert f.simple_payback.value == _order(simple, 0.5)
    assert f.peak_nominal.value == _order(peak, 0.5)
    ds, *_ = _finance_ds(-0.05)  # IRR below the rate with a negative NPV: they agree
    assert finance_numbers(ds, 5e11, "buy").irr_agrees


def test_the_time_sentence_leaves_out_a_contradicting_irr():
    import math

    from mc_tco.decision.timeaxis import Estimate, TimeNumbers
    from mc_tco.report.memo.sections_time import time_sentences

    ds, *_ = _finance_ds(+0.05)
    f = finance_numbers(ds, 5e11, "buy")
    est = Estimate(math.inf, math.inf, math.inf)
    t = TimeNumbers("buy", 5e11, 48, est, Estimate(0.9, 0.88, 0.92), Estimate(1e6, 9e5, 1.1e6),
                    (1e5, 2e6), Estimate(f.irr, f.irr, f.irr), 0.9)
    text = time_sentences(t, "buying", 0.95, f)
    assert "internal rate of return is left out" in text and "read the NPV" in text
    assert "simple payback, undiscounted" in text and "in nominal cash" in text
    assert "discounted" in text


def test_the_request_sentence_reads_the_budget_numbers():
    from mc_tco.report.memo.fmt import money
    from mc_tco.report.memo.one_page_budget import Budget, request_sentence

    ds = _cash_ds()
    cash = cash_by_year(ds, 5e11, ["api", "buy", "hybrid"])
    gap = cash_gap(ds, 5e11, "buy", "api")
    text = request_sentence(Budget(cash, gap, (-1.5e6, -7e5, 2e5), "api", "buy"))
    y1 = ds.cash_by_year.sel(cash_demand=5e11, strategy="api", year=1).values
    assert text.startswith(f"**Decision requested: Keep the API: budget "
                           f"{money(_order(y1, 0.5))} in year 1 (P90 {money(_order(y1, 0.9))})")
    mid = float(gap["estimate"].sel(quantile=0.5))
    word = f"would cost {money(mid)} more" if mid > 0 else f"would save {money(-mid)}"
    assert f"do not fund servers: they {word} over 4 years" in text
    assert "NPV against the API -$1.5M to $200k (P10 to P90)" in text
