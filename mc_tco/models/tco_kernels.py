"""Month-by-month kernels of the TCO model, version 2 (numba, one row at a time).

Each kernel takes the inputs as a matrix ``X`` (rows, :data:`COLUMNS`) and works one row
at a time: :func:`_row` computes the row's demand-independent factors (demand per unit of
run-rate, price paths, capacity, discount factors and the node weights built from them)
into a small buffer of (vector, month). :func:`npv_grid` and :func:`paths` then run the
months in the outer loop and a block of demands in the inner one, their state in a small
buffer of (state, demand): LLVM vectorizes the inner loop (4 demands per AVX2
instruction), each demand's operations keep their order, so the numbers are those of the
plain month loop per demand (:func:`_npv_one`), to the bit. The break-even walks evaluate
one demand at a time, the hybrid's in batches (:func:`_first_nonneg`). Kernels are
compiled once (``cache=True``) and release the GIL, so the engine's thread workers run
them in parallel.

Strategy order in the kernels' outputs: buy, rent, owned, hybrid (the model's strategies
without ``api``), except :func:`npv_grid`, which writes all five.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: the model's inputs, in the column order of the kernels' input matrix ``X`` (rows, inputs)
COLUMNS = (
    "price_input_cache_hit", "price_input_cache_miss", "price_output", "api_price_level",
    "api_price_annual_change", "output_share", "api_cache_hit_rate",
    "reference_tokens_per_gpu_hour", "throughput_multiple", "throughput_final_ratio",
    "learning_months", "utilization", "hybrid_utilization", "gpus_per_node", "ramp_months",
    "demand_annual_growth", "setup_months", "node_price", "gpu_rent_per_hour",
    "gpu_price_annual_change", "node_annual_depreciation", "horizon_years", "node_power_kw",
    "pue", "electricity_price", "maintenance_fraction", "kv_kb_per_token", "kv_ttl_days",
    "kv_unique_fraction", "ssd_price_per_tb", "storage_overhead", "staff_fte",
    "staff_cost_per_fte", "discount_rate", "regulatory_premium", "sovereignty_value",
)
(HIT, MISS, OUT, LEVEL, API_CHG, OSHARE, HITRATE, REF, MULT, FINAL, LEARN, UTIL, HUTIL, G,
 RAMP, GROWTH, SETUP, NODE, RENT, HW_CHG, DEP, HORIZON, KW, PUE, ELEC, MAINT, KVKB, TTL,
 UNIQUE, SSDP, OVER, FTE, FTE_COST, DISC, REG, SOVV) = range(len(COLUMNS))
HOURS_PER_MONTH = 730.0
DAYS_PER_MONTH = 30.4

# ---- month vectors of one row (k[vector, month])
Q, QH, GD, PHI, CAPH, VB, VO, VR, DP, DD, PP, GRH, D, P, RS = range(15)
NV = 15
# ---- scalars of one row (s[scalar])
(T_, SSDTB, LB, CB, STAFF, SOV, POWER, MF12, NODE0, SSD, TBPT, DT, ANN, BLEND, API_LEVEL,
 MAX_QH, CAP0, P_MEAN, P0) = range(19)
NS = 19
#: relative tolerance of the node counts: a demand that is an exact multiple of the
#: capacity does not buy one more node (or one fewer) through rounding
EPS = 1e-9
# ---- fields of the path kernel's result
PAY, PEAK = 0, 4  # 4 strategies each
NODES, TB, INIT, CAPN, CAPS = 8, 9, 10, 11, 12
COMP = 13  # 6 components: hardware, power, upkeep, storage, staff, setup_api
NPV = 19  # 4 strategies
NRES = 23
IRR_LO, IRR_HI = math.log(0.01), math.log(1e4)  # yearly rate from -99% to +999,900%
IRR_GUESS = math.log(1.1)
#: :func:`_irr` stops when Newton's step in the log rate is below IRR_TOL (relative, at
#: least 1): the root is then about IRR_TOL**2 away (Newton) or closer (Halley)
IRR_TOL = 1e-7
#: the break-even walk: smallest relative step, and the evaluations after which it falls
#: back to its coarse relative step (extreme inputs: a node of a few tokens a month)
MIN_STEP = 1e-9
BUDGET = 20000

_JIT = {"cache": True, "nogil": True, "error_model": "numpy"}


def _jit(func=None, **extra):
    """``numba.njit`` with the on-disk cache where there is one (``extra``: more options,
    e.g. ``inline="always"``).

    numba caches next to this file (``__pycache__``), or, where that is read-only (an
    installed package), in ``NUMBA_CACHE_DIR`` or the user's cache folder; with none of
    them writable it refuses ``cache=True`` at import ("no locator available"): the
    kernels are then compiled in every process (10-15 s) instead of failing.
    """
    if func is None:
        return lambda f: _jit(f, **extra)
    try:
        return njit(**_JIT, **extra)(func)
    except RuntimeError as exc:
        if "no locator available" not in str(exc):
            raise
        return njit(**{**_JIT, "cache": False}, **extra)(func)


@_jit
def _months(horizon_years):
    """``round(12 * horizon_years)`` (half to even, as numpy), at least 1."""
    v = 12.0 * horizon_years
    r = math.floor(v)
    if v - r > 0.5 or (v - r == 0.5 and r % 2 == 1):
        r += 1
    return max(1, int(r))


@_jit
def months(X):
    """The longest horizon of the rows of ``X``, in months."""
    m = 1
    for i in range(X.shape[0]):
        m = max(m, _months(X[i, HORIZON]))
    return m


@_jit
def _row(x, k, s):
    """Fill ``k`` (NV, months) and ``s`` (NS,) with the demand-independent factors of the
    row of inputs ``x`` (in :data:`COLUMNS` order): MODEL.md's paths of demand per unit of
    run-rate, prices, capacity and discount factors, and the node weights built from them."""
    T = _months(x[HORIZON])
    hit = x[HITRATE]
    share = x[OSHARE]
    blend = x[LEVEL] * ((1.0 - share) * (hit * x[HIT] + (1.0 - hit) * x[MISS])
                        + share * x[OUT])
    cap_ref = x[G] * x[REF] * HOURS_PER_MONTH * x[UTIL]  # cap[t] = cap_ref / multiple[t]
    hratio = x[HUTIL] / x[UTIL]
    v = 1.0 / (1.0 + x[DISC] + x[REG]) ** (1.0 / 12.0)  # d[t] = v**t
    power = x[KW] * x[PUE] * HOURS_PER_MONTH * x[ELEC]
    staff = x[FTE] * x[FTE_COST] / 12.0
    mf12 = x[MAINT] / 12.0
    tbpt = x[UNIQUE] * (x[TTL] / DAYS_PER_MONTH) * x[KVKB] * 1e3 / 1e12 * x[OVER]
    ssdtb = tbpt * x[SSDP]
    step_d = math.exp(math.log1p(x[GROWTH]) / 12.0)
    step_p = math.exp(math.log1p(x[API_CHG]) / 12.0)
    step_h = math.exp(math.log1p(x[HW_CHG]) / 12.0)
    step_l = math.exp(-1.0 / x[LEARN])
    f = x[FINAL]
    grow_d = 1.0
    grow_p = blend / 1e6
    grow_h = 1.0
    learn = 1.0
    d = 1.0
    ann = 0.0
    api = 0.0
    max_qh = 0.0
    lb_api = 0.0
    lb_ssd = 0.0
    top = 0.0
    p_sum = 0.0
    cap0 = 0.0
    for t in range(T):
        gd = min(1.0, (t + 1.0) / x[RAMP]) * grow_d
        cap = cap_ref / (x[MULT] * (f + (1.0 - f) * learn))
        caph = cap * hratio
        phi = min(1.0, max(0.0, t + 1.0 - x[SETUP]))
        d_next = d * v if t + 1 < T else 0.0
        k[Q, t] = gd / cap
        k[QH, t] = gd / caph
        k[GD, t] = gd
        k[PHI, t] = phi
        k[CAPH, t] = caph
        k[VO, t] = d * (power + mf12 * x[NODE])
        k[GRH, t] = x[G] * x[RENT] * grow_h * HOURS_PER_MONTH
        k[VR, t] = d * phi * k[GRH, t]
        k[DP, t] = d * grow_p
        k[DD, t] = d - d_next
        k[PP, t] = x[NODE] * grow_h
        k[D, t] = d
        k[P, t] = grow_p
        if t == 0:
            cap0 = cap
        ann += d
        api += d * grow_p * gd
        max_qh = max(max_qh, k[QH, t])
        lb_api += d * grow_p * phi * gd
        top = max(top, phi * gd)
        lb_ssd += top * k[DD, t]
        p_sum += grow_p
        grow_d *= step_d
        grow_p *= step_p
        grow_h *= step_h
        learn *= step_l
        d = d_next
    d_end = v ** T
    keep = (1.0 - x[DEP]) ** (1.0 / 12.0)  # resale factor per month to the horizon
    tail = 0.0
    rs = 1.0
    w_next = 0.0
    for t in range(T - 1, -1, -1):
        tail += k[D, t]
        rs *= keep
        w = (k[PP, t] * k[D, t] + (mf12 * k[PP, t] + power) * tail
             - d_end * k[PP, t] * rs)  # a node bought in month t, to the horizon
        k[VB, t] = w - w_next
        k[RS, t] = rs
        w_next = w
    s[T_] = T
    s[SSDTB] = ssdtb
    s[LB] = lb_api - ssdtb * lb_ssd
    s[CB] = (x[SOVV] - staff) * ann
    s[STAFF] = staff
    s[SOV] = x[SOVV]
    s[POWER] = power
    s[MF12] = mf12
    s[NODE0] = x[NODE]
    s[SSD] = x[SSDP]
    s[TBPT] = tbpt
    s[DT] = d_end
    s[ANN] = ann
    s[BLEND] = blend
    s[API_LEVEL] = api / ann
    s[MAX_QH] = max_qh
    s[CAP0] = cap0
    s[P_MEAN] = p_sum / T
    s[P0] = blend / 1e6


@_jit
def scalars(X, M, out):
    """``out[i]`` = the scalars (NS,) of row ``i`` of ``X``."""
    k = np.empty((NV, M))
    for i in range(X.shape[0]):
        _row(X[i], k, out[i])


@_jit
def _npv_fleet(k, s, dem, vec):
    """npv of buy (``vec`` VB) or owned (VO) of one row at demand ``dem`` [USD]: the fleet
    ``ceil(dem Q[t] (1 - EPS))`` at its running maximum, by the node weights."""
    n = 0.0
    a = 0.0
    for t in range(int(s[T_])):
        c = np.ceil(dem * k[Q, t] * (1.0 - EPS))
        if c > n:
            n = c
        a += n * k[vec, t]
    return dem * s[LB] + s[CB] - a


@_jit
def _npv_rent(k, s, dem):
    """npv of rent of one row at demand ``dem`` [USD]: the month's fleet by VR."""
    a = 0.0
    for t in range(int(s[T_])):
        a += np.ceil(dem * k[Q, t] * (1.0 - EPS)) * k[VR, t]
    return dem * s[LB] + s[CB] - a


