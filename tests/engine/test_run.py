"""The engine end to end: dims, summaries from base rows, reproducibility, user models."""

import textwrap

import numpy as np
import pytest
import xarray as xr
from SALib.analyze import sobol as salib_analyze

from mc_tco.book import loads_book
from mc_tco.engine import design_values, plan_run, run
from mc_tco.errors import ModelError, OptionError
from tests.paths import ARTICLE_BOOK
from tests.references import rqmc_proportion


def test_results_have_the_documented_dims_and_variables(article_run):
    ds = article_run
    assert ds.sizes["sample"] == 512 and ds.sizes["input"] == 8
    assert list(ds.target.values) == ["saving", "saving>0"]
    assert list(ds.strategy.values) == ["api", "buy", "rent", "reserved", "owned", "hybrid"]
    assert list(ds["quantile"].values) == [0.05, 0.25, 0.5, 0.75, 0.95]
    # 41 grid points + 3 report points + the claims' 30B (mc_tco.models.tco.CLAIM_DEMANDS)
    assert ds.S1.sizes == {"target": 2, "input": 8, "demand": 45, "strategy": 6}
    assert ds.p_positive_ci.sizes == {"target": 2, "demand": 45, "strategy": 6, "ci_bound": 2}
    for name in ["cost", "saving", "breakeven_demand", "nodes", "storage_tb", "npv",
                 "gpu_share", "payback_months", "p_positive", "S1", "ST", "S1_conf",
                 "ST_conf", "target_quantile", "target_mean", "breakeven_demand_quantile",
                 "breakeven_demand_p_never", "input_value"]:
        assert name in ds, name
    assert ds.saving.attrs["units"] == "USD/month"
    assert ds.attrs["samples"] == 512 and ds.attrs["seed"] == 3
    assert "[inputs.node_price]" in ds.attrs["book_text"]
    # the report points and the claims' demands are exact grid points
    for d in (3e10, 1e11, 3e11, 5e11, 1e12, 3e12):
        assert d in ds.demand.values


def test_summaries_come_from_the_base_rows(article_run):
    ds = article_run
    saving = ds.saving.sel(demand=1e12, strategy="owned")
    q = np.quantile(saving.values, [0.05, 0.25, 0.5, 0.75, 0.95], method="inverted_cdf")
    np.testing.assert_allclose(
        ds.target_quantile.sel(target="saving", demand=1e12, strategy="owned").values, q
    )
    p = (saving.values > 0).mean()
    assert ds.p_positive.sel(target="saving", demand=1e12, strategy="owned") == p
    lo, hi = ds.p_positive_ci.sel(target="saving", demand=1e12, strategy="owned").values
    assert lo <= p <= hi
    be = ds.breakeven_demand.sel(strategy="buy").values
    assert ds.breakeven_demand_p_never.sel(strategy="buy") == np.isinf(be).mean()
    # issue 14: the never share's interval is the one over the run's scrambles
    from mc_tco.uncertainty.scrambles import indicator, probability_with_interval

    b = ds.breakeven_demand
    ref = probability_with_interval(indicator(np.isinf(b), b), replicates=ds.attrs["replicates"])
    np.testing.assert_allclose(ds.breakeven_demand_p_never_ci.values,
                               ref["ci"].transpose(*b.dims[1:], "ci_bound").values)
    np.testing.assert_array_equal(ds.breakeven_demand_p_never_fallback.values,
                                  ref["fallback"].values.astype(np.int8))
    assert "randomized-QMC" in ds.breakeven_demand_p_never_ci.attrs["method"]


