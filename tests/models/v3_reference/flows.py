"""Costs, taxes, flows and outputs of the version-3 reference, its irr and break-even (see
the package's docstring for the lines of MODEL.md each block follows)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from .months import DAYS, STRATEGIES, H, fleet_capex, fleets, hybrid_fleet, month_factors, storage


def scenario(p: dict, demand: float) -> dict:
    """Every output of MODEL.md version 3 for one scenario ``p`` at planned ``demand``.

    Returns a dict: per strategy (``out[s]``) the monthly ``cost, capex, tax, flow``, ``lump``
    (at month ``exit``), ``owned_out``, ``npv, saving, cost_level, cost_per_mtok,
    payback_months, peak_cash_need, simple_payback_months, peak_cash_need_nominal,
    cash_path, cash_by_year, irr``; and the buy outputs, per-sample outputs and the
    intermediate month lists (``M``, ``F``, ``hyb``) the tests read.
    """
    M = month_factors(p, demand)
    F = fleets(p, M)
    T, ex, d, D = M["T"], M["exit"], M["d"], M["D"]
    api = [M["p"][t] * D[t] for t in range(T)]
    G, mf12, keep = p["gpus_per_node"], p["maintenance_fraction"] / 12, 1 - p[
        "node_annual_depreciation"]
    power = p["node_power_kw"] * p["pue"] * H * p["electricity_price"]
    colo = p["node_power_kw"] * p["colocation_per_kw_month"]
    staff0 = p["staff_fte"] * p["staff_cost_per_fte"] / 12
    staff = [staff0 * (t < ex) for t in range(T)]
    tbpt = (p["kv_unique_fraction"] * (p["kv_ttl_days"] / DAYS) * p["kv_kb_per_token"] * 1e3
            / 1e12 * p["storage_overhead"])
    hyb = hybrid_fleet(p, M, staff0, power, colo, tbpt)
    nb, nh, phi = F["n_buy"], hyb["n_hyb"], M["phi"]
    part_b, cap_b = fleet_capex(p, M, nb)
    part_h, cap_h = fleet_capex(p, M, nh)
    tb_b, ssd_b = storage(p, F["served"], tbpt)
    _, ssd_r = storage(p, F["served_res"], tbpt)
    _, ssd_h = storage(p, hyb["served_hyb"], tbpt)
    up_b = [mf12 * sum(part_b[: t + 1]) * (t < ex) for t in range(T)]
    up_h = [mf12 * sum(part_h[: t + 1]) * (t < ex) for t in range(T)]
    owns = [float(any(v > 0 for v in nh[: t + 1])) for t in range(T)]
    R_res = [G * M["R"][F["t0"][t]] * (1 - p["reserved_discount"]) * H for t in range(T)]
    cost = {
        "api": api,
        "buy": [staff[t] + nb[t] * (power + colo) + up_b[t] + cap_b[t] + ssd_b[t]
                + (1 - phi[t]) * api[t] for t in range(T)],
        "rent": [staff[t] + F["n_rent"][t] * G * M["R"][t] * H + ssd_b[t]
                 + (1 - phi[t]) * api[t] for t in range(T)],
        "reserved": [staff[t] + F["n_res"][t] * R_res[t] + ssd_r[t]
                     + (1 - F["in_term"][t] * M["self"][t]) * api[t] for t in range(T)],
        "owned": [staff[t] + nb[t] * (power + colo + mf12 * p["node_price"]) + ssd_b[t]
                  + (1 - phi[t]) * api[t] for t in range(T)],
        "hybrid": [staff[t] * owns[t] + nh[t] * (power + colo) + up_h[t] + cap_h[t] + ssd_h[t]
                   + api[t] - M["p"][t] * hyb["served_hyb"][t] for t in range(T)],
    }
    capex = {"api": [0.0] * T, "buy": [cap_b[t] + ssd_b[t] for t in range(T)], "rent": ssd_b,
             "reserved": ssd_r, "owned": ssd_b, "hybrid": [cap_h[t] + ssd_h[t] for t in range(T)]}
    resale = {s: 0.0 for s in STRATEGIES}
    resale["buy"] = sum(part_b[u] * keep ** ((ex - u) / 12) for u in range(ex))
    resale["hybrid"] = sum(part_h[u] * keep ** ((ex - u) / 12) for u in range(ex))
    owned_out = max(nb) * M["P"][0] * p["owned_resale_fraction"]  # (T >= 1)
    owned_back = owned_out * keep ** (ex / 12)
    A, lump_month = sum(d[:T]), (ex if ex < T else T - 1)
    dD = sum(d[t] * D[t] for t in range(T))
    out = {"M": M, "F": F, "hyb": hyb, "T": T, "exit": ex, "A": A, "api_bill": api,
           "tb_per_token": tbpt, "power": power, "colo": colo}
    for s in STRATEGIES:
        o = _finance(p, s, M, api, cost[s], capex[s], resale[s])
        if s == "owned":
            o["lump"] += owned_back
            o["owned_out"], o["owned_back"] = owned_out, owned_back
        sov = [p["sovereignty_value"] * M["self"][t] * (s not in ("api", "hybrid"))
               for t in range(T)]
        o["flow"] = [api[t] - cost[s][t] - o["tax"][t] + sov[t] for t in range(T)]
        o["npv"] = (sum(d[t] * o["flow"][t] for t in range(T)) + d[ex] * o["lump"]
                    - o["owned_out"]) if s != "api" else 0.0
        o["saving"] = o["npv"] / A
        o["cost_level"] = sum(d[t] * (api[t] + sov[t]) for t in range(T)) / A - o["saving"]
        o["cost_per_mtok"] = o["cost_level"] * A / dD * 1e6 if dD > 0 else math.nan
        never = s == "api" or (s == "hybrid" and not owns[-1])
        for key, disc in (("", d), ("_nominal", [1.0] * (T + 1))):
            path, cum = [], -o["owned_out"]
            for t in range(T):
                cum += disc[t] * o["flow"][t] + (disc[ex] * o["lump"] if t == lump_month else 0)
                path.append(cum)
            start = owns.index(1.0) if s == "hybrid" and 1.0 in owns else 0
            pay = next((t + 1.0 for t in range(start, T) if path[t] >= 0), math.inf)
            o["simple_payback_months" if key else "payback_months"] = 0.0 if never else pay
            o["peak_cash_need" + key] = 0.0 if never else max(0.0, -min(path))
            o["cash_path" + key] = [0.0] * T if s == "api" else path
        back = resale[s] + (owned_back if s == "owned" else 0.0)
        o["cash_by_year"] = [sum(cost[s][12 * y: 12 * y + 12])
                             - (back if 12 * y <= lump_month < 12 * y + 12 else 0.0)
                             for y in range(math.ceil(T / 12))]
        o["irr"] = irr(o["flow"], o["lump"], ex) if s in ("buy", "hybrid") else math.nan
        out[s] = o
    node_capex, net_capex, ssd_capex = sum(part_b), sum(cap_b) - sum(part_b), sum(ssd_b)
    invest = node_capex + net_capex + ssd_capex
    full = sum(nb[t] * M["c"][t] for t in range(T))
    out.update(
        nodes=max(nb, default=0.0), storage_tb=max(tb_b, default=0.0),
        initial_investment=cap_b[0] + ssd_b[0], investment=invest,
        gpu_share=node_capex / invest if invest else math.nan,
        storage_to_gpu_ratio=ssd_capex / node_capex if node_capex else math.nan,
        fleet_utilization=sum(F["served"]) / full if full else math.nan,
        hybrid_served_share=sum(hyb["served_hyb"]) / sum(D) if sum(D) else math.nan,
        hybrid_nodes=max(hyb["n_hyb"], default=0.0),
        api_price_per_mtok=sum(M["p"]) / T * 1e6, list_price_per_mtok=M["blend"],
        node_capacity=M["c"][0] * p["utilization"],
        node_api_revenue_per_hour=M["c"][0] / H * M["blend"] / 1e6,
        rent_per_node_hour=G * p["gpu_rent_per_hour"],
        implied_valley_factor=38.0 / (p["reference_tokens_per_gpu_hour"] * M["blend"] / 1e6),
    )
    return out


def _finance(p: dict, s: str, M: dict, api: list, cost: list, capex: list, resale: float,
             ) -> dict:
    """Taxes of strategy ``s`` relative to the API (L247-257) and its lump at exit."""
    T, ex, rate = M["T"], M["exit"], p["tax_rate"]
    life, bonus = 12 * p["tax_depreciation_years"], p["bonus_depreciation"]
    if s == "api":
        return {"cost": cost, "capex": capex, "tax": [0.0] * T, "dep": [0.0] * T,
                "book_value": 0.0, "resale": 0.0, "tax_exit": 0.0, "lump": 0.0,
                "owned_out": 0.0}
    dep = [sum(capex[u] * (bonus * (t == u) + (1 - bonus) * (u <= t < u + life) / life)
               for u in range(t + 1)) * (t < ex) for t in range(T)]
    bv = sum(capex) - sum(dep)
    tax = [rate * (api[t] - (cost[t] - capex[t]) - dep[t]) for t in range(T)]
    tax_exit = rate * (resale - bv)
    return {"cost": cost, "capex": capex, "tax": tax, "dep": dep, "book_value": bv,
            "resale": resale, "tax_exit": tax_exit, "lump": resale - tax_exit,
            "owned_out": 0.0}


IRR_RANGE = (-0.99, 9999.0)  # yearly rates, as version 2


def irr(flows: list, lump: float, at: int) -> float:
    """Yearly ``x`` with ``sum_t flows[t] (1+x)^(-t/12) + lump (1+x)^(-at/12) = 0``.

    The roots of the polynomial in ``v = (1+x)^(-1/12)`` (numpy's companion matrix, then
    Newton-polished), not a bracketing search: independent of the tests' brentq.
    """
    c = list(flows) + [0.0] * max(0, at + 1 - len(flows))
    c[at] += lump
    signs = [v > 0 for v in c if v != 0]
    if not any(a != b for a, b in itertools.pairwise(signs)):
        return math.nan

    def pv(x: float) -> float:
        return sum(f * (1 + x) ** (-t / 12) for t, f in enumerate(c))

    if pv(IRR_RANGE[0]) * pv(IRR_RANGE[1]) > 0:
        return math.nan
    poly = np.polynomial.Polynomial(c)
    der = poly.deriv()
    found = []
    for v in np.roots(c[::-1]):
        if abs(v.imag) > 1e-6 * abs(v) or v.real <= 0:
            continue
        v = v.real
        for _ in range(5):
            v -= poly(v) / der(v) if der(v) else 0.0
        x = v ** -12 - 1
        if IRR_RANGE[0] <= x <= IRR_RANGE[1]:
            found.append(x)
    return min(found, key=lambda x: abs(math.log1p(x) - math.log(1.1)), default=math.nan)


def breakeven(p: dict, s: str, lo: float = 1e6, hi: float = 1e15, ratio: float = 1.01) -> float:
    """Smallest demand with npv[s] >= 0 (the hybrid: and owning a node), Ambiguity 13."""
    if s == "api":
        return math.nan

    def ok(dem: float) -> bool:
        o = scenario(p, dem)
        return o[s]["npv"] >= 0 and (s != "hybrid" or max(o["hyb"]["n_hyb"]) > 0)

    if ok(1.0):
        return 0.0
    prev, dem = 1.0, lo
    while dem <= hi:
        if ok(dem):
            a, b = prev, dem
            while b - a > 1e-13 * b:
                mid = 0.5 * (a + b)
                a, b = (a, mid) if ok(mid) else (mid, b)
            return b
        prev, dem = dem, dem * ratio
    return math.inf
