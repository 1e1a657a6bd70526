"""The demand-independent factors of each row of inputs, version 3.

:func:`row_factors` turns the input columns into the month vectors ``V`` (rows, :data:`NV`,
months + 1) and the scalars ``S`` (rows, :data:`NS`) that :func:`.cell.cell` reads for
every demand, in one numba kernel (:func:`_factors`, a row at a time: its scalars as numpy
computed them over all rows, in the same order of operations, and its month vectors,
:func:`_vectors`). The names follow ``shared/MODEL.md`` (version 3): a vector's entry ``t`` is
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


#: the input columns :func:`row_factors` reads, the rows of its kernel's matrix ``X``
COLUMNS = (
    "horizon_years", "cancel_month", "stop_month", "api_cache_hit_rate", "output_share",
    "api_price_level", "price_input_cache_hit", "price_input_cache_miss", "price_output",
    "api_offpeak_share", "api_offpeak_discount", "work_cache_hit", "work_output",
    "reference_output_share", "reference_cache_hit_rate", "self_cache_hit_ratio",
    "gpus_per_node", "reference_tokens_per_gpu_hour", "node_power_kw", "pue",
    "electricity_price", "colocation_per_kw_month", "kv_unique_fraction", "kv_ttl_days",
    "kv_kb_per_token", "storage_overhead", "node_annual_depreciation", "demand_realization",
    "ramp_months", "demand_annual_growth", "api_price_annual_change", "api_price_cut_size",
    "api_price_cut_month", "node_price", "gpu_rent_per_hour", "gpu_price_annual_change",
    "throughput_multiple", "throughput_final_ratio", "learning_months", "setup_months",
    "discount_rate", "regulatory_premium", "ssd_price_per_tb", "network_capex_fraction",
    "maintenance_fraction", "peak_to_average", "peak_hours_share", "utilization",
    "scale_efficiency_single_node", "scale_full_nodes", "spare_fraction", "staff_fte",
    "staff_cost_per_fte", "reserved_discount", "reserved_term_months", "tax_rate",
    "tax_depreciation_years", "bonus_depreciation", "sovereignty_value",
    "owned_resale_fraction")
(X_HORIZON, X_CANCEL, X_STOP, X_HIT, X_OUT, X_LEVEL, X_PIH, X_PIM, X_PO, X_OFFS, X_OFFD,
 X_WCH, X_WO, X_ROS, X_RCH, X_SCH, X_GPUS, X_RTOK, X_KW, X_PUE, X_ELEC, X_COLO, X_KVF,
 X_TTL, X_KB, X_OVH, X_DEP, X_REAL, X_RAMP, X_GROW, X_CHG, X_CUT, X_CUTM, X_NODE, X_RENT,
 X_HW, X_MULT, X_FINAL, X_LEARN, X_SETUP, X_DR, X_REG, X_SSD, X_NET, X_MAINT, X_A, X_HP,
 X_UTIL, X_E1, X_SFULL, X_SPARE, X_FTE, X_FTEC, X_RESD, X_TERM, X_TAX, X_TAXY, X_BONUS,
 X_SOV, X_ORES) = range(60)
NX = len(COLUMNS)

# ---- the per-row parameters of :func:`_vectors` (entries of its vector ``p``)
(P_T, P_EC, P_ES, P_REAL, P_RAMP, P_GROW, P_BLEND, P_CHG, P_CUT, P_CUTM, P_NODE, P_RENT,
 P_HW, P_CAP, P_MULT, P_FINAL, P_LEARN, P_SETUP, P_RATE, P_SSDTOK, P_KEEP, P_NET, P_RUN,
 P_MAINT) = range(24)
NP = 24


@jit(inline="always")
def _ceil_tol(v: float) -> float:
    """:func:`ceil_tol` of one number (inf stays inf)."""
    return v if math.isinf(v) else np.ceil(v - TOL * max(1.0, abs(v)))


@jit(inline="always")
def _work(o: float, h: float, wch: float, wo: float) -> float:
    """The GPU work of a token mix (output share ``o``, cache-hit rate ``h``)."""
    return (1 - o) * (h * wch + (1 - h)) + o * wo


@jit
def _vectors(p: np.ndarray, v: np.ndarray) -> None:
    """The month vectors ``v`` (:data:`NV`, months + 1) of one row (MODEL.md's demand,
    prices, capacity, shares served, discount factors and the hybrid's level quantities)
    from its parameters ``p`` (:data:`NP`)."""
    M = v.shape[1] - 1
    T = int(p[P_T])
    own_end = min(p[P_EC], p[P_ES])
    # monthly factors, applied as running products (one pow a row, not one a month)
    step_d = p[P_RATE] ** (-1.0 / 12)
    step_p = (1 + p[P_CHG]) ** (1.0 / 12)
    step_hw = (1 + p[P_HW]) ** (1.0 / 12)
    step_g = (1 + p[P_GROW]) ** (1.0 / 12)
    step_l = math.exp(-1.0 / p[P_LEARN])
    d = pc = hw = learn = 1.0
    grow = 0.0  # set at the first month past the ramp
    f = p[P_FINAL]
    for t in range(M + 1):
        v[DISC, t] = d if t <= T else 0.0
        if t >= T:
            for k in range(NV):
                if k != DISC and k != CDISC:
                    v[k, t] = 0.0
        else:
            ramp = min(1.0, (t + 1) / p[P_RAMP])
            past = t + 1 - p[P_RAMP]
            if past <= 0.0:
                g = 1.0
            elif grow == 0.0:
                grow = (1 + p[P_GROW]) ** (past / 12)
                g = grow
            else:
                grow *= step_g
                g = grow
            v[DU, t] = p[P_REAL] * ramp * g * (1.0 if t < p[P_EC] else 0.0)
            trend = p[P_BLEND] * pc / 1e6
            v[PT, t] = trend
            v[PC, t] = trend * (1 - p[P_CUT] * (1.0 if t >= p[P_CUTM] else 0.0))
            v[PN, t] = p[P_NODE] * hw
            v[RN, t] = p[P_RENT] * hw
            m = p[P_MULT] * (f + (1 - f) * learn)
            v[CAP, t] = p[P_CAP] / m * HOURS_PER_MONTH
            own = 1.0 if t < own_end else 0.0
            v[PHI, t] = min(1.0, max(0.0, t + 1 - p[P_SETUP])) * own
            v[SELF, t] = own
        d *= step_d
        pc *= step_p
        hw *= step_hw
        learn *= step_l
    # CDISC[t] = sum_{u < t} d[u] (to the horizon); the hybrid's level quantities of the
    # months left (to the horizon: no event foreseen)
    acc = 0.0
    for t in range(M + 1):
        v[CDISC, t] = acc
        if t < T:
            acc += v[DISC, t]
    rest = rest_p = 0.0
    d_T = v[DISC, T]
    step_k = p[P_KEEP] ** (1.0 / 12)
    kept = 1.0
    for t in range(T - 1, -1, -1):
        d = v[DISC, t]
        rest += d
        rest_p += d * v[PT, t]
        a_t = rest / d
        kept *= step_k  # keep ** ((T - t) / 12)
        v[PBAR, t] = rest_p / rest
        v[STOK, t] = p[P_SSDTOK] / a_t
        crf = (1 - kept * d_T / d / (1 + p[P_NET])) / a_t
        v[CNODE, t] = v[PN, t] * (1 + p[P_NET]) * crf + p[P_RUN] + p[P_MAINT] * v[PN, t]


@jit(inline="always")
def _sum(v: np.ndarray) -> float:
    """``v.sum()`` as numpy's pairwise sum adds a vector of at most 128 numbers (8
    accumulators, then the rest in order): the same number bit for bit."""
    n = v.shape[0]
    if n < 8:
        res = 0.0
        for i in range(n):
            res += v[i]
        return res
    r0, r1, r2, r3, r4, r5, r6, r7 = v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
    i = 8
    while i < n - n % 8:
        r0 += v[i]
        r1 += v[i + 1]
        r2 += v[i + 2]
        r3 += v[i + 3]
        r4 += v[i + 4]
        r5 += v[i + 5]
        r6 += v[i + 6]
        r7 += v[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += v[i]
        i += 1
    return res


@jit
def _factors(X: np.ndarray, lo: int, V: np.ndarray, S: np.ndarray) -> None:
    """The month vectors ``V`` and scalars ``S`` of the rows ``lo .. lo + len(V) - 1`` of
    the input matrix ``X`` (:data:`COLUMNS`, rows): MODEL.md's derived quantities, each
    written as numpy wrote them over all rows (the same operations in the same order: the
    same numbers)."""
    p = np.empty(NP)
    for i in range(V.shape[0]):
        x = X[:, lo + i]
        T = max(1.0, np.rint(12.0 * x[X_HORIZON]))
        e_c, e_s = _ceil_tol(x[X_CANCEL]), _ceil_tol(x[X_STOP])
        ex = max(0.0, min(min(e_c, e_s), T))
        hit, o = x[X_HIT], x[X_OUT]
        blend = (x[X_LEVEL] * ((1 - o) * (hit * x[X_PIH] + (1 - hit) * x[X_PIM])
                               + o * x[X_PO]) * (1 - x[X_OFFS] * x[X_OFFD]))
        mix = (_work(x[X_ROS], x[X_RCH], x[X_WCH], x[X_WO])
               / _work(o, x[X_SCH] * hit, x[X_WCH], x[X_WO]))
        power = x[X_KW] * x[X_PUE] * HOURS_PER_MONTH * x[X_ELEC]
        colo = x[X_KW] * x[X_COLO]
        tbpt = (x[X_KVF] * (x[X_TTL] / DAYS_PER_MONTH) * x[X_KB] * 1e3 / 1e12 * x[X_OVH])
        keep = 1 - x[X_DEP]
        p[P_T], p[P_EC], p[P_ES], p[P_REAL] = T, e_c, e_s, x[X_REAL]
        p[P_RAMP], p[P_GROW], p[P_BLEND], p[P_CHG] = x[X_RAMP], x[X_GROW], blend, x[X_CHG]
        p[P_CUT], p[P_CUTM], p[P_NODE], p[P_RENT] = x[X_CUT], x[X_CUTM], x[X_NODE], x[X_RENT]
        p[P_HW], p[P_CAP] = x[X_HW], x[X_GPUS] * x[X_RTOK] * mix
        p[P_MULT], p[P_FINAL], p[P_LEARN] = x[X_MULT], x[X_FINAL], x[X_LEARN]
        p[P_SETUP], p[P_RATE] = x[X_SETUP], 1 + x[X_DR] + x[X_REG]
        p[P_SSDTOK], p[P_KEEP], p[P_NET] = tbpt * x[X_SSD], keep, x[X_NET]
        p[P_RUN], p[P_MAINT] = power + colo, x[X_MAINT] / 12
        v = V[i]
        _vectors(p, v)
        a, hp = x[X_A], x[X_HP]
        flat = a == 1
        s = S[i]
        s[T_] = T
        s[EXIT] = ex
        s[LUMPM] = ex if ex < T else T - 1
        s[A_] = a
        s[HP] = 0.0 if flat else hp  # a flat profile: every hour at level 1
        s[B_] = 1.0 if flat else (1 - hp * a) / (1 - hp)
        s[UTIL] = x[X_UTIL]
        s[E1] = x[X_E1]
        s[SFULL] = x[X_SFULL]
        s[SPARE] = x[X_SPARE]
        s[POWER] = power
        s[COLO] = colo
        s[STAFF] = x[X_FTE] * x[X_FTEC] / 12
        s[TBPT] = tbpt
        s[SSD] = x[X_SSD]
        s[MF12] = x[X_MAINT] / 12
        s[KEEP] = keep
        s[NET] = x[X_NET]
        s[RESD] = x[X_RESD]
        s[TERM] = np.rint(x[X_TERM])
        s[START] = _ceil_tol(x[X_SETUP])
        s[G_] = x[X_GPUS]
        s[TAX] = x[X_TAX]
        s[LIFE] = 12 * x[X_TAXY]
        s[BONUS] = x[X_BONUS]
        s[SOV] = x[X_SOV]
        s[ORES] = x[X_ORES]
        s[NODE0] = x[X_NODE]
        s[BLEND] = blend
        s[ANN] = v[CDISC, int(T)]
        s[P_MEAN] = _sum(v[PC]) / T
        s[CAP0] = v[CAP, 0]


def row_factors(x: dict[str, np.ndarray], into: np.ndarray | None = None,
                months: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Month vectors ``V`` and scalars ``S`` of every row of the input columns ``x``
    (:func:`_factors`). ``into``: a buffer whose first numbers become ``V`` when it holds
    enough (instead of new memory, whose pages the system faults in and zeroes: about 1.3
    CPU s of the default run); ``V`` is then overwritten by the next call given it.
    ``months``: ``V``'s months less one (at least the rows' longest horizon; default that
    horizon). The mean API price ``S[:, P_MEAN]`` sums a row's months with the zeros past its
    horizon in groups of eight, so its last bits depend on ``months``: rows built in parts
    give the numbers of the whole when each part is given the whole's."""
    n = x["node_price"].shape[0]
    M = int(horizon_months(x).max(initial=1)) if months is None else months
    return factors_of(input_matrix(x), 0, n, M, into)


