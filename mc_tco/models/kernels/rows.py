"""The demand-independent factors of each row of inputs, version 3 (numpy, all rows at once).

:func:`row_factors` turns the input columns into the month vectors ``V`` (rows, :data:`NV`,
months + 1) and the scalars ``S`` (rows, :data:`NS`) that :func:`.cell.cell` reads for
every demand. The names follow ``shared/MODEL.md`` (version 3): a vector's entry ``t`` is
the month ``t`` (``DISC`` runs to ``T``, the others to ``T - 1``; entries past a row's
horizon are 0).
"""

from __future__ import annotations

import math

import numpy as np

HOURS_PER_MONTH = 730.0
DAYS_PER_MONTH = 30.4
#: the article's revenue of a GPU-hour (for ``implied_valley_factor``)
ARTICLE_REVENUE_PER_GPU_HOUR = 38.0
#: relative tolerance of every ceil of the model: ``ceil(v - TOL * max(1, |v|))``
TOL = 1e-9

# ---- month vectors (index of V's second axis)
(DU, PC, PT, PN, RN, CAP, PHI, SELF, DISC, PBAR, STOK, CNODE) = range(12)
NV = 12
# ---- row scalars (index of S's second axis)
(T_, EXIT, LUMPM, A_, HP, B_, UTIL, E1, SFULL, SPARE, POWER, COLO, STAFF, TBPT, SSD,
 MF12, KEEP, NET, RESD, TERM, START, G_, TAX, LIFE, BONUS, SOV, ORES, NODE0, BLEND, ANN,
 P_MEAN, CAP0) = range(32)
NS = 32


def ceil_tol(v: np.ndarray) -> np.ndarray:
    """MODEL.md's ceil: ``ceil(v - 1e-9 max(1, |v|))`` elementwise (inf stays inf)."""
    v = np.asarray(v, dtype=float)
    with np.errstate(invalid="ignore"):
        return np.where(np.isinf(v), v, np.ceil(v - TOL * np.maximum(1.0, np.abs(v))))


def horizon_months(x: dict[str, np.ndarray]) -> np.ndarray:
    """``T = round(12 * horizon_years)`` of each row, at least 1."""
    return np.maximum(1, np.rint(12.0 * x["horizon_years"])).astype(np.int64)


