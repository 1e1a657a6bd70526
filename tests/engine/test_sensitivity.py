"""Grouped and second-order indices through the engine, and --target-halfwidth."""

import json
import textwrap

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from mc_tco.book import load_book
from mc_tco.cli import main
from mc_tco.engine import run

LINEAR = '''
import xarray as xr


def model(inputs):
    x = inputs
    return xr.Dataset({"y": x.x1 + 2 * x.x2 + 3 * x.x3 + x.x1 * x.x4})
'''


def linear_book(tmp_path, name="lin_model"):
    (tmp_path / f"{name}.py").write_text(LINEAR)
    inputs = "".join(
        textwrap.dedent(f"""
        [inputs.{v}]
        dist = "normal"
        mean = 0
        sd = 1
        group = "{g}"
        """)
        for v, g in [("x1", "ab"), ("x2", "ab"), ("x3", "c"), ("x4", "d")]
    )
    text = f'[book]\nmodel = "{name}:model"\n[analysis]\ntargets = ["y"]\n' + inputs
    path = tmp_path / "lin.toml"
    path.write_text(text)
    return path


def test_grouped_indices_are_analytic(tmp_path):
    """y = x1 + 2 x2 + 3 x3 + x1 x4, x ~ N(0, 1): V = 1 + 4 + 9 + 1 = 15.

    Group ab = {x1, x2}: S1 = 5/15, ST = 6/15 (with the x1 x4 interaction); group c: 9/15;
    group d = {x4}: S1 = 0, ST = 1/15.
    """
    ds = run(load_book(linear_book(tmp_path)), samples=2**14, seed=0, resamples=50,
             by_group=True)
    assert list(ds.group.values) == ["ab", "c", "d"]
    s1 = ds.S1_group.sel(target="y").values
    st = ds.ST_group.sel(target="y").values
    np.testing.assert_allclose(s1, [5 / 15, 9 / 15, 0], atol=0.02)
    np.testing.assert_allclose(st, [6 / 15, 9 / 15, 1 / 15], atol=0.02)
    # the per-input indices come from the same design
    np.testing.assert_allclose(ds.ST.sel(target="y").values, [2, 4, 9, 1] / np.array(15),
                               atol=0.02)
    assert ds.attrs["rows_per_sample"] == 4 + 3 + 2


def test_second_order_is_analytic(tmp_path):
    ds = run(load_book(linear_book(tmp_path, "lin_model2")), samples=2**13, seed=1,
             resamples=0, second_order=True)
    s2 = ds.S2.sel(target="y").values
    assert s2[0, 3] == pytest.approx(1 / 15, abs=0.03)  # x1 x4
    assert abs(s2[0, 1]) < 0.03 and abs(s2[1, 2]) < 0.03
    assert np.isnan(s2[3, 0])  # the lower triangle is not estimated


def test_negative_flag(article_run):
    flagged = article_run.S1_negative.values.astype(bool)
    s1, conf = article_run.S1.values, article_run.S1_conf.values
    np.testing.assert_array_equal(flagged, np.nan_to_num(s1 < -conf, nan=False))


@pytest.mark.slow
def test_by_group_and_second_order_through_the_cli(tmp_path):
    from tests.paths import DEFAULT_BOOK

    res = CliRunner().invoke(main, ["run", str(DEFAULT_BOOK), "-n", "256", "--by", "group",
                                    "--second-order", "--out", str(tmp_path / "g.nc")])
    assert res.exit_code == 0, res.output
    assert "Top groups by total Sobol' index" in res.output
    assert "Largest second-order indices S2" in res.output


