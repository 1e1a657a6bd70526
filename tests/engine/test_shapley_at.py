"""``--shapley-at report`` (the default): Shapley effects at the report points, claim points
and focus only (issue 12, the default run's time), the same numbers there as
``--shapley-at grid``, NaN elsewhere, and every reader either reads a point that has them
or says it does not."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest
import xarray as xr

from mc_tco import run
from mc_tco.engine.reproduce import stored_options
from mc_tco.errors import OptionError

MODEL = '''
import xarray as xr

def model(inputs):
    x = inputs
    return xr.Dataset({"y": (x.x1 + x.x2 * x.volume + x.x3 / x.volume - 1.0)
                       .transpose("sample", "volume")})
'''

BOOK = '''
[book]
model = "shapat_model:model"
[analysis]
targets = ["y"]
report = { volume = [2, 5] }
focus = { volume = 8 }
[grid.volume]
values = [1, 2, 3, 5, 8, 13]
[inputs.x1]
dist = "normal"
mean = 0
sd = 1
[inputs.x2]
dist = "normal"
mean = 0
sd = 1
[inputs.x3]
dist = "uniform"
low = 0
high = 2
[[correlation]]
between = ["x1", "x2"]
spearman = 0.5
source = "a test"
'''


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("shapat")
    (tmp / "shapat_model.py").write_text(MODEL)
    (tmp / "book.toml").write_text(BOOK)
    sys.path.insert(0, str(tmp))
    try:
        # (the Sobol' indices at every point: --sobol-at has tests of its own)
        report = run(tmp / "book.toml", samples=64, shapley_permutations=64, sobol_at="grid")
        grid = run(tmp / "book.toml", samples=64, shapley_permutations=64, shapley_at="grid",
                   sobol_at="grid")
    finally:
        sys.path.remove(str(tmp))
    return report, grid


def test_same_numbers_at_the_report_points_nan_elsewhere(runs):
    report, grid = runs
    has = np.isfinite(report.shapley).any(["target", "input"])
    assert report.volume.values[has.values].tolist() == [2, 5, 8]  # report + focus
    assert np.isfinite(grid.shapley).all()
    for name in ("shapley", "shapley_conf"):
        at = {"volume": [2, 5, 8]}
        xr.testing.assert_identical(report[name].sel(at).drop_attrs(),
                                    grid[name].sel(at).drop_attrs())
    assert "volume = 2, 5, 8 only" in report.shapley.attrs["computed_at"]
    assert "computed_at" not in grid.shapley.attrs
    # the rest of the file does not depend on it
    for name in ("ST", "p_positive", "y"):
        xr.testing.assert_identical(report[name], grid[name])
    assert report.attrs["shapley_evaluations"] == grid.attrs["shapley_evaluations"]


def test_readers_use_or_name_the_points(runs):
    report, grid = runs
    acc = report.mc_tco
    assert {k: v.tolist() for k, v in acc.shapley_points().items()} == {"volume": [2, 5, 8]}
    assert grid.mc_tco.shapley_points() == {}
    assert acc.shapley_point(volume=3) == {"volume": 2}  # nearer by ratio than 5
    assert acc.shapley_point(volume=13) == {"volume": 8}
    assert acc.shapley_point(volume=5) == {"volume": 5}
    r = acc.ranking("y", volume=5)
    assert np.isfinite(r["shapley"]).all()
    with pytest.raises(OptionError, match=r"volume = 2, 5, 8 only .*--shapley-at grid"):
        acc.ranking("y", volume=3)
    assert np.isfinite(acc.ranking("y", index="ST", volume=3)["ST"]).all()
    assert np.isfinite(grid.mc_tco.ranking("y", volume=3)["shapley"]).all()


def test_rerun_keeps_the_choice(runs):
    report, grid = runs
    assert stored_options(report)["shapley_at"] == "report"
    assert stored_options(grid)["shapley_at"] == "grid"
    older = report.copy()
    options = json.loads(older.attrs["run_options"])
    del options["shapley_at"]  # a file from before --shapley-at estimated every point
    older.attrs["run_options"] = json.dumps(options)
    assert stored_options(older)["shapley_at"] == "grid"


def test_bad_value_is_refused(runs, tmp_path):
    (tmp_path / "shapat_model.py").write_text(MODEL)
    (tmp_path / "book.toml").write_text(BOOK)
    with pytest.raises(OptionError, match="--shapley-at must be one of report, grid"):
        run(tmp_path / "book.toml", samples=64, shapley_at="everywhere")


def test_memo_reads_the_nearest_estimated_demand_and_says_so():
    from types import SimpleNamespace

    from mc_tco.report.memo.context import dependence_sentences

    sh = np.full((1, 3, 2, 1), np.nan)
    sh[0, :, 0, 0] = [0.2, 0.5, 0.3]
    ds = xr.Dataset(
        {"shapley": (("target", "input", "demand", "strategy"), sh),
         "shapley_conf": (("target", "input", "demand", "strategy"), sh * 0 + 0.01)},
        coords={"target": ["saving"], "input": ["a", "b", "c"], "demand": [5e11, 7e11],
                "strategy": ["buy"]},
        attrs={"conf_level": 0.95,
               "correlations": json.dumps([{"between": ["a", "b"], "kind": "spearman",
                                            "value": 0.6, "source": "s"}])},
    )
    ranking = SimpleNamespace(target="saving", demand=7e11, strategy="buy",
                              by_indicator=False)
    text = " ".join(dependence_sentences(SimpleNamespace(ds=ds, ranking=ranking)))
    assert ("at 500B (the nearest demand where the run estimated them; 700B is not one: "
            "rerun with --shapley-at grid) it is led by `b` 0.500 ± 0.010") in text
    ranking.demand = 5e11
    text = " ".join(dependence_sentences(SimpleNamespace(ds=ds, ranking=ranking)))
    assert "at 500B it is led by `b`" in text


def test_generic_memo_at_a_point_without_them(runs, tmp_path, no_png):
    from click.testing import CliRunner

    from mc_tco.cli import main
    from mc_tco.results.io import write_results

    report, _ = runs
    path = tmp_path / "r.nc"
    write_results(report, path)
    res = CliRunner().invoke(main, ["memo", str(path), "--at", "volume=3", "-o",
                                    str(tmp_path / "memo")])
    assert res.exit_code == 0, res.output
    md = (tmp_path / "memo" / "memo.md").read_text()
    assert ("The run estimated its Shapley effects at volume = 2, 5, 8 only, not at this "
            "point: rerun with --shapley-at grid") in md
    assert "Ranked by total Sobol' index ST" in md
    res = CliRunner().invoke(main, ["memo", str(path), "--at", "volume=5", "-o",
                                    str(tmp_path / "memo5")])
    assert res.exit_code == 0, res.output
    assert "Ranked by Shapley effect" in (tmp_path / "memo5" / "memo.md").read_text()
