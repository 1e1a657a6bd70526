"""The demand-independent factors of each row of inputs, version 3.

:func:`row_factors` turns the input columns into the month vectors ``V`` (rows, :data:`NV`,
months + 1; numba, :func:`_vectors`) and the scalars ``S`` (rows, :data:`NS`; numpy) that
:func:`.cell.cell` reads for
every demand. The names follow ``shared/MODEL.md`` (version 3): a vector's entry ``t`` is
the month ``t`` (``DISC`` runs to ``T``, the others to ``T - 1``; entries past a row's
horizon are 0).
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit

HOURS_PER_MONTH = 730.0
DAYS_PER_MONTH = 30.4
#: the article's revenue of a GPU-hour (for ``implied_valley_factor``)
ARTICLE_REVENUE_PER_GPU_HOUR = 38.0
#: relative tolerance of every ceil of the model: ``ceil(v - TOL * max(1, |v|))``
TOL = 1e-9

# ---- month vectors (index of V's second axis)
(DU, PC, PT, PN, RN, CAP, PHI, SELF, DISC, PBAR, STOK, CNODE, CDISC) = range(13)
NV = 13
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


# ---- the per-row parameters of :func:`_vectors` (columns of its matrix)
(P_T, P_EC, P_ES, P_REAL, P_RAMP, P_GROW, P_BLEND, P_CHG, P_CUT, P_CUTM, P_NODE, P_RENT,
 P_HW, P_CAP, P_MULT, P_FINAL, P_LEARN, P_SETUP, P_RATE, P_SSDTOK, P_KEEP, P_NET, P_RUN,
 P_MAINT) = range(24)
NP = 24


@jit
def _vectors(P: np.ndarray, V: np.ndarray) -> None:
    """The month vectors of every row (MODEL.md's demand, prices, capacity, shares served,
    discount factors and the hybrid's level quantities) from its parameters ``P``."""
    M = V.shape[2] - 1
    for i in range(P.shape[0]):
        p, v = P[i], V[i]
        T = int(p[P_T])
        own_end = min(p[P_EC], p[P_ES])
        for t in range(M + 1):
            live = t < T
            d = p[P_RATE] ** (-t / 12)
            v[DISC, t] = d if t <= T else 0.0
            if not live:
                for k in range(NV):
                    if k != DISC and k != CDISC:
                        v[k, t] = 0.0
                continue
            ramp = min(1.0, (t + 1) / p[P_RAMP])
            grow = (1 + p[P_GROW]) ** (max(0.0, t + 1 - p[P_RAMP]) / 12)
            v[DU, t] = p[P_REAL] * ramp * grow * (1.0 if t < p[P_EC] else 0.0)
            trend = p[P_BLEND] * (1 + p[P_CHG]) ** (t / 12) / 1e6
            v[PT, t] = trend
            v[PC, t] = trend * (1 - p[P_CUT] * (1.0 if t >= p[P_CUTM] else 0.0))
            hw = (1 + p[P_HW]) ** (t / 12)
            v[PN, t] = p[P_NODE] * hw
            v[RN, t] = p[P_RENT] * hw
            f = p[P_FINAL]
            m = p[P_MULT] * (f + (1 - f) * math.exp(-t / p[P_LEARN]))
            v[CAP, t] = p[P_CAP] / m * HOURS_PER_MONTH
            own = 1.0 if t < own_end else 0.0
            v[PHI, t] = min(1.0, max(0.0, t + 1 - p[P_SETUP])) * own
            v[SELF, t] = own
        # CDISC[t] = sum_{u < t} d[u] (to the horizon); the hybrid's level quantities of the
        # months left (to the horizon: no event foreseen)
        acc = 0.0
        for t in range(M + 1):
            v[CDISC, t] = acc
            if t < T:
                acc += v[DISC, t]
        rest = rest_p = 0.0
        d_T = v[DISC, T]
        for t in range(T - 1, -1, -1):
            d = v[DISC, t]
            rest += d
            rest_p += d * v[PT, t]
            a_t = rest / d
            v[PBAR, t] = rest_p / rest
            v[STOK, t] = p[P_SSDTOK] / a_t
            crf = (1 - p[P_KEEP] ** ((T - t) / 12) * d_T / d / (1 + p[P_NET])) / a_t
            v[CNODE, t] = v[PN, t] * (1 + p[P_NET]) * crf + p[P_RUN] + p[P_MAINT] * v[PN, t]


def row_factors(x: dict[str, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Month vectors ``V`` and scalars ``S`` of every row of the input columns ``x``."""
    n = x["node_price"].shape[0]
    T = horizon_months(x)
    M = int(T.max(initial=1))
    e_c, e_s = ceil_tol(x["cancel_month"]), ceil_tol(x["stop_month"])
    ex = np.maximum(0.0, np.minimum(np.minimum(e_c, e_s), T))
    S = np.zeros((n, NS))
    hit, o = x["api_cache_hit_rate"], x["output_share"]
    blend = (x["api_price_level"] * ((1 - o) * (hit * x["price_input_cache_hit"] + (1 - hit)
             * x["price_input_cache_miss"]) + o * x["price_output"])
             * (1 - x["api_offpeak_share"] * x["api_offpeak_discount"]))

    def work(o: np.ndarray, h: np.ndarray) -> np.ndarray:
        return (1 - o) * (h * x["work_cache_hit"] + (1 - h)) + o * x["work_output"]

    mix = (work(x["reference_output_share"], x["reference_cache_hit_rate"])
           / work(o, x["self_cache_hit_ratio"] * hit))
    cap = x["gpus_per_node"] * x["reference_tokens_per_gpu_hour"] * mix
    power = (x["node_power_kw"] * x["pue"] * HOURS_PER_MONTH * x["electricity_price"])
    colo = x["node_power_kw"] * x["colocation_per_kw_month"]
    tbpt = (x["kv_unique_fraction"] * (x["kv_ttl_days"] / DAYS_PER_MONTH) * x["kv_kb_per_token"]
            * 1e3 / 1e12 * x["storage_overhead"])
    keep = 1 - x["node_annual_depreciation"]
    P = np.empty((n, NP))
    for k, value in ((P_T, T), (P_EC, e_c), (P_ES, e_s), (P_REAL, x["demand_realization"]),
                     (P_RAMP, x["ramp_months"]), (P_GROW, x["demand_annual_growth"]),
                     (P_BLEND, blend), (P_CHG, x["api_price_annual_change"]),
                     (P_CUT, x["api_price_cut_size"]), (P_CUTM, x["api_price_cut_month"]),
                     (P_NODE, x["node_price"]), (P_RENT, x["gpu_rent_per_hour"]),
                     (P_HW, x["gpu_price_annual_change"]), (P_CAP, cap),
                     (P_MULT, x["throughput_multiple"]), (P_FINAL, x["throughput_final_ratio"]),
                     (P_LEARN, x["learning_months"]), (P_SETUP, x["setup_months"]),
                     (P_RATE, 1 + x["discount_rate"] + x["regulatory_premium"]),
                     (P_SSDTOK, tbpt * x["ssd_price_per_tb"]), (P_KEEP, keep),
                     (P_NET, x["network_capex_fraction"]), (P_RUN, power + colo),
                     (P_MAINT, x["maintenance_fraction"] / 12)):
        P[:, k] = value
    V = np.empty((n, NV, M + 1))
    _vectors(P, V)

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
    S[:, BLEND] = blend
    S[:, ANN] = V[:, CDISC, -1] if M == 0 else np.take_along_axis(
        V[:, CDISC], T[:, None], axis=1)[:, 0]
    S[:, P_MEAN] = V[:, PC].sum(axis=1) / T
    S[:, CAP0] = V[:, CAP, 0]
    return V, S


def profile_ok(x: dict[str, np.ndarray]) -> np.ndarray:
    """Rows whose load profile is valid: ``peak_hours_share * peak_to_average < 1``."""
    a, hp = x["peak_to_average"], x["peak_hours_share"]
    return (a == 1) | (hp * a < 1 - math.ulp(1.0))