def row_factors(x: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Month vectors ``V`` and scalars ``S`` of every row of the input columns ``x``."""
    n = x["node_price"].shape[0]
    T = horizon_months(x)
    M = int(T.max(initial=1))
    t = np.arange(M + 1, dtype=float)[None, :]
    live = t < T[:, None]  # months of the row's horizon
    col = {k: np.asarray(v, dtype=float)[:, None] for k, v in x.items()}
    e_c, e_s = ceil_tol(x["cancel_month"]), ceil_tol(x["stop_month"])
    ex = np.maximum(0.0, np.minimum(np.minimum(e_c, e_s), T))
    alive = (t < e_c[:, None]) & live
    own = (t < np.minimum(e_c, e_s)[:, None]) & live
    V = np.zeros((n, NV, M + 1))
    S = np.zeros((n, NS))

    ramp = np.minimum(1.0, (t + 1) / col["ramp_months"])
    grow = (1 + col["demand_annual_growth"]) ** (np.maximum(0.0, t + 1 - col["ramp_months"]) / 12)
    V[:, DU] = col["demand_realization"] * ramp * grow * alive
    hit, o = col["api_cache_hit_rate"], col["output_share"]
    blend = (col["api_price_level"] * ((1 - o) * (hit * col["price_input_cache_hit"] + (1 - hit)
             * col["price_input_cache_miss"]) + o * col["price_output"])
             * (1 - col["api_offpeak_share"] * col["api_offpeak_discount"]))
    trend = blend * (1 + col["api_price_annual_change"]) ** (t / 12) / 1e6 * live
    V[:, PT] = trend
    V[:, PC] = trend * (1 - col["api_price_cut_size"] * (t >= col["api_price_cut_month"]))
    hw = (1 + col["gpu_price_annual_change"]) ** (t / 12) * live
    V[:, PN] = col["node_price"] * hw
    V[:, RN] = col["gpu_rent_per_hour"] * hw

    def work(o: np.ndarray, h: np.ndarray) -> np.ndarray:
        return (1 - o) * (h * col["work_cache_hit"] + (1 - h)) + o * col["work_output"]

    mix = (work(col["reference_output_share"], col["reference_cache_hit_rate"])
           / work(o, col["self_cache_hit_ratio"] * hit))
    f = col["throughput_final_ratio"]
    m = col["throughput_multiple"] * (f + (1 - f) * np.exp(-t / col["learning_months"]))
    cap = col["gpus_per_node"] * col["reference_tokens_per_gpu_hour"] * mix / m * HOURS_PER_MONTH
    V[:, CAP] = cap * live
    V[:, PHI] = np.clip(t + 1 - col["setup_months"], 0.0, 1.0) * own
    V[:, SELF] = own
    rate = 1 + col["discount_rate"] + col["regulatory_premium"]
    d = rate ** (-t / 12)
    V[:, DISC] = np.where(t <= T[:, None], d, 0.0)

    # the hybrid's level quantities of the months left (to the horizon: no event foreseen)
    dl = d * live
    rest = np.cumsum(dl[:, ::-1], axis=1)[:, ::-1]  # sum_{u >= t, u < T} d[u]
    rest_p = np.cumsum((dl * trend)[:, ::-1], axis=1)[:, ::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        a_t = np.where(live, rest / d, 1.0)
        V[:, PBAR] = np.where(live, rest_p / np.where(live, rest, 1.0), 0.0)
    power = (x["node_power_kw"] * x["pue"] * HOURS_PER_MONTH * x["electricity_price"])
    colo = x["node_power_kw"] * x["colocation_per_kw_month"]
    tbpt = (x["kv_unique_fraction"] * (x["kv_ttl_days"] / DAYS_PER_MONTH) * x["kv_kb_per_token"]
            * 1e3 / 1e12 * x["storage_overhead"])
    V[:, STOK] = (tbpt * x["ssd_price_per_tb"])[:, None] / a_t * live
    keep = 1 - x["node_annual_depreciation"]
    net = col["network_capex_fraction"]
    d_T = d[np.arange(n), T][:, None]
    left = np.where(live, (T[:, None] - t) / 12, 1.0)
    crf = (1 - keep[:, None] ** left * d_T / d / (1 + net)) / a_t
    V[:, CNODE] = np.where(live, V[:, PN] * (1 + net) * crf + (power + colo)[:, None]
                           + col["maintenance_fraction"] / 12 * V[:, PN], 0.0)

    a = x["peak_to_average"]
    hp = x["peak_hours_share"]
    flat = a == 1
    S[:, T_] = T
    S[:, EXIT] = ex
    S[:, LUMPM] = np.where(ex < T, ex, T - 1)
    S[:, A_] = a
    S[:, HP] = np.where(flat, 0.0, hp)  # a flat profile: every hour at level 1
    with np.errstate(divide="ignore", invalid="ignore"):
        S[:, B_] = np.where(flat, 1.0, (1 - hp * a) / (1 - hp))
    S[:, UTIL] = x["utilization"]
    S[:, E1] = x["scale_efficiency_single_node"]
    S[:, SFULL] = x["scale_full_nodes"]
    S[:, SPARE] = x["spare_fraction"]
    S[:, POWER] = power
    S[:, COLO] = colo
    S[:, STAFF] = x["staff_fte"] * x["staff_cost_per_fte"] / 12
    S[:, TBPT] = tbpt
    S[:, SSD] = x["ssd_price_per_tb"]
    S[:, MF12] = x["maintenance_fraction"] / 12
    S[:, KEEP] = keep
    S[:, NET] = x["network_capex_fraction"]
    S[:, RESD] = x["reserved_discount"]
    S[:, TERM] = np.rint(x["reserved_term_months"])
    S[:, START] = ceil_tol(x["setup_months"])
    S[:, G_] = x["gpus_per_node"]
    S[:, TAX] = x["tax_rate"]
    S[:, LIFE] = 12 * x["tax_depreciation_years"]
    S[:, BONUS] = x["bonus_depreciation"]
    S[:, SOV] = x["sovereignty_value"]
    S[:, ORES] = x["owned_resale_fraction"]
    S[:, NODE0] = x["node_price"]
    S[:, BLEND] = blend[:, 0]
    S[:, ANN] = dl.sum(axis=1)
    S[:, P_MEAN] = (V[:, PC] * live).sum(axis=1) / T
    S[:, CAP0] = cap[:, 0]
    return V, S


def profile_ok(x: dict[str, np.ndarray]) -> np.ndarray:
    """Rows whose load profile is valid: ``peak_hours_share * peak_to_average < 1``."""
    a, hp = x["peak_to_average"], x["peak_hours_share"]
    return (a == 1) | (hp * a < 1 - math.ulp(1.0))
