"""Correlated inputs end to end (issue 13): book, copula sampling, Shapley effects, ranking.

The closed forms: Owen & Prieur's ``Y = X1 + X2 + X3``, ``X ~ N(0, diag(1, 1, 4))`` with
corr(X2, X3) = 0.9 has Shapley effects (0.10417, 0.41823, 0.47760); the EVPPI of one input
of a linear-Gaussian net benefit with correlated inputs is ``E max(E[NB | x_j], 0) -
max(E NB, 0)`` with ``E[NB | x_j]`` normal.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.stats as st
from click.testing import CliRunner

from mc_tco.book import load_book, loads_book
from mc_tco.cli import main
from mc_tco.decision.voi import evppi
from mc_tco.distributions.copula import rank_correlation, to_correlated_unit
from mc_tco.engine import plan_run, run
from mc_tco.engine.evaluate import evaluate_base
from mc_tco.engine.reproduce import compare_results, rerun
from mc_tco.errors import BookError
from mc_tco.report.terminal import inputs_table, run_table
from mc_tco.sensitivity.shapley import linear_gaussian_shapley

MODEL = '''
import xarray as xr


def model(inputs):
    x = inputs
    return xr.Dataset({"y": x.x1 + x.x2 + x.x3})
'''
OWEN_SHAPLEY = np.array([0.10417, 0.41823, 0.47760])


def owen_book(tmp_path, extra="", groups=("a", "b", "b")):
    """Owen & Prieur's example as a book: x3 has sd 2, corr(x2, x3) = 0.9 (normal)."""
    (tmp_path / "owen_model.py").write_text(MODEL)
    inputs = "".join(
        f'[inputs.{name}]\ndist = "normal"\nmean = 0\nsd = {sd}\ngroup = "{g}"\n\n'
        for name, sd, g in zip(("x1", "x2", "x3"), (1, 1, 2), groups, strict=True)
    )
    text = (
        '[book]\nmodel = "owen_model:model"\n[analysis]\ntargets = ["y"]\n' + extra
        + "\n" + inputs
        + '[[correlation]]\nbetween = ["x2", "x3"]\n'
        + f"spearman = {rank_correlation(0.9):.15f}\n"
        + 'source = "Owen & Prieur 2017, the linear-Gaussian example"\n'
    )
    path = tmp_path / "owen.toml"
    path.write_text(text)
    return path


def test_book_reads_correlations(tmp_path):
    book = load_book(owen_book(tmp_path))
    assert book.correlations == [{"between": ["x2", "x3"], "kind": "spearman",
                                  "value": pytest.approx(rank_correlation(0.9)),
                                  "source": "Owen & Prieur 2017, the linear-Gaussian example"}]
    np.testing.assert_allclose(book.correlation.used[1, 2], 0.9)
    assert "1 correlation," in repr(book)
    table = inputs_table(book)
    assert "x2 ~ x3  spearman +0.89  Owen & Prieur 2017" in table


def test_shapley_through_the_engine_matches_owen_prieur(tmp_path):
    ds = run(owen_book(tmp_path), samples=64, shapley_permutations=2048)
    sh = ds.shapley.sel(target="y").values
    half = ds.shapley_conf.sel(target="y").values
    assert ds.shapley.dims == ("target", "input")
    np.testing.assert_allclose(sh.sum(), 1.0)
    assert np.all(np.abs(sh - OWEN_SHAPLEY) <= np.maximum(half, 0.005)), (sh, half)
    assert np.all(half < 0.03)
    # the closed form of the kernel agrees with the published numbers
    cov = np.array([[1, 0, 0], [0, 1, 1.8], [0, 1.8, 4]])
    np.testing.assert_allclose(linear_gaussian_shapley([1, 1, 1], cov), OWEN_SHAPLEY,
                               atol=5e-5)
    # the correlation is on by default and recorded; the run's options reproduce it
    options = json.loads(ds.attrs["run_options"])
    assert options["shapley"] is True and options["shapley_permutations"] == 2048
    np.testing.assert_allclose(ds.correlation_used.sel(input="x2", input_2="x3"), 0.9)
    assert ds.attrs["groups_independent"] == 1
    # y > 0 is symmetric: P = 1/2 with or without the correlation
    np.testing.assert_allclose(ds.independent_p_positive.sel(target="y>0"), 0.5, atol=0.1)
    lo, hi = ds.correlation_change_ci.sel(target="y>0").values
    assert lo <= 0 <= hi
    # the outer row of each permutation, then 2 fresh inner rows for each of d - 1 = 2 sets
    assert ds.attrs["shapley_evaluations"] == 4 * 2048 + 2048 * (1 + 2 * 2)
    assert list(ds.mc_tco.ranking("y").input.values) == ["x3", "x2", "x1"]  # by Shapley
    assert ds.mc_tco.correlations[0]["between"] == ["x2", "x3"]
    again = rerun(ds)
    assert compare_results(ds, again).equal


