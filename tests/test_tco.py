"""The TCO model: the article's point pinned, break-even exact, closed forms right."""

import numpy as np
import pytest
import xarray as xr

from mc_tco.models import tco

ARTICLE_POINT = {
    "price_input_cache_hit": 0.028,
    "price_input_cache_miss": 0.28,
    "price_output": 0.42,
    "api_price_level": 1.0,
    "api_price_annual_change": 0.0,
    "output_share": 0.05,
    "api_cache_hit_rate": 0.8,
    "reference_revenue_per_gpu_hour": 38.0,
    "valley_price_factor": 1.0,
    "throughput_multiple": 10.0,
    "utilization": 1.0,
    "gpus_per_node": 8.0,
    "node_price": 475_000.0,
    "gpu_rent_per_hour": 7.10,
    "amortization_years": 4.0,
    "node_power_kw": 14.0,
    "pue": 1.3,
    "electricity_price": 0.10,
    "maintenance_fraction": 0.0,
    "kv_kb_per_token": 10.0,
    "kv_ttl_days": 5.0,
    "kv_unique_fraction": 1.0,
    "ssd_price_per_tb": 500.0,
    "storage_overhead": 1.0,
    "staff_fte": 1.0,
    "staff_cost_per_fte": 150_000.0,
    "discount_rate": 0.0,
    "regulatory_premium": 0.0,
    "sovereignty_value": 0.0,
}


def inputs_of(points: list[dict], demand) -> xr.Dataset:
    data = {k: ("sample", [p[k] for p in points]) for k in points[0]}
    return xr.Dataset(data, coords={"demand": np.asarray(demand, dtype=float)})


def test_article_point():
    out = tco.model(inputs_of([ARTICLE_POINT], [3e11, 4.4e11, 4.5e11, 5e11]))
    # blended API price 0.0955 USD/Mtok, 232B tokens/month per node, 30.4 USD/hour per node
    assert out.api_price_per_mtok.item() == pytest.approx(0.09548, abs=5e-6)
    assert out.node_capacity.item() / 1e9 == pytest.approx(232.4, abs=0.1)
    assert out.node_api_revenue_per_hour.item() == pytest.approx(30.4, abs=0.01)
    assert out.rent_per_node_hour.item() == pytest.approx(56.8)
    # buy breaks even at 2 nodes and about 446 billion tokens/month
    be = out.breakeven_demand.sel(strategy="buy").item()
    assert be / 1e9 == pytest.approx(446, abs=1)
    assert out.nodes.sel(demand=4.5e11).item() == 2
    saving = out.saving.sel(strategy="buy").squeeze()
    assert saving.sel(demand=4.4e11) < 0 < saving.sel(demand=4.5e11)
    # the staircase: at 500B a third node is needed and buy loses again
    assert out.nodes.sel(demand=5e11).item() == 3 and saving.sel(demand=5e11) < 0
    # renting never pays off at the article's point
    assert np.isinf(out.breakeven_demand.sel(strategy="rent").item())


def _random_points(rng, n):
    pts = []
    for _ in range(n):
        p = dict(ARTICLE_POINT)
        p.update(
            throughput_multiple=rng.uniform(2, 20),
            utilization=rng.uniform(0.2, 1),
            node_price=rng.uniform(1e5, 6e5),
            staff_fte=rng.uniform(0, 2),
            staff_cost_per_fte=rng.uniform(1e5, 3e5),
            discount_rate=rng.uniform(0, 0.12),
            regulatory_premium=rng.choice([0.0, rng.uniform(0, 0.2)]),
            api_price_annual_change=rng.choice([0.0, rng.uniform(-0.5, 0.2)]),
            valley_price_factor=rng.uniform(0.25, 1),
            kv_unique_fraction=rng.uniform(0, 1),
            sovereignty_value=rng.choice([0.0, rng.uniform(0, 3e4)]),
            gpu_rent_per_hour=rng.uniform(0.5, 8),
        )
        pts.append(p)
    return pts