def test_target_halfwidth_stops_where_it_says(tmp_path):
    """Doubling stops at the first N whose worst half-width is <= the target."""
    runner = CliRunner()
    out = tmp_path / "c.nc"
    res = runner.invoke(main, ["run", str(linear_book(tmp_path, "lin_model3")),
                               "--target-halfwidth", "0.05", "--samples", "256",
                               "--max-samples", "16384", "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    import xarray as xr

    with xr.open_dataset(out, engine="h5netcdf") as ds:
        path = json.loads(ds.attrs["convergence_path"])
        assert ds.attrs["converged"] == 1
        assert path[-1]["worst_halfwidth"] <= 0.05
        assert [p["converged"] for p in path] == [False] * (len(path) - 1) + [True]
        for prev, step in zip([None, *path[:-2]], path[:-1], strict=True):
            assert step["worst_halfwidth"] > 0.05 or prev is None or (
                step["rankings"] != prev["rankings"])
        assert ds.sizes["sample"] == path[-1]["samples"] == ds.attrs["samples"]
        assert [p["samples"] for p in path] == [256 * 2**i for i in range(len(path))]
        assert ds.convergence_samples.values.tolist() == [p["samples"] for p in path]


def test_target_halfwidth_stops_at_max_samples(tmp_path):
    out = tmp_path / "m.nc"
    res = CliRunner().invoke(main, ["run", str(linear_book(tmp_path, "lin_model4")),
                                    "--target-halfwidth", "0.001", "--samples", "256",
                                    "--max-samples", "512", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "Not converged: stopped at --max-samples 512" in res.output


def test_rows_are_reused_when_doubling(tmp_path):
    """A run grown by doubling equals a run made at the final N in one go."""
    book = load_book(linear_book(tmp_path, "lin_model5"))
    grown = run(book, samples=256, seed=3, resamples=10)
    from mc_tco.engine import execute, plan_run

    plan = plan_run(book, samples=256, seed=3, resamples=10, target_halfwidth=1e-9,
                    max_samples=1024)
    doubled = execute(plan)
    direct = run(book, samples=1024, seed=3, resamples=10)
    for name in ("S1", "ST", "S1_conf", "p_positive", "target_quantile"):
        np.testing.assert_allclose(doubled[name].values, direct[name].values, rtol=1e-12)
    assert grown.sizes["sample"] == 256 and doubled.sizes["sample"] == 1024


def test_a_decision_is_settled_when_its_interval_says_so():
    """Issue 14: P = 0.8% by the estimate, but its interval reaches above 1%: not settled."""
    from mc_tco.engine.adaptive import SETTLED, _p_interval
    from mc_tco.engine.plan import RunSums
    from mc_tco.sensitivity.sobol import SobolSums

    reps = []
    for events in (0, 0, 0, 0, 0, 0, 0, 4, ):
        y = np.zeros((64, 3, 1))  # one factor: rows A, AB, B
        y[:events, :, 0] = 1.0
        s = SobolSums(1, False, np.zeros(1))
        s.add(y)
        reps.append(s)
    lo, hi = _p_interval(RunSums(reps, "rqmc"), 0.95)
    p = 4 / 512
    assert p < SETTLED < hi[0]  # the old rule (the estimate below 1%) called it settled
    ref = stats.binomtest(4, 512).proportion_ci(0.95, method="wilson")
    assert (lo[0], hi[0]) == pytest.approx((ref.low, ref.high))  # the fallback: Wilson
    # a clear case: no events anywhere is settled by its interval too
    none = []
    for _ in range(8):
        s = SobolSums(1, False, np.zeros(1))
        s.add(np.zeros((1024, 3, 1)))
        none.append(s)
    assert _p_interval(RunSums(none, "rqmc"), 0.95)[1][0] < SETTLED


def test_settled_rule_falls_back_to_wilson_where_the_scrambles_agree_exactly():
    """Issue 14: R equal replicate shares give a zero-width t interval; the fallback rule of
    p_positive_ci (mc_tco.uncertainty.scrambles) replaces it by Wilson's, so 1 event in each of 8
    scrambles of 150 (P = 0.67%) is not called settled by a zero-width interval."""
    from mc_tco.engine.adaptive import SETTLED, _p_interval
    from mc_tco.engine.plan import RunSums
    from mc_tco.sensitivity.sobol import SobolSums

    reps = []
    for _ in range(8):
        y = np.zeros((150, 3, 1))
        y[0, :, 0] = 1.0
        s = SobolSums(1, False, np.zeros(1))
        s.add(y)
        reps.append(s)
    lo, hi = _p_interval(RunSums(reps, "rqmc"), 0.95)
    ref = stats.binomtest(8, 1200).proportion_ci(0.95, method="wilson")
    assert (lo[0], hi[0]) == pytest.approx((ref.low, ref.high))
    assert hi[0] > SETTLED


def test_a_nan_half_width_blocks_convergence(monkeypatch, article_book):
    """np.nanmax turned a NaN half-width into 'converged'; NaN must mean 'not settled'
    (a review's bug, issue 10)."""
    from mc_tco.engine import adaptive, plan_run

    plan = plan_run(article_book, samples=64, target_halfwidth=0.5,
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
