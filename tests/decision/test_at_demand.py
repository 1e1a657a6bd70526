"""A results file read at a demand its grid lacks (issue 24, point 1): the stored scenarios
evaluated there give exactly the numbers of a run whose grid holds that demand (same book,
seed and samples), and the memo's summary at it is that run's."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mc_tco.book import loads_book
from mc_tco.book.shipped import DEFAULT, shipped_book
from mc_tco.decision.at_demand import (
    ADDED,
    added_demands,
    decision_demand,
    memo_demands,
    ranking_demand,
    with_demands,
)
from mc_tco.errors import OptionError

GRID = '[grid.demand]\nstart = 1e11\nstop = 1e12\nnum = 3\nspacing = "log"\n'
ASKED = 8e11


def _book(include: bool):
    text = shipped_book(DEFAULT).read_text()
    grid = GRID + (f"include = [{ASKED:g}, {ASKED / 2:g}]\n" if include else "")
    text = re.sub(r"\[grid\.demand\]\n(?:[a-z]+ = .*\n)+", grid, text, count=1)
    return loads_book(text, "distributions/small-grid.toml")


@pytest.fixture(scope="module")
def runs():
    """The small book without 800B (and 400B) on its grid, and with them: same seed."""
    from mc_tco.engine import run

    kw = {"samples": 64, "seed": 11, "shapley": False, "independence_check": False}
    return run(_book(False), **kw), run(_book(True), **kw)


def test_added_demand_equals_a_run_that_holds_it(runs):
    without, holding = runs
    assert ASKED not in without["demand"].values
    got = with_demands(without, memo_demands(without, ASKED))
    assert added_demands(got) == [ASKED / 2, ASKED, 2 * ASKED]
    for name in ("cost", "saving", "npv", "payback_months", "simple_payback_months",
                 "peak_cash_need_nominal", "irr", "cost_component", "fleet_utilization",
                 "p_positive", "p_positive_ci", "target_quantile", "target_quantile_ci",
                 "target_mean"):
        a = got[name].sel(demand=[ASKED / 2, ASKED]).values
        b = holding[name].sel(demand=[ASKED / 2, ASKED]).values
        # the kernels' vectorized and scalar paths (many or few demands) agree to 1e-15
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-9, err_msg=name)
    np.testing.assert_allclose(got["cash_by_year"].sel(cash_demand=ASKED).values,
                               _cash_at(holding, ASKED), rtol=1e-12)
    # the run's own points untouched; the indices are not invented at the added ones
    for name in ("p_positive", "ST", "saving"):
        assert got[name].sel(demand=without["demand"].values).equals(without[name])
    assert np.isnan(got["ST"].sel(demand=ASKED).values).all()
    assert int(got[ADDED].sum()) == 3
    assert ranking_demand(got, ASKED) == 1e12  # nearest on a log scale of 316B, 500B, 1T
    assert ranking_demand(got, 5e11) == 5e11


def _cash_at(ds, demand):
    """The cash by year of a run at ``demand``, which must then be one of its report
    demands: a second run of the holding book with it reported."""
    from mc_tco.engine.at_points import evaluate_stored

    return evaluate_stored(ds, "demand", [demand], outputs=["cash_by_year"])[
        "cash_by_year"].sel(cash_demand=demand).values


def test_memo_summary_at_an_added_demand_is_the_holding_runs(runs):
    from mc_tco.report.memo.one_page import one_page_data

    without, holding = runs
    a = one_page_data(with_demands(without, memo_demands(without, ASKED)), ASKED)
    b = one_page_data(with_demands(holding, memo_demands(holding, ASKED)), ASKED)
    assert a.points == b.points
    assert a.table.keys() == b.table.keys()
    for key, values in a.table.items():
        np.testing.assert_allclose(values, b.table[key], rtol=1e-12, err_msg=str(key))
    assert (a.choice, a.best_self, a.reason) == (b.choice, b.best_self, b.reason)


def test_decision_demand_accepts_any_demand_in_range(runs):
    without, _ = runs
    assert decision_demand(without, "800B") == ASKED
    assert decision_demand(without, "500B") == 5e11
    assert decision_demand(without, "1T") == 1e12
    with pytest.raises(OptionError, match=r"--demand 2e\+13 is outside the grid"):
        decision_demand(without, "20T")
    with pytest.raises(OptionError, match="positive"):
        decision_demand(without, "-1")


def test_multiples_past_the_grid_are_left_out(runs):
    without, _ = runs
    top = float(without["demand"].max())
    assert memo_demands(without, top) == [top / 2, top]
    with_top = with_demands(without, memo_demands(without, top))
    from mc_tco.decision.one_page import page_numbers

    assert [f for f, _ in page_numbers(with_top, top).points] == [0.5, 1.0]


def test_a_lazily_opened_file_is_not_loaded_to_add_a_demand(result_files):
    """Issue 26: on a 2^18-sample file loading it took 9.8 GB. The added demands are
    evaluated on the stored rows and joined to the file's variables lazily: adding them
    allocates far less than the file holds, and reading the result gives the file's
    numbers at its own points and the model's at the added ones."""
    import tracemalloc

    from mc_tco.engine.at_points import evaluate_stored
    from mc_tco.results.io import open_results

    with open_results(result_files["default"]) as ds:
        tracemalloc.start()
        got = with_demands(ds, memo_demands(ds, ASKED))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < ds.nbytes / 2, (peak, ds.nbytes)
        added = added_demands(got)
        assert added and ASKED in added
        own = ds["demand"].values[::9]
        np.testing.assert_array_equal(got["npv"].sel(demand=own).values,
                                      ds["npv"].sel(demand=own).values)
        want = evaluate_stored(ds, "demand", [ASKED], outputs=["npv", "cash_path"])
        np.testing.assert_array_equal(got["npv"].sel(demand=ASKED).values,
                                      want["npv"].sel(demand=ASKED).values)
        np.testing.assert_array_equal(
            got["cash_path"].sel(cash_demand=ASKED, strategy="buy").values,
            want["cash_path"].sel(cash_demand=ASKED, strategy="buy").values)