@_jit
def _npv_h(k, s, dem):
    """npv of the hybrid of one row at demand ``dem`` [USD], and whether it owns a node."""
    nh = 0.0
    top = 0.0
    acc = 0.0
    for t in range(int(s[T_])):
        f = np.floor(dem * k[QH, t] * (1.0 + EPS))
        if f > nh:
            nh = f
        base = nh * k[CAPH, t] if nh > 0.0 else 0.0  # (0 nodes x an infinite capacity)
        served = k[PHI, t] * min(dem * k[GD, t], base)
        if served > top:
            top = served
        acc += k[DP, t] * served - s[SSDTB] * top * k[DD, t] - nh * k[VB, t]
    return acc + (s[CB] if nh > 0 else 0.0), nh > 0


#: demands per block of :func:`npv_grid` (its state: 7 vectors of BLOCK in L1 cache)
BLOCK = 64
# ---- npv_grid's state vectors (offsets in units of BLOCK): the running maxima (fleet,
# hybrid fleet, storage peak), then the sums (buy, owned, rent, hybrid)
RUN, SUMS = 0, 3


@_jit
def _grid_months(st, dems, nb, k, T, ssdtb):
    """The ``T`` months of :func:`npv_grid` for the ``nb`` demands ``dems`` of a block:
    :func:`_npv_fleet`, :func:`_npv_rent` and :func:`_npv_h`'s steps, the demands in the
    inner loop.

    Written for LLVM's loop vectorizer (4 demands per AVX2 instruction): the month's
    factors are scalars and the state lives in one buffer at offsets known at compile
    time. A running maximum is stored as ``max + 0.0`` (the same number: the maxima are
    never -0): stored back plainly where it was read, LLVM turns it into a conditional
    store, a masked store in vector form, slow on x86. The operations and their order per
    demand are those of these functions, so the sums are the same to the bit.
    """
    for t in range(T):
        q = k[Q, t]
        qh = k[QH, t]
        gd = k[GD, t]
        phi = k[PHI, t]
        caph = k[CAPH, t]
        vb = k[VB, t]
        vo = k[VO, t]
        vr = k[VR, t]
        dp = k[DP, t]
        dd = k[DD, t]
        for j in range(nb):
            dem = dems[j]
            c = np.ceil(dem * q * (1.0 - EPS))
            n = st[RUN * BLOCK + j]
            n = c if c > n else n
            st[RUN * BLOCK + j] = n + 0.0
            st[SUMS * BLOCK + j] += n * vb
            st[(SUMS + 1) * BLOCK + j] += n * vo
            st[(SUMS + 2) * BLOCK + j] += c * vr
            f = np.floor(dem * qh * (1.0 + EPS))
            nh = st[(RUN + 1) * BLOCK + j]
            nh = f if f > nh else nh
            st[(RUN + 1) * BLOCK + j] = nh + 0.0
            base = nh * caph if nh > 0.0 else 0.0  # (0 nodes x an infinite capacity)
            served = phi * min(dem * gd, base)
            top = st[(RUN + 2) * BLOCK + j]
            top = served if served > top else top
            st[(RUN + 2) * BLOCK + j] = top + 0.0
            st[(SUMS + 3) * BLOCK + j] += dp * served - ssdtb * top * dd - nh * vb


