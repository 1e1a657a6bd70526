"""Family check: swapped distributions keep the support; the variants are reruns of the
same base sample; Newcombe's paired interval covers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mc_tco.engine import execute, plan_run
from mc_tco.engine.family import (
    SHAPES,
    add_family_check,
    family_check,
    family_variants,
    paired_change,
    paired_difference_interval,
    swap_family,
)
from tests.references import newcombe_method_10


@pytest.mark.parametrize("family", SHAPES)
def test_swap_keeps_support_and_mode(default_book, family):
    for inp in default_book.uncertain:
        if inp.family not in ("uniform", "pert"):
            continue
        new = swap_family(inp, family)
        assert new.family == family and new.name == inp.name and new.unit == inp.unit
        assert new.support() == pytest.approx(inp.support())
        lo, hi = inp.support()
        mode = inp.params["mode"] if inp.family == "pert" else (lo + hi) / 2
        if family == "triangular":
            assert new.params["mode"] == pytest.approx(mode)
            # the density of a triangle peaks at its mode
            grid = np.linspace(lo, hi, 2001)
            assert grid[np.argmax(new.dist.pdf(grid))] == pytest.approx(mode, abs=(hi - lo) / 1000)
        if family == "pert":
            assert new.params["shape"] == inp.params.get("shape", 4.0)
            a = 1 + 4 * (mode - lo) / (hi - lo)
            assert new.dist.mean() == pytest.approx(lo + (hi - lo) * a / 6)  # (min+4mode+max)/6
        if family == "uniform":
            assert new.dist.mean() == pytest.approx((lo + hi) / 2)


def test_variants_of_the_books(default_book, article_book):
    # article: 8 uniform inputs -> book + 3 all-at-once + 8 x 2 one-at-a-time
    labels = [v[0] for v in family_variants(article_book)]
    assert len(labels) == 1 + 3 + 8 * 2 and labels[:4] == [
        "book", "all:uniform", "all:triangular", "all:pert"]
    assert "node_price:pert" in labels and "node_price:uniform" not in labels
    variants = family_variants(default_book)
    # api_price_level is lognormal (unbounded): never swapped
    assert not any(v[1] == "api_price_level" for v in variants)
    all_pert = variants[3][3]
    assert all_pert.inputs["api_price_level"].family == "lognormal"
    assert all_pert.inputs["node_price"].family == "pert"
    assert all_pert.inputs["sovereignty_value"].is_constant


def test_paired_interval_covers():
    """Coverage of Newcombe's interval over simulated paired tables (n = 400)."""
    rng = np.random.default_rng(0)
    n, reps = 400, 4000
    p_both, p_b, p_c = 0.1, 0.06, 0.02  # P(1,1), P(1,0), P(0,1)
    cells = rng.multinomial(n, [p_both, p_b, p_c, 1 - p_both - p_b - p_c], size=reps)
    a, b, c, d = cells.T
    lo, hi = paired_difference_interval(b, c, n, 0.95, a=a, d=d)
    truth = p_b - p_c
    coverage = np.mean((lo <= truth) & (truth <= hi))
    assert 0.93 < coverage < 0.97
    assert np.all(lo <= (b - c) / n) and np.all((b - c) / n <= hi)


def test_paired_interval_without_discordant_pairs_is_narrow():
    lo, hi = paired_difference_interval(0, 0, 1000, 0.95, a=100, d=900)
    assert lo <= 0 <= hi and hi - lo < 0.01


def test_paired_change_is_the_replicate_t_interval_of_the_per_scramble_changes():
    """Issue 14: the change of a paired share from the spread of the R scrambles."""
    from scipy import stats

    from mc_tco.uncertainty.scrambles import replicate_of

    r, per = 8, 100
    rep = replicate_of(np.arange(r * per), r)
    rng = np.random.default_rng(4)
    ref = rng.random(r * per) < 0.4
    wins = ref.copy()
    flip = rng.random(r * per) < 0.1  # discordant pairs in every scramble
    wins[flip] = ~wins[flip]
    res = paired_change(wins, ref, rep, r)
    d_r = np.array([(wins[rep == k].astype(float) - ref[rep == k]).mean() for k in range(r)])
    half = stats.t.ppf(0.975, r - 1) * d_r.std(ddof=1) / np.sqrt(r)
    assert not res.fallback
    np.testing.assert_allclose([res.estimate, res.lower, res.upper],
                               [d_r.mean(), d_r.mean() - half, d_r.mean() + half])
    # no discordant pair in scramble 0: Newcombe's interval on the pooled counts
    wins[rep == 0] = ref[rep == 0]
    res = paired_change(wins, ref, rep, r)
    b, c = int((wins & ~ref).sum()), int((~wins & ref).sum())
    a = int((wins & ref).sum())
    lo, hi = paired_difference_interval(b, c, r * per, 0.95, a=a, d=r * per - a - b - c)
    assert bool(res.fallback)
    np.testing.assert_allclose([res.lower, res.upper], [lo, hi])


