"""PRIM scenario discovery: a synthetic model whose winning region is known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mc_tco.decision.boxes import Box
from mc_tco.decision.discovery import discover
from mc_tco.decision.prim import MIN_CASES, choose, paste, peel, prim, prune
from mc_tco.errors import OptionError

NAMES = ["x1", "x2", "x3", "x4", "x5"]


def synthetic(seed: int, n: int = 2000, noise: bool = False):
    """Five uniform inputs; the case of interest is x1 > 0.7 and x2 < 0.4 (x3..x5 play no
    part). With ``noise``, a scenario inside wins with probability 0.8, outside with 0.05."""
    rng = np.random.default_rng(seed)
    x = rng.random((n, 5))
    inside = (x[:, 0] > 0.7) & (x[:, 1] < 0.4)
    if not noise:
        return x, inside
    return x, rng.random(n) < np.where(inside, 0.8, 0.05)


@pytest.mark.parametrize("noise", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_box_restricts_exactly_the_known_inputs_near_their_limits(seed, noise):
    x, y = synthetic(seed, noise=noise)
    boxes = prim(x, y, NAMES)
    assert len(boxes) >= 1
    box = boxes[0]
    rules = box.rules()
    assert set(rules) == {"x1", "x2"}
    (x1_lo, x1_hi), (x2_lo, x2_hi) = rules["x1"], rules["x2"]
    assert x1_hi is None and x2_lo is None  # x1 > a, x2 < b: one side each
    tol = 0.05 if noise else 0.03
    assert abs(x1_lo - 0.7) < tol
    assert abs(x2_hi - 0.4) < tol
    assert box.n_restricted == 2
    if noise:
        # true box: density 0.8, coverage 0.096 / (0.096 + 0.88 * 0.05) = 0.69
        assert 0.7 < box.density < 0.95 and box.coverage > 0.55
    else:
        assert box.density == 1.0 and box.coverage > 0.9
    lo, hi = box.density_ci()
    assert lo <= box.density <= hi


def test_peeling_trajectory_trades_coverage_for_density():
    x, y = synthetic(3, noise=True)
    traj = peel(x, y, alpha=0.05, min_mass=0.05)
    cov = np.array([s.coverage for s in traj])
    dens = np.array([s.density for s in traj])
    mass = np.array([s.mass for s in traj])
    assert traj[0].mass == 1.0 and traj[0].coverage == 1.0 and traj[0].n_restricted == 0
    assert np.all(np.diff(cov) <= 0)
    assert np.all(np.diff(dens) > 0)  # every accepted peel raises the density
    assert np.all(np.diff(mass) < 0) and mass[-1] >= 0.05
    # each peel removes about alpha of the box (more only with ties, none here)
    ratio = mass[1:] / mass[:-1]
    assert np.all(ratio > 0.94) and np.all(ratio < 0.96)
    # the bounds are halfway between samples: contains() reproduces the counts
    for s in traj:
        assert s.box.contains(x).sum() == s.n_in


def test_choose_takes_the_largest_box_within_one_standard_error():
    x, y = synthetic(4, noise=True)
    traj = peel(x, y)
    i = choose(traj, 0.5)
    eligible = [j for j, s in enumerate(traj) if s.coverage >= 0.5]
    top = max(eligible, key=lambda j: traj[j].density)
    d = traj[top].density
    se = math.sqrt(d * (1 - d) / traj[top].n_in)
    assert traj[i].density >= d - se
    assert all(traj[j].density < d - se for j in eligible if j < i)


def test_prune_drops_an_irrelevant_restriction():
    x, y = synthetic(5)
    box = Box(np.array([0.7, -np.inf, -np.inf, -np.inf, -np.inf]),
              np.array([np.inf, 0.4, 0.9, np.inf, np.inf]))  # x3 < 0.9 does not matter
    pruned, qp = prune(x, y, box)
    assert set(np.flatnonzero(pruned.restricted)) == {0, 1}
    assert set(qp) == {0, 1} and max(qp.values()) < 1e-10


def test_paste_never_lowers_the_density():
    x, y = synthetic(6, noise=True)
    box = Box(np.array([0.8, -np.inf, -np.inf, -np.inf, -np.inf]),
              np.array([np.inf, 0.3, np.inf, np.inf, np.inf]))
    before = y[box.contains(x)].mean()
    pasted = paste(x, y, box)
    after = y[pasted.contains(x)].mean()
    assert after >= before
    assert pasted.contains(x).sum() >= box.contains(x).sum()


def test_covering_finds_a_second_region():
    rng = np.random.default_rng(7)
    x = rng.random((4000, 4))
    y = ((x[:, 0] > 0.8) & (x[:, 1] > 0.5)) | ((x[:, 2] < 0.15) & (x[:, 3] < 0.5))
    boxes = prim(x, y, ["a", "b", "c", "d"])
    assert len(boxes) >= 2
    found = [set(b.rules()) for b in boxes[:2]]
    assert {"a", "b"} in found and {"c", "d"} in found
    assert sum(b.coverage_new for b in boxes) <= 1 + 1e-12


def test_no_box_when_the_winners_are_everywhere():
    rng = np.random.default_rng(8)
    x = rng.random((3000, 3))
    y = rng.random(3000) < 0.2  # independent of x
    boxes = prim(x, y)
    assert all(b.density_ci()[0] <= 0.2 + 0.1 for b in boxes)
    assert len(boxes) <= 1


# ----------------------------------------------------------------------------- on results


def test_too_few_winners_says_so_and_suggests_the_nearest_demand(article_run):
    ds = article_run
    disc = discover(ds, strategy="buy", at={"demand": 5e11})
    assert disc.status == "too few winners"
    assert disc.wins < MIN_CASES and not disc.boxes
    s = disc.suggestion
    wins = (ds.saving.sel(strategy="buy") > 0).sum("sample")
    n = ds.sizes["sample"]
    ok = (wins >= MIN_CASES) & (n - wins >= MIN_CASES)
    candidates = ds.demand.values[ok.values]
    nearest = candidates[np.argmin(np.abs(np.log(candidates / 5e11)))]
    assert s["value"] == nearest and s["winners"] == int(wins.sel(demand=nearest))
    # and there PRIM runs
    there = discover(ds, strategy="buy", at={"demand": s["value"]})
    assert there.status == "ok" and there.boxes
    assert there.boxes[0].wins_in <= there.wins


def test_discover_on_results_uses_the_focus_point(article_run):
    disc = discover(article_run, at={"demand": 3e12})
    assert disc.option == "buy"  # the file's focus strategy
    assert disc.data.point == {"demand": 3e12}
    box = disc.boxes[0]
    assert "throughput_multiple" in box.rules()  # the article's dominant input


def test_discover_errors(article_run):
    with pytest.raises(OptionError, match="unknown strategy 'bye'; the results have api"):
        discover(article_run, strategy="bye", at={"demand": 3e12})
    with pytest.raises(OptionError, match="unknown input 'node_prise'; did you mean 'node_price'"):
        discover(article_run, at={"demand": 3e12}, inputs=["node_prise"])
    with pytest.raises(OptionError, match="outside the grid"):
        discover(article_run, at={"demand": 5e13})
    with pytest.raises(OptionError, match="not a grid point; the nearest are"):
        discover(article_run, at={"demand": 4.5e11})


def test_discover_with_replicates_gives_share_intervals(article_run):
    from mc_tco.decision.information import file_replicates

    r = file_replicates(article_run)
    assert r == 8
    disc = discover(article_run, at={"demand": 3e12}, replicates=r)
    p = disc.p_win_rqmc
    assert p["value"] == pytest.approx(disc.p_win)
    assert p["ci"][0] <= disc.p_win <= p["ci"][1]
    shares = disc.boxes[0].shares_rqmc
    box = disc.boxes[0]
    for name in ("coverage", "density", "mass"):
        assert shares[name]["value"] == pytest.approx(getattr(box, name))
        lo, hi = shares[name]["ci"]
        assert 0 <= lo <= shares[name]["value"] <= hi <= 1
    assert "shares_rqmc" in box.to_dict()


def test_discover_replicates_other_than_an_int_auto_or_none_is_an_error(article_run):
    # found by mypy (issue 22 item 9): a string other than "auto" reached replicate_of
    with pytest.raises(ValueError, match="expected an int, 'auto' or None"):
        discover(article_run, at={"demand": 3e12}, replicates="8")