def input_matrix(x: dict[str, np.ndarray]) -> np.ndarray:
    """The input columns ``x`` as the kernel's matrix ``X`` (:data:`COLUMNS`, rows)."""
    X = np.empty((NX, x["node_price"].shape[0]))
    for k, name in enumerate(COLUMNS):
        X[k] = x[name]
    return X


def factors_of(X: np.ndarray, lo: int, n: int, months: int,
               into: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`row_factors` of the ``n`` rows from ``lo`` of the input matrix ``X``
    (:func:`input_matrix`; a model call builds it once and its parts read it in place)."""
    size = n * NV * (months + 1)
    if into is not None and into.size >= size:
        V = into[:size].reshape(n, NV, months + 1)
    else:
        V = np.empty((n, NV, months + 1))
    S = np.empty((n, NS))
    _factors(X, lo, V, S)
    if months + 1 > 128:  # (:func:`_sum` adds as numpy does up to 128 numbers)
        S[:, P_MEAN] = V[:, PC].sum(axis=1) / S[:, T_]
    return V, S


def profile_ok(x: dict[str, np.ndarray]) -> np.ndarray:
    """Rows whose load profile is valid: ``peak_hours_share * peak_to_average < 1``."""
    a, hp = x["peak_to_average"], x["peak_hours_share"]
    return (a == 1) | (hp * a < 1 - math.ulp(1.0))
