"""An independent reference of the cost model, version 3 (``shared/MODEL.md``), month by month.

Plain Python (numpy only for the hybrid's search over fleets and the irr's polynomial), one
scenario at a time: :func:`scenario` takes a dict of inputs (every name of version 2's book
but ``hybrid_utilization``, plus :data:`NEUTRAL`'s) and a planned demand, and returns every
output MODEL.md defines for the six strategies :data:`STRATEGIES`. It imports nothing of
``mc_tco.models``: version 3's kernels are tested against it. "L" below is a line of MODEL.md.

Blocks and the lines they follow:

* :func:`_months`: events L162-166 (``e_c, e_s, alive, self, exit``); demand and prices
  L168-177 (``D, blend, p, P, R``, ``p_trend`` of L209-210); capacity L179-188 (``work, mix,
  m, c, eta, a, b, phi``); discount factors L260-261.
* :func:`_fleets`: ``x, k, need`` L190-195 (``k`` by stepping from ``ceil(x)``, L293),
  ``n_buy, n_rent`` L196-197, the reserved terms and ``n_res`` L198-201, ``served,
  served_res`` L202-203.
* :func:`_hybrid`: the margin rule L204-220 (``L, y_n, A_t, pbar, s_tok, crf_t, cost_node,
  margin_n, n_star, n_hyb, served_hyb``) and the policy notes L280-292.
* :func:`scenario`: running costs L221-226, storage L225-230, capex and upkeep L229-231, the
  six costs L233-239, resale L240-241, owned's opportunity cost L242-245, taxes L247-257,
  flows, npv and lump sums L259-266, sovereignty L270-273, outputs L297-315.
* :func:`irr`, :func:`breakeven`: version 2's outputs of the same names (L303-305).

Ambiguities (the choices this reference makes; the kernels are to follow them):

1. Tolerant rounding (L194-195) is applied to every ceil: ``k`` (L192's own tolerance),
   ``ceil(spare_fraction * k)``, the events ``ceil(cancel_month)``, ``ceil(stop_month)``
   and the first term ``ceil(setup_months)``. An infinite event month is "never".
2. ``need[t]`` (and so reserved's sizing, L198) is computed from ``D[t]``, which includes
   ``alive`` but not ``self``: a term holding a stop month is sized on the demand after the
   stop too (the plan made at the term's start), one holding a cancel month only on the
   months before it (demand is 0 after). ``reserved_term_months`` is rounded to a whole
   number.
3. Staff (``[t < exit]``, L226) is paid by buy, rent, reserved and owned from month 0, also
   when no term or node ever serves (e.g. ``setup_months >= T``); the hybrid pays it from
   the first month it owns a node (L238). ``staff*[n > 0]`` in ``margin_n`` is that month's.
4. ``n = 0`` has capacity 0 (``L(0) = 0``) even when ``D = 0``; with ``D = 0`` a node has
   ``y = inf`` and ``L(inf) = 1``. The search over ``n`` runs to the first ``n`` with
   ``y_n >= a`` (L217), included.
5. ``p_trend`` keeps the off-peak discount (it is in ``blend``), drops only the step cut.
6. ``cost[s]`` (level USD/month, "as in version 2") is ``cost[api] + sov[s] - saving[s]``
   with ``cost[api] = sum d api / A`` and ``sov[s]`` the level sovereignty counted for
   ``s``: it includes the extra tax and the lump sums. ``cost_per_mtok = cost * A /
   sum d D * 1e6``: every strategy serves all demand (in house or through the API); NaN
   when no demand ever arrives.
7. ``cash_by_year`` has ``ceil(T / 12)`` years (a last partial year when ``T`` is not a
   multiple of 12); lump sums book in the lump month of L265-266 (``exit``, or ``T - 1``).
   Sovereignty is not cash and is left out, as are tax and ``owned_out`` (L297-300).
8. ``simple_payback_months`` and ``peak_cash_need_nominal`` both read the undiscounted
   after-tax cumulative flow (sovereignty in, ``owned_out`` in month 0, lump sums
   undiscounted in the lump month): the nominal twins of ``payback_months`` and
   ``peak_cash_need``. api's payback and peak are 0, and the hybrid's where it never owns
   a node (version 2's rule).
9. ``irr`` is defined for buy and hybrid only (version 2), from the after-tax flows and the
   lump ``resale - tax_exit`` at month ``exit``; NaN when the flows never change sign or
   the present value has one sign at -99% and +999,900% a year; of several roots in that
   range, the one nearest 10% a year in log rate.
10. ``nodes`` and ``storage_tb`` are buy's largest fleet and storage (at the horizon
    without events: version 2's); ``investment`` and ``initial_investment`` include
    network capex; ``gpu_share`` is the nodes' share (without network) of the investment,
    ``storage_to_gpu_ratio`` SSDs over nodes (without network).
11. ``fleet_utilization`` = sum served / sum ``n_buy[t] c[t]`` over the months (undiscounted;
    ``c`` at full load and large-scale efficiency, spares counted); NaN without nodes.
    ``hybrid_served_share`` = sum ``served_hyb`` / sum ``D`` (undiscounted).
12. ``node_capacity`` is ``c[0] * utilization`` (version 2's at ``peak_to_average`` 1) and
    ``node_api_revenue_per_hour`` ``c[0] / H * blend / 1e6``.
13. ``breakeven_demand``: the first demand of a geometric scan (``lo`` to ``hi``) with npv
    >= 0 (the hybrid's only where it owns a node), bisected against the scan's point before
    it; 0 where npv >= 0 at 1 token/month, inf where never, NaN for api. A positive window
    narrower than the scan's step can be missed.
14. ``tax_depreciation_years`` must be > 0; ``12 * tax_depreciation_years`` need not be whole
    (the share per month is ``1 / (12 Y)`` for the months ``u <= t < u + 12 Y``).
"""

