"""The family check on common random numbers: a variant's rows are those of a rerun of its
own plan (:func:`mc_tco.engine.evaluate.evaluate_base`), its numbers those computed from
that rerun's rows, and the break-even is computed where the memo reads it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mc_tco.engine import plan_run
from mc_tco.engine.evaluate import evaluate_base
from mc_tco.engine.family import family_check, family_variants, paired_change
from mc_tco.engine.family_eval import scramble_counts, single_grid, unit_points, variant_values
from mc_tco.uncertainty.scrambles import probability_with_interval, replicate_of
from mc_tco.uncertainty.statistics import QUANTILES, quantiles_with_never


@pytest.fixture(scope="module")
def checked(article_book):
    plan = plan_run(article_book, samples=128, seed=3, resamples=0)
    return plan, family_variants(plan.book), family_check(plan)


def _rerun(plan, book):
    """The variant rerun as its own plan: the family check's reference."""
    return evaluate_base(plan_run(book, samples=plan.samples, seed=plan.seed, resamples=0))


def test_a_variants_values_are_those_of_its_own_plan(checked):
    plan, variants, _ = checked
    books = [v[3] for v in variants]
    made = list(variant_values(plan, books, unit_points(plan)))
    for i in (0, 1, 3, 5, len(books) - 1):
        values, changed = made[i]
        np.testing.assert_array_equal(values, _rerun(plan, books[i])["input_value"].values)
        assert changed == (i != 0 and variants[i][0] != "all:uniform")  # (article: all uniform)


def test_a_single_variants_numbers_are_those_of_its_rerun(checked):
    """At the report points, claim points and focus (NaN at the other grid points)."""
    plan, variants, fc = checked
    i = next(i for i, v in enumerate(variants) if v[0] == "throughput_multiple:pert")
    at = single_grid(plan)
    assert list(at) == ["demand"] and set(plan.report["demand"]) <= set(at["demand"])
    assert plan.focus["demand"] in at["demand"]
    assert len(at["demand"]) < len(plan.grid["demand"].values)
    base, var = _rerun(plan, variants[0][3]), _rerun(plan, variants[i][3])
    win, ref = (var["saving"] > 0).sel(at), (base["saving"] > 0).sel(at)
    reps = plan.n_replicates
    pr = probability_with_interval(win.astype(float), replicates=reps)
    label = variants[i][0]
    p_all = fc["family_check_p_positive"].sel(family_variant=label, target="saving>0")
    p = p_all.sel(at)
    np.testing.assert_array_equal(p.values, win.mean("sample").values)
    assert np.isnan(p_all.drop_sel(at).values).all()
    assert "only" in p_all.attrs["one_at_a_time_at"]
    np.testing.assert_array_equal(
        fc["family_check_p_positive_ci"].sel(family_variant=label, target="saving>0")
        .sel(at).values, pr["ci"].transpose(*p.dims, "ci_bound").values)
    ch = paired_change(win.transpose("sample", *p.dims).values,
                       ref.transpose("sample", *p.dims).values,
                       replicate_of(np.arange(plan.samples), reps), reps)
    got = fc["family_check_p_positive_change_ci"].sel(family_variant=label, target="saving>0")
    np.testing.assert_allclose(got.sel(at).values, np.stack([ch.lower, ch.upper], axis=-1),
                               rtol=0, atol=1e-15)
    # the book and the all-at-once variants: the whole grid
    assert not np.isnan(fc["family_check_p_positive"].sel(
        family_variant=["book", "all:pert"]).values).any()
    # the target's two labels are the same indicator, as in the run's own p_positive
    np.testing.assert_array_equal(
        fc["family_check_p_positive"].sel(family_variant=label, target="saving").sel(at).values,
        p.values)


def test_the_break_even_is_computed_for_the_book_and_the_all_at_once_variants(checked):
    plan, variants, fc = checked
    q = fc["family_check_breakeven_demand_quantile"]
    done = [v[0] for v in variants if v[1] in ("", "all")]
    assert json.loads(q.attrs["computed_for"]) == done == [
        "book", "all:uniform", "all:triangular", "all:pert"]
    i = done.index("all:pert")
    ref = quantiles_with_never(_rerun(plan, variants[i][3])["breakeven_demand"],
                               quantiles=QUANTILES, replicates=plan.n_replicates)
    np.testing.assert_array_equal(q.sel(family_variant="all:pert").values,
                                  ref["quantiles"].values)
    singles = [v[0] for v in variants if v[1] not in ("", "all")]
    assert np.isnan(q.sel(family_variant=singles).values).all()
    assert np.isnan(fc["family_check_breakeven_demand_p_never"].sel(
        family_variant=singles).values).all()


def test_scramble_counts_sum_each_scrambles_rows():
    rng = np.random.default_rng(1)
    rows = rng.random((48, 3)) > 0.5
    rep = replicate_of(np.arange(48), 8)
    np.testing.assert_array_equal(scramble_counts(rows, 8),
                                  np.stack([rows[rep == r].sum(axis=0) for r in range(8)]))
