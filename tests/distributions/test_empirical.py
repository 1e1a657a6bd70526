"""The empirical family (issue 25 item 8): a CSV column sampled through its quantile function.

Its ppf is numpy's default ("linear", Hyndman-Fan type 7) quantile of the values, bit for
bit, and scipy's ``mstats.mquantiles`` with ``alphap = betap = 1``; the book reads the file
as data next to the book; every bad file, column or cell is one line naming the book, the
input, the data file and the problem; ``mc-tco inputs`` and ``mc-tco run`` take it.
"""

import math
import pickle

import numpy as np
import pytest
from click.testing import CliRunner
from scipy import integrate, stats
from scipy.stats import qmc

from mc_tco.book import load_book, loads_book
from mc_tco.cli import main
from mc_tco.distributions.families import U_MIN
from mc_tco.errors import BookError
from tests.paths import ARTICLE_BOOK

#: values with ties, unsorted, negative and positive
VALUES = [3.5, -1.25, 7.0, 3.5, 3.5, 0.0, 12.75, 2.0, -4.5, 7.0, 9.125]


def _write(tmp_path, values=VALUES, header="id,price", name="data.csv", sep=","):
    rows = [f"r{i}{sep}{v!r}" for i, v in enumerate(values)]
    (tmp_path / name).write_text(header.replace(",", sep) + "\n" + "\n".join(rows) + "\n")


def _book(tmp_path, fields='file = "data.csv"\ncolumn = "price"', extra=""):
    path = tmp_path / "b.toml"
    path.write_text(f'[book]\nname = "t"\n\n[inputs.x]\ndist = "empirical"\n{fields}\n{extra}')
    return path


@pytest.fixture
def inp(tmp_path):
    _write(tmp_path)
    return load_book(_book(tmp_path)).inputs["x"]


def test_the_ppf_is_numpys_linear_quantile_bit_for_bit(inp):
    u = np.concatenate([qmc.Sobol(1, seed=4).random(1024).ravel(), np.linspace(0, 1, 101)])
    u = u.clip(U_MIN, 1 - U_MIN)
    got = inp.ppf(u)
    np.testing.assert_array_equal(got, np.quantile(VALUES, u))
    np.testing.assert_allclose(got, stats.mstats.mquantiles(VALUES, u, alphap=1, betap=1),
                               rtol=1e-13, atol=1e-13)
    assert inp.support() == (-4.5, 12.75)
    np.testing.assert_array_equal(inp.quantiles([0, 0.5, 1]), [-4.5, 3.5, 12.75])
    np.testing.assert_array_equal(inp.dist.ppf(u), inp.ppf(u))  # one-at-a-time equals


def test_cdf_density_and_moments_are_the_mixture_of_uniforms(inp):
    """The law is n - 1 uniforms on the gaps of the sorted values, each of mass 1/(n-1)."""
    xs = np.sort(VALUES)
    n = xs.size
    u = np.linspace(0.001, 0.999, 999)
    x = inp.dist.ppf(u)
    atom = np.isin(x, [3.5, 7.0])  # a tied value: the cdf jumps over its mass there
    np.testing.assert_allclose(inp.dist.cdf(x[~atom]), u[~atom], atol=1e-12)
    assert np.all(inp.dist.cdf(x[atom]) >= u[atom]) and atom.sum() > 100
    assert inp.dist.cdf(-5) == 0 and inp.dist.cdf(12.75) == 1 and inp.dist.cdf(99) == 1
    mass, _ = integrate.quad(inp.dist.pdf, xs[0], xs[-1], points=list(np.unique(xs)),
                             limit=200)
    # tied values are atoms (zero-width gaps): their mass has no density
    ties = int(np.sum(np.diff(xs) == 0))
    assert mass == pytest.approx(1 - ties / (n - 1), rel=1e-9)
    mean = (2 * xs.sum() - xs[0] - xs[-1]) / (2 * (n - 1))
    ex2 = np.mean((xs[:-1] ** 2 + xs[:-1] * xs[1:] + xs[1:] ** 2) / 3)
    assert inp.dist.mean() == pytest.approx(mean, rel=1e-12)
    assert inp.dist.var() == pytest.approx(ex2 - mean**2, rel=1e-10)
    big = inp.ppf(qmc.Sobol(1, seed=2).random(2**14).ravel().clip(U_MIN, 1 - U_MIN))
    assert big.mean() == pytest.approx(mean, abs=2e-3)


