"""``mc-tco memo RESULTS --demand X`` at any demand inside the grid's range (issue 24,
point 1): as printed on the summary it works, a demand past the grid is one line and exit
2, and a multiple of the demand past the grid's end is left out, said so."""

from __future__ import annotations

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


def test_the_memo_at_a_demand_off_the_grid_says_what_was_done(default_run, no_png):
    """The summary, the ranking and the methods at 800B, which the grid lacks: the page is
    at exactly 800B (and 400B, 1.6T), the Sobol' ranking at the nearest demand where the
    run estimated it (--sobol-at report: the report points; 1T), and the provenance says
    how the numbers were made (the CLI path is :func:`mc_tco.report.memo.build_memo`, which
    does what this test does)."""
    from mc_tco.decision.at_demand import decision_demand, memo_demands, with_demands
    from mc_tco.report.memo.context import MemoContext
    from mc_tco.report.memo.drivers import section_drivers, section_sobol
    from mc_tco.report.memo.render import Document, to_markdown
    from mc_tco.report.memo.sections import section_provenance
    from mc_tco.results.points import nearest_point

    d = decision_demand(default_run, "800B")
    ds = with_demands(default_run, memo_demands(default_run, d))
    ctx = MemoContext(ds, d, demand_asked=True, paths={"results": "r.nc"})
    page = ctx.one_page_markdown
    assert "at your demand of 800B tokens/month" in page
    assert "**Your demand, 800B tokens/month, is the volume you gave**" in page
    assert "400B (½× your demand) | 800B (your demand) | 1.6T (2× your demand)" in page
    assert ctx.added and ctx.rank_demand == 1e12
    md = to_markdown(Document("t", "", [section_sobol(ctx), section_provenance(ctx)]))
    assert ("These indices are at 1T, the nearest demand where the run estimated them, to "
            "your 800B") in md
    assert "is not a point of the run's demand grid" in md
    assert "they are those of the nearest demand where the run estimated them, 1T" in md
    # a point of the grid where the run did not estimate them (--sobol-at report)
    grid = nearest_point(default_run["demand"].values, 7.943e11)
    ctx = MemoContext(default_run, grid, demand_asked=True, paths={"results": "r.nc"})
    assert not ctx.added and ctx.rank_demand == 1e12
    md = to_markdown(Document("t", "", [section_sobol(ctx), section_drivers(ctx)]))
    assert ("The ST panel is at 1T, the nearest demand where the run estimated its Sobol' "
            "indices.") in md
    assert ("These indices are at 1T, the nearest demand where the run estimated its Sobol' "
            "indices (demand = 3e+10, 1e+11, 3e+11, 5e+11, 1e+12, 3e+12: the report points; "
            "rerun with --sobol-at grid for every grid point); every other number of the "
            "memo is at 794B.") in md
