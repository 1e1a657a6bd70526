"""Faults while results are written: a full disk, two runs to one --out, a seed that
cannot be stored. Each ends in one line (or a wait), the previous file's bytes intact, no
backup overwritten, no temporary or lock file left; every run that exits 0 has its
results on disk."""

from __future__ import annotations

import pytest
import xarray as xr
from click.testing import CliRunner

from mc_tco.cli import main

from .conftest import ARTICLE_BOOK

RUN = ["run", str(ARTICLE_BOOK), "-n", "64", "--bootstrap", "0", "-q"]


# ------------------------------------------------------------------ the seed


@pytest.mark.parametrize("seed", [str(2**64), str(2**63), "-1"])
def test_seed_out_of_range_is_refused_up_front(seed, tmp_path):
    out = tmp_path / "x.nc"
    res = CliRunner().invoke(main, [*RUN, "--seed", seed, "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == (
        "mc-tco: error: --seed must be a whole number from 0 to 9223372036854775807 "
        f"(2^63 - 1), got {seed}"
    )
    assert list(tmp_path.iterdir()) == []


def test_seed_must_be_whole(tmp_path):
    res = CliRunner().invoke(main, [*RUN, "--seed", "2.7", "--out", str(tmp_path / "x.nc")])
    assert res.exit_code == 2 and "'2.7' is not a valid integer" in res.output


def test_report_refuses_a_seed_out_of_range(tmp_path):
    res = CliRunner().invoke(main, ["report", str(ARTICLE_BOOK), "-n", "64", "--seed",
                                    str(2**64), "--results-dir", str(tmp_path / "r")])
    assert res.exit_code == 2 and "--seed must be a whole number from 0" in res.output
    assert list(tmp_path.iterdir()) == []


def test_the_largest_seed_is_written(tmp_path):
    out = tmp_path / "x.nc"
    res = CliRunner().invoke(main, [*RUN, "--seed", str(2**63 - 1), "--out", str(out)])
    assert res.exit_code == 0, res.output
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        assert int(ds.attrs["seed"]) == 2**63 - 1
