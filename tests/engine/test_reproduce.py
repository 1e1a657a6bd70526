"""Reproducible: the same book, seed and options give the same file; ``mc-tco rerun``.

Two runs' files are equal in every variable (data and coordinates, bit for bit) and every
attr but ``created``. The file stores what a rerun needs (the book's text and
``run_options``); ``mc-tco rerun`` redoes the run and says whether the numbers match.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from mc_tco.book import load_book
from mc_tco.cli import main
from mc_tco.engine import run
from mc_tco.engine.reproduce import compare_results, rerun, stored_options
from mc_tco.results.io import open_results
from tests.paths import ARTICLE_BOOK

RUN = ["run", str(ARTICLE_BOOK), "-n", "256", "--bootstrap", "20", "-q"]


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    """The same run twice (files a.nc, b.nc) and once with another seed (c.nc)."""
    folder = tmp_path_factory.mktemp("runs")
    for name, seed in (("a", "5"), ("b", "5"), ("c", "6")):
        res = CliRunner().invoke(main, [*RUN, "--seed", seed, "--out", str(folder / f"{name}.nc")])
        assert res.exit_code == 0, res.output
    return folder


def test_same_book_seed_and_options_give_the_same_file(two_runs):
    a, b = open_results(two_runs / "a.nc"), open_results(two_runs / "b.nc")
    cmp = compare_results(a, b)
    assert cmp.equal, cmp.summary()
    assert cmp.variables == len(a.variables) > 30
    assert cmp.attrs == {}  # every attr equal but the creation time
    assert "created" in a.attrs and "created" in b.attrs
    for name in a.variables:  # the comparison is exact, not approximate
        xr.testing.assert_identical(a[name].drop_attrs(), b[name].drop_attrs())


def test_another_seed_gives_other_numbers(two_runs):
    cmp = compare_results(open_results(two_runs / "a.nc"), open_results(two_runs / "c.nc"))
    assert not cmp.equal
    names = {d.name for d in cmp.differences}
    assert {"saving", "cost", "input_value", "S1", "ST"} <= names
    assert "demand" not in names and "input" not in names  # same grid, same inputs
    assert cmp.attrs["seed"] == (5, 6)


def test_chunk_size_changes_only_the_order_of_the_sobol_sums():
    book = load_book(ARTICLE_BOOK)
    small = run(book, samples=1024, seed=2, resamples=20, chunk_size=256)
    large = run(book, samples=1024, seed=2, resamples=20, chunk_size=1024)
    cmp = compare_results(small, large)
    # model outputs and summaries are bit for bit the same; the streamed Sobol' sums are
    # added in another order, which moves the indices in the last bits only
    assert {d.name for d in cmp.differences} <= {"S1", "ST", "S1_conf", "ST_conf"}
    assert cmp.largest is None or cmp.largest.max_abs < 1e-12
    assert set(cmp.attrs) == {"chunk_size", "run_options"}


def test_run_options_store_every_keyword_of_run(two_runs):
    ds = open_results(two_runs / "a.nc")
    options = json.loads(ds.attrs["run_options"])
    assert options == {"samples": 256, "seed": 5, "resamples": 20, "conf_level": 0.95,
                       "chunk_size": 256, "second_order": False, "ci": "rqmc",
                       "replicates": 8, "estimator": "saltelli", "by_group": False,
                       "keep_samples": "all", "target_halfwidth": None, "max_samples": None,
                       "family_check": False, "shapley": False,
                       "shapley_permutations": 128, "shapley_at": "report",  # N / 2
                       "sobol_at": "report"}
    import inspect

    from mc_tco.engine import plan_run

    # every option of plan_run (what run passes on), none of where or how it runs
    assert set(options) == set(inspect.signature(plan_run).parameters) - {"book"}
    assert stored_options(ds) == options


def test_rerun_in_python_reproduces_the_run():
    book = load_book(ARTICLE_BOOK)
    ds = run(book, samples=64, seed=9, resamples=10, second_order=True, sobol_at="grid")
    assert compare_results(ds, rerun(ds)).equal
    # a file written before run_options existed (its Sobol' indices at every grid point):
    # the older attrs give the same options
    legacy = ds.copy()
    del legacy.attrs["run_options"]
    assert stored_options(legacy) == stored_options(ds)


@pytest.mark.slow
def test_rerun_command_says_the_numbers_match(two_runs, tmp_path):
    out = tmp_path / "again.nc"
    res = CliRunner().invoke(main, ["rerun", str(two_runs / "a.nc"), "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "every variable matches exactly" in res.stdout
    assert f"book {ARTICLE_BOOK}" in res.stdout and "seed 5" in res.stdout
    assert compare_results(open_results(out), open_results(two_runs / "a.nc")).equal
    # without --out nothing is written anywhere
    before = sorted(p.name for p in two_runs.iterdir())
    res = CliRunner().invoke(main, ["rerun", str(two_runs / "a.nc"), "-q"])
    assert res.exit_code == 0 and res.output == ""
    assert sorted(p.name for p in two_runs.iterdir()) == before


def _tamper(src, dst, edit):
    with xr.open_dataset(src, engine="h5netcdf") as ds:
        ds = ds.load()
    edit(ds)
    ds.to_netcdf(dst, engine="h5netcdf")


@pytest.mark.slow
def test_rerun_of_a_tampered_file_says_what_differs(two_runs, tmp_path):
    bad = tmp_path / "tampered.nc"

    def add_one(ds):
        ds["saving"][3, 5, 1] = ds["saving"][3, 5, 1] + 1.0
        ds["p_positive"][:] = 0.5

    _tamper(two_runs / "a.nc", bad, add_one)
    res = CliRunner().invoke(main, ["rerun", str(bad)])
    assert res.exit_code == 1, res.output
    assert "2 of" in res.stdout and "variables differ: p_positive, saving" in res.stdout
    assert "largest difference: saving by 1 (relative" in res.stdout
    assert "Traceback" not in res.output


@pytest.mark.slow
def test_rerun_of_an_edited_book_is_flagged(two_runs, tmp_path):
    bad = tmp_path / "edited.nc"

    def edit_book(ds):
        ds.attrs["book_text"] = ds.attrs["book_text"].replace("low = 400000", "low = 410000")

    _tamper(two_runs / "a.nc", bad, edit_book)
    res = CliRunner().invoke(main, ["rerun", str(bad)])
    assert res.exit_code == 1
    assert "book_text does not match its book_sha256" in res.stderr
    assert "variables differ: " in res.stdout and "largest difference: " in res.stdout
    stored = open_results(bad)
    cmp = compare_results(stored, rerun(stored))  # node_price now starts at 410k
    assert {"input_value", "saving"} <= {d.name for d in cmp.differences}


@pytest.mark.slow
def test_rerun_notes_changed_versions(two_runs, tmp_path):
    old = tmp_path / "old.nc"

    def older_scipy(ds):
        ds.attrs["scipy_version"] = "1.11.0"

    _tamper(two_runs / "a.nc", old, older_scipy)
    res = CliRunner().invoke(main, ["rerun", str(old)])
    assert res.exit_code == 0  # same numbers: the verdict is about the data
    assert "versions differ: scipy 1.11.0" in res.stdout


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda p: p.write_text("not netCDF"), "not a readable netCDF results file"),
        (lambda p: None, "no such results file; make one with 'mc-tco run'"),
        (lambda p: xr.Dataset({"a": ("x", [1.0])}).to_netcdf(p, engine="h5netcdf"),
         "not an mc_tco results file"),
    ],
    ids=["text", "missing", "other_netcdf"],
)
def test_rerun_errors(make, fragment, tmp_path):
    path = tmp_path / "r.nc"
    make(path)
    res = CliRunner().invoke(main, ["rerun", str(path)])
    assert res.exit_code == 2 and fragment in res.stderr
    assert len(res.stderr.splitlines()) == 1 and "Traceback" not in res.stderr


def test_rerun_of_a_file_whose_book_no_longer_loads(two_runs, tmp_path):
    bad = tmp_path / "bad.nc"

    def break_book(ds):
        ds.attrs["book_text"] = ds.attrs["book_text"].replace('dist = "uniform"', 'dist = "unif"')

    _tamper(two_runs / "a.nc", bad, break_book)
    res = CliRunner().invoke(main, ["rerun", str(bad), "-q"])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"mc-tco: error: {ARTICLE_BOOK}:")  # the stored book path
    assert "unknown family 'unif'" in res.stderr


@pytest.mark.slow
def test_copied_file_reruns_anywhere(two_runs, tmp_path, monkeypatch):
    # the file alone is enough: no book file needed
    shutil.copy(two_runs / "a.nc", tmp_path / "a.nc")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["rerun", "a.nc", "-q"])
    assert res.exit_code == 0, res.output
    assert np.array_equal(open_results("a.nc")["saving"], open_results(two_runs / "a.nc")["saving"])
