"""One rule for correlated inputs (issue 25 item 11): the file says which index ranks
(``ranking_index``) and what its Sobol' indices mean (``index_meaning``), and the
accessor's ranking, the memo's ranking (``mc_tco.decision.indices.ranking``) and the
adaptive run (``--target-halfwidth``) follow it; an uncorrelated book is unchanged.

Owen & Prieur's ``Y = X1 + X2 + X3``, ``X ~ N(0, diag(1, 1, 4))``, corr(X2, X3) = 0.9:
Shapley effects (0.10417, 0.41823, 0.47760) in closed form.
"""

from __future__ import annotations

import numpy as np
import pytest

from mc_tco.book import load_book
from mc_tco.engine import plan_run, run
from mc_tco.errors import OptionError
from mc_tco.results.ranking import MOVED_ONE_AT_A_TIME, VARIANCE_SHARE, rank_order, ranking_rule
from tests.engine.test_correlation import OWEN_SHAPLEY, owen_book


def _uncorrelated(path):
    text = path.read_text()
    path.write_text(text[: text.index("[[correlation]]")])
    return path


@pytest.fixture(scope="module")
def owen(tmp_path_factory):
    folder = tmp_path_factory.mktemp("owen")
    return run(owen_book(folder), samples=64, shapley_permutations=256)


def test_the_rule():
    assert ranking_rule(False, False) == ranking_rule(False, True, True) == "ST"
    assert ranking_rule(True, True) == ranking_rule(True, True, True) == "shapley"
    assert ranking_rule(True, False, True) == "ST_group"
    assert ranking_rule(True, False, False) == "none"


def test_the_file_declares_the_rule(owen, tmp_path):
    assert owen.attrs["ranking_index"] == owen.mc_tco.ranking_index == "shapley"
    for name in ("S1", "ST", "S1_conf", "ST_conf"):
        assert owen[name].attrs["index_meaning"] == MOVED_ONE_AT_A_TIME, name
    assert owen.shapley.attrs["index_meaning"] == VARIANCE_SHARE
    plain = run(_uncorrelated(owen_book(tmp_path)), samples=64)
    assert plain.attrs["ranking_index"] == "ST" and "shapley" not in plain
    assert plain.ST.attrs["index_meaning"] == VARIANCE_SHARE
    # a file written before the attr: the same rule from its contents
    old = owen.copy()
    del old.attrs["ranking_index"]
    assert old.mc_tco.ranking_index == "shapley"


def test_the_accessor_ranks_by_shapley_under_correlation(owen):
    r = owen.mc_tco.ranking("y")
    assert r.attrs["index"] == r.attrs["ranking_index"] == "shapley"
    assert list(r["input"].values) == ["x3", "x2", "x1"]  # the closed form's order
    got = owen.shapley.sel(target="y").values
    half = owen.shapley_conf.sel(target="y").values
    np.testing.assert_array_equal(r.shapley.values, got[rank_order(got)])
    np.testing.assert_array_equal(r.shapley_conf.values, half[rank_order(got)])
    assert np.all(np.abs(got - OWEN_SHAPLEY) <= half), (got, half)
    # ST stays beside, labelled, and can still be asked for
    assert r.ST.attrs["index_meaning"] == MOVED_ONE_AT_A_TIME
    by_st = owen.mc_tco.ranking("y", index="ST")
    assert by_st.attrs["index"] == "ST"
    np.testing.assert_array_equal(by_st.ST.values, np.sort(by_st.ST.values)[::-1])


def test_the_rule_without_shapley_effects(tmp_path):
    within = run(owen_book(tmp_path), samples=64, shapley=False, by_group=True)
    assert within.attrs["ranking_index"] == "ST_group"
    r = within.mc_tco.ranking("y")
    assert r.attrs["index"] == "ST_group" and list(r["group"].values) == ["b", "a"]
    assert within.ST_group.attrs["index_meaning"] == VARIANCE_SHARE
    (tmp_path / "x").mkdir()
    crossing = run(owen_book(tmp_path / "x", groups=("a", "b", "c")), samples=64,
                   shapley=False)
    assert crossing.attrs["ranking_index"] == "none"
    with pytest.raises(OptionError, match="no index ranks single inputs"):
        crossing.mc_tco.ranking("y")
    with pytest.raises(OptionError, match=r"--target-halfwidth: .* drop --no-shapley"):
        plan_run(load_book(owen_book(tmp_path / "x", groups=("a", "b", "c"))),
                 samples=64, shapley=False, target_halfwidth=0.1)


