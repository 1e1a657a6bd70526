"""``mc-tco memo RESULTS --demand X`` at any demand inside the grid's range (issue 24,
point 1): as printed on the summary it works, a demand past the grid is one line and exit
2, and a multiple of the demand past the grid's end is left out, said so."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mc_tco.cli import main


def test_a_demand_past_the_grid_is_one_line_and_nothing_written(result_files, tmp_path):
    out = tmp_path / "memo"
    res = CliRunner().invoke(main, ["memo", str(result_files["default"]), "--demand", "20T",
                                    "--out-dir", str(out)])
    assert res.exit_code == 2
    assert "--demand 2e+13 is outside the grid (1e+09 to 1e+13" in res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1
    assert not out.exists()


def test_at_the_grid_end_twice_the_demand_is_left_out_and_said(default_run):
    from mc_tco.decision.at_demand import memo_demands, with_demands
    from mc_tco.report.memo.one_page import one_page_data, one_page_markdown

    top = float(default_run["demand"].max())
    ds = with_demands(default_run, memo_demands(default_run, top))
    page = one_page_markdown(one_page_data(ds, top))
    header = next(line for line in page.splitlines() if line.startswith("| P50 (P10 to P90)"))
    assert "10T (your demand)" in header and "2× your demand" not in header
    assert "5T (½× your demand)" in header
    assert ("The column 2× your demand (20T) is left out: it lies past the end of the "
            "results' demand grid.") in page


@pytest.mark.slow
def test_memo_at_a_demand_off_the_grid_works_as_the_summary_prints_it(result_files, tmp_path,
                                                                      no_png):
    out = tmp_path / "memo"
    res = CliRunner().invoke(main, ["memo", str(result_files["default"]), "--demand", "800B",
                                    "--out-dir", str(out)])
    assert res.exit_code == 0, res.output
    page = (out / "summary.md").read_text()
    assert "at your demand of 800B tokens/month" in page
    assert "**Your demand, 800B tokens/month, is the volume you gave**" in page
    assert "400B (½× your demand) | 800B (your demand) | 1.6T (2× your demand)" in page
    md = (out / "memo.md").read_text()
    assert "is not a point of the run's demand grid" in md  # the methods say what was done
    assert "These indices are at 794B, the run's grid point nearest your 800B" in md
