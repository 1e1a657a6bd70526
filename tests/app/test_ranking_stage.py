"""The explorer's ranking stage (issue 26): for a book ranked by Shapley effects, the
Shapley rows at the page's demand alone on the base rows, without the design rows, and
the same numbers as ``mc-tco run`` (the session's ``default_run``: 512 samples, seed 1,
``--shapley-at report``); a first estimate at a quarter of the permutations first."""

from __future__ import annotations

import numpy as np
import pytest

from mc_tco.app import api, bridge
from mc_tco.decision.indices import ranking as cli_ranking
from tests.paths import DEFAULT_BOOK

PATH = str(DEFAULT_BOOK)
TEXT = DEFAULT_BOOK.read_text(encoding="utf-8")
N, SEED = 512, 1  # the session's default_run


def _same(ds, ref, demand):
    for name in ("shapley", "shapley_conf"):
        np.testing.assert_array_equal(ds[name].sel(demand=demand).values,
                                      ref[name].sel(demand=demand).values, err_msg=name)


def test_the_ranking_stage_is_the_clis_shapley_effects_at_the_pages_demand(default_run):
    cache = api.RunCache()
    cache.get(TEXT, PATH, N, SEED, session="t", stage="base")  # as the page: base first
    ds = cache.get(TEXT, PATH, N, SEED, session="t", demand=3e11)
    # no design rows (their Sobol' indices rank nothing with correlations) and the
    # Shapley rows at the page's demand alone: the engine's estimator gives the run's
    # numbers there (engine.shapley.shapley_dataset(at=): the same draws)
    assert "ST" not in ds and "breakeven_demand" in ds
    assert list(ds.mc_tco.shapley_points()["demand"]) == [3e11]
    assert ds.mc_tco.ranking_index == "shapley" and ds.mc_tco.correlations
    _same(ds, default_run, 3e11)
    assert cache.cached(TEXT, N, SEED, "full", 3e11)
    assert not cache.cached(TEXT, N, SEED, "full", 1e12)
    # another demand (the slider) adds its own; the first is kept
    more = cache.get(TEXT, PATH, N, SEED, session="t", demand=1e12)
    assert list(more.mc_tco.shapley_points()["demand"]) == [3e11, 1e12]
    _same(more, default_run, 3e11)
    _same(more, default_run, 1e12)
    assert cache.get(TEXT, PATH, N, SEED, stage="answer") is more  # the fullest stage
    rk = api.answer(more, 1e12)["ranking"]["buy"]
    assert rk["at"] == 1e12 and not rk["rough"]
    assert rk["rests_on"].startswith("Shapley effects from 256 random permutations")
    assert f"mc-tco run --samples {N} --seed {SEED} --shapley-at grid" in rk["rests_on"]
    ref = api.answer(default_run, 1e12)["ranking"]["buy"]
    assert rk["rows"] == ref["rows"] and rk["target"] == ref["target"]


def test_the_first_estimate_has_a_quarter_of_the_permutations_and_twice_the_error(
        default_run):
    assert bridge.rough_permutations(N) == 64 and bridge.rough_permutations(128) is None
    cache = api.RunCache()
    ds = cache.get(TEXT, PATH, N, SEED, session="t", demand=5e11, rough=True)
    assert not cache.cached(TEXT, N, SEED, "full", 5e11)  # not kept as the run
    assert cache.cached(TEXT, N, SEED, "full", 5e11, rough=True)
    # i.i.d. permutations: the half-widths scale as 1 / sqrt(permutations), sqrt(256/64)
    ratio = (ds["shapley_conf"].sel(demand=5e11) / default_run["shapley_conf"].sel(
        demand=5e11)).values
    assert 1.6 < np.nanmedian(ratio) < 2.5
    rk = api.answer(ds, 5e11)["ranking"]["buy"]
    assert rk["rough"] and "--shapley-permutations 64 --shapley-at grid" in rk["rests_on"]


@pytest.mark.parametrize("demand", [1e11, 5e11, 3e12])
def test_the_page_ranks_the_target_the_cli_ranks(default_run, demand):
    # the indicator is ranked when its top index (the ranking index: Shapley effects here)
    # is above its own error, as decision.indices.ranking (the terminal, the memo) decides
    ans = api.answer(default_run, demand)["ranking"]
    for strategy, rk in ans.items():
        cli = cli_ranking(default_run, demand, strategy)
        assert rk["index"] == cli.index == "shapley"
        assert rk["target"] == cli.target, strategy
        assert [r[0] for r in rk["rows"]] == [str(v) for v in cli.table["input"].values[:8]]


def test_an_indicator_whose_top_shapley_effect_is_noise_is_not_ranked(default_run):
    # its Shapley half-widths made wider than the effects (ST left as it is): the CLI then
    # ranks the saving itself, and so does the page
    at = {"target": "saving>0", "demand": 1e12, "strategy": "buy"}
    assert api.answer(default_run, 1e12)["ranking"]["buy"]["target"] == "saving>0"
    noisy = default_run.copy()
    conf = noisy["shapley_conf"].copy()
    conf.loc[at] = 1.0
    noisy["shapley_conf"] = conf
    assert cli_ranking(noisy, 1e12, "buy").target == "saving"
    assert api.answer(noisy, 1e12)["ranking"]["buy"]["target"] == "saving"


def test_a_target_that_does_not_vary_has_nothing_to_rank(default_run):
    # at 30B tokens a month the hybrid is the API itself: its saving is 0 in every scenario
    rk = api.answer(default_run, 3e10)["ranking"]["hybrid"]
    assert rk["rows"] == [] and rk["constant"]
    assert api.answer(default_run, 3e10)["ranking"]["buy"]["rows"]
