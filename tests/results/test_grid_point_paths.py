"""Every public path that picks a demand grid point from what a user typed, on one table
of cases, so that they can be seen to agree (issue 22 item 10).

The paths: ``mc-tco memo --demand``, ``mc-tco explain --demand`` and ``--at demand=``, the
``ds.mc_tco`` accessor's selection, and the explorer's answer (``mc_tco.app.api.answer``,
what ``/api/answer`` calls). Each is driven by its input and judged by its output only (the
point it used, or the refusal it printed), not by which function matches inside, so the
test holds when the matchers are merged.

The explorer takes a number from its slider, always a grid point; given a value off the
grid it answers at the nearest point (on a log scale) and returns that point, where the
command line refuses. That difference is stated in :data:`APP_BETWEEN` below.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.errors import OptionError
from mc_tco.results.io import open_results

#: the article run's demand grid (conftest ``article_run``): 41 log-spaced points from 1e9
#: to 1e13 plus the report and claim points
P26 = float(np.logspace(9, 13, 41)[26])  # 3.981e11, printed 398B
P31 = float(np.logspace(9, 13, 41)[31])  # 1.2589254117941673e12, printed 1.26T

#: (what the user typed, the point it names, or the refusal the user reads)
CASES = [
    ("1e12", 1e12),  # a point, exactly
    ("1T", 1e12),  # the same with a suffix
    (repr(1e12 * (1 + 1e-12)), 1e12),  # within floating-point noise of a point
    (repr(P31), P31),  # a point that is not a round number, exactly
    (repr(P31 * (1 - 1e-11)), P31),  # ... within noise
    ("1.26T", P31),  # ... as printed to 3 digits
    ("4.5e11", "4.5e+11 is not a grid point; the nearest are 3.981e+11 and 5e+11 "
               "tokens/month"),
    ("400B", "4e+11 is not a grid point; the nearest are 3.981e+11 and 5e+11"),  # 398B
    # nearer 3.981e11 on a linear scale, nearer 5e11 on a log scale
    ("448B", "4.48e+11 is not a grid point; the nearest are 3.981e+11 and 5e+11"),
    ("2e13", "2e+13 is outside the grid (1e+09 to 1e+13 tokens/month)"),
]
IDS = [c[0] for c in CASES]

#: the explorer off the grid: the nearest point, returned with the answer
APP_BETWEEN = {"4.5e11": 5e11, "400B": P26, "448B": 5e11, "2e13": 1e13}


@pytest.fixture(scope="module")
def article_file(result_files):
    return str(result_files["article"])


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _refused(result, message):
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_grid_is_the_one_the_cases_assume(article_run):
    grid = article_run.demand.values
    assert {1e12, 5e11, P26, P31} <= set(grid.tolist())
    assert grid.min() == 1e9 and grid.max() == 1e13
    assert float(grid[grid < 4e11].max()) == P26 and float(grid[grid > 4.5e11].min()) == 5e11
    assert np.sqrt(P26 * 5e11) < 4.48e11 < (P26 + 5e11) / 2


@pytest.mark.parametrize(("typed", "expected"), CASES, ids=IDS)
def test_the_accessor_selection(article_run, typed, expected):
    if isinstance(expected, str):
        with pytest.raises(OptionError, match=re.escape(f"--demand {expected}")):
            article_run.mc_tco.point(demand=typed)
    else:
        assert article_run.mc_tco.point(demand=typed) == {"demand": expected}


@pytest.mark.parametrize("form", ["--demand", "--at"])
@pytest.mark.parametrize(("typed", "expected"), CASES, ids=IDS)
def test_explain(article_file, tmp_path, form, typed, expected):
    where = ["--demand", typed] if form == "--demand" else ["--at", f"demand={typed}"]
    out = tmp_path / "explain.json"
    r = _cli("explain", article_file, *where, "--only", "boxes", "--json", out)
    if isinstance(expected, str):
        _refused(r, expected)
    else:
        assert r.exit_code == 0, r.output
        assert json.loads(out.read_text())["point"] == {"demand": expected}


#: a memo takes 5-20 s to write (its figures not rendered: ``no_png``): the cases it accepts
#: are the two hardest (noise around a point that is not round, and that point as printed)
#: and a demand between grid points, computed there (issue 24: any demand inside the grid's
#: range); it refuses a demand outside the grid at once
MEMO_CASES = [c if isinstance(c[1], str) else pytest.param(*c, id=c[0], marks=pytest.mark.slow)
              for c in CASES if c[0] in ("2e13", repr(P31 * (1 - 1e-11)), "1.26T")]
MEMO_CASES.append(pytest.param("4.5e11", 4.5e11, id="4.5e11-between", marks=pytest.mark.slow))


@pytest.mark.parametrize(("typed", "expected"), MEMO_CASES,
                         ids=[c[0] if isinstance(c, tuple) else None for c in MEMO_CASES])
def test_memo(article_file, tmp_path, typed, expected, no_png):
    r = _cli("memo", article_file, "--demand", typed, "-o", tmp_path / "memo", "-q")
    if isinstance(expected, str):
        _refused(r, expected)
        assert not (tmp_path / "memo").exists()
    else:
        assert r.exit_code == 0, r.output
        memo = (tmp_path / "memo" / "memo.md").read_text()
        words = {P31: "1.26T", 4.5e11: "450B"}[expected]
        assert f"Decision demand {words} tokens/month." in memo


@pytest.mark.parametrize(("typed", "expected"), CASES, ids=IDS)
def test_the_explorer(article_file, typed, expected):
    from mc_tco.app import api
    from mc_tco.results import parse_amount

    ds = open_results(article_file)
    got = api.answer(ds, parse_amount(typed))["demand"]
    assert got == (APP_BETWEEN[typed] if isinstance(expected, str) else expected)
