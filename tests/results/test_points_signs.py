"""The grid-point matcher on negative, zero and mixed-sign grids, and the memo of a user's
model whose grid starts below zero (issue: "a grid with negative values breaks the memo")."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.errors import OptionError
from mc_tco.results import match_point

GRIDS = {
    "negative": [-5.0, -3.0, -1.0],
    "mixed": [-1.0, 1.0, 3.0],
    "zero at the bottom": [0.0, 0.5, 1.0],
    "zero at the top": [-2.0, -1.0, 0.0],
    "zero inside": [-1.0, 0.0, 1.0],
    "printed": [-1.2589254117941673, 0.0, 1.2589254117941673],
}


@pytest.mark.parametrize("name", GRIDS)
def test_every_point_of_a_grid_names_itself(name):
    grid = np.array(GRIDS[name])
    for point in grid:
        assert match_point(grid, point, dim="c", flag="--at c=") == point
        assert match_point(grid, f"{point:.3g}", dim="c", flag="--at c=") == point
    assert match_point(grid, -0.0 if 0.0 in grid else grid[0]) == (0.0 if 0.0 in grid
                                                                  else grid[0])


@pytest.mark.parametrize("name", GRIDS)
def test_beyond_either_end_is_outside(name):
    grid = np.array(GRIDS[name])
    lo, hi = grid.min(), grid.max()
    for v in (lo - 0.01 - 1e-6 * abs(lo), hi + 0.01 + 1e-6 * abs(hi)):
        with pytest.raises(OptionError, match="is outside the grid"):
            match_point(grid, v, dim="c", flag="--at c=")


def test_the_bounds_widen_outward_whatever_their_sign():
    # within the tolerance beyond a bound: the bound; a negative bound must not move inward
    assert match_point([-1.0, 1.0, 3.0], -1.0 - 1e-12) == -1.0
    assert match_point([-5.0, -3.0, -1.0], -1.0 + 1e-12) == -1.0
    with pytest.raises(OptionError, match="outside"):
        match_point([-5.0, -3.0, -1.0], -0.999)


def test_between_points_of_a_mixed_grid_names_the_neighbours():
    with pytest.raises(OptionError, match=r"--at c=0 is not a grid point; the nearest are "
                                          r"-1 and 1;"):
        match_point([-1.0, 1.0, 3.0], 0, dim="c", flag="--at c=")


def test_a_pure_number_unit_is_not_printed_after_the_range():
    with pytest.raises(OptionError) as exc:
        match_point([-1.0, 1.0, 3.0], 7, dim="c", flag="--at c=", unit="1")
    assert str(exc.value) == ("--at c=7 is outside the grid (-1 to 3); choose a value in "
                              "it, or rerun with a book whose grid covers it")
    with pytest.raises(OptionError, match=r"\(-1 to 3 tokens/month\)"):
        match_point([-1.0, 1.0, 3.0], 7, unit="tokens/month")


MODEL = '''
import xarray as xr

def run(inputs):
    return xr.Dataset({"margin": inputs["x"] - 0.5 + 0.1 * inputs["c"] + 0 * inputs["y"]})
'''

BOOK = '''
[book]
name = "a grid below zero"
model = "signs_model:run"

[analysis]
targets = ["margin"]

[grid.c]
values = [-1, 1, 3]
unit = "1"

[inputs.x]
dist = "uniform"
low = 0
high = 1

[inputs.y]
dist = "uniform"
low = 0
high = 1
'''


def test_the_memo_of_a_users_model_with_a_negative_grid(tmp_path, no_png):
    (tmp_path / "signs_model.py").write_text(textwrap.dedent(MODEL))
    (tmp_path / "book.toml").write_text(BOOK)
    nc = tmp_path / "signs.nc"
    runner = CliRunner()
    r = runner.invoke(main, ["run", str(tmp_path / "book.toml"), "-n", "256", "-q",
                             "-o", str(nc)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(main, ["memo", str(nc), "-o", str(tmp_path / "m"), "-q"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "m" / "memo.md").is_file()
    for at in ("c=-1", "c=3"):
        r = runner.invoke(main, ["memo", str(nc), "--at", at, "-o", str(tmp_path / at),
                                 "-q"])
        assert r.exit_code == 0, r.output