@pytest.fixture(scope="module")
def article_small(article_book):
    plan = plan_run(article_book, samples=256, seed=5, resamples=0)
    return plan, execute(plan)


def test_family_check_reruns_the_same_base_sample(article_small):
    plan, ds = article_small
    fc = family_check(plan)
    assert fc.sizes["family_variant"] == 20
    p = fc["family_check_p_positive"]
    assert p.dims == ("family_variant", "target", "demand", "strategy")
    # the book variant is the run itself, and every article input is already uniform
    np.testing.assert_array_equal(p.sel(family_variant="book").values, ds.p_positive.values)
    np.testing.assert_array_equal(p.sel(family_variant="all:uniform").values,
                                  ds.p_positive.values)
    q = fc["family_check_breakeven_demand_quantile"]
    np.testing.assert_array_equal(q.sel(family_variant="book").values,
                                  ds.breakeven_demand_quantile.values)
    ci = fc["family_check_p_positive_ci"]
    # (NaN: a one-at-a-time variant at a grid point it was not evaluated at)
    ok = p.notnull()
    assert not (~ok).sel(family_variant=["book", "all:uniform", "all:pert"]).any()
    assert ((ci.sel(ci_bound="lower") <= p) | ~ok).all()
    assert ((p <= ci.sel(ci_bound="upper")) | ~ok).all()
    # issue 14: the book variant's interval is the run's own (over the scrambles)
    np.testing.assert_allclose(ci.sel(family_variant="book").values, ds.p_positive_ci.values)
    np.testing.assert_array_equal(
        fc["family_check_p_positive_fallback"].sel(family_variant="book").values,
        ds.p_positive_fallback.values)
    assert "randomized-QMC" in ci.attrs["method"]
    change = fc["family_check_p_positive_change_ci"].sel(family_variant="book")
    assert float(abs(change).max()) < 0.02  # no change: a narrow interval around 0
    # a PERT throughput (mode 15, the middle) has thinner tails than the uniform
    moved = p.sel(family_variant="throughput_multiple:pert", target="saving>0",
                  strategy="buy", demand=3e12)
    assert float(moved) < float(p.sel(family_variant="book", target="saving>0",
                                      strategy="buy", demand=3e12))
    assert json.loads(fc.attrs["family_check_swapped"]) == [i.name for i in plan.book.uncertain]
    assert fc.attrs["family_check_seconds"] > 0


def test_add_family_check_keeps_every_run_variable(article_small):
    plan, ds = article_small
    merged = add_family_check(plan, ds)
    assert set(ds.data_vars) <= set(merged.data_vars)
    assert merged.attrs["book_sha256"] == ds.attrs["book_sha256"]
    assert "family_check_p_positive" in merged and "family_check_swapped" in merged.attrs

#: Newcombe (1998, paired), Table II, method 10 (95%): (a, b, c, d) = counts of the pairs
#: (1, 1), (1, 0), (0, 1), (0, 0), and his published interval for ``(b - c) / n`` to 4
#: decimals (the same four examples are the checks of the R package propint,
#: tests/testthat/test_Two_Dependent_Props_CI.R)
NEWCOMBE_1998_TABLE_II = [
    ((36, 12, 2, 0), (0.0569, 0.3404)),
    ((18, 12, 2, 18), (0.0562, 0.3290)),
    ((53, 0, 0, 1), (-0.0729, 0.0729)),
    ((0, 30, 0, 0), (0.8395, 1.0000)),
]


@pytest.mark.parametrize(("table", "published"), NEWCOMBE_1998_TABLE_II)
def test_paired_interval_is_newcombes_published_method_10(table, published):
    """The four worked examples of Newcombe's Table II, to his 4 decimals; the second and
    third have ``ad > bc``, where his phi carries the ``- n/2`` continuity correction."""
    a, b, c, d = table
    lo, hi = paired_difference_interval(b, c, a + b + c + d, 0.95, a=a, d=d)
    np.testing.assert_allclose([lo, hi], published, atol=5e-5)
    np.testing.assert_allclose([lo, hi], newcombe_method_10(a, b, c, d), rtol=1e-12)


def test_the_family_check_uses_the_runs_own_rows(article_book):
    """--ci/--replicates were ignored: the family check's 'book' variant must be the run
    (a review's bug, issue 10)."""
    from mc_tco.engine import run

    ds = run(article_book, samples=64, ci="bootstrap", resamples=10,
             family_check=True)
    book = ds["family_check_p_positive"].sel(family_variant="book")
    np.testing.assert_array_equal(book.values, ds["p_positive"].values)
