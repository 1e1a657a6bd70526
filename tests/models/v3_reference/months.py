"""Months, fleets and the hybrid's rule of the version-3 reference (see the package's
docstring for the lines of MODEL.md each block follows)."""

from __future__ import annotations

import math

import numpy as np

STRATEGIES = ("api", "buy", "rent", "reserved", "owned", "hybrid")
H, DAYS = 730.0, 30.4
#: version 3's new inputs at the values that give version 2 back (MODEL.md L43-153; the
#: "any value >= T" ones are inf, the "irrelevant" ones a typical value)
NEUTRAL = {
    "api_price_cut_size": 0.0, "api_price_cut_month": math.inf,
    "api_offpeak_share": 0.0, "api_offpeak_discount": 0.0,
    "reference_output_share": 0.216, "reference_cache_hit_rate": 0.563,
    "work_cache_hit": 1.0, "work_output": 1.0, "self_cache_hit_ratio": 1.0,
    "scale_efficiency_single_node": 1.0, "scale_full_nodes": 16.0,
    "peak_to_average": 1.0, "peak_hours_share": 0.3, "spare_fraction": 0.0,
    "demand_realization": 1.0, "cancel_month": math.inf, "stop_month": math.inf,
    "colocation_per_kw_month": 0.0, "network_capex_fraction": 0.0,
    "reserved_discount": 0.5, "reserved_term_months": 12.0, "owned_resale_fraction": 0.0,
    "tax_rate": 0.0, "tax_depreciation_years": 5.0, "bonus_depreciation": 0.0,
}


def ceil_tol(v: float) -> float:
    """MODEL.md's ceil (L194): ``ceil(v - 1e-9 max(1, |v|))``; inf stays inf."""
    return v if math.isinf(v) else float(math.ceil(v - 1e-9 * max(1.0, abs(v))))


def eta(p: dict, n: float) -> float:
    """Scale efficiency of an ``n``-node deployment (L185)."""
    e1 = p["scale_efficiency_single_node"]
    return e1 + (1 - e1) * min(1.0, max(0.0, n - 1) / (p["scale_full_nodes"] - 1))


def profile(p: dict) -> tuple[float, float, float]:
    """``a, hp, b`` of the two-level load profile (L187, guard L294)."""
    a, hp = p["peak_to_average"], p["peak_hours_share"]
    return a, hp, (1.0 if a == 1 else (1 - hp * a) / (1 - hp))


def served_share(p: dict, y: float) -> float:
    """``L(y)``: share of the month's load that capacity ``y`` (in mean loads) serves (L206)."""
    a, hp, b = profile(p)
    return hp * min(a, y) + (1 - hp) * min(b, y)


def month_factors(p: dict, demand: float) -> dict:
    """Events, demand, prices, capacity and discount factors of every month (L162-188)."""
    T = round(12 * p["horizon_years"])
    e_c, e_s = ceil_tol(p["cancel_month"]), ceil_tol(p["stop_month"])
    ex = int(max(0, min(e_c, e_s, T)))
    hit, o = p["api_cache_hit_rate"], p["output_share"]
    blend = p["api_price_level"] * ((1 - o) * (hit * p["price_input_cache_hit"] + (1 - hit)
                                    * p["price_input_cache_miss"]) + o * p["price_output"]) \
        * (1 - p["api_offpeak_share"] * p["api_offpeak_discount"])

    def work(o: float, h: float) -> float:
        return (1 - o) * (h * p["work_cache_hit"] + (1 - h)) + o * p["work_output"]

    mix = (work(p["reference_output_share"], p["reference_cache_hit_rate"])
           / work(o, p["self_cache_hit_ratio"] * hit))
    f, r = p["throughput_final_ratio"], (1 + p["discount_rate"] + p["regulatory_premium"])
    M = {"T": T, "exit": ex, "blend": blend, "mix": mix, "alive": [], "self": [], "D": [],
         "p": [], "p_trend": [], "P": [], "R": [], "c": [], "phi": [],
         "d": [r ** (-t / 12) for t in range(T + 1)]}
    for t in range(T):
        M["alive"].append(float(t < e_c))
        M["self"].append(float(t < min(e_c, e_s)))
        ramp = min(1.0, (t + 1) / p["ramp_months"])
        grow = (1 + p["demand_annual_growth"]) ** (max(0.0, t + 1 - p["ramp_months"]) / 12)
        M["D"].append(demand * p["demand_realization"] * ramp * grow * M["alive"][t])
        trend = blend * (1 + p["api_price_annual_change"]) ** (t / 12) / 1e6
        M["p_trend"].append(trend)
        M["p"].append(trend * (1 - p["api_price_cut_size"] * (t >= p["api_price_cut_month"])))
        hw = (1 + p["gpu_price_annual_change"]) ** (t / 12)
        M["P"].append(p["node_price"] * hw)
        M["R"].append(p["gpu_rent_per_hour"] * hw)
        m = p["throughput_multiple"] * (f + (1 - f) * math.exp(-t / p["learning_months"]))
        M["c"].append(p["gpus_per_node"] * p["reference_tokens_per_gpu_hour"] * mix / m * H)
        M["phi"].append(min(1.0, max(0.0, t + 1 - p["setup_months"])) * M["self"][t])
    return M


