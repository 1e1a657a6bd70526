"""The TCO model, version 3 (``mc_tco.models.tco``): every output against the independent
month loop of ``tests/models/v3_reference/`` on random points with every mechanism on;
version 2 given back at neutral values (against version 2's month loop); the article's
point; break-even against brute force; irr against scipy's brentq; the hybrid's rule against
brute force and monotone in expectation. (The irr kernel alone: ``test_irr_kernel.py``;
each mechanism by hand: ``test_v3_reference.py``.)"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import xarray as xr
from scipy.optimize import brentq

from mc_tco.models import tco
from mc_tco.models.kernels import block, hybrid, npv, rows
from mc_tco.models.tco_inputs import NEUTRAL
from tests.models import v2_reference as v2
from tests.models import v3_reference as ref
from tests.models.test_v3_reference import analyst_points, spread
from tests.paths import ROOT

SELF = ("buy", "rent", "reserved", "owned", "hybrid")
ARTICLE_POINT = {**{k: v for k, v in v2.ARTICLE_POINT.items() if k != "hybrid_utilization"},
                 **NEUTRAL}


def inputs_of(points: list[dict], demand, **attrs) -> xr.Dataset:
    data = {k: ("sample", [p[k] for p in points]) for k in points[0]}
    ds = xr.Dataset(data, coords={"demand": np.asarray(demand, dtype=float)})
    return ds.assign_attrs(attrs)


def finite(p: dict) -> dict:
    """The reference's point with infinite event months at NEVER (the model's inputs)."""
    return {k: (1000.0 if math.isinf(v) else v) for k, v in p.items()}


def test_article_point():
    out = tco.model(inputs_of([ARTICLE_POINT], [3e11, 4.4e11, 4.5e11, 5e11]))
    # blended API price 0.0955 USD/Mtok, 232B tokens/month per node, 30.4 USD/hour per node
    assert out.list_price_per_mtok.item() == pytest.approx(0.09548, abs=5e-6)
    assert out.node_capacity.item() / 1e9 == pytest.approx(232.4, abs=0.1)
    assert out.node_api_revenue_per_hour.item() == pytest.approx(30.4, abs=0.01)
    assert out.rent_per_node_hour.item() == pytest.approx(56.8)
    assert out.implied_valley_factor.item() == pytest.approx(1.0, abs=1e-3)
    # buy breaks even at 2 nodes and about 446 billion tokens/month, as versions 1 and 2
    be = out.breakeven_demand.sel(strategy="buy").item()
    assert be / 1e9 == pytest.approx(446.08, abs=0.05)
    assert out.nodes.sel(demand=4.5e11).item() == 2
    npv = out.npv.sel(strategy="buy").squeeze()
    assert npv.sel(demand=4.4e11) < 0 < npv.sel(demand=4.5e11)
    assert npv.sel(demand=5e11) < 0  # the staircase: a third node at 500B
    at = tco.model(inputs_of([ARTICLE_POINT], [be * (1 - 1e-9), be]))
    below, above = at.npv.sel(strategy="buy").squeeze().values
    assert below < 0 <= above
    # every month is the same: the steady state (staff + 2 nodes + SSDs vs API)
    p, storage = 0.09548e-6, 1e4 * 5 / 30.4 / 1e12 * 500 / 48
    steady = p * be - (12_500 + 2 * (475_000 / 48 + 14 * 1.3 * 730 * 0.1) + storage * be)
    assert steady == pytest.approx(0, abs=1e-3)


# ---------------------------------------------------------------- against the reference

PER_STRATEGY = ("npv", "saving", "cost_per_mtok", "payback_months", "peak_cash_need",
                "simple_payback_months", "peak_cash_need_nominal")
DEMANDS = [2e9, 5e10, 4e11, 3e12]


def close(got, want, scale, what):
    if isinstance(want, float) and math.isinf(want):
        assert got == want, what
    else:
        assert got == pytest.approx(want, rel=1e-9, abs=1e-9 * scale, nan_ok=True), what


@pytest.mark.parametrize("seed", range(4))
def test_every_output_against_the_reference(seed):
    """Random points with every version-3 mechanism on (events, taxes, the load profile,
    reserved terms ...): every output of the model equals the independent month loop."""
    rng = np.random.default_rng(100 + seed)
    points = [spread(rng) for _ in range(6)]
    out = tco.model(inputs_of([finite(p) for p in points], DEMANDS, report={"demand": DEMANDS}))
    checked_irr = 0
    for i, p in enumerate(points):
        for j, dem in enumerate(DEMANDS):
            r = ref.scenario(p, dem)
            scale = max(1.0, *(abs(r[s]["npv"]) for s in ref.STRATEGIES), sum(r["api_bill"]))
            at = {"sample": i, "demand": j}
            for s in ref.STRATEGIES:
                o = out.isel(at).sel(strategy=s)
                for k in PER_STRATEGY:
                    close(o[k].item(), r[s][k], scale, (k, s, i, dem))
                close(o.cost.item(), r[s]["cost_level"], scale, ("cost", s))
                c = out.isel(sample=i, cash_demand=j).sel(strategy=s)
                T = r["T"]
                np.testing.assert_allclose(c.cash_path.values[:T], r[s]["cash_path"],
                                           rtol=1e-9, atol=1e-9 * scale)
                years = len(r[s]["cash_by_year"])  # years past a row's horizon: no cash
                np.testing.assert_allclose(c.cash_by_year.values[:years], r[s]["cash_by_year"],
                                           rtol=1e-9, atol=1e-9 * scale)
                assert (c.cash_by_year.values[years:] == 0).all()
                want = r[s]["irr"]
                got = o.irr.item()
                if math.isnan(want) or math.isnan(got):
                    assert math.isnan(want) == math.isnan(got) or s in ("buy", "hybrid"), s
                else:  # several roots: both are roots (the model's may be another one)
                    checked_irr += got == pytest.approx(want, rel=1e-6, abs=1e-9)
            for k in ("nodes", "storage_tb", "initial_investment", "investment", "gpu_share",
                      "storage_to_gpu_ratio", "fleet_utilization", "hybrid_served_share",
                      "hybrid_nodes"):
                close(out[k].isel(at).item(), r[k], scale, (k, i, dem))
            comp = out.cost_component.isel(at).sum("component").item()
            close(comp, r["buy"]["cost_level"], scale, "components")
        for k in ("api_price_per_mtok", "list_price_per_mtok", "node_capacity",
                  "node_api_revenue_per_hour", "rent_per_node_hour", "implied_valley_factor"):
            close(out[k].isel(sample=i).item(), r[k], 1.0, k)
    assert checked_irr >= 5


def test_version_2_at_neutral_values():
    """MODEL.md: with the new inputs neutral and growth starting in the same month, buy,
    rent and owned are version 2's (its month loop) on 120 random points."""
    rng = np.random.default_rng(23)
    points = []
    for k in range(120):
        q = v2.random_point(rng)
        q.update(ramp_months=1.0) if k % 2 else q.update(demand_annual_growth=0.0)
        points.append(q)
    v3_points = [{**{k: v for k, v in q.items() if k != "hybrid_utilization"}, **NEUTRAL}
                 for q in points]
    dems = [3e9, 2.7e11, 4e12]
    out = tco.model(inputs_of(v3_points, dems, report={"demand": dems}))
    for i, q in enumerate(points):
        for j, dem in enumerate(dems):
            want = v2.reference(q, dem)
            for s in ("api", "buy", "rent", "owned"):
                o = out.isel(sample=i, demand=j).sel(strategy=s)
                for k in ("npv", "saving", "cost", "payback_months", "peak_cash_need"):
                    w = want[s][k]
                    assert o[k].item() == pytest.approx(w, rel=1e-9, abs=1e-9), (k, s, i)
                path = out.cash_path.isel(sample=i, cash_demand=j).sel(strategy=s).values
                np.testing.assert_allclose(path[:len(want[s]["path"])], want[s]["path"],
                                           rtol=1e-9, atol=1e-6)
            for k in ("nodes", "storage_tb", "initial_investment", "investment"):
                assert out[k].isel(sample=i, demand=j).item() == pytest.approx(
                    want[k], rel=1e-9, abs=1e-12), k


