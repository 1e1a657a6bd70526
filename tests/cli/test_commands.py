"""The command line, through click's CliRunner: output, files, errors."""

import shutil

import pytest
import xarray as xr
from click.testing import CliRunner

from mc_tco.cli import main
from tests.paths import ARTICLE_BOOK, DEFAULT_BOOK


@pytest.fixture
def runner():
    return CliRunner()


def test_run_writes_the_file_and_prints_the_table(runner, tmp_path):
    out = tmp_path / "a.nc"
    res = runner.invoke(main, ["run", str(ARTICLE_BOOK), "--samples", "256", "--seed", "7",
                               "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "P(strategy beats the API)" in res.output
    assert "breakeven_demand" in res.output and "Top inputs" in res.output
    for col in ("100B", "300B", "500B", "1T", "3T"):
        assert col in res.output
    # version 3: every strategy of the file in the table (reserved too), break-even and
    # payback medians with their intervals
    table = res.output.split("P(strategy beats the API)", 1)[1].split("\n\n", 1)[0]
    rows = [line.split()[0] for line in table.splitlines()[2:]]
    assert rows == ["buy", "rent", "reserved", "owned", "hybrid"]
    assert "median with its 95% Monte Carlo interval" in res.output
    assert "payback_months (month): median, with its 95% Monte Carlo interval" in res.output
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        assert ds.attrs["seed"] == 7 and ds.sizes["sample"] == 256
        assert float(ds.p_positive.sel(target="saving>0", strategy="rent").max()) == 0.0


def test_default_book_and_default_out(runner, tmp_path, monkeypatch):
    (tmp_path / "distributions").mkdir()
    shutil.copy(DEFAULT_BOOK, tmp_path / "distributions")
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(main, ["run", "--samples", "64", "--quiet"])
    assert res.exit_code == 0, res.output
    assert res.output == ""
    assert (tmp_path / "results" / "deepseek-v4.1-flash.nc").exists()


def test_inputs_table(runner):
    res = runner.invoke(main, ["inputs", str(ARTICLE_BOOK)])
    assert res.exit_code == 0, res.output
    assert "node_price" in res.output and "uniform(low=400000, high=550000)" in res.output
    assert "407,500" in res.output  # 5% quantile of uniform(400k, 550k)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["run", str(ARTICLE_BOOK), "--samples", "1000"], "power of two"),
        (["run", "nope.toml"], "nope.toml: no such file"),
        (["inputs", "nope.toml"], "nope.toml: no such file"),
    ],
)
def test_errors_are_one_line_exit_2_no_file(runner, tmp_path, args, fragment):
    out = tmp_path / "x.nc"
    res = runner.invoke(main, [*args, *(["--out", str(out)] if args[0] == "run" else [])])
    assert res.exit_code == 2
    assert fragment in res.output
    assert "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert not out.exists()


def test_bad_book_through_the_cli(runner, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(ARTICLE_BOOK.read_text().replace("low = 400000", "low = 600000"))
    out = tmp_path / "bad.nc"
    res = runner.invoke(main, ["run", str(bad), "--out", str(out)])
    assert res.exit_code == 2
    assert f"{bad}:" in res.output and "inputs.node_price" in res.output
    assert "low (600000) must be below high (550000)" in res.output
    assert not out.exists() and not list(tmp_path.glob(".*tmp"))


def test_a_model_without_a_grid_reads_cleanly(tmp_path):
    """Issue 11 item 13: no 'at  (' nor a blank header, no '(> 0)' after the indicator."""
    (tmp_path / "m_nogrid.py").write_text(
        "import xarray as xr\n"
        "def run(inputs):\n"
        "    return xr.Dataset({'margin': inputs.price * inputs.volume - inputs.cost})\n")
    fields = 'unit = "USD"\nsource = "assumption: test"\n'
    (tmp_path / "b.toml").write_text(
        '[book]\nname = "no grid"\nmodel = "m_nogrid:run"\n[analysis]\ntargets = ["margin"]\n'
        f'[inputs.price]\ndist = "uniform"\nlow = 1\nhigh = 2\n{fields}'
        f'[inputs.volume]\ndist = "uniform"\nlow = 10\nhigh = 20\n{fields}'
        f'[inputs.cost]\ndist = "uniform"\nlow = 10\nhigh = 30\n{fields}')
    res = CliRunner().invoke(main, ["run", str(tmp_path / "b.toml"), "-n", "256",
                                    "-o", str(tmp_path / "x.nc")])
    assert res.exit_code == 0, res.output
    assert " at  " not in res.output and "(> 0)" not in res.output
    assert "Top inputs by total Sobol' index ST for 'margin > 0' (±" in res.output
    lines = res.output.splitlines()
    i = lines.index("P(margin > 0), with its 95% Monte Carlo interval")
    assert lines[i + 1].strip() == "P"
    assert lines[i + 2].startswith("margin ")


def test_by_group_says_why_s1_moves(tmp_path):
    """Issue 11 item 18: extra design rows move S1 (SALib's centring); the output says so."""
    from tests.paths import ARTICLE_BOOK

    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "64", "--by", "group",
                                    "-o", str(tmp_path / "g.nc")])
    assert res.exit_code == 0, res.output
    assert "S1 is centred on the mean of all design rows" in res.output
    plain = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "64",
                                      "-o", str(tmp_path / "p.nc")])
    assert "S1 is centred" not in plain.output
