"""``mc-tco cdf`` and ``mc-tco scatter`` (issue 25, items 2 and 3): the accessor's numbers
in a table, a CSV and the memo's figure, and one-line refusals."""

from __future__ import annotations

import csv

import numpy as np
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.results.io import open_results


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_cdf_prints_writes_and_refuses(result_files, tmp_path):
    path = result_files["default"]
    table = tmp_path / "cdf.csv"  # the figure (--png) is the memo's: tests/report/memo
    r = invoke("cdf", path, "--demand", "500B", "--x", "-10k,0,10k", "--csv", table)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert lines[0].startswith("P(saving > x) at demand = 500B (95% MC interval); x in "
                               "USD/month, 512 scenarios each")
    assert lines[1].split()[:3] == ["x", "buy", "rent"]
    ds = open_results(path)
    ref = ds.mc_tco.cdf("saving", [-1e4, 0, 1e4], demand=5e11)
    p0 = float(ref["ccdf"].sel(strategy="buy", x=0))
    assert f"{100 * p0:.1f}%" in lines[3]  # the row x = 0
    rows = list(csv.DictReader(table.read_text().splitlines()))
    assert {row["strategy"] for row in rows} == set(map(str, ref["strategy"].values))
    buy = [row for row in rows if row["strategy"] == "buy" and float(row["x"]) == 0.0]
    assert float(buy[0]["p_above"]) == p0
    r = invoke("cdf", path, "--strategy", "lease")
    assert r.exit_code == 2 and "not one of" in r.output and len(
        r.output.strip().splitlines()) == 1, r.output


def test_scatter_names_the_top_inputs_and_writes_the_points(result_files, tmp_path):
    path = result_files["default"]
    table, png = tmp_path / "s.csv", tmp_path / "s.png"
    r = invoke("scatter", path, "--strategy", "buy", "--demand", "1T", "--top", "3",
               "--csv", table, "--png", png)
    assert r.exit_code == 0, r.output
    ds = open_results(path)
    sc = ds.mc_tco.scatter("saving", strategy="buy", demand=1e12, top=3)
    for j, name in enumerate(sc["input"].values):
        assert f"  {j + 1}. {name}" in r.output
    assert r.output.startswith("saving > 0 in ") and "of 512 scenarios" in r.output
    rows = list(csv.DictReader(table.read_text().splitlines()))
    assert len(rows) == 512 and list(rows[0])[1:4] == list(sc["input"].values)
    np.testing.assert_array_equal([row["wins"] == "True" for row in rows],
                                  sc["wins"].values)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