def test_the_outputs_attr_gives_the_same_targets_and_only_those():
    rng = np.random.default_rng(7)
    ds = inputs_of([finite(spread(rng)) for _ in range(5)], np.geomspace(1e9, 1e13, 9))
    full = tco.model(ds)
    fast = tco.model(ds.assign_attrs(outputs=["saving"]))
    assert list(fast.data_vars) == ["saving"]
    np.testing.assert_array_equal(fast.saving.values, full.saving.values)
    both = tco.model(ds.assign_attrs(outputs=("npv", "cost")))
    np.testing.assert_array_equal(both.npv.values, full.npv.values)
    np.testing.assert_array_equal(both.cost.values, full.cost.values)


def test_an_impossible_load_profile_is_refused():
    from mc_tco.errors import ModelError

    p = dict(ARTICLE_POINT, peak_to_average=2.5, peak_hours_share=0.4)
    with pytest.raises(ModelError, match=r"peak_hours_share \* peak_to_average must be < 1"):
        tco.model(inputs_of([ARTICLE_POINT, p], [1e11]))


# ---------------------------------------------------------------- break-even and irr

def test_breakeven_against_brute_force():
    """The first demand of a dense scan with npv >= 0 (the hybrid: owning a node) against
    the model's break-even, every strategy, on 60 analyst points."""
    points = [finite(p) for p in analyst_points(60, seed=11)]
    for p in points[::4]:  # some that break even early, and from the first token
        p["staff_fte"] = 0.05
    be = tco.model(inputs_of(points, [1e11], outputs=["breakeven_demand"])).breakeven_demand
    dense = np.concatenate([[1.0], np.geomspace(1e6, 1e15, 4001)])
    brute = tco.model(inputs_of(points, dense, outputs=["npv", "payback_months"]))
    missed, earlier = 0, []
    for s in SELF:
        got = be.sel(strategy=s).values
        hit = brute.npv.sel(strategy=s).values >= 0
        if s == "hybrid":  # the hybrid breaks even only where it owns a node
            hit &= brute.payback_months.sel(strategy="hybrid").values > 0
        first = np.where(hit.any(axis=1), hit.argmax(axis=1), -1)
        for i in range(len(points)):
            k = first[i]
            if k == 0:
                assert got[i] == 0.0, (s, i)
            elif k > 0:
                # the model's scan (5% steps) may miss a window narrower than a step; it
                # may also find one the dense scan missed (earlier: checked below)
                if got[i] > dense[k] * (1 + tco.BREAKEVEN_REL):  # (the bracket's width)
                    # a window narrower than a step, or another sign change in the bracket
                    # of the same step (the npv dips at each month's node purchase)
                    j = k
                    while j < dense.size and hit[i, j]:
                        j += 1
                    narrow = dense[j - 1] / dense[k] < tco.BREAKEVEN_RATIO
                    assert narrow or got[i] <= dense[k] * tco.BREAKEVEN_RATIO, (s, i, got[i])
                    missed += 1
                elif got[i] <= dense[k - 1] * (1 - tco.BREAKEVEN_REL):
                    earlier.append((i, s))
            else:
                assert np.isinf(got[i]) or got[i] > 1e15 / 1.06, (s, i, got[i])
        assert not (np.isinf(got) & (first >= 0)).any() or s == "hybrid", s
    assert missed <= 0.15 * len(points) * len(SELF), missed
    assert np.isfinite(be.sel(strategy="buy").values).mean() > 0.3
    assert len(earlier) <= 6, earlier
    # where the model finds one, npv >= 0 there and < 0 just below: a real crossing
    for i, s in [*earlier, *itertools.product(range(0, len(points), 3), SELF)]:
        if True:
            b = be.isel(sample=i).sel(strategy=s).item()
            if np.isfinite(b) and b > 0:
                v = tco.model(inputs_of([points[i]], [b * (1 - tco.BREAKEVEN_REL), b],
                                        outputs=["npv"]))
                lo, hi = v.npv.sel(strategy=s).squeeze().values
                assert lo < 0 <= hi or (s == "hybrid" and lo == 0), (s, i, lo, hi)


