"""Bugs a review found (issue 10), each pinned by a test that failed before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from mc_tco.book import load_book
from mc_tco.engine import plan_run, run
from tests.paths import ARTICLE_BOOK


def test_a_nan_half_width_blocks_convergence(monkeypatch):
    """np.nanmax turned a NaN half-width into 'converged'; NaN must mean 'not settled'."""
    from mc_tco.engine import adaptive

    plan = plan_run(load_book(ARTICLE_BOOK), samples=64, target_halfwidth=0.5,
                    max_samples=128)
    layout = adaptive.cell_layout(plan)
    real = adaptive.RunSums.result

    def with_nan(self, conf_level):
        res = real(self, conf_level)
        res["ST_conf"] = np.where(np.isfinite(res["ST"]), np.nan, res["ST_conf"])
        return res

    from mc_tco.engine.evaluate import evaluate_chunk

    _, _, shift = evaluate_chunk(plan, 0, 8)
    _, sums, _ = evaluate_chunk(plan, 0, 64, shift=shift)
    monkeypatch.setattr(adaptive.RunSums, "result", with_nan)
    # settle nothing: every indicator cell is held to the target
    monkeypatch.setattr(adaptive, "_p_interval",
                        lambda s, c: (np.full(s.pooled().mean_a().shape, 0.4),
                                      np.full(s.pooled().mean_a().shape, 0.6)))
    step = adaptive.convergence_step(plan, sums, 0.5, None, layout=layout)
    assert step["cells"] > 0
    assert not step["converged"]
    assert np.isinf(step["worst_halfwidth"])
    assert "undefined" in step["why"]


def test_the_family_check_uses_the_runs_own_rows():
    """--ci/--replicates were ignored: the family check's 'book' variant must be the run."""
    ds = run(load_book(ARTICLE_BOOK), samples=64, ci="bootstrap", resamples=10,
             family_check=True)
    book = ds["family_check_p_positive"].sel(family_variant="book")
    np.testing.assert_array_equal(book.values, ds["p_positive"].values)


@pytest.mark.parametrize("estimator, words", [
    ("saltelli", "S1: Saltelli et al. 2010; ST: Jansen 1999"),
    ("janon", "S1 and ST: Janon et al. 2014"),
    ("martinez", "S1 and ST: Martinez 2011"),
])
def test_provenance_names_the_estimator_used(estimator, words):
    ds = run(load_book(ARTICLE_BOOK), samples=64, estimator=estimator)
    assert ds.attrs["sobol_estimators"].startswith(words)
    assert ds.attrs["estimator"] == estimator