def test_chunking_keeps_correlated_rows_and_rank_correlation_hits_target(tmp_path):
    path = owen_book(tmp_path)
    book = load_book(path)
    base = [evaluate_base(plan_run(book, samples=2048, chunk_size=c, shapley=False))
            for c in (256, 1024)]
    np.testing.assert_array_equal(base[0].input_value.values, base[1].input_value.values)
    x = base[0].input_value.values
    rho, _ = st.spearmanr(x[:, 1], x[:, 2])
    target = book.correlations[0]["value"]
    # the Spearman estimate's standard error ~ (1 - rho^2) / sqrt(n) (Fieller et al.)
    assert abs(rho - target) < 3 * (1 - target**2) / np.sqrt(len(x))
    assert abs(st.spearmanr(x[:, 0], x[:, 1])[0]) < 3 / np.sqrt(len(x))
    # margins unchanged: x3 is still N(0, 2)
    assert st.kstest(x[:, 2], st.norm(0, 2).cdf).pvalue > 0.01


def test_summary_ranks_by_shapley_and_keeps_exact_groups(tmp_path):
    ds = run(owen_book(tmp_path), samples=64, by_group=True, shapley_permutations=256)
    text = run_table(ds)
    assert ("Inputs are correlated: Sobol' S1/ST of single inputs are not shares of the "
            "variance (the file keeps them, 'moved one at a time'); Shapley effects rank "
            "them") in text
    assert "Top inputs by Shapley effect for 'y'" in text
    assert "model runs (+ 2,304 for the Shapley effects)" in text  # 4 x 256 + 256 x (1 + 2 x 2)
    assert "Top inputs by total Sobol' index" not in text
    assert "Top groups by total Sobol' index ST for 'y'" in text
    assert "exact: every correlation stays within a group" in text
    # a correlation across groups: the groups are not ranked by Sobol' indices
    (tmp_path / "x").mkdir()
    crossing = run(owen_book(tmp_path / "x", groups=("a", "b", "c")), samples=64,
                   by_group=True, shapley_permutations=256)
    assert crossing.attrs["groups_independent"] == 0
    assert "Groups not ranked by Sobol' indices for 'y'" in run_table(crossing)
    plain = run(owen_book(tmp_path), samples=64, shapley_permutations=64)
    assert "so grouped Sobol' indices (--by group) would be exact" in run_table(plain)


def test_repair_records_both_matrices(tmp_path):
    (tmp_path / "owen_model.py").write_text(MODEL.replace("x.x1 + x.x2 + x.x3",
                                                          "x.x1 + x.x2 + x.x3"))
    text = (
        '[book]\nmodel = "owen_model:model"\n[analysis]\ntargets = ["y"]\n'
        'repair_correlations = "nearest"\n'
        + "".join(f'[inputs.{n}]\ndist = "uniform"\nlow = 0\nhigh = 1\n' for n in
                  ("x1", "x2", "x3"))
        + "".join(f'[[correlation]]\nbetween = ["{a}", "{b}"]\nspearman = {r}\n'
                  for a, b, r in (("x1", "x2", 0.9), ("x2", "x3", 0.9), ("x1", "x3", -0.9)))
    )
    path = tmp_path / "repair.toml"
    path.write_text(text)
    with pytest.raises(BookError, match="not positive definite"):
        loads_book(text.replace('repair_correlations = "nearest"\n', ""), str(path))
    ds = run(path, samples=64, shapley=False)
    assert ds.attrs["correlations_repaired"] == 1
    assert ds.attrs["correlation_min_eigenvalue"] < 0
    normal, used = ds.correlation_normal.values, ds.correlation_used.values
    assert np.linalg.eigvalsh(normal)[0] < 0 < np.linalg.eigvalsh(used)[0]
    assert not np.allclose(normal, used)
    assert "repaired" in inputs_table(load_book(path))
    assert "shapley" not in ds


def test_cli_shapley_flag_and_inputs(tmp_path):
    path = owen_book(tmp_path)
    res = CliRunner().invoke(main, ["inputs", str(path)])
    assert res.exit_code == 0, res.output
    assert "Correlations (1;" in res.stdout and "Owen & Prieur 2017" in res.stdout
    out = tmp_path / "r.nc"
    res = CliRunner().invoke(main, ["run", str(path), "-n", "64", "--no-shapley", "-q",
                                    "--out", str(out)])
    assert res.exit_code == 0, res.output
    import xarray as xr

    with xr.open_dataset(out, engine="h5netcdf") as ds:
        assert "shapley" not in ds and "correlation_used" in ds
        assert json.loads(ds.attrs["run_options"])["shapley"] is False