def test_irr_against_brentq():
    """buy's and the hybrid's irr: the reference's after-tax flows and lump at exit, whose
    root scipy's brentq finds where it is unique."""
    rng = np.random.default_rng(5)
    points = [spread(rng) for _ in range(10)]
    for p in points[:4]:
        p.update(cancel_month=1000.0, stop_month=1000.0)
    out = tco.model(inputs_of([finite(p) for p in points], DEMANDS, outputs=["irr"]))
    checked = 0
    for i, p in enumerate(points):
        for j, dem in enumerate(DEMANDS):
            r = ref.scenario(p, dem)
            for s in ("buy", "hybrid"):
                got = out.irr.isel(sample=i, demand=j).sel(strategy=s).item()
                ex, flows, lump = r["exit"], r[s]["flow"][:r["exit"]], r[s]["lump"]
                seq = [v for v in [*flows, lump] if v != 0]
                changes = sum(a * b < 0 for a, b in itertools.pairwise(seq))

                def pv(x, flows=flows, lump=lump, ex=ex):
                    return sum(f * (1 + x) ** (-t / 12) for t, f in enumerate(flows)) + lump * (
                        1 + x) ** (-ex / 12)

                if changes == 0:
                    assert math.isnan(got), (s, i, j)
                elif changes == 1 and pv(-0.99) * pv(1e4) < 0:
                    want = brentq(pv, -0.99, 1e4, xtol=1e-14, rtol=1e-13)
                    assert got == pytest.approx(want, rel=1e-8, abs=1e-10), (s, i, j)
                    checked += 1
                elif not math.isnan(got):
                    assert abs(pv(got)) <= 1e-6 * max(abs(f) for f in seq)
    assert checked >= 10
    for s in ("api", "rent", "reserved", "owned"):
        assert out.irr.sel(strategy=s).isnull().all()