@_jit
def npv_grid(X, M, demands, level, out):
    """``out[i, j, :]`` = npv of api (0), buy, rent, owned, hybrid of row ``i`` at
    ``demands[j]`` [USD], or its level monthly equivalent (npv / annuity) when ``level``.

    The same numbers, to the bit, as :func:`_npv_one` demand by demand, computed by
    months in blocks of :data:`BLOCK` demands (:func:`_grid_months`).
    """
    nd = demands.shape[0]
    k = np.empty((NV, M))
    s = np.empty(NS)
    st = np.empty((SUMS + 4) * BLOCK)
    dems = np.empty(BLOCK)
    for i in range(X.shape[0]):
        _row(X[i], k, s)
        T = int(s[T_])
        ssdtb = s[SSDTB]
        scale = 1.0 / s[ANN] if level else 1.0
        for j0 in range(0, nd, BLOCK):
            nb = min(BLOCK, nd - j0)
            st[:] = 0.0
            for j in range(nb):
                dems[j] = demands[j0 + j]
            _grid_months(st, dems, nb, k, T, ssdtb)
            for j in range(nb):
                base = dems[j] * s[LB] + s[CB]
                nh = st[(RUN + 1) * BLOCK + j]
                out[i, j0 + j, 0] = 0.0
                out[i, j0 + j, 1] = (base - st[SUMS * BLOCK + j]) * scale
                out[i, j0 + j, 2] = (base - st[(SUMS + 2) * BLOCK + j]) * scale
                out[i, j0 + j, 3] = (base - st[(SUMS + 1) * BLOCK + j]) * scale
                out[i, j0 + j, 4] = (st[(SUMS + 3) * BLOCK + j]
                                     + (s[CB] if nh > 0 else 0.0)) * scale


@_jit
def _npv_one(k, s, dem, which):
    """npv of buy (0), rent (1), owned (2) or hybrid (3) of one row at ``dem`` [USD]; the
    hybrid's is -1 without a node (it breaks even only with one: without, it is the API)."""
    if which == 3:
        h, owns = _npv_h(k, s, dem)
        return h if owns else -1.0
    if which == 1:
        return _npv_rent(k, s, dem)
    return _npv_fleet(k, s, dem, VB if which == 0 else VO)


