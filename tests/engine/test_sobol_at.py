"""``--sobol-at report`` (the default): the Saltelli design rows beyond the base rows run at
the report points, claim points and focus only (issue 26, the default run's time), the
same Sobol' indices there as ``--sobol-at grid``, NaN elsewhere with every other number
of the file unchanged, and every reader either reads a point that has them or says it
does not."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from mc_tco import run
from mc_tco.engine.reproduce import stored_options
from mc_tco.errors import OptionError
from tests.engine.test_shapley_at import BOOK as SHAPLEY_AT_BOOK

MODEL = '''
import xarray as xr

def model(inputs):
    x = inputs
    y = (x.x1 + x.x2 * x.volume + x.x3 / x.volume - 1.0) * (x.volume != 13)
    return xr.Dataset({"y": y.transpose("sample", "volume")})
'''

# test_shapley_at's book without its correlation (ranked by ST) and with this model
BOOK = (SHAPLEY_AT_BOOK.split("[[correlation]]")[0]
        .replace("shapat_model:model", "sobolat_model:model"))

INDICES = ("S1", "ST", "S1_conf", "ST_conf")


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sobolat")
    (tmp / "sobolat_model.py").write_text(MODEL)
    (tmp / "book.toml").write_text(BOOK)
    sys.path.insert(0, str(tmp))
    yield tmp / "book.toml"
    sys.path.remove(str(tmp))


@pytest.fixture(scope="module")
def runs(book):
    return run(book, samples=256), run(book, samples=256, sobol_at="grid")


def test_same_indices_at_the_report_points_nan_elsewhere(runs):
    report, grid = runs
    has = np.isfinite(report.ST).any(["target", "input"])
    assert report.volume.values[has.values].tolist() == [2, 5, 8]  # report + focus
    assert np.isfinite(grid.ST.sel(volume=[1, 2, 3, 5, 8])).all()
    at = {"volume": [2, 5, 8]}
    for name in INDICES:
        np.testing.assert_allclose(report[name].sel(at).values, grid[name].sel(at).values,
                                   rtol=1e-12, atol=1e-15)
        assert "volume = 2, 5, 8 only" in report[name].attrs["computed_at"]
        assert "computed_at" not in grid[name].attrs
    # where they were not estimated, "does it vary?" still comes from the base rows: the
    # same flags as the run that estimated every point (13: y is 0 in every scenario)
    xr.testing.assert_identical(report.constant_output, grid.constant_output)
    assert report.constant_output.sel(volume=13).all()
    assert not report.constant_output.sel(volume=[1, 3]).any()
    assert report.S1_negative.dtype == grid.S1_negative.dtype
    # the rest of the file does not depend on it
    for name in ("p_positive", "y", "target_quantile", "mean"):
        if name in grid:
            xr.testing.assert_identical(report[name], grid[name])
    assert stored_options(report)["sobol_at"] == "report"
    assert stored_options(grid)["sobol_at"] == "grid"


def test_readers_use_or_name_the_points(runs):
    report, grid = runs
    acc = report.mc_tco
    # (13 counts as estimated: nothing varies there, the indices are NaN in both runs)
    assert {k: v.tolist() for k, v in acc.sobol_points().items()} == {
        "volume": [2, 5, 8, 13]}
    assert acc.sobol_where() == "volume = 2, 5, 8, 13"
    assert grid.mc_tco.sobol_points() == {}
    assert np.isfinite(acc.ranking("y", volume=5)["ST"]).all()
    with pytest.raises(OptionError, match=r"Sobol' indices at volume = 2, 5, 8, 13 only "
                                          r"\(--sobol-at report\).*--sobol-at grid"):
        acc.ranking("y", volume=3)
    assert np.isfinite(grid.mc_tco.ranking("y", volume=3)["ST"]).all()


def test_older_files_had_every_point(runs):
    report, _ = runs
    older = report.copy()
    options = json.loads(older.attrs["run_options"])
    del options["sobol_at"]
    older.attrs["run_options"] = json.dumps(options)
    assert stored_options(older)["sobol_at"] == "grid"


def test_bad_value_is_refused(book, tmp_path):
    with pytest.raises(OptionError, match="--sobol-at must be one of report, grid"):
        run(book, samples=64, sobol_at="everywhere")
    from mc_tco.cli import main

    res = CliRunner().invoke(main, ["run", str(book), "--samples", "64", "--sobol-at", "all",
                                    "--out", str(tmp_path / "r.nc")])
    assert res.exit_code == 2 and "'all' is not one of 'report', 'grid'" in res.output
    assert not (tmp_path / "r.nc").exists()


def test_the_tco_model_gives_the_same_indices_at_its_report_points(default_book):
    """The TCO model's kernels compute a cell's last bits differently on 6 demands than on
    47 (SIMD lanes against blocks of demands): the base rows of the sums are evaluated in
    the same call as the other design rows, so an input that changes nothing gives ST = 0
    exactly, not 1e-31 that the interval of log ST turns into a half-width of 3,000."""
    kw = {"samples": 256, "seed": 2, "shapley": False, "independence_check": False}
    report = run(default_book, **kw)
    grid = run(default_book, sobol_at="grid", **kw)
    demands = report.mc_tco.sobol_points()["demand"]
    assert demands.tolist() == [3e10, 1e11, 3e11, 5e11, 1e12, 3e12]
    at = {"demand": demands}
    for name in INDICES:
        a, b = report[name].sel(at).values, grid[name].sel(at).values
        assert np.array_equal(np.isnan(a), np.isnan(b)), name
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, err_msg=name)
    assert np.isnan(report.ST.drop_sel(at)).all()
    # "does it vary" at every demand: where not estimated, over the base rows (counted
    # here); the sums' flag also sees the design's other rows, which may vary where every
    # base row is 0 (the hybrid at 50-63B here): never flagged constant where they are not
    flag = report.constant_output
    xr.testing.assert_identical(flag.sel(at).drop_attrs(),
                                grid.constant_output.sel(at).drop_attrs())
    y = report.saving.drop_sel(at)
    above = y > 0
    counted = xr.concat([y.min("sample") == y.max("sample"),
                         above.all("sample") | ~above.any("sample")], dim="target")
    np.testing.assert_array_equal(flag.drop_sel(at).values, counted.values)
    assert (flag >= grid.constant_output).all()
    assert 0 < int(flag.drop_sel(at).sum()) < flag.drop_sel(at).size
    for name in ("p_positive", "saving", "breakeven_demand"):
        xr.testing.assert_identical(report[name], grid[name])


OWN_GRID_MODEL = '''
import numpy as np
import xarray as xr

def model(inputs):
    x = inputs
    volume = xr.DataArray(np.array([1.0, 2, 3, 5, 8, 13]), dims="volume")  # not the inputs'
    y = x.x1 + x.x2 * volume + x.x3 / volume
    return xr.Dataset({"y": y.transpose("sample", "volume")}, coords={"volume": volume})
'''


def test_a_model_that_ignores_the_points_it_is_given_is_refused(tmp_path):
    """A model that makes its own grid instead of reading the inputs' coordinate cannot be
    run at the report points alone: one line saying so and what to do, no wrong indices."""
    from mc_tco.errors import ModelError

    (tmp_path / "owngrid_model.py").write_text(OWN_GRID_MODEL)
    (tmp_path / "book.toml").write_text(BOOK.replace("sobolat_model", "owngrid_model"))
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ModelError, match=r"not on the volume points of its inputs "
                                             r"\(asked for 3, it returned 6\).*--sobol-at grid"):
            run(tmp_path / "book.toml", samples=64)
        assert np.isfinite(run(tmp_path / "book.toml", samples=64, sobol_at="grid")
                           .ST.sel(volume=3)).all()
    finally:
        sys.path.remove(str(tmp_path))