def test_summaries_equal_an_independent_recomputation_from_the_base_rows(article_run):
    """The stored P(saving > 0) and never share with their intervals, recomputed from the
    stored base rows by :func:`tests.references.rqmc_proportion` (numpy and scipy only):
    cells on the t interval and cells that fall back to Wilson's."""
    ds = article_run
    r = int(ds.attrs["replicates"])
    seen = set()
    for demand in ds.demand.values[::4]:
        for strategy in ["buy", "rent", "reserved", "owned", "hybrid"]:
            y = ds.saving.sel(demand=demand, strategy=strategy).transpose("sample", ...).values
            p, lo, hi, fb = rqmc_proportion((y > 0).astype(float), ds.sample.values, r)
            cell = dict(target="saving", demand=demand, strategy=strategy)
            np.testing.assert_allclose(float(ds.p_positive.sel(cell)), p, rtol=1e-12)
            np.testing.assert_allclose(ds.p_positive_ci.sel(cell).values, [lo, hi], rtol=1e-9)
            assert bool(ds.p_positive_fallback.sel(cell)) == fb
            seen.add(fb)
    assert seen == {True, False}  # both branches of the interval were compared
    for strategy in ["buy", "rent", "reserved", "owned", "hybrid"]:
        b = ds.breakeven_demand.sel(strategy=strategy).values
        event = np.where(np.isnan(b), np.nan, np.isinf(b).astype(float))
        p, lo, hi, fb = rqmc_proportion(event, ds.sample.values, r)
        np.testing.assert_allclose(float(ds.breakeven_demand_p_never.sel(strategy=strategy)), p,
                                   rtol=1e-12)
        np.testing.assert_allclose(ds.breakeven_demand_p_never_ci.sel(strategy=strategy).values,
                                   [lo, hi], rtol=1e-9)
        assert bool(ds.breakeven_demand_p_never_fallback.sel(strategy=strategy)) == fb


def test_indices_equal_salib_on_the_same_design(article_book):
    """The engine's streamed indices at one cell equal SALib's analyze on the same rows."""
    plan = plan_run(article_book, samples=256, seed=4, resamples=0)
    # (every grid point: 1e10 is not a report point; --sobol-at report has its own tests)
    ds = run(article_book, samples=256, seed=4, resamples=0, sobol_at="grid")
    rows = design_values(plan, 0, 256).reshape(-1, 8)
    inputs = {name: rows[:, j] for j, name in enumerate(plan.factors)}
    from mc_tco.engine.evaluate import _input_dataset

    out = plan.model(_input_dataset(plan, rows))
    problem = {"num_vars": 8, "names": plan.factors, "bounds": [[0, 1]] * 8}
    for demand, strategy in [(1e12, "buy"), (3e11, "owned"), (1e10, "owned")]:
        y = out.saving.sel(demand=demand, strategy=strategy).values
        ref = salib_analyze.analyze(problem, y, calc_second_order=False, num_resamples=2, seed=1)
        got = ds.sel(target="saving", demand=demand, strategy=strategy)
        np.testing.assert_allclose(got.S1.values, ref["S1"], atol=1e-10)
        np.testing.assert_allclose(got.ST.values, ref["ST"], atol=1e-10)
    assert inputs  # the design feeds the model through input values


@pytest.mark.slow
def test_same_seed_same_numbers_and_chunking_does_not_matter(article_book):
    a = run(article_book, samples=1024, seed=5, resamples=20)
    b = run(article_book, samples=1024, seed=5, resamples=20, chunk_size=512)
    c = run(article_book, samples=1024, seed=6, resamples=20)
    for name in ["saving", "S1", "ST", "S1_conf", "ST_conf", "p_positive", "target_quantile"]:
        xr.testing.assert_allclose(a[name], b[name], rtol=1e-12, atol=1e-12)
    assert not np.allclose(a.saving.values, c.saving.values)
    xr.testing.assert_identical(a.drop_attrs(), run(article_book, samples=1024, seed=5,
                                                    resamples=20).drop_attrs())


def test_constant_cells_are_nan_and_flagged(article_run):
    ds = article_run
    # saving of the API against itself is 0 everywhere
    api = ds.sel(strategy="api")
    assert np.isnan(api.S1).all() and (api.constant_output == 1).all()
    # renting never beats the API in the article's book: the indicator is constant
    rent = ds.sel(strategy="rent", target="saving>0")
    assert (rent.constant_output == 1).all() and np.isnan(rent.ST).all()


