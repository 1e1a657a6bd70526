"""Issue 15 and issue 11 item 5-6 leftovers: what a reader of the memo's body sees (plain
labels, rounded shares, the decision's strategy), the run's interval level in every label,
and the claims evaluated at their own demands. Each test builds only the part it checks."""

from __future__ import annotations

import re

import pytest

from mc_tco.memo import fmt


def test_one_money_format_with_digits():
    """memo.fmt has one money helper; ``digits`` chooses the significant digits."""
    assert not hasattr(fmt, "usd")
    assert fmt.money(-36512, "/month", digits=3) == "-$36.5k/month"
    assert fmt.money(16000, "/month", digits=3) == "$16k/month"
    assert fmt.money(488_123, " a year", digits=3) == "$488k a year"
    assert fmt.money(56.8, "/h", digits=3) == "$56.8/h"
    assert fmt.money(1_234_567, digits=3) == "$1.23M"
    assert fmt.money(670_123) == "$670k"
    assert fmt.money(999_700) == "$1M"
    assert fmt.money(-36_123) == "-$36k"
    assert fmt.money(950) == "$950"
    assert fmt.money(0) == "$0"
    assert fmt.money(float("nan")) == "n/a"


def _tied_ranking():
    import numpy as np
    import xarray as xr

    from mc_tco.memo.analysis import Ranking

    names = ["a", "b", "c"]
    table = xr.Dataset(
        {"ST": ("input", [0.60, 0.59, 0.2]), "ST_conf": ("input", [0.05, 0.05, 0.01]),
         "S1": ("input", [0.1, 0.1, 0.1]), "S1_conf": ("input", [0.01, 0.01, 0.01]),
         "rank": ("input", [1, 2, 3]), "rank_best": ("input", [1, 1, 3]),
         "rank_worst": ("input", [2, 2, 3])},
        coords={"input": names})
    assert np.isfinite(table["ST"].values).all()
    return Ranking("saving>0", 5e11, "buy", 900, 8192, False, table)


def test_ranking_sentences_say_the_runs_level():
    """Issue 11 item 5 (review leftover): a tie names the run's level, not always 95%."""
    from mc_tco.memo.context import ranking_sentences

    text = " ".join(ranking_sentences(_tied_ranking(), 8192, "80%"))
    assert "2 inputs share the top" in text
    assert "(ST ± 80% half-width)" in text and "95%" not in text