# ---------------------------------------------------------------- the hybrid's rule

def test_the_hybrid_rule_is_the_largest_maximiser_by_brute_force():
    """:func:`hybrid.n_star` (which tries a few sizes) against every size n = 0 .. the first
    whose capacity reaches the peak, on 4,000 random months."""
    rng = np.random.default_rng(3)
    buf = np.zeros((2, 64))
    fives = 0
    for _ in range(4000):
        a = rng.choice([1.0, rng.uniform(1, 2.5)])
        hp = rng.uniform(0.1, 0.38)
        b = 1.0 if a == 1 else (1 - hp * a) / (1 - hp)
        hp_k = 0.0 if a == 1 else hp
        e1 = rng.choice([1.0, rng.uniform(0.3, 1)])
        sf = rng.choice([2.0, 16.0, rng.uniform(2, 30)])
        demand = 10 ** rng.uniform(8, 13)
        cu = 10 ** rng.uniform(10, 12)
        price = 10 ** rng.uniform(-8, -6)
        value = price * demand * rng.choice([1.0, rng.uniform(-0.2, 1)])
        c = 10 ** rng.uniform(3, 5)
        staff = rng.choice([0.0, 10 ** rng.uniform(3, 5)])
        margins, n = [], 0
        while True:
            y = 0.0 if n == 0 else n * ref.eta({"scale_efficiency_single_node": e1,
                                                "scale_full_nodes": sf}, n) * cu / demand
            served = hp_k * min(a, y) + (1 - hp_k) * min(b, y)
            margins.append(0.0 if n == 0 else value * served - n * c - staff)
            if y >= a:
                break
            n += 1
        best = max(margins)
        want = max(i for i, m in enumerate(margins) if m >= best - 1e-9 * max(1, abs(best)))
        got = hybrid.n_star(demand, cu, value, c, staff, a, hp_k, b, e1, sf, buf)
        # the closed form the vectorized kernel runs (hybrid.n_star_closed), same rule; its
        # five sizes where the first reaching the peak is below scale_full_nodes, the same
        inv = 1 / (sf - 1)
        def eta_of(n, e1=e1, inv=inv):
            return (e1 + (1 - e1) * min(1.0, max(0.0, n - 1) * inv))
        fl, ce = math.floor(sf), math.ceil(sf)
        shape = (e1, inv, (1 - e1) * inv, fl * eta_of(fl), float(fl), 1 / eta_of(max(sf, 1.0)))
        na = hybrid.first_reaching(a * (demand / cu), *shape)
        args = (cu / demand, demand / cu, value, c, staff, a, hp_k, b, e1, inv, (1 - e1) * inv,
                fl * eta_of(fl), float(fl), float(ce), 1 / eta_of(max(sf, 1.0)), na)
        closed = hybrid.n_star_closed(*args)
        if na <= fl:
            assert hybrid.n_star_closed(*args, False) == closed
            fives += 1
        for n in (got, closed):
            if n != want:  # only an exact tie along a stretch (documented)
                assert margins[int(n)] >= best - 1e-9 * max(1, abs(best)), (n, want)
    assert fives > 1000