def test_unit_conversion_and_pickling_keep_the_values(inp):
    cents = inp.in_unit("cents", 100.0)
    np.testing.assert_allclose(cents.quantiles([0.1, 0.5, 0.9]),
                               100 * np.quantile(VALUES, [0.1, 0.5, 0.9]), rtol=1e-14)
    assert inp.describe() == "empirical(file=data.csv, column=price)"
    back = pickle.loads(pickle.dumps(inp))  # the engine's worker processes
    u = np.linspace(0, 1, 17)
    np.testing.assert_array_equal(back.quantiles(u), inp.quantiles(u))
    assert back.params == inp.params


def test_semicolon_files_blank_lines_and_a_bom_read(tmp_path):
    (tmp_path / "data.csv").write_text("\ufeffid;price\nx;1.5\n\ny;-2\nz;4e3\n",
                                       encoding="utf-8")
    x = load_book(_book(tmp_path)).inputs["x"]
    np.testing.assert_array_equal(x.quantiles([0, 0.5, 1]), [-2, 1.5, 4000])


def test_the_file_is_relative_to_the_books_folder(tmp_path, monkeypatch):
    sub = tmp_path / "books"
    sub.mkdir()
    _write(sub)
    path = _book(sub)
    monkeypatch.chdir(tmp_path)  # elsewhere than the book
    assert load_book(path).inputs["x"].quantiles([0.5])[0] == 3.5


@pytest.mark.parametrize(("csv", "fields", "where", "fragments"), [
    (None, 'file = "nope.csv"\ncolumn = "price"', "inputs.x.file",
     ["nope.csv: no such file (looked for"]),
    ("id,price\n1,2\n", 'file = "data.csv"\ncolumn = "prise"', "inputs.x.column",
     ["data.csv has no column 'prise'; did you mean 'price'? its columns: id, price"]),
    ("id,price\na,1\nb,12 USD\n", 'file = "data.csv"\ncolumn = "price"', "inputs.x.column",
     ["data.csv: row 3 of column 'price' is '12 USD', not a number"]),
    ("id,price\na,1\nb,\nc,3\n", 'file = "data.csv"\ncolumn = "price"', "inputs.x.column",
     ["data.csv: row 3 of column 'price' is empty"]),
    ("id,price\na,1\nb,nan\n", 'file = "data.csv"\ncolumn = "price"', "inputs.x.column",
     ["row 3 of column 'price' is nan; every value must be a finite number"]),
    ("id,price\na,1\n", 'file = "data.csv"\ncolumn = "price"', "inputs.x.column",
     ["column 'price' has 1 value; an empirical distribution needs at least 2"]),
    ("", 'file = "data.csv"\ncolumn = "price"', "inputs.x.file", ["data.csv is empty"]),
    ("id,price\na,2\nb,2\n", 'file = "data.csv"\ncolumn = "price"', "inputs.x.column",
     ["data.csv: every value of column 'price' is 2: a constant; write dist = \"constant\""]),
    ("id,price\n1,2\n", 'file = 3\ncolumn = "price"', "inputs.x.file",
     ["file must be a non-empty string in quotes, got 3"]),
    ("id,price\n1,2\n", 'file = "data.csv"', "inputs.x",
     ["missing field 'column' for an empirical input"]),
])
def test_a_bad_file_column_or_cell_is_one_line_naming_all(tmp_path, csv, fields, where,
                                                          fragments):
    if csv is not None:
        (tmp_path / "data.csv").write_text(csv)
    path = _book(tmp_path, fields)
    with pytest.raises(BookError) as info:
        load_book(path)
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"{path}:") and f": {where}: " in msg, msg
    for fragment in fragments:
        assert fragment in msg, msg