@_jit
def _bounds(k, s):
    """Per strategy, ``a, b, lo_a, lo_b, q``: ``npv(dem) <= a dem + b`` and (the hybrid
    only; else ``-inf``) ``npv(dem) >= lo_a dem + lo_b`` for every demand, and ``q``, the
    largest node count per unit of demand over the months.

    From ``x <= ceil(x) < x + 1`` (and ``x - 1 < floor(x) <= x``) for the node counts,
    with the running maximum ``Qc[t]`` of D/cap per unit demand: ``n_buy[t] =
    ceil(dem Qc[t])``. The hybrid serves ``phi min(D, n caph)``, between ``phi (D -
    caph)`` and ``phi D``, and its storage peak lies between the month's and the running
    peak of ``phi D``.
    """
    a = np.empty(4)
    b = np.empty(4)
    lo_a = np.full(4, -np.inf)
    lo_b = np.full(4, -np.inf)
    q = np.empty(4)
    qc = 0.0
    qhc = 0.0
    qr = 0.0
    top = 0.0
    a_b = s[LB]
    a_o = s[LB]
    a_r = s[LB]
    a_h = 0.0
    b_b = s[CB]
    b_o = s[CB]
    b_r = s[CB]
    b_h = max(s[CB], 0.0)
    la_h = s[LB]
    lb_h = min(s[CB], 0.0)
    for t in range(int(s[T_])):
        qc = max(qc, k[Q, t] * (1.0 - EPS))
        qhc = max(qhc, k[QH, t] * (1.0 + EPS))
        qr = max(qr, k[Q, t])
        a_b -= qc * k[VB, t]
        a_o -= qc * k[VO, t]
        a_r -= k[Q, t] * (1.0 - EPS) * k[VR, t]
        b_b -= min(0.0, k[VB, t])
        b_o -= min(0.0, k[VO, t])
        b_r -= min(0.0, k[VR, t])
        served = k[PHI, t] * k[GD, t]  # per unit demand
        top = max(top, served)
        a_h += (k[DP, t] - s[SSDTB] * k[DD, t]) * served - qhc * k[VB, t]
        b_h += max(0.0, k[VB, t]) + s[SSDTB] * k[DD, t] * k[PHI, t] * k[CAPH, t]
        la_h -= qhc * k[VB, t]
        lb_h += min(0.0, k[VB, t]) - k[DP, t] * k[PHI, t] * k[CAPH, t]
    a[0], a[1], a[2], a[3] = a_b, a_r, a_o, a_h
    b[0], b[1], b[2], b[3] = b_b, b_r, b_o, b_h
    lo_a[3] = la_h
    lo_b[3] = lb_h
    q[0], q[1], q[2], q[3] = qr, qr, qr, qhc
    return a, b, lo_a, lo_b, q


#: demands per batch of the break-even walks (:func:`_first_nonneg`)
HB = 16


@_jit
def _h_months(st, dems, nb, k, T, ssdtb):
    """:func:`_npv_h`'s months for the ``nb`` demands ``dems``, the demands in the inner
    loop (vectorized as :func:`_grid_months`; state vectors of HB: the hybrid's fleet,
    storage peak and sum)."""
    for t in range(T):
        qh = k[QH, t]
        gd = k[GD, t]
        phi = k[PHI, t]
        caph = k[CAPH, t]
        vb = k[VB, t]
        dp = k[DP, t]
        dd = k[DD, t]
        for j in range(nb):
            dem = dems[j]
            f = np.floor(dem * qh * (1.0 + EPS))
            nh = st[j]
            nh = f if f > nh else nh
            st[j] = nh + 0.0
            base = nh * caph if nh > 0.0 else 0.0  # (0 nodes x an infinite capacity)
            served = phi * min(dem * gd, base)
            top = st[HB + j]
            top = served if served > top else top
            st[HB + j] = top + 0.0
            st[2 * HB + j] += dp * served - ssdtb * top * dd - nh * vb


@_jit
def _first_nonneg(k, s, w, dems, nb, st, vals):
    """The index of the first of the ``nb`` (<= HB) demands ``dems`` where the npv of
    strategy ``w`` is >= 0 (:func:`_npv_one`), or -1. The hybrid's npv at all of them at
    once (:func:`_h_months`, the same numbers to the bit; ``st`` (3 HB,) and ``vals`` (HB,)
    are scratch), the others' one by one up to the first."""
    if w != 3:
        for j in range(nb):
            if _npv_one(k, s, dems[j], w) >= 0.0:
                return j
        return -1
    st[:] = 0.0
    _h_months(st, dems, nb, k, int(s[T_]), s[SSDTB])
    for j in range(nb):
        vals[j] = st[2 * HB + j] + s[CB] if st[j] > 0 else -1.0
    for j in range(nb):
        if vals[j] >= 0.0:
            return j
    return -1


@_jit
def _first_crossing(k, s, w, lo, hi, levels, pts, st, vals):
    """The first demand in (lo, hi] with npv >= 0, given npv(lo) < 0 <= npv(hi): each
    level scans the bracket at 7 interior points (geometric) and keeps the first
    sub-bracket that turns >= 0, so the result is the smallest crossing up to a window
    narrower than an eighth of the bracket at some level. (The 7 points of a level are
    evaluated together by :func:`_first_nonneg`; ``pts``, ``st``, ``vals``: its scratch.)"""
    for _ in range(levels):
        if hi / lo - 1.0 < 1e-13:
            break
        ratio = (hi / lo) ** 0.125
        x = lo
        nb = 0
        for _ in range(7):
            y = x * ratio
            if y >= hi:
                break
            pts[nb] = y
            nb += 1
            x = y
        j = _first_nonneg(k, s, w, pts, nb, st, vals)
        if j >= 0:
            hi = pts[j]
            x = pts[j - 1] if j > 0 else lo
        lo = x
    return hi


@_jit
def _rel_step(dem, q, step, fine, used):
    """The walk's relative step at ``dem``: at most ``step``, at most ``fine`` of a node's
    capacity (``1 / q``), at least MIN_STEP; ``step`` once BUDGET evaluations are used."""
    if used > BUDGET:
        return step
    return max(MIN_STEP, min(step, fine / (dem * q + 1.0)))


@_jit
def _piece_root(k, s, w, x, v, floor_):
    """The root of the linear piece of npv that ends at ``x`` (npv ``v >= 0``) with slope
    LB, no lower than ``floor_``, nudged up until npv >= 0 there (rounding)."""
    r = max(floor_, x - v / s[LB])
    for _ in range(60):
        if r >= x or _npv_one(k, s, r, w) >= 0.0:
            break
        r = min(x, r * (1.0 + 1e-13) + 1e-300)
    return min(r, x)