def fleets(p: dict, M: dict) -> dict:
    """Fleets for all demand (L190-203): ``k, need, n_buy, n_rent``, the reserved terms."""
    T, ex, a = M["T"], M["exit"], p["peak_to_average"]
    F = {"k": [], "need": [], "n_buy": [], "n_rent": [], "n_res": [0.0] * T,
         "in_term": [0.0] * T, "t0": [0] * T, "terms": []}
    for t in range(T):
        x = M["D"][t] * a / (M["c"][t] * p["utilization"])
        k = max(0.0, ceil_tol(x))
        while k * eta(p, k) < x - 1e-9 * max(1.0, x):
            k += 1
        F["k"].append(k)
        F["need"].append(k + ceil_tol(p["spare_fraction"] * k))
        F["n_buy"].append(max(F["need"]) * (t < ex))
        F["n_rent"].append(F["need"][t] * M["phi"][t])
    L, start = round(p["reserved_term_months"]), int(ceil_tol(p["setup_months"]))
    while start < ex:
        months = range(start, min(start + L, T))
        F["terms"].append((start, start + L))
        top = max(F["need"][u] for u in months)
        for t in months:
            F["n_res"][t], F["in_term"][t], F["t0"][t] = top, 1.0, start
        start += L
    F["served"] = [M["phi"][t] * M["D"][t] for t in range(T)]
    F["served_res"] = [F["in_term"][t] * M["self"][t] * M["D"][t] for t in range(T)]
    return F


def hybrid_fleet(p: dict, M: dict, staff: float, power: float, colo: float, tbpt: float) -> dict:
    """The hybrid's fleet: each month the largest maximiser of the margin (L204-220)."""
    T, d, ex, a = M["T"], M["d"], M["exit"], p["peak_to_average"]
    keep, net = 1 - p["node_annual_depreciation"], p["network_capex_fraction"]
    out = {"n_star": [], "margins": [], "n_hyb": [], "served_hyb": []}
    for t in range(T):
        D, cu = M["D"][t], M["c"][t] * p["utilization"]
        A_t = sum(d[u] for u in range(t, T)) / d[t]
        pbar = sum(d[u] * M["p_trend"][u] for u in range(t, T)) / sum(d[t:T])
        s_tok = tbpt * p["ssd_price_per_tb"] / A_t
        crf = (1 - keep ** ((T - t) / 12) * d[T] / d[t] / (1 + net)) / A_t
        cost_node = (M["P"][t] * (1 + net) * crf + power + colo
                     + p["maintenance_fraction"] / 12 * M["P"][t])
        margins, n = [], 0
        while True:
            y = 0.0 if n == 0 else (math.inf if D == 0 else n * eta(p, n) * cu / D)
            margins.append((pbar - s_tok) * D * served_share(p, y) - n * cost_node
                           - staff * (t < ex) * (n > 0))
            if y >= a:
                break
            n += 1
        best = max(margins)
        ok = np.flatnonzero(np.asarray(margins) >= best - 1e-9 * max(1.0, abs(best)))
        out["n_star"].append(float(ok[-1]))
        out["margins"].append(margins)
        nh = max(out["n_star"]) * (t < ex)
        out["n_hyb"].append(nh)
        y = 0.0 if nh == 0 else (math.inf if D == 0 else nh * eta(p, nh) * cu / D)
        out["served_hyb"].append(M["phi"][t] * D * served_share(p, y))
    return out


def fleet_capex(p: dict, M: dict, n: list) -> tuple[list, list]:
    """Node part (price only) and full node capex (with network) of a fleet (L229)."""
    part = [max(0.0, n[t] - (n[t - 1] if t else 0.0)) * M["P"][t] for t in range(M["T"])]
    return part, [v * (1 + p["network_capex_fraction"]) for v in part]


def storage(p: dict, served: list, tbpt: float) -> tuple[list, list]:
    """Storage ``TB[t]`` (running maximum) and SSD capex (L228, L230)."""
    tb, top = [], 0.0
    for s in served:
        top = max(top, tbpt * s)
        tb.append(top)
    return tb, [(tb[t] - (tb[t - 1] if t else 0.0)) * p["ssd_price_per_tb"]
                for t in range(len(tb))]