@pytest.mark.parametrize("samples", [0, 100, 1000, 8])
def test_samples_must_be_a_power_of_two(article_book, samples):
    with pytest.raises(OptionError, match="power of two"):
        plan_run(article_book, samples=samples)


USER_MODEL = '''
import numpy as np
import xarray as xr


def model(inputs):
    """Y = a + 2 b over a grid t, and a product that is only sometimes positive."""
    t = inputs["t"]
    y = inputs["a"] + 2 * inputs["b"] * t
    return xr.Dataset({"y": y, "z": inputs["a"] * inputs["b"] - 0.1})
'''


def _user_book(tmp_path, model_name="user_model_ok", extra=""):
    (tmp_path / f"{model_name}.py").write_text(USER_MODEL)
    text = textwrap.dedent(f"""
        [book]
        name = "linear"
        model = "{model_name}:model"
        [grid.t]
        values = [0.5, 1.0, 2.0]
        [analysis]
        targets = ["y", "z"]
        [inputs.a]
        dist = "uniform"
        low = -1
        high = 1
        [inputs.b]
        dist = "normal"
        mean = 0
        sd = 1
        {extra}
        """)
    path = tmp_path / "linear.toml"
    path.write_text(text)
    return path


def test_user_model_named_in_the_book(tmp_path):
    from mc_tco.book import load_book

    ds = run(load_book(_user_book(tmp_path)), samples=4096, seed=0, resamples=0)
    # Var(a) = 1/3, Var(2 b t) = 4 t^2: S1 of a is (1/3) / (1/3 + 4 t^2)
    t = ds.t.values
    expected = (1 / 3) / (1 / 3 + 4 * t**2)
    np.testing.assert_allclose(ds.S1.sel(target="y", input="a").values, expected, atol=0.01)
    np.testing.assert_allclose(ds.ST.sel(target="y", input="b").values, 1 - expected, atol=0.01)
    # P(y > 0) = 1/2 by symmetry
    np.testing.assert_allclose(ds.p_positive.sel(target="y").values, 0.5, atol=0.03)
    assert set(ds.target.values) == {"y", "y>0", "z", "z>0"}


def test_user_model_returning_nan_names_the_inputs(tmp_path):
    from mc_tco.book import load_book

    path = _user_book(tmp_path, "user_model_nan")
    (tmp_path / "user_model_nan.py").write_text(
        USER_MODEL.replace('- 0.1})', '- 0.1, "w": np.log(inputs["a"])})')
        .replace('"z": inputs', '"z": np.log(inputs["a"]) + 0 * inputs')
    )
    with pytest.raises(ModelError, match=r"output 'z' is nan for the inputs a=-"):
        run(load_book(path), samples=64, resamples=0)


def test_target_the_model_does_not_return(tmp_path):
    from mc_tco.book import load_book
    from mc_tco.errors import BookError

    path = _user_book(tmp_path, "user_model_tgt")
    path.write_text(path.read_text().replace('targets = ["y", "z"]', 'targets = ["yy"]'))
    with pytest.raises(BookError, match="the model returned no output 'yy'"):
        run(load_book(path), samples=64, resamples=0)


def test_book_without_uncertain_inputs():
    book = loads_book('[book]\nmodel = "x:y"\n[inputs.a]\ndist = "constant"\nvalue = 1\n')
    with pytest.raises(Exception, match="every input is a constant"):
        plan_run(book, samples=16)


def test_evaluate_base_equals_the_base_rows_of_a_run(article_book, article_run):
    from mc_tco.engine import evaluate_base

    plan = plan_run(article_book, samples=512, seed=3, resamples=0)
    base = evaluate_base(plan)
    xr.testing.assert_allclose(base.saving, article_run.saving, rtol=1e-14)
    np.testing.assert_array_equal(base.input_value.values, article_run.input_value.values)