@_jit
def _walk_exact(k, s, w, a, b, q, lowest, highest, step, fine):
    """Smallest demand with npv >= 0 for buy (w=0), rent (1) or owned (2), with LB > 0.

    Between the demands where a node count changes (``m / Q'[t]``: ``Q' = Qc (1-EPS)``
    for buy and owned, whose fleet is ``ceil(dem Qc[t])``, ``Q (1-EPS)`` for rent) the
    node counts are constant and the npv is linear with slope LB > 0, so on each piece
    ``(b_k, b_k+1]`` its maximum is at the right end. The walk steps up; in a step
    ``(prev, dem]`` the npv is at most ``npv(prev) + (dem - prev)(LB + NQ) + N`` (counts
    only grow; ``N``, ``NQ`` from the weights' negative parts), and only where that bound
    is >= 0 are the piece ends inside the step evaluated. The first piece end with npv
    >= 0 gives the exact root of its piece.
    """
    T = int(s[T_])
    neg = 0.0
    negq = 0.0
    vec = VB if w == 0 else (VR if w == 1 else VO)
    qc = 0.0
    for t in range(T):
        qc = max(qc, k[Q, t])
        qt = k[Q, t] if w == 1 else qc
        if k[vec, t] < 0.0:
            neg -= k[vec, t]
            negq -= qt * (1.0 - EPS) * k[vec, t]
    prev = 1.0
    v_prev = _npv_one(k, s, prev, w)
    dem = lowest
    used = 0
    while dem <= highest:
        v = _npv_one(k, s, dem, w)
        if v_prev + (dem - prev) * (s[LB] + negq) + neg >= 0.0:
            best = np.inf
            v_best = 0.0
            if v >= 0.0:
                best = dem
                v_best = v
            qc = 0.0
            for t in range(T):
                qc = max(qc, k[Q, t])
                qt = (k[Q, t] if w == 1 else qc) * (1.0 - EPS)
                if qt <= 0.0:
                    continue
                m = math.floor(prev * qt) + 1.0
                span = math.floor(dem * qt) - m
                if not span <= 64.0:
                    continue  # a coarse step (past the budget): its ends only
                for c in range(int(span) + 1):  # (counted: m + 1 == m past 2**53)
                    x = (m + c) / qt * (1.0 - 1e-12)
                    if prev < x < best:
                        vx = _npv_one(k, s, x, w)
                        if vx >= 0.0:
                            best = x
                            v_best = vx
                            break
            if best < np.inf:
                return _piece_root(k, s, w, best, v_best, prev)
        used += 1
        nxt = dem * (1.0 + _rel_step(dem, q, step, fine, used))
        bound = a * dem + b
        if bound < -1e-9 * (abs(a * dem) + abs(b)):
            if a <= 0.0:
                return np.inf  # the upper bound only falls: never
            jump = -b / a * (1.0 - 1e-12)
            if jump > nxt:  # no crossing below the bound's root: restart the walk there
                prev = jump
                v_prev = _npv_one(k, s, prev, w)
                dem = jump * (1.0 + _rel_step(jump, q, step, fine, used))
                continue
        prev = dem
        v_prev = v
        dem = nxt
    return np.inf


@_jit
def breakeven(X, M, lowest, highest, step, fine, steps, out):
    """Smallest demand with npv >= 0 per row and strategy: ``out`` (rows, 4) [tokens/month].

    Buy, rent and owned (with a positive margin per token LB): exact, by
    :func:`_walk_exact`. The hybrid (and any strategy with LB <= 0): walks up from
    ``lowest`` to ``highest`` in steps of at most ``step`` (relative) and at most ``fine``
    of one node's capacity in its busiest month, jumping over demands where the linear
    upper bound of :func:`_bounds` is below 0 and stopping where it stays there; the first
    demand with npv >= 0 and the one before bracket a crossing, which
    :func:`_first_crossing` narrows in up to ``steps`` levels (the result is the upper
    end, where npv >= 0). 0 where npv >= 0 already at 1 token/month; ``inf`` where never
    up to ``highest``. The walk's points do not depend on the npv, so it lays out the next
    HB of them and evaluates them together (:func:`_first_nonneg`): the same points and
    result as one at a time.
    """
    k = np.empty((NV, M))
    s = np.empty(NS)
    pts = np.empty(HB)
    vals = np.empty(HB)
    st = np.empty(3 * HB)
    for i in range(X.shape[0]):
        _row(X[i], k, s)
        a, b, lo_a, lo_b, q = _bounds(k, s)
        for w in range(4):
            out[i, w] = np.inf
            if _npv_one(k, s, 1.0, w) >= 0.0:
                out[i, w] = 0.0
                continue
            if w < 3 and s[LB] > 0.0:
                out[i, w] = _walk_exact(k, s, w, a[w], b[w], q[w], lowest, highest, step,
                                        fine)
                continue
            prev = 1.0
            dem = lowest
            # npv >= 0 for sure past the root of the lower bound: the walk ends there
            # (and, for the hybrid, past one node: it breaks even only with one)
            last = highest
            if lo_a[w] > 0.0:
                sure = max(lowest, -lo_b[w] / lo_a[w], 1.0 / q[w]) * (1.0 + 1e-9)
                if sure < highest:  # (False for NaN)
                    last = sure
            used = 0
            while True:
                # the walk's next HB points (fewer where it ends), evaluated together
                nb = 0
                end = False
                while nb < HB:
                    dem = min(dem, last)
                    pts[nb] = dem
                    nb += 1
                    if not dem < last:  # (NaN too)
                        end = True
                        break
                    bound = a[w] * dem + b[w]
                    slack = 1e-9 * (abs(a[w] * dem) + abs(b[w]))
                    used += 1
                    nxt = dem * (1.0 + _rel_step(dem, q[w], step, fine, used))
                    if bound < -slack:
                        if a[w] <= 0.0:
                            end = True  # the bound only falls: never
                            break
                        nxt = max(nxt, -b[w] / a[w] * (1.0 - 1e-12))
                    dem = nxt
                j = _first_nonneg(k, s, w, pts, nb, st, vals)
                if j >= 0:
                    lo = pts[j - 1] if j > 0 else prev
                    out[i, w] = _first_crossing(k, s, w, lo, pts[j], steps, pts, st, vals)
                    break
                if end:
                    break
                prev = pts[nb - 1]


