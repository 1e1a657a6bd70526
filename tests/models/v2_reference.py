"""Version 2 of the cost model, kept for the reduction tests of version 3: its article
point, a month-by-month loop of its equations in plain Python (it agreed with version 2's
kernels to 1e-11 before they were replaced), random points and draws from its default book
(``tests/bad_books/version_2_book.toml``, version 2's shipped default book)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

STRATEGIES = ("api", "buy", "rent", "owned", "hybrid")
V2_BOOK = Path(__file__).parents[1] / "bad_books" / "version_2_book.toml"

ARTICLE_POINT = {
    "price_input_cache_hit": 0.028,
    "price_input_cache_miss": 0.28,
    "price_output": 0.42,
    "api_price_level": 1.0,
    "api_price_annual_change": 0.0,
    "output_share": 0.05,
    "api_cache_hit_rate": 0.8,
    "reference_tokens_per_gpu_hour": 3.98e8,
    "throughput_multiple": 10.0,
    "throughput_final_ratio": 1.0,
    "learning_months": 12.0,
    "utilization": 1.0,
    "hybrid_utilization": 1.0,
    "gpus_per_node": 8.0,
    "ramp_months": 1.0,
    "demand_annual_growth": 0.0,
    "setup_months": 0.0,
    "node_price": 475_000.0,
    "gpu_rent_per_hour": 7.10,
    "gpu_price_annual_change": 0.0,
    "node_annual_depreciation": 1.0,
    "horizon_years": 4.0,
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
EPS = 1e-9  # the model's documented tolerance on node counts


def reference(p: dict, demand: float) -> dict:
    """MODEL.md's equations month by month, in plain Python (no shortcut)."""
    T = round(12 * p["horizon_years"])
    H, G = 730.0, p["gpus_per_node"]
    hit, share = p["api_cache_hit_rate"], p["output_share"]
    blend = p["api_price_level"] * ((1 - share) * (hit * p["price_input_cache_hit"] + (
        1 - hit) * p["price_input_cache_miss"]) + share * p["price_output"])
    f = p["throughput_final_ratio"]
    power = p["node_power_kw"] * p["pue"] * H * p["electricity_price"]
    staff = p["staff_fte"] * p["staff_cost_per_fte"] / 12
    tbpt = (p["kv_unique_fraction"] * (p["kv_ttl_days"] / 30.4) * p["kv_kb_per_token"] * 1e3
            / 1e12 * p["storage_overhead"])
    r = (1 + p["discount_rate"] + p["regulatory_premium"]) ** (1 / 12) - 1
    d = [(1 + r) ** -t for t in range(T + 1)]
    D, price, api, P, R, cap, caph, phi = ([] for _ in range(8))
    for t in range(T):
        D.append(demand * min(1, (t + 1) / p["ramp_months"])
                 * (1 + p["demand_annual_growth"]) ** (t / 12))
        price.append(blend * (1 + p["api_price_annual_change"]) ** (t / 12) / 1e6)
        api.append(price[t] * D[t])
        P.append(p["node_price"] * (1 + p["gpu_price_annual_change"]) ** (t / 12))
        R.append(p["gpu_rent_per_hour"] * (1 + p["gpu_price_annual_change"]) ** (t / 12))
        m = p["throughput_multiple"] * (f + (1 - f) * math.exp(-t / p["learning_months"]))
        cap.append(G * p["reference_tokens_per_gpu_hour"] / m * H * p["utilization"])
        caph.append(cap[t] * p["hybrid_utilization"] / p["utilization"])
        phi.append(min(1.0, max(0.0, t + 1 - p["setup_months"])))
    need = [math.ceil(D[t] / cap[t] * (1 - EPS)) for t in range(T)]
    n_buy = [max(need[: t + 1]) for t in range(T)]
    n_hyb = [max(math.floor(D[u] / caph[u] * (1 + EPS)) for u in range(t + 1))
             for t in range(T)]
    served_h = [phi[t] * min(D[t], n_hyb[t] * caph[t]) for t in range(T)]
    served = [phi[t] * D[t] for t in range(T)]

    def capex(n, prices):
        return [(n[t] - (n[t - 1] if t else 0)) * prices[t] for t in range(T)]

    def ssd(tokens):
        tb = [max(tbpt * s for s in tokens[: t + 1]) for t in range(T)]
        return tb, [(tb[t] - (tb[t - 1] if t else 0)) * p["ssd_price_per_tb"] for t in range(T)]

    tb, ssd_b = ssd(served)
    _, ssd_h = ssd(served_h)
    cap_b, cap_h = capex(n_buy, P), capex(n_hyb, P)
    mf = p["maintenance_fraction"] / 12
    up_b = [mf * sum(cap_b[: t + 1]) for t in range(T)]
    up_h = [mf * sum(cap_h[: t + 1]) for t in range(T)]
    own = n_hyb[-1] > 0
    cost = {
        "api": api,
        "buy": [staff + n_buy[t] * power + up_b[t] + cap_b[t] + ssd_b[t] + (1 - phi[t]) * api[t]
                for t in range(T)],
        "rent": [staff + need[t] * phi[t] * G * R[t] * H + ssd_b[t] + (1 - phi[t]) * api[t]
                 for t in range(T)],
        "owned": [staff + n_buy[t] * (power + mf * p["node_price"]) + ssd_b[t]
                  + (1 - phi[t]) * api[t] for t in range(T)],
        "hybrid": [(staff if own else 0) + n_hyb[t] * power + up_h[t] + cap_h[t] + ssd_h[t]
                   + api[t] - price[t] * served_h[t] for t in range(T)],
    }
    keep = 1 - p["node_annual_depreciation"]
    resale = {s: 0.0 for s in STRATEGIES}
    resale["buy"] = sum(cap_b[t] * keep ** ((T - t) / 12) for t in range(T))
    resale["hybrid"] = sum(cap_h[t] * keep ** ((T - t) / 12) for t in range(T))
    A = sum(d[:T])
    out = {"A": A, "nodes": n_buy[-1], "storage_tb": tb[-1],
           "initial_investment": cap_b[0] + ssd_b[0], "investment": sum(cap_b) + sum(ssd_b),
           "node_capex": sum(cap_b), "ssd_capex": sum(ssd_b)}
    for s in STRATEGIES:
        sov = p["sovereignty_value"] if s != "api" and (s != "hybrid" or own) else 0.0
        flow = [api[t] - cost[s][t] + sov for t in range(T)]
        cum, path = 0.0, []
        for t in range(T):
            cum += d[t] * flow[t] + (d[T] * resale[s] if t == T - 1 else 0.0)
            path.append(cum)
        payback = next((t + 1.0 for t in range(T) if path[t] >= 0), math.inf)
        if s == "api" or (s == "hybrid" and not own):
            payback = 0.0
        out[s] = {
            "flow": flow, "resale": resale[s], "npv": path[-1], "saving": path[-1] / A,
            "cost": (sum(d[t] * cost[s][t] for t in range(T)) - d[T] * resale[s]) / A,
            "payback_months": payback, "peak_cash_need": max(0.0, -min(path)), "path": path,
        }
    return out