def test_adaptive_run_converges_on_the_shapley_half_width(tmp_path):
    """Correlated: held to the Shapley effects' half-widths of the indicator y>0 (P = 1/2),
    which do not change as the base sample doubles. At 64 base samples its 32 winning
    rows are too few to rank (MIN_EVENTS = 50): the run doubles once, then meets the target
    at 128, before the cap; a target the Shapley pass misses stops there too, naming the
    permutations that would meet it."""
    path = owen_book(tmp_path)
    met = run(path, samples=64, max_samples=512, target_halfwidth=0.5,
              shapley_permutations=256)
    first, step = met.mc_tco.convergence_path
    worst = float(met.shapley_conf.sel(target="y>0").max())
    assert first["rare"] == 1 and first["cells"] == 0 and not first["converged"]
    assert "too few to rank" in first["why"]
    assert step["index"] == "shapley" and step["converged"] and not step["futile"]
    assert met.sizes["sample"] == 128 and step["rare"] == 0 and step["cells"] == 1
    assert step["worst_halfwidth"] == pytest.approx(worst, rel=1e-12)
    missed = run(path, samples=128, max_samples=512, target_halfwidth=worst / 2,
                 shapley_permutations=256)
    (step,) = missed.mc_tco.convergence_path
    assert step["futile"] and not step["converged"] and missed.sizes["sample"] == 128
    need = int(64 * np.ceil(256 * (worst / (worst / 2)) ** 2 / 64))  # 4x: 1024
    assert f"about {need:,} permutations (--shapley-permutations)" in step["why"]


def test_an_uncorrelated_book_is_unchanged(tmp_path):
    path = _uncorrelated(owen_book(tmp_path))
    ds = run(path, samples=64, max_samples=128, target_halfwidth=0.9)
    steps = ds.mc_tco.convergence_path
    assert {s["index"] for s in steps} == {"ST"} and not any(s["futile"] for s in steps)
    assert steps[-1]["worst_halfwidth"] == pytest.approx(
        float(ds.ST_conf.sel(target="y>0").max()), rel=1e-12)
    r = ds.mc_tco.ranking("y")
    assert r.attrs["index"] == "ST" and "shapley" not in r
    np.testing.assert_array_equal(r.ST.values, np.sort(r.ST.values)[::-1])


def test_the_memo_ranking_follows_the_accessor(default_run):
    """The default book has correlations: the memo's ranking (decision.indices.ranking,
    which orders the assumption table and the comparison) is by Shapley effect."""
    from mc_tco.decision.indices import ranking

    demand = float(default_run.mc_tco.shapley_points()["demand"][0])
    r = ranking(default_run, demand, "buy")
    assert r.index == "shapley" and r.index_note == ""
    acc = default_run.mc_tco.ranking(r.target, demand=demand, strategy="buy")
    assert list(r.table["input"].values) == list(acc["input"].values)
    sh = r.table["shapley"].values
    assert np.all(np.diff(sh[np.isfinite(sh)]) <= 0)
    assert (r.table.rank_best <= r.table["rank"]).all()
    assert (r.table["rank"] <= r.table.rank_worst).all()
    # where the run has Sobol' indices but no Shapley effects (--shapley-at report with
    # --sobol-at grid; here one point's effects removed), ST, and it says why
    less = default_run.assign(shapley=default_run.shapley.where(default_run.demand != demand))
    r2 = ranking(less, demand, "buy")
    assert r2.index == "ST" and "--shapley-at report" in r2.index_note
    # where it has neither (--sobol-at report), no ranking but a one-line refusal
    other = next(float(d) for d in default_run.demand.values
                 if d not in default_run.mc_tco.shapley_points()["demand"])
    with pytest.raises(OptionError, match="--sobol-at grid"):
        ranking(default_run, other, "buy")


def test_the_command_says_why_it_stopped_before_the_cap(tmp_path):
    from click.testing import CliRunner

    from mc_tco.cli import main

    out = tmp_path / "o.nc"
    res = CliRunner().invoke(main, ["run", str(owen_book(tmp_path)), "-n", "128",
                                    "--target-halfwidth", "0.001", "--max-samples", "512",
                                    "--shapley-permutations", "64", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "N =      128: worst Shapley half-width" in res.output
    assert "Not converged: stopped at 128 base samples, before --max-samples (worst " \
           "Shapley half-width" in res.output
    assert "(--shapley-permutations) would meet it" in res.output