@_jit
def _pv(flows, n, resale, y):
    """Present value of ``flows`` and ``resale`` at the yearly log rate ``y`` and its
    derivative in ``y`` (Horner in the monthly factor ``exp(-y / 12)``)."""
    v = math.exp(-y / 12.0)
    g = resale
    dg = n * resale
    for t in range(n - 1, -1, -1):
        g = g * v + flows[t]
        dg = dg * v + t * flows[t]
    # g = sum_t f_t v^t (+ resale v^n); dg/dy = -(1/12) sum_t t f_t v^t
    return g, -dg / 12.0


@_jit
def _pv2(flows, n, resale, y):
    """:func:`_pv` and the second derivative in ``y``, (1/144) sum_t t^2 f_t v^t: Horner
    in v^2 over the even and the odd months apart (six independent chains, half as long:
    the loop is bound by the latency of its multiply-adds)."""
    v = math.exp(-y / 12.0)
    w = v * v
    m = n // 2  # the top pair of months: 2m (<= n) and 2m + 1 (<= n, or past it)
    te = 2.0 * m
    ce = flows[2 * m] if 2 * m < n else resale
    co = resale if 2 * m + 1 == n else 0.0
    ge = ce
    go = co
    de = te * ce
    do = (te + 1.0) * co
    d2e = te * de
    d2o = (te + 1.0) * do
    for k in range(m - 1, -1, -1):
        te = 2.0 * k
        ce = flows[2 * k]
        co = flows[2 * k + 1]
        ge = ge * w + ce
        go = go * w + co
        de = de * w + te * ce
        do = do * w + (te + 1.0) * co
        d2e = d2e * w + te * (te * ce)
        d2o = d2o * w + (te + 1.0) * ((te + 1.0) * co)
    return ge + v * go, -(de + v * do) / 12.0, (d2e + v * d2o) / 144.0


@_jit
def _pv_ends(flows, n, resale):
    """Present value of ``flows`` and ``resale`` at IRR_LO and IRR_HI (one pass, two
    independent Horner chains)."""
    v_lo = math.exp(-IRR_LO / 12.0)
    v_hi = math.exp(-IRR_HI / 12.0)
    g_lo = resale
    g_hi = resale
    for t in range(n - 1, -1, -1):
        g_lo = g_lo * v_lo + flows[t]
        g_hi = g_hi * v_hi + flows[t]
    return g_lo, g_hi


@_jit
def _changes(acc, prev):
    """Sign of ``acc`` (0 when 0) and whether it differs from the nonzero sign ``prev``."""
    sv = 1.0 if acc > 0.0 else (-1.0 if acc < 0.0 else 0.0)
    return sv, prev != 0.0 and sv != 0.0 and sv != prev


@_jit
def _one_root(flows, n, resale):
    """Whether the present value of ``flows`` and ``resale`` has at most one root in the
    monthly factor v = exp(-y / 12) on each side of v = 1, and none at 1: then the
    bracket [IRR_LO, IRR_HI], when its ends differ in sign, holds exactly one root.

    Descartes' rule of signs on P(v) / (1 - v) = sum_t S_t v^t (``S_t``, the running sums
    of the flows from month 0: roots in 0 < v < 1) and on the reversed polynomial (running
    sums from the horizon: roots v > 1). A running sum within rounding of 0 answers False.
    """
    tiny = 0.0
    for t in range(n):
        tiny += abs(flows[t])
    tiny = 1e-12 * (tiny + abs(resale))
    acc = 0.0
    prev = 0.0
    cs = 0
    for t in range(n + 1):
        acc += flows[t] if t < n else resale
        if abs(acc) <= tiny:
            if t == n:
                return False  # (a root at v = 1, or too close to tell)
            if acc != 0.0:
                return False
        sv, changed = _changes(acc, prev)
        cs += changed
        if sv != 0.0:
            prev = sv
    acc = 0.0
    prev = 0.0
    cr = 0
    for t in range(n, -1, -1):
        acc += flows[t] if t < n else resale
        if abs(acc) <= tiny and acc != 0.0:
            return False
        sv, changed = _changes(acc, prev)
        cr += changed
        if sv != 0.0:
            prev = sv
    return cs <= 1 and cr <= 1


@_jit
def _irr_newton(flows, n, resale, lo, hi):
    """The log rate of :func:`_irr` by safeguarded Newton (bisection when a step leaves the
    bracket ``lo, hi``, oriented so that the present value is < 0 at ``lo``) from
    IRR_GUESS: for flows with more than one sign change, which may have several roots
    (Descartes), this picks the same one whatever the demand before."""
    y = IRR_GUESS  # most returns lie near it: Newton starts there, not mid-bracket
    dx_old = abs(hi - lo)
    dx = dx_old
    for _ in range(200):
        g, dg = _pv(flows, n, resale, y)
        if g == 0.0:
            break
        if g < 0.0:
            lo = y
        else:
            hi = y
        if dg == 0.0 or ((y - hi) * dg - g) * ((y - lo) * dg - g) > 0.0 \
                or abs(2.0 * g) > abs(dx_old * dg):
            dx_old = dx
            dx = 0.5 * (hi - lo)
            y = lo + dx
        else:
            dx_old = dx
            dx = g / dg
            y -= dx
        if abs(dx) < 1e-14 * max(1.0, abs(y)):
            break
    return y