def random_point(rng) -> dict:
    """Growth, ramp, setup, learning, resale, price changes and discounting all on."""
    p = dict(ARTICLE_POINT)
    p.update(
        api_price_level=rng.uniform(0.6, 1.6), api_price_annual_change=rng.uniform(-0.5, 0.1),
        output_share=rng.uniform(0.02, 0.2), api_cache_hit_rate=rng.uniform(0.4, 0.95),
        reference_tokens_per_gpu_hour=rng.uniform(4e8, 1.5e9),
        throughput_multiple=rng.uniform(5, 20), throughput_final_ratio=rng.uniform(0.2, 0.9),
        learning_months=rng.uniform(3, 24), utilization=rng.uniform(0.4, 0.95),
        hybrid_utilization=rng.uniform(0.7, 1.0), ramp_months=rng.uniform(1, 10),
        demand_annual_growth=rng.uniform(0, 1), setup_months=rng.uniform(0.5, 7),
        node_price=rng.uniform(3e5, 6e5), gpu_rent_per_hour=rng.uniform(5, 9),
        gpu_price_annual_change=rng.uniform(-0.4, 0.05),
        node_annual_depreciation=rng.uniform(0.2, 0.6), horizon_years=rng.choice([2, 3.5, 4, 5]),
        node_power_kw=rng.uniform(10, 16), pue=rng.uniform(1.1, 1.6),
        electricity_price=rng.uniform(0.05, 0.2), maintenance_fraction=rng.uniform(0.02, 0.1),
        kv_kb_per_token=rng.uniform(5, 15), kv_ttl_days=rng.uniform(3, 7),
        kv_unique_fraction=rng.uniform(0.05, 1), ssd_price_per_tb=rng.uniform(350, 820),
        storage_overhead=rng.uniform(1, 2.5), staff_fte=rng.uniform(0.5, 2),
        staff_cost_per_fte=rng.uniform(1.5e5, 3.5e5), discount_rate=rng.uniform(0, 0.15),
        regulatory_premium=rng.uniform(0, 0.1), sovereignty_value=rng.uniform(-2e3, 2e4),
    )
    return p


def default_book_points(n: int, seed: int) -> list[dict]:
    from mc_tco.book import load_book

    book = load_book(V2_BOOK)
    rng = np.random.default_rng(seed)
    draws = {name: (np.full(n, float(inp.value)) if inp.is_constant
                    else inp.ppf(rng.uniform(0.005, 0.995, n)))
             for name, inp in book.inputs.items()}
    return [{k: float(v[i]) for k, v in draws.items()} for i in range(n)]