def test_bootstrap_ci_runs_salibs_design(article_book):
    """--ci bootstrap: one scramble seeded by --seed, i.e. SALib's sobol.sample design."""
    from SALib.sample import sobol as salib_sample

    plan = plan_run(article_book, samples=64, seed=11, ci="bootstrap")
    problem = {"num_vars": 8, "names": plan.factors, "bounds": [[0, 1]] * 8}
    unit = salib_sample.sample(problem, 64, calc_second_order=False, seed=11)
    expected = np.column_stack([
        inp.ppf(unit[:, j]) for j, inp in enumerate(article_book.uncertain)
    ])
    np.testing.assert_allclose(design_values(plan, 0, 64).reshape(-1, 8), expected,
                               rtol=1e-14)


def test_rqmc_is_the_default_and_recorded(article_run):
    assert article_run.attrs["ci"] == "rqmc" and article_run.attrs["replicates"] == 8
    assert "randomized-QMC" in article_run.ST_conf.attrs["method"]
    # scramble r holds samples r, r + 8, ...: every prefix holds all scrambles
    assert article_run.sizes["sample"] % 8 == 0


def test_rqmc_intervals_cover_analytic_indices(tmp_path):
    """y = a + 2 b t (t = 0.5, 1, 2) with a ~ U(-1, 1), b ~ N(0, 1): S1(a) = (1/3)/(1/3 + 4t^2).

    The RQMC half-widths must cover the analytic values (2 x half-width, 6 cells x 2
    indices: a sure bound, not a coverage rate) and be far narrower than the bootstrap's.
    """
    from mc_tco.book import load_book

    book = load_book(_user_book(tmp_path, "user_model_rqmc"))
    ds = run(book, samples=4096, seed=2)
    boot = run(book, samples=4096, seed=2, ci="bootstrap")
    t = ds.t.values
    s1a = (1 / 3) / (1 / 3 + 4 * t**2)
    for name, truth in [("S1", s1a), ("ST", s1a)]:
        est = ds[name].sel(target="y", input="a").values
        half = ds[f"{name}_conf"].sel(target="y", input="a").values
        assert np.all(np.abs(est - truth) <= 2 * half), (name, est, truth, half)
    assert (ds.ST_conf.sel(target="y").values < boot.ST_conf.sel(target="y").values).all()


def test_a_huge_grid_gets_small_chunks_or_a_one_line_refusal(tmp_path):
    """Issue 11 item 7: memory per chunk is estimated before any work."""
    from mc_tco.engine.evaluate import fit_chunk, row_bytes, sample_bytes


    text = ARTICLE_BOOK.read_text()
    book = loads_book(text.replace("num = 41", "num = 4000"), str(tmp_path / "b.toml"))
    plan = plan_run(book, samples=256)
    per_sample = sample_bytes(plan) * 4
    # the base row's outputs and the design rows' targets (a model skips the rest)
    assert sample_bytes(plan) == row_bytes(plan) + row_bytes(plan, ["saving"]) * (
        plan.design.rows_per_sample - 1)  # (the run keeps every output of its base rows)
    assert sample_bytes(plan) < row_bytes(plan) * plan.design.rows_per_sample
    fitted = fit_chunk(plan, budget=64 * per_sample)
    assert fitted.chunk_size == 64 and fitted.chunk_size % plan.n_replicates == 0
    # a rerun replays the recorded chunk size: the options accept what fit_chunk chose
    assert plan_run(book, samples=256, chunk_size=fitted.chunk_size).chunk_size == 64
    assert fit_chunk(plan, budget=1e12).chunk_size == plan.chunk_size
    with pytest.raises(OptionError, match=r"the grid \(demand 4,00\d points\) is too large"):
        fit_chunk(plan, budget=per_sample)


@pytest.mark.parametrize("estimator, words", [
    ("saltelli", "S1: Saltelli et al. 2010; ST: Jansen 1999"),
    ("janon", "S1 and ST: Janon et al. 2014"),
    ("martinez", "S1 and ST: Martinez 2011"),
])
def test_provenance_names_the_estimator_used(estimator, words, article_book):
    """The results' provenance names the estimator the run used (a review's bug, issue 10)."""
    ds = run(article_book, samples=64, estimator=estimator)
    assert ds.attrs["sobol_estimators"].startswith(words)
    assert ds.attrs["estimator"] == estimator