@_jit
def _irr(flows, n, resale, guess):
    """Yearly rate x with sum_t (1+x)**(-t/12) flows[t] + (1+x)**(-n/12) resale = 0.

    NaN when the flows never change sign or the present value has the same sign at both
    ends of the bracket [IRR_LO, IRR_HI] of y = log(1+x). Flows that change sign once have
    one root (Descartes' rule of signs, in ``exp(-y / 12)``): Halley's method on y from the
    log rate ``guess`` (the root at the previous demand; IRR_GUESS where that is NaN or
    outside the bracket), safeguarded by the bracket (a step that leaves it falls back to
    Newton's, then to bisection), converges in 2-3 evaluations. Flows that change sign
    more often go to :func:`_irr_newton`, whose root does not depend on the guess.
    """
    sign = 0.0
    changes = 0
    for t in range(n + 1):
        v = flows[t] if t < n else resale
        if v != 0.0:
            sv = 1.0 if v > 0.0 else -1.0
            if sign != 0.0 and sv != sign:
                changes += 1
            sign = sv
    if changes == 0:
        return np.nan
    lo = IRR_LO
    hi = IRR_HI
    flo, fhi = _pv_ends(flows, n, resale)
    if not (flo * fhi <= 0.0):
        return np.nan
    if flo == 0.0:
        return math.expm1(lo)
    if fhi == 0.0:
        return math.expm1(hi)
    if flo > 0.0:  # orient so that g(lo) < 0 < g(hi)
        lo, hi = hi, lo
    if changes > 1 and not _one_root(flows, n, resale):  # maybe several roots: the
        # one found from IRR_GUESS, as ever
        return math.expm1(_irr_newton(flows, n, resale, lo, hi))
    y = guess if IRR_LO < guess < IRR_HI else IRR_GUESS  # (False for NaN)
    for _ in range(200):
        g, dg, d2g = _pv2(flows, n, resale, y)
        if g == 0.0:
            break
        if g < 0.0:
            lo = y
        else:
            hi = y
        newton = g / dg
        dx = 2.0 * g * dg / (2.0 * dg * dg - g * d2g)  # Halley
        if abs(newton) < IRR_TOL * max(1.0, abs(y)):  # converged: one last step
            y -= dx if abs(dx) <= 2.0 * abs(newton) else newton
            break
        nxt = y - dx
        if not min(lo, hi) < nxt < max(lo, hi):  # (NaN too)
            nxt = y - newton
            if not min(lo, hi) < nxt < max(lo, hi):
                nxt = 0.5 * (lo + hi)
        y = nxt
        if abs(hi - lo) < 1e-15 * max(1.0, abs(y)):
            break
    return math.expm1(y)


#: demands per block of :func:`paths`
PB = 32
# ---- paths' state vectors (offsets in units of PB): payback month and lowest cumulative
# flow of the 4 strategies, then the fleets and sums
PAY_, LOW_ = 0, 4
(N_, TOP_, NH_, TOPH_, PAID_, PAIDH_, RESB_, RESH_, CAPN_, CAPS_, INIT_, CHW_, CPW_, CUP_,
 CST_, CAPI_, FIXH_, CUM_) = range(8, 26)  # CUM_: 4 strategies, to 29
NPB = CUM_ + 4
# ---- paths' month buffer (month, 6, PB): buy's and the hybrid's flows, the cumulative flows
FB_, FH_, CASH_ = 0, 1, 2


@_jit(inline="always")
def _path_months(st, dems, nb, k, sc, T, fl, want_cash):
    """The ``T`` months of :func:`paths` for the ``nb`` demands ``dems`` of a block, the
    demands in the inner loop (vectorized as :func:`_grid_months`): state vectors of PB in
    ``st``, the month's flows of buy and hybrid (and with ``want_cash`` the cumulative
    flows) into ``fl``. ``sc``: the row's scalars (:data:`NS`). Payback month and lowest
    flow are stored ``+ 0.0`` (the same numbers: they are never -0), as the running
    maxima of :func:`_grid_months`. Inlined into :func:`paths`, where LLVM sees that its
    buffers are distinct: called, it would not vectorize."""
    for t in range(T):
        _path_month(st, dems, nb, k, sc, t, T, fl, want_cash)


@_jit(inline="always")
def _path_month(st, dems, nb, k, sc, t, T, fl, want_cash):
    """One month ``t`` of :func:`_path_months`."""
    d = k[D, t]
    gd = k[GD, t]
    p = k[P, t]
    phi = k[PHI, t]
    q = k[Q, t]
    qh = k[QH, t]
    pp = k[PP, t]
    rs = k[RS, t]
    grh = k[GRH, t]
    caph = k[CAPH, t]
    sov = sc[SOV]
    staff = sc[STAFF]
    power = sc[POWER]
    mf12 = sc[MF12]
    own_run = power + mf12 * sc[NODE0]
    tbpt = sc[TBPT]
    ssd = sc[SSD]
    dt = sc[DT]
    t1 = t + 1.0
    first = t == 0
    final = t == T - 1
    for j in range(nb):
        dem = dems[j]
        demand_t = dem * gd
        api = p * demand_t
        # buy, owned, rent: a fleet for all demand
        c = np.ceil(dem * q * (1.0 - EPS))
        n = st[N_ * PB + j]
        new = max(c, n) - n
        n += new
        st[N_ * PB + j] = n
        capex_n = new * pp
        paid = st[PAID_ * PB + j] + capex_n
        st[PAID_ * PB + j] = paid
        res_b = st[RESB_ * PB + j] + capex_n * rs
        st[RESB_ * PB + j] = res_b
        tb = tbpt * phi * demand_t
        top = st[TOP_ * PB + j]
        new_tb = max(tb, top) - top
        st[TOP_ * PB + j] = top + new_tb
        capex_s = new_tb * ssd
        common = phi * api + sov - staff - capex_s
        upkeep = mf12 * paid
        flow0 = common - n * power - upkeep - capex_n
        flow1 = common - c * phi * grh
        flow2 = common - n * own_run
        # hybrid: a base-load fleet, the rest to the API
        f = np.floor(dem * qh * (1.0 + EPS))
        nh = st[NH_ * PB + j]
        new_h = max(f, nh) - nh
        nh += new_h
        st[NH_ * PB + j] = nh
        capex_nh = new_h * pp
        paid_h = st[PAIDH_ * PB + j] + capex_nh
        st[PAIDH_ * PB + j] = paid_h
        res_h = st[RESH_ * PB + j] + capex_nh * rs
        st[RESH_ * PB + j] = res_h
        served = phi * min(demand_t, nh * caph if nh > 0.0 else 0.0)
        tb_h = tbpt * served
        top_h = st[TOPH_ * PB + j]
        new_tbh = max(tb_h, top_h) - top_h
        st[TOPH_ * PB + j] = top_h + new_tbh
        flow3 = (p * served + st[FIXH_ * PB + j] - nh * power - mf12 * paid_h
                 - capex_nh - new_tbh * ssd)
        fl[t, FB_, j] = flow0
        fl[t, FH_, j] = flow3
        st[CAPN_ * PB + j] += capex_n
        st[CAPS_ * PB + j] += capex_s
        if first:
            st[INIT_ * PB + j] = capex_n + capex_s
        st[CHW_ * PB + j] += d * capex_n
        st[CPW_ * PB + j] += d * n * power
        st[CUP_ * PB + j] += d * upkeep
        st[CST_ * PB + j] += d * capex_s
        st[CAPI_ * PB + j] += d * (1.0 - phi) * api
        cum0 = st[CUM_ * PB + j] + d * flow0
        cum1 = st[(CUM_ + 1) * PB + j] + d * flow1
        cum2 = st[(CUM_ + 2) * PB + j] + d * flow2
        cum3 = st[(CUM_ + 3) * PB + j] + d * flow3
        if final:
            cum0 += dt * res_b
            cum3 += dt * res_h
        st[CUM_ * PB + j] = cum0
        st[(CUM_ + 1) * PB + j] = cum1
        st[(CUM_ + 2) * PB + j] = cum2
        st[(CUM_ + 3) * PB + j] = cum3
        for w, cum in ((0, cum0), (1, cum1), (2, cum2), (3, cum3)):
            pay = st[(PAY_ + w) * PB + j]
            low = st[(LOW_ + w) * PB + j]
            st[(PAY_ + w) * PB + j] = (t1 if cum >= 0.0 and pay == np.inf else pay) + 0.0
            st[(LOW_ + w) * PB + j] = (cum if cum < low else low) + 0.0
        if want_cash:
            fl[t, CASH_, j] = cum0
            fl[t, CASH_ + 1, j] = cum1
            fl[t, CASH_ + 2, j] = cum2
            fl[t, CASH_ + 3, j] = cum3