from __future__ import annotations

import itertools
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


def _months(p: dict, demand: float) -> dict:
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


def _fleets(p: dict, M: dict) -> dict:
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


def _hybrid(p: dict, M: dict, staff: float, power: float, colo: float, tbpt: float) -> dict:
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


def _capex(p: dict, M: dict, n: list) -> tuple[list, list]:
    """Node part (price only) and full node capex (with network) of a fleet (L229)."""
    part = [max(0.0, n[t] - (n[t - 1] if t else 0.0)) * M["P"][t] for t in range(M["T"])]
    return part, [v * (1 + p["network_capex_fraction"]) for v in part]


def _ssd(p: dict, served: list, tbpt: float) -> tuple[list, list]:
    """Storage ``TB[t]`` (running maximum) and SSD capex (L228, L230)."""
    tb, top = [], 0.0
    for s in served:
        top = max(top, tbpt * s)
        tb.append(top)
    return tb, [(tb[t] - (tb[t - 1] if t else 0.0)) * p["ssd_price_per_tb"]
                for t in range(len(tb))]


def scenario(p: dict, demand: float) -> dict:
    """Every output of MODEL.md version 3 for one scenario ``p`` at planned ``demand``.

    Returns a dict: per strategy (``out[s]``) the monthly ``cost, capex, tax, flow``, ``lump``
    (at month ``exit``), ``owned_out``, ``npv, saving, cost_level, cost_per_mtok,
    payback_months, peak_cash_need, simple_payback_months, peak_cash_need_nominal,
    cash_path, cash_by_year, irr``; and the buy outputs, per-sample outputs and the
    intermediate month lists (``M``, ``F``, ``hyb``) the tests read.
    """
    M = _months(p, demand)
    F = _fleets(p, M)
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
    hyb = _hybrid(p, M, staff0, power, colo, tbpt)
    nb, nh, phi = F["n_buy"], hyb["n_hyb"], M["phi"]
    part_b, cap_b = _capex(p, M, nb)
    part_h, cap_h = _capex(p, M, nh)
    tb_b, ssd_b = _ssd(p, F["served"], tbpt)
    _, ssd_r = _ssd(p, F["served_res"], tbpt)
    _, ssd_h = _ssd(p, hyb["served_hyb"], tbpt)
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
    owned_out = max(nb, default=0.0) * M["P"][0] * p["owned_resale_fraction"] if T else 0.0
    owned_back = owned_out * keep ** (ex / 12)
    A, lump_month = sum(d[:T]), (ex if ex < T else T - 1)
    dD = sum(d[t] * D[t] for t in range(T))
    out = {"M": M, "F": F, "hyb": hyb, "T": T, "exit": ex, "A": A, "api_bill": api,
           "tb_per_token": tbpt, "power": power, "colo": colo}
    for s in STRATEGIES:
        o = _finance(p, s, M, api, cost[s], capex[s], resale[s], staff)
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
            pay = next((t + 1.0 for t in range(T) if path[t] >= 0), math.inf)
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
        api_price_per_mtok=sum(M["p"]) / T * 1e6, list_price_per_mtok=M["blend"],
        node_capacity=M["c"][0] * p["utilization"],
        node_api_revenue_per_hour=M["c"][0] / H * M["blend"] / 1e6,
        rent_per_node_hour=G * p["gpu_rent_per_hour"],
        implied_valley_factor=38.0 / (p["reference_tokens_per_gpu_hour"] * M["blend"] / 1e6),
    )
    return out


def _finance(p: dict, s: str, M: dict, api: list, cost: list, capex: list, resale: float,
             staff: list) -> dict:
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