def test_breakeven_matches_brute_force():
    """No grid point below the exact break-even saves money, and the break-even itself does.

    A brute-force search on a fine grid (40,001 log-spaced points, 1e8..1e14) finds the
    first demand with saving >= 0; the exact break-even must not lie above it, and the
    saving evaluated at the exact break-even (and just above it) must be >= 0. (The grid can
    step over a window narrower than its spacing just before a new node is needed, so the
    first grid point may lie further above.)
    """
    rng = np.random.default_rng(0)
    pts = _random_points(rng, 300)
    grid = np.geomspace(1e8, 1e14, 40_001)
    out = tco.model(inputs_of(pts, grid))
    saving = out.saving.transpose("sample", "strategy", "demand").values
    be = out.breakeven_demand.transpose("sample", "strategy").values
    checked = 0
    exact = []
    for i in range(len(pts)):
        for s, name in enumerate(tco.STRATEGIES):
            if name == "api":
                assert np.isnan(be[i, s])
                continue
            ok = np.nonzero(saving[i, s] >= 0)[0]
            if np.isinf(be[i, s]):
                assert len(ok) == 0, (i, name)
                continue
            if len(ok):
                assert be[i, s] <= grid[ok[0]] * (1 + 1e-12), (i, name)
            if be[i, s] > 0:
                exact.append((i, name, be[i, s]))
    # evaluate every sample at every break-even once, then read the diagonal
    demands = np.array([d for _, _, d in exact])
    around = np.concatenate([demands * (1 + 1e-12), demands * (1 - 1e-9)])
    sv = tco.model(inputs_of(pts, around)).saving.transpose("sample", "strategy", "demand")
    m = len(exact)
    for j, (i, name, _) in enumerate(exact):
        s = tco.STRATEGIES.index(name)
        assert sv.values[i, s, j] >= -1e-6, (i, name)
        assert sv.values[i, s, m + j] < 0, (i, name)
        checked += 1
    assert checked > 200


def test_breakeven_kernel_edge_cases():
    bd = tco.breakeven_demand
    # margin too small for a full node: never
    assert np.isinf(bd(100.0, 50.0, 1e-9, 1e10))
    # sovereignty covers everything: from the first token
    assert bd(-100.0, 50.0, 1e-9, 1e12) == 0.0
    # one node, root inside it
    assert bd(100.0, 50.0, 1e-9, 1e12) == pytest.approx(150.0 / 1e-9)
    # negative margin but fixed benefit covers the first node
    assert bd(-100.0, 50.0, -1e-9, 1e12) == 0.0
    assert np.isinf(bd(100.0, 50.0, -1e-9, 1e12))


@pytest.mark.parametrize("change", [-0.5, -0.2, -1e-14, 0.0, 1e-13, 0.3])
def test_mean_growth_equals_monthly_mean(change):
    months = 48
    expected = np.mean([(1 + change) ** (k / 12) for k in range(months)])
    assert float(tco.mean_growth(np.float64(change), months)) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("rate", [0.0, 1e-13, 0.05, 0.2])
def test_capital_recovery_factor(rate):
    r = rate / 12
    # (the textbook formula itself cancels badly at tiny rates: there, straight-line)
    expected = 1 / 48 if rate < 1e-9 else r / (1 - (1 + r) ** -48)
    got = float(tco.capital_recovery_factor(xr.DataArray(rate), xr.DataArray(4.0)))
    assert got == pytest.approx(expected, rel=1e-9)


def test_npv_is_discounted_monthly_saving():
    p = dict(ARTICLE_POINT, discount_rate=0.08, throughput_multiple=5.0)
    out = tco.model(inputs_of([p], [1e12]))
    r = 0.08 / 12
    annuity = sum((1 + r) ** -k for k in range(1, 49))
    saving = out.saving.sel(strategy="buy").item()
    assert out.npv.sel(strategy="buy").item() == pytest.approx(saving * annuity, rel=1e-10)


def test_cost_components_add_up_and_shares():
    out = tco.model(inputs_of([ARTICLE_POINT], np.geomspace(1e9, 1e13, 9)))
    total = out.cost_component.sum("component")
    np.testing.assert_allclose(total.values, out.cost.sel(strategy="buy").values, rtol=1e-12)
    gpu = out.nodes * ARTICLE_POINT["node_price"]
    np.testing.assert_allclose(out.gpu_share.values, (gpu / out.initial_investment).values)
    # at the article's point storage stays a rounding error only at small scale
    assert (out.gpu_share.sel(demand=slice(None, 3e10)) > 0.9).all()
    assert (out.storage_to_gpu_ratio.sel(demand=slice(4e11, None)) > 0.1).all()