@_jit
def paths(X, M, demands, want_irr, want_cash, res, irr, cash):
    """Month-by-month flows of buy, rent, owned, hybrid of every row at every demand.

    Fills ``res`` (rows, demands, NRES): payback month, peak cash need, buy's fleet and
    storage at the horizon, buy's capex, buy's level cost by component and the npv;
    ``irr`` (rows, demands, 2) of buy and hybrid when ``want_irr``; ``cash`` (rows,
    demands, months, 4), the cumulative discounted flow, when ``want_cash`` (months past a
    row's horizon repeat its final value).

    By months in blocks of :data:`PB` demands (:func:`_path_months`); per demand, the
    operations of MODEL.md's month-by-month loop in its order. The hybrid owns a node
    at the horizon where ``floor(dem max_t QH[t] (1 + EPS)) > 0`` (MAX_QH: the running
    maximum of the monotone node count). The irr starts from the root at the previous
    demand (:func:`_irr`).
    """
    k = np.empty((NV, M))
    s = np.empty(NS)
    fb = np.empty(M)
    fh = np.empty(M)
    st = np.empty(NPB * PB)
    fl = np.empty((M, 6, PB))
    dems = np.empty(PB)
    for i in range(X.shape[0]):
        _row(X[i], k, s)
        T = int(s[T_])
        y_b = IRR_GUESS  # the log rates found at the previous demand: the next guesses
        y_h = IRR_GUESS
        for j0 in range(0, demands.shape[0], PB):
            nb = min(PB, demands.shape[0] - j0)
            st[:] = 0.0
            for j in range(nb):
                dems[j] = demands[j0 + j]
                for w in range(4):
                    st[(PAY_ + w) * PB + j] = np.inf
                nh_end = np.floor(dems[j] * s[MAX_QH] * (1.0 + EPS))
                st[FIXH_ * PB + j] = (s[SOV] - s[STAFF]) if nh_end > 0 else 0.0
            _path_months(st, dems, nb, k, s, T, fl, want_cash)
            for jj in range(nb):
                j = j0 + jj
                for w in range(4):
                    res[i, j, PAY + w] = st[(PAY_ + w) * PB + jj]
                    res[i, j, PEAK + w] = -st[(LOW_ + w) * PB + jj]
                    res[i, j, NPV + w] = st[(CUM_ + w) * PB + jj]
                if not np.floor(dems[jj] * s[MAX_QH] * (1.0 + EPS)) > 0:
                    res[i, j, PAY + 3] = 0.0  # a hybrid without a node is the API: it
                    # never spends ahead
                res_b = st[RESB_ * PB + jj]
                res[i, j, NODES] = st[N_ * PB + jj]
                res[i, j, TB] = st[TOP_ * PB + jj]
                res[i, j, INIT] = st[INIT_ * PB + jj]
                res[i, j, CAPN] = st[CAPN_ * PB + jj]
                res[i, j, CAPS] = st[CAPS_ * PB + jj]
                ann = s[ANN]
                res[i, j, COMP + 0] = (st[CHW_ * PB + jj] - s[DT] * res_b) / ann
                res[i, j, COMP + 1] = st[CPW_ * PB + jj] / ann
                res[i, j, COMP + 2] = st[CUP_ * PB + jj] / ann
                res[i, j, COMP + 3] = st[CST_ * PB + jj] / ann
                res[i, j, COMP + 4] = s[STAFF]
                res[i, j, COMP + 5] = st[CAPI_ * PB + jj] / ann
                if want_cash:
                    for t in range(M):
                        for w in range(4):
                            cash[i, j, t, w] = fl[min(t, T - 1), CASH_ + w, jj]
                if want_irr:
                    for t in range(T):
                        fb[t] = fl[t, FB_, jj]
                        fh[t] = fl[t, FH_, jj]
                    irr[i, j, 0] = _irr(fb, T, res_b, y_b)
                    irr[i, j, 1] = _irr(fh, T, st[RESH_ * PB + jj], y_h)
                    y_b = math.log1p(irr[i, j, 0]) if irr[i, j, 0] == irr[i, j, 0] else y_b
                    y_h = math.log1p(irr[i, j, 1]) if irr[i, j, 1] == irr[i, j, 1] else y_h