def test_evppi_under_correlation_matches_closed_form():
    """NB of option 1 = c + b'x against 0, x ~ N(0, S) correlated: EVPPI of x_j.

    E[NB | x_j] = c + (S b)_j / S_jj x_j ~ N(c, s^2), s = |(S b)_j| / sqrt(S_jj), so
    EVPPI_j = c Phi(c / s) + s phi(c / s) - max(c, 0).
    """
    sd = np.array([1.0, 2.0, 0.5])
    r = np.array([[1.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 1.0]])
    cov = r * np.outer(sd, sd)
    b, c = np.array([1.0, 0.5, 2.0]), 0.3
    u = st.qmc.Sobol(3, seed=5).random(2**14)
    x = st.norm.ppf(to_correlated_unit(u, r)) * sd
    np.testing.assert_allclose(np.corrcoef(x.T), r, atol=0.02)
    nb = np.column_stack([np.zeros(len(x)), c + x @ b])
    for j in range(3):
        s = abs((cov @ b)[j]) / np.sqrt(cov[j, j])  # 1.3, 1.8, 0.9
        assert abs(s - abs(b[j]) * sd[j]) >= 0.1 - 1e-12  # the independent answer differs
        truth = c * st.norm.cdf(c / s) + s * st.norm.pdf(c / s) - max(c, 0.0)
        value, se, _ = evppi(x[:, j], nb, rng=0)
        assert abs(value - truth) < max(3 * se, 0.02 * truth), (j, value, truth, se)


def test_memo_says_which_ranking_is_valid():
    """The memo's words over a hand-made correlated results file (no run)."""
    from types import SimpleNamespace

    import xarray as xr

    from mc_tco.report.memo.context import dependence_sentences

    names = ["a", "b", "c"]
    sh = np.array([0.2, 0.5, 0.3] * 2).reshape(2, 3, 1, 1)
    ds = xr.Dataset(
        {"shapley": (("target", "input", "demand", "strategy"), sh),
         "shapley_conf": (("target", "input", "demand", "strategy"), sh * 0 + 0.01),
         "ST_group": (("target", "group", "demand", "strategy"), np.ones((2, 1, 1, 1)))},
        coords={"target": ["saving", "saving>0"], "input": names, "demand": [5e11],
                "strategy": ["buy"]},
        attrs={"conf_level": 0.95,
               "correlations": json.dumps([{"between": ["a", "b"], "kind": "spearman",
                                            "value": 0.6, "source": "s"}]),
               "groups_independent": 1},
    )
    ranking = SimpleNamespace(target="saving", demand=5e11, strategy="buy",
                              by_indicator=False)
    text = " ".join(dependence_sentences(SimpleNamespace(ds=ds, ranking=ranking)))
    assert "The book correlates 1 pair of inputs (`a` ~ `b` spearman +0.60)" in text
    assert "Sobol' indices of single inputs are not defined" in text
    assert "led by `b` 0.500 ± 0.010, `c` 0.300 ± 0.010, `a` 0.200 ± 0.010" in text
    assert "grouped Sobol' indices remain exact" in text
    p = xr.DataArray(np.array([0.5, 0.129]).reshape(2, 1, 1),
                     dims=("target", "demand", "strategy"),
                     coords={"target": ["saving", "saving>0"], "demand": [5e11],
                             "strategy": ["buy"]})
    ds["p_positive"] = p
    ds["independent_p_positive"] = p + 0.021
    ds["independent_p_positive_ci"] = xr.concat([p + 0.017, p + 0.025], "ci_bound")
    ds["correlation_change_ci"] = xr.concat([p * 0 - 0.025, p * 0 - 0.017], "ci_bound")
    text = " ".join(dependence_sentences(SimpleNamespace(ds=ds, ranking=ranking)))
    assert ("Does the answer depend on the correlations? At 500B, buying beats the API in "
            "12.9% of the scenarios with them and 15.0% (95% MC interval 14.6-15.4%) with "
            "the inputs independent (same Sobol' points): the correlations change it (-2.5 "
            "to -1.7 percentage points, paired 95% interval).") in text
    del ds.attrs["correlations"]
    assert dependence_sentences(SimpleNamespace(ds=ds, ranking=ranking)) == []


def test_shapley_permutations_follow_the_sample_size(tmp_path):
    book = load_book(owen_book(tmp_path))
    assert plan_run(book, samples=64).shapley_permutations == 64
    assert plan_run(book, samples=1024).shapley_permutations == 512
    assert plan_run(book, samples=2**15).shapley_permutations == 4096
    assert plan_run(book, samples=64, shapley_permutations=300).shapley_permutations == 300
    assert plan_run(book, samples=64).shapley  # on: the book has a correlation
    with pytest.raises(Exception, match="--shapley-permutations must be a whole number"):
        plan_run(book, samples=64, shapley_permutations=3)