def test_a_file_that_is_not_utf8_is_refused(tmp_path):
    (tmp_path / "data.csv").write_bytes(b"price\n\xff\xfe1\n")
    with pytest.raises(BookError, match=r"inputs\.x\.file: data\.csv is not UTF-8 text"):
        load_book(_book(tmp_path))


def test_a_data_file_is_read_never_run(tmp_path):
    """Python in the cells is text, refused as not a number; nothing is executed."""
    flag = tmp_path / "ran"
    (tmp_path / "data.csv").write_text(
        f"price\n1\n__import__('pathlib').Path({str(flag)!r}).touch()\n")
    with pytest.raises(BookError, match="is '__import__"):
        load_book(_book(tmp_path))
    assert not flag.exists()


MODEL = "import xarray as xr\n\ndef run(inputs):\n    return xr.Dataset({'m': inputs.x - 3})\n"


def test_mc_tco_run_and_inputs_take_an_empirical_input(tmp_path):
    _write(tmp_path)
    (tmp_path / "m_empirical.py").write_text(MODEL)
    path = tmp_path / "b.toml"
    path.write_text('[book]\nname = "e"\nmodel = "m_empirical:run"\n[analysis]\n'
                    'targets = ["m"]\n[inputs.x]\ndist = "empirical"\nfile = "data.csv"\n'
                    'column = "price"\n[inputs.y]\ndist = "uniform"\nlow = 0\nhigh = 1\n')
    runner = CliRunner()
    res = runner.invoke(main, ["inputs", str(path)])
    assert res.exit_code == 0, res.output
    row = next(line for line in res.output.splitlines() if line.startswith("x "))
    assert "empirical(file=data.csv, column=price)" in row
    q5, q50, q95 = np.quantile(VALUES, [0.05, 0.5, 0.95])
    assert f"{q5:.3g}" in row and f"{q50:.3g}" in row and f"{q95:.3g}" in row
    out = tmp_path / "e.nc"
    res = runner.invoke(main, ["run", str(path), "-n", "64", "-o", str(out)])
    assert res.exit_code == 0, res.output
    import xarray as xr

    with xr.open_dataset(out, engine="h5netcdf") as ds:
        m = ds["m"].values.ravel()
        assert list(ds.input_family.values) == ["empirical", "uniform"]
    # the base rows are the values' quantiles at the design's points, minus 3
    assert m.min() >= -4.5 - 3 and m.max() <= 12.75 - 3
    assert float(np.mean(m > 0)) == pytest.approx(float(np.mean(np.array(VALUES) > 3)),
                                                  abs=0.1)


def test_the_tco_model_checks_an_empirical_input_against_its_spec(tmp_path):
    """A node price from quotes: within the model's range it lists; a negative one is
    refused by the model's check, naming the input."""
    text = ARTICLE_BOOK.read_text()
    uniform = 'dist = "uniform"\nlow = 400000\nhigh = 550000\n'
    assert uniform in text
    text = text.replace(uniform, 'dist = "empirical"\nfile = "quotes.csv"\ncolumn = "usd"\n',
                        1)
    (tmp_path / "article.toml").write_text(text)
    (tmp_path / "quotes.csv").write_text("vendor,usd\na,410000\nb,455000\nc,530000\n")
    res = CliRunner().invoke(main, ["inputs", str(tmp_path / "article.toml")])
    assert res.exit_code == 0, res.output
    assert "empirical(file=quotes.csv, column=usd)" in res.output
    (tmp_path / "quotes.csv").write_text("vendor,usd\na,-410000\nb,455000\n")
    res = CliRunner().invoke(main, ["inputs", str(tmp_path / "article.toml")])
    assert res.exit_code == 2 and "inputs.node_price" in res.output, res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1


def test_loads_book_without_a_path_reads_from_the_working_directory(tmp_path, monkeypatch):
    _write(tmp_path)
    monkeypatch.chdir(tmp_path)
    text = '[book]\nname = "t"\n[inputs.x]\ndist = "empirical"\nfile = "data.csv"\n' \
           'column = "price"\n'
    assert math.isclose(loads_book(text).inputs["x"].quantiles([0.5])[0], 3.5)
