"""Every reader of a ranking of the decision indicator says, in one line, when it rests on
too few winning (or losing) scenarios and names the nearest demand with enough (issue 25,
item 6): the accessor, ``decision.indices.ranking``, the terminal, the memo and the app."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mc_tco.decision.shares import MIN_EVENTS
from mc_tco.report.fmt import tokens
from mc_tco.results.io import open_results


@pytest.fixture(scope="module")
def ds(result_files):
    return open_results(result_files["default"])


def _nearest_with_enough(ds, demand: float) -> float:
    """The reference: counted here from the samples, nearest by ratio, among the demands
    with Sobol' indices (--sobol-at report: the report points)."""
    wins = (ds["saving"].sel(strategy="buy") > 0).sum("sample").values
    n = ds.sizes["sample"]
    ok = np.minimum(wins, n - wins) >= MIN_EVENTS
    ok &= np.isin(ds["demand"].values, [3e10, 1e11, 3e11, 5e11, 1e12, 3e12])
    grid = ds["demand"].values[ok]
    return float(grid[np.argmin(np.abs(np.log(grid / demand)))])


def test_decision_ranking_and_memo_name_the_nearest_demand(ds):
    from mc_tco.decision.indices import ranking
    from mc_tco.report.memo.context import ranking_sentences

    r = ranking(ds, 1e11)
    assert r.indicator_rare and r.target == "saving"
    near = _nearest_with_enough(ds, 1e11)
    assert r.nearest_demand == near
    first = ranking_sentences(r, ds.sizes["sample"])[0]
    assert f"the nearest demand with enough is {tokens(near)}" in first
    assert ranking(ds, near).nearest_demand is None


def test_terminal_names_the_nearest_demand(ds):
    from mc_tco.report.terminal import run_table

    rare = ds.copy()
    rare.attrs["focus"] = json.dumps({"demand": 1e11, "strategy": "buy"})
    lines = [ln for ln in run_table(rare).splitlines() if "too few to rank" in ln]
    assert len(lines) == 1
    near = _nearest_with_enough(ds, 1e11)
    assert lines[0].endswith(f"; the nearest demand with enough is {tokens(near)}")


def test_app_answer_carries_the_flag(ds):
    from mc_tco.app.api import answer

    rk = answer(ds, 1e11)["ranking"]["buy"]
    assert rk["target"] == "saving"
    assert rk["rare"]["nearest"] == _nearest_with_enough(ds, 1e11)
    assert rk["rare"]["events"] < MIN_EVENTS and "\n" not in rk["rare"]["note"]
    near = answer(ds, _nearest_with_enough(ds, 1e11))["ranking"]["buy"]
    assert near["rare"] is None
