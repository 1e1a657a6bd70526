"""Scale-out: streaming to a file, chunk sizes and schedulers give the same numbers."""

import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.engine import run
from tests.paths import ARTICLE_BOOK

COMPARED = ["saving", "cost", "breakeven_demand", "input_value", "S1", "ST", "S1_conf",
            "ST_conf", "p_positive", "p_positive_ci", "target_quantile", "target_mean",
            "breakeven_demand_quantile", "breakeven_demand_p_never"]


def assert_same_numbers(a: xr.Dataset, b: xr.Dataset, tol=1e-12):
    for name in COMPARED:
        xr.testing.assert_allclose(a[name].load(), b[name].load(), rtol=tol, atol=tol)


@pytest.fixture(scope="module")
def threaded(article_book):
    return run(article_book, samples=1024, seed=8, resamples=20, scheduler="threads")


def test_streamed_file_equals_in_memory(article_book, threaded, tmp_path):
    with run(article_book, samples=1024, seed=8, resamples=20, out=tmp_path / "a.nc",
             chunk_size=512) as streamed:
        assert_same_numbers(threaded, streamed)
        assert streamed.sizes["sample"] == 1024
        assert streamed.attrs["book_sha256"] == threaded.attrs["book_sha256"]
    assert [p.name for p in tmp_path.iterdir()] == ["a.nc"]  # no temporary file left


@pytest.mark.slow
def test_synchronous_and_processes_equal_threads(article_book, threaded):
    sync = run(article_book, samples=1024, seed=8, resamples=20, scheduler="synchronous")
    assert_same_numbers(threaded, sync, tol=0)
    procs = run(article_book, samples=1024, seed=8, resamples=20, scheduler="processes")
    assert_same_numbers(threaded, procs)


@pytest.mark.slow
def test_local_cluster_equals_threads(article_book, threaded, tmp_path):
    """A dask.distributed LocalCluster on loopback, addressed like a remote one."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        out = tmp_path / "cluster.nc"
        res = CliRunner().invoke(main, [
            "run", str(ARTICLE_BOOK), "--samples", "1024", "--seed", "8", "--bootstrap", "20",
            "--scheduler", cluster.scheduler_address, "--out", str(out), "--quiet",
        ])
        assert res.exit_code == 0, res.output
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        assert_same_numbers(threaded, ds)
        assert ds.attrs["scheduler"].startswith("dask.distributed")


def test_unreachable_scheduler_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("MC_TCO_SCHEDULER_TIMEOUT", "1s")  # not the default 10 s of retries
    out = tmp_path / "x.nc"
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "64", "--out", str(out),
                                    "--scheduler", "tcp://127.0.0.1:9"])
    assert res.exit_code == 2, res.output
    assert "cannot reach the scheduler" in res.output and not out.exists()
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "--scheduler", "bogus"])
    assert res.exit_code == 2 and "use threads, processes" in res.output


@pytest.mark.slow
def test_chunk_sizes_give_the_same_numbers_streamed(article_book, tmp_path):
    with run(article_book, samples=2048, seed=1, resamples=10, chunk_size=256,
             out=tmp_path / "a.nc") as a, run(article_book, samples=2048, seed=1,
                                              resamples=10, chunk_size=1024,
                                              out=tmp_path / "b.nc") as b:
        assert_same_numbers(a, b)
        assert np.isfinite(a.ST.sel(target="saving", strategy="buy",
                                    demand=a.mc_tco.sobol_points()["demand"]).values).all()


def test_run_that_cannot_fit_on_disk_is_refused(tmp_path, monkeypatch):
    import shutil
    from collections import namedtuple

    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(shutil, "disk_usage", lambda path: usage(10**9, 10**9 - 10**6, 10**6))
    out = tmp_path / "big.nc"
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "4096", "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "and 1.0 MB are free in " in res.output and not out.exists()  # MB below a GB
    assert "; use --keep-samples targets" in res.output


def test_a_read_only_results_file_sizes_its_unlimited_dim_once(tmp_path):
    """mc_tco.results.store keeps the size of a read-only file's unlimited dim on the open file
    (h5netcdf recomputes it from every variable on every shape and read): same sizes,
    shapes and values as h5netcdf's own sizing; a file open for writing is sized live."""
    import h5netcdf
    from h5netcdf.dimensions import Dimension

    from mc_tco.results.h5file import _SizedFile
    from mc_tco.results.io import open_results

    out = tmp_path / "s.nc"
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "64", "--bootstrap", "0",
                                    "-q", "--out", str(out)])
    assert res.exit_code == 0, res.output
    ours = open_results(out)
    with _SizedFile(out, "r") as f:
        assert f.dimensions["sample"].size == 64
        assert f._mc_tco_dim_sizes == {"/sample": 64}  # remembered on this open file
    assert ours.sizes["sample"] == 64
    with h5netcdf.File(out, "r") as f:  # h5netcdf's own sizing agrees, variable by variable
        assert Dimension.size.fget(f.dimensions["sample"]) == 64
        for name, var in f.variables.items():
            assert ours[name].shape == var.shape
    np.testing.assert_array_equal(ours["saving"].values, xr.open_dataset(
        out, engine="h5netcdf")["saving"].values)
    grow = tmp_path / "grow.nc"
    with h5netcdf.File(grow, "w") as f:
        f.dimensions = {"sample": None}
        f.create_variable("x", ("sample",), float)
        assert f.dimensions["sample"].size == 0
        f.resize_dimension("sample", 5)
        assert f.dimensions["sample"].size == 5
        assert not hasattr(f, "_mc_tco_dim_sizes")
