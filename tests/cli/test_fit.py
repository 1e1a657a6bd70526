"""``mc-tco fit`` end to end through click's CliRunner: the ranking, the blocks to paste
(loaded back through mc_tco.book), the figure, and one-line refusals."""

import re

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import stats

from mc_tco.book import loads_book
from mc_tco.cli import main
from mc_tco.distributions.fitting import fit_data


@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x = stats.lognorm(0.5, scale=20).rvs(2000, random_state=np.random.default_rng(8))
    rows = "\n".join(f"q{i},{v!r}" for i, v in enumerate(x.tolist()))
    (tmp_path / "quotes.csv").write_text("vendor,Price (USD)\n" + rows + "\n")
    return x


def _blocks(output: str) -> list[str]:
    """Every [inputs.<name>] block printed: from its header to the blank line after it."""
    return re.findall(r"^\[inputs\.\w+\]\n(?:.+\n)+", output + "\n", flags=re.M)


def test_fit_ranks_the_families_and_prints_blocks_a_book_loads(data, tmp_path):
    res = CliRunner().invoke(main, ["fit", "quotes.csv", "--column", "Price (USD)",
                                    "--families", "lognormal,gamma,weibull,normal",
                                    "--plot", "fit.png"])
    assert res.exit_code == 0, res.output
    out = res.output
    assert out.startswith("quotes.csv, column Price (USD): 2,000 values from ")
    table = out.split("best first by AIC\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert table[0].split() == ["family", "k", "log", "L", "AIC", "ΔAIC", "BIC", "ΔBIC",
                                "KS", "D", "KS", "p"]
    expected = fit_data(data, ["lognormal", "gamma", "weibull", "normal"])
    assert [row.split()[0] for row in table[1:5]] == [f.family for f in expected.fits]
    assert table[1].split()[3] == f"{expected.best.aic:,.1f}"
    blocks = _blocks(out)
    assert len(blocks) == 2
    best = loads_book('[book]\nname = "t"\n\n' + blocks[0]).inputs["price_usd"]
    assert best.family == "lognormal"
    assert best.source == ("quotes.csv, column Price (USD): 2,000 rows; lognormal fitted by "
                           "maximum likelihood (mc-tco fit), best of 4 by AIC")
    q = [0.05, 0.5, 0.95]
    np.testing.assert_allclose(best.quantiles(q), expected.best.dist.ppf(q), rtol=1e-5)
    # the empirical block, in a book next to the data: the data's own quantiles
    (tmp_path / "b.toml").write_text('[book]\nname = "t"\n\n' + blocks[1])
    from mc_tco.book import load_book

    emp = load_book(tmp_path / "b.toml").inputs["price_usd"]
    assert emp.family == "empirical" and emp.source == "quotes.csv, column Price (USD): 2,000 rows"
    np.testing.assert_array_equal(emp.quantiles(q), np.quantile(data, q))
    png = (tmp_path / "fit.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    assert "wrote fit.png" in out


def test_fit_quantiles_prints_each_match_with_its_error_and_block(tmp_path, monkeypatch,
                                                                  no_png):
    monkeypatch.chdir(tmp_path)
    q = stats.gamma(3, scale=10).ppf([0.05, 0.5, 0.95])
    spec = ",".join(f"{p}={float(v)!r}" for p, v in zip([0.05, 0.5, 0.95], q, strict=True))
    res = CliRunner().invoke(main, ["fit", "--quantiles", spec, "--name", "months", "--plot"])
    assert res.exit_code == 0, res.output
    lines = res.output.splitlines()
    assert lines[0].startswith("Matches to 0.05=") and "smallest error first" in lines[0]
    rows = {line.split()[0]: line for line in lines[2:6]}
    assert set(rows) == {"given", "pert", "lognormal", "gamma"}
    assert rows["gamma"].endswith("(0% of the spread)") or "e-" in rows["gamma"]
    assert "not matched: beta (on [0, 1] needs every value strictly between 0 and 1)" in lines
    blocks = _blocks(res.output)
    assert len(blocks) == 3
    for block in blocks:
        inp = loads_book('[book]\nname = "t"\n\n' + block).inputs["months"]
        assert inp.source.startswith("assumption: an expert's 5%=")
        if inp.family == "gamma":
            np.testing.assert_allclose(inp.quantiles([0.05, 0.5, 0.95]), q, rtol=1e-5)
    assert (tmp_path / "months-quantiles-fit.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize(("args", "fragment"), [
    ([], "mc-tco fit: give a CSV file (mc-tco fit data.csv --column price) or --quantiles"),
    (["quotes.csv", "--quantiles", "0.1=1,0.9=2"], "not both"),
    (["nope.csv"], "nope.csv: no such file"),
    (["quotes.csv"], "quotes.csv has 2 columns (vendor, Price (USD)); say which one"),
    (["quotes.csv", "-c", "price"], "quotes.csv has no column 'price'; its columns: vendor"),
    (["quotes.csv", "-c", "vendor"], "quotes.csv: row 2 of column 'vendor' is 'q0', not a "
                                     "number"),
    (["quotes.csv", "-c", "Price (USD)", "--families", "pert"],
     "--families: cannot fit 'pert' to data"),
    (["quotes.csv", "-c", "Price (USD)", "--name", "sample"], "--name sample: an input's"),
    (["--quantiles", "0.05=30,0.5=20"], "--quantiles 0.05=30,0.5=20: the values must "
                                        "increase"),
    (["--quantiles", "0.05=-3,0.5=2", "--families", "gamma"],
     "no family matches: gamma needs every value above 0"),
    (["--quantiles", "0.05=1,0.5=2", "--column", "x"], "--column goes with a data file"),
    (["--plot", "quotes.csv", "-c", "x"], "--plot quotes.csv: the figure is a PNG; give a "
                                          "path ending in .png"),
])
def test_refusals_are_one_line_without_a_traceback(data, args, fragment):
    res = CliRunner().invoke(main, ["fit", *args])
    assert res.exit_code == 2, res.output
    assert res.output.startswith("mc-tco: error: ") and fragment in res.output, res.output
    assert len(res.output.strip().splitlines()) == 1 and "Traceback" not in res.output