def test_hybrid_is_monotone_in_expectation():
    """MODEL.md: over 200 analyst points at three demands, a 30% better throughput, a 20%
    dearer API or a 20% cheaper node does not lower the hybrid's mean npv, nor P(hybrid
    beats the API) by more than a point. Single cases may move the wrong way (a policy is
    not clairvoyant); their share is printed (``pytest -s``)."""
    points = [finite(p) for p in analyst_points(200, seed=9)]
    dems = [3e11, 1e12, 3e12]
    base = tco.model(inputs_of(points, dems, outputs=["npv"])).npv.sel(strategy="hybrid").values
    wrong, cases = 0, 0
    for key, factor in (("throughput_multiple", 1 / 1.3), ("api_price_level", 1.2),
                        ("node_price", 0.8)):
        moved = [{**p, key: p[key] * factor} for p in points]
        new = tco.model(inputs_of(moved, dems, outputs=["npv"])).npv.sel(strategy="hybrid").values
        assert (new.mean(axis=0) >= base.mean(axis=0) - 1e-6).all(), key
        assert ((new > 0).mean(axis=0) >= (base > 0).mean(axis=0) - 0.01).all(), key
        bad = new < base - 1e-6 * np.maximum(1, np.abs(base))
        wrong += int(bad.sum())
        cases += bad.size
        print(f"{key} x{factor:.3g}: {bad.mean():.1%} of cases lower, by up to "
              f"{(base - new)[bad].max(initial=0) / 1e6:.2f}M USD")
    assert wrong / cases < 0.08, wrong / cases


def test_kernels_import_without_a_writable_numba_cache():
    """No cache folder numba can write (read-only install and home): the kernels compile
    in the process instead of failing at import with "no locator available"."""
    import os
    import subprocess
    import sys

    jit = ROOT / "mc_tco" / "models" / "kernels" / "jit.py"
    env = {**os.environ, "NUMBA_CACHE_LOCATOR_CLASSES": "IPythonCacheLocator"}  # no place
    code = ("import importlib.util as u; "  # the decorator alone (numba), not the package
            f"s = u.spec_from_file_location('k', {str(jit)!r}); m = u.module_from_spec(s); "
            "s.loader.exec_module(m); f = m.jit(lambda x: x + 1); "
            "assert type(f._cache).__name__ == 'NullCache' and f(1) == 2")
    res = subprocess.run([sys.executable, "-W", "error", "-c", code], env=env,
                         capture_output=True, text=True, timeout=120, check=False)
    assert res.returncode == 0, res.stderr[-2000:]


@pytest.mark.slow
def test_an_edit_of_any_kernel_module_recompiles_the_kernels_that_use_it(tmp_path):
    """numba keys a kernel's cache on its own file; ``hybrid.n_star`` compiles in
    ``hybrid.eta`` and its constants, and ``cell.cell`` those of ``rows``, so an edit of
    rows.py alone must still miss n_star's cache (the package's hash in every stamp), while
    an unchanged package hits it."""
    import shutil
    import subprocess
    import sys

    source = ROOT / "mc_tco" / "models" / "kernels"
    shutil.copytree(source, tmp_path / "kcopy", ignore=shutil.ignore_patterns("__pycache__"))
    code = ("import numpy as np; from kcopy import hybrid; "
            "hybrid.n_star(1e9, 1e9, 1.0, 1.0, 0.0, 1.0, 0.3, 1.0, 1.0, 16.0, np.zeros((2, 64))); "
            "s = hybrid.n_star.stats; "
            "print(sum(s.cache_hits.values()), sum(s.cache_misses.values()))")

    def hits_misses():
        res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                             text=True, timeout=300, check=False)
        assert res.returncode == 0, res.stderr[-2000:]
        return tuple(int(v) for v in res.stdout.split())

    assert hits_misses() == (0, 1)  # compiled, cached
    assert hits_misses() == (1, 0)  # loaded from the cache
    with open(tmp_path / "kcopy" / "rows.py", "a") as f:
        f.write("# an edit\n")
    assert hits_misses() == (0, 1)  # stale: compiled again


def test_the_shipped_books_draws_against_the_reference(default_book, article_book):
    """Draws of both shipped books (each input by its ppf; bonus depreciation, US taxes,
    exponential event months, the beta storage share...) at three demands: the model's
    npv, cost, payback, peak cash and cash by year equal the reference's."""
    rng = np.random.default_rng(31)
    demands = [2e11, 1e12, 5e12]
    for book in (default_book, article_book):
        draws = {name: (np.full(8, float(inp.value)) if inp.is_constant
                        else inp.ppf(rng.uniform(0.01, 0.99, 8)))
                 for name, inp in book.inputs.items()}
        points = [{k: float(v[i]) for k, v in draws.items()} for i in range(8)]
        out = tco.model(inputs_of(points, demands, report={"demand": demands}))
        for i, p in enumerate(points):
            for j, dem in enumerate(demands):
                r = ref.scenario(p, dem)
                scale = max(1.0, *(abs(r[s]["npv"]) for s in ref.STRATEGIES))
                for s in ref.STRATEGIES:
                    o = out.isel(sample=i, demand=j).sel(strategy=s)
                    for k in ("npv", "payback_months", "peak_cash_need",
                              "simple_payback_months", "peak_cash_need_nominal"):
                        close(o[k].item(), r[s][k], scale, (book.name, k, s, i, dem))
                    close(o.cost.item(), r[s]["cost_level"], scale, ("cost", s))
                    c = out.isel(sample=i, cash_demand=j).sel(strategy=s)
                    np.testing.assert_allclose(c.cash_by_year.values, r[s]["cash_by_year"],
                                               rtol=1e-9, atol=1e-9 * scale)


@pytest.mark.parametrize("n_dems", [37, 22, 6])
def test_the_vectorized_kernel_equals_the_scalar_month_loop(n_dems):
    """block.npv_row (16 demands at a time, the engine's hot path and the break-even scan;
    fewer than 8 demands go to the scalar loop) against npv.npv_cell (one demand at a
    time, itself checked against the reference above), on random points with every
    mechanism on and analyst points, at 37 demands (two full blocks and a padded one), 22
    (a full and a padded one) and 6 (the scalar loop); the grid spans demands where the
    hybrid's rule is skipped (no node can pay) and where it is not, half the points exit
    before the horizon (the block's months after exit). Rows with a tax life shorter than
    the horizon go to the scalar loop by design, so the long ones are checked here."""
    rng = np.random.default_rng(41)
    points = [finite(spread(rng)) for _ in range(30)] + [
        finite(p) for p in analyst_points(30, seed=4)]
    for p in points:
        p["tax_depreciation_years"] = 5.0  # every purchase still depreciating at exit
    # a scale efficiency near 0: the block's first size reaching the peak from _first
    points[0]["scale_efficiency_single_node"] = 1e-9
    points[1]["scale_efficiency_single_node"] = 3e-9
    # a flat profile (b = a), no scale effect (the line), a scale_full_nodes between whole
    # fleets (the rule's sizes around it differ)
    points[2]["peak_to_average"] = 1.0
    points[3]["scale_efficiency_single_node"] = 1.0
    points[4]["scale_full_nodes"] = 7.5
    x = {k: np.array([p[k] for p in points]) for k in tco.INPUTS}
    V, S = rows.row_factors(x)
    dems = np.geomspace(1e9, 3e13, n_dems)
    W = np.empty((npv.NW_NPV, V.shape[2]))
    buf = np.zeros((2, 64))
    got, want = np.empty((dems.size, npv.NRES_OUT)), np.empty(npv.NRES_OUT)
    for i in range(len(points)):
        block.npv_row(V[i], S[i], dems, buf, got)
        for j, dem in enumerate(dems):
            npv.npv_cell(V[i], S[i], dem, W, buf, want)
            scale = max(1.0, np.abs(want[:npv.SUM_API]).max())
            np.testing.assert_allclose(got[j], want, rtol=1e-10, atol=1e-10 * scale,
                                       err_msg=f"point {i}, demand {dem:g}")


def test_the_first_size_reaching_the_peak_follows_from_the_fleet():
    """hybrid.first_peak (the hybrid's first size reaching the peak, from the fleet
    ``fleet_size`` already found, no second root) equals ``first_reaching`` wherever
    ``peak_exact`` says so, and ``fleet_peak`` (the block's: both at once) equals the pair,
    as ``fleet_peak_near`` does from a guess within a step of the fleet (and says it is
    exact there only; ``first_near`` likewise for ``first_reaching``):
    at loads on and around whole fleets of every scale regime, tiny loads, no load and
    loads of 1e7 nodes; and ``peak_exact`` refuses a load of 1e9 nodes at e1 = 0.5 (there
    the kernel falls back to ``first_reaching``)."""
    rng = np.random.default_rng(7)
    checked = 0
    for e1, sf in ((1.0, 16.0), (0.85, 16.0), (0.6, 4.5), (0.5, 1.5), (0.3, 64.0)):
        inv = 1 / (sf - 1)
        beta = (1 - e1) * inv
        fl = math.floor(sf)
        eta = hybrid.eta_inv
        shape = (e1, inv, beta, fl * eta(fl, e1, inv), float(fl),
                 1 / eta(max(sf, 1.0), e1, inv))
        whole = np.arange(1.0, 200.0) * np.array([eta(n, e1, inv) for n in range(1, 200)])
        loads = np.concatenate([whole, np.nextafter(whole, 0), np.nextafter(whole, np.inf),
                                whole * (1 - 1e-9), whole * (1 + 1e-9), whole - 1e-9,
                                [0.0, 1e-12, 1e-9, 2e-9, 0.5e-9, 1e7, 12345678.9],
                                rng.uniform(0, 300, 200)])
        for x in loads:
            assert hybrid.peak_exact(x, e1)
            k = hybrid.fleet_size(x, *shape)
            na = hybrid.first_peak(k, x, e1, inv)
            assert x == 0 or na == hybrid.first_reaching(x, *shape), (e1, sf, x)
            w0 = 0.0 * eta(0.0, e1, inv)
            assert hybrid.fleet_peak(x, *shape, w0) == (k, na), (e1, sf, x)
            for guess in (k - 2, k - 1, k, k + 1, k + 2, k + 7):  # last month's fleet
                g = max(1.0, guess)
                got = hybrid.fleet_peak_near(g, x, e1, inv, w0)
                assert got[2] == (k == 0 or abs(g - k) <= 1), (e1, sf, x, g)
                assert not got[2] or got[:2] == (k, na), (e1, sf, x, g)
                if x > 0:  # the hybrid's first size reaching b, from last month's
                    n = hybrid.first_reaching(x, *shape)
                    first = hybrid.first_near(g, x, e1, inv)
                    assert first[1] == (abs(g - n) <= 1), (e1, sf, x, g)
                    assert not first[1] or first[0] == n, (e1, sf, x, g)
            checked += 1
    assert not hybrid.peak_exact(1e9, 0.5) and not hybrid.peak_exact(float("nan"), 0.5)
    assert checked > 5000


@pytest.mark.parametrize("demand", [tco.REPORT_DEMANDS, np.geomspace(1e9, 3e13, 23)])
def test_the_npv_outputs_built_in_parts_are_the_whole_blocks_numbers(monkeypatch, demand):
    """Asked for the npv's outputs alone, the model builds the rows' month vectors
    ``NPV_ROWS`` at a time (kept in the cache for the kernel): the same numbers to the last
    bit as one block of them all, also for the mean API price, whose sum runs over the
    block's longest horizon (1-2 year and 4 year horizons mixed here), at few demands (the
    rows in the lanes) and many (the demands in the lanes)."""
    rng = np.random.default_rng(31)
    # the 1-2 year horizons first, the first 40 of 18 months: a part of them alone has a
    # longest horizon (18, not a multiple of 8) other than the block's (48), so the mean
    # price's sum would group its months otherwise without the block's months
    points = [finite(spread(rng)) for _ in range(150)] + [
        finite(p) for p in analyst_points(150, seed=32)]
    for p in points[:40]:
        p["horizon_years"] = 1.5
    ds = inputs_of(points, demand, outputs=sorted(tco.FAST | tco.PER_SAMPLE))
    assert max(round(12 * p["horizon_years"]) for p in points) == 48
    monkeypatch.setattr(tco, "NPV_ROWS", 10**9)
    whole = tco.model(ds)
    for size in (256, 37):
        monkeypatch.setattr(tco, "NPV_ROWS", size)
        parts = tco.model(ds)
        assert list(parts.data_vars) == list(whole.data_vars)
        for name in whole.data_vars:
            np.testing.assert_array_equal(parts[name].values, whole[name].values,
                                          err_msg=f"{name}, parts of {size}")
