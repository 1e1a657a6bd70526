"""Month-by-month kernels of the TCO model, version 2 (numba, one row and demand at a time).

The demand-independent factors of every row (price paths, capacity, discount factors and
the weights built from them) are computed once per row in numpy by :mod:`.tco` and packed
as ``K`` (rows, vector, month) and ``S`` (rows, scalar); the kernels loop over rows,
demands and months with everything that depends on the demand (node counts, served tokens,
storage) held in registers. Kernels are compiled once (``cache=True``) and release the GIL,
so the engine's thread workers run them in parallel.

Strategy order in every kernel output: buy, rent, owned, hybrid (the model's strategies
without ``api``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

# ---- vector rows of K (per row, per month)
Q, QH, GD, PHI, CAPH, VB, VO, VR, DP, DD, PP, GRH, D, P, RS = range(15)
NV = 15
# ---- scalars of S (per row)
T_, SSDTB, LB, CB, STAFF, SOV, POWER, MF12, NODE0, SSD, TBPT, DT, ANN = range(13)
NS = 13
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

_JIT = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


@njit(**_JIT)
def _npv_bor(k, s, dem):
    """npv of buy, rent and owned of one row at demand ``dem`` [USD]."""
    n = 0.0
    ab = 0.0
    ao = 0.0
    ar = 0.0
    for t in range(int(s[T_])):
        c = math.ceil(dem * k[Q, t] * (1.0 - EPS))
        if c > n:
            n = c
        ab += n * k[VB, t]
        ao += n * k[VO, t]
        ar += c * k[VR, t]
    base = dem * s[LB] + s[CB]
    return base - ab, base - ar, base - ao


@njit(**_JIT)
def _npv_h(k, s, dem):
    """npv of the hybrid of one row at demand ``dem`` [USD]."""
    nh = 0.0
    top = 0.0
    acc = 0.0
    for t in range(int(s[T_])):
        f = math.floor(dem * k[QH, t] * (1.0 + EPS))
        if f > nh:
            nh = f
        served = k[PHI, t] * min(dem * k[GD, t], nh * k[CAPH, t])
        if served > top:
            top = served
        acc += k[DP, t] * served - s[SSDTB] * top * k[DD, t] - nh * k[VB, t]
    return acc + (s[CB] if nh > 0 else 0.0), nh > 0


@njit(**_JIT)
def npv_grid(K, S, demands, out):
    """``out[i, j, :]`` = npv of buy, rent, owned, hybrid of row ``i`` at ``demands[j]``."""
    for i in range(K.shape[0]):
        k = K[i]
        s = S[i]
        for j in range(demands.shape[0]):
            b, r, o = _npv_bor(k, s, demands[j])
            out[i, j, 0] = b
            out[i, j, 1] = r
            out[i, j, 2] = o
            out[i, j, 3] = _npv_h(k, s, demands[j])[0]


@njit(**_JIT)
def _npv_one(k, s, dem, which):
    if which == 3:  # the hybrid breaks even only with a node (without, it is the API)
        h, owns = _npv_h(k, s, dem)
        return h if owns else -1.0
    b, r, o = _npv_bor(k, s, dem)
    return b if which == 0 else (r if which == 1 else o)


@njit(**_JIT)
def breakeven(K, S, scan, steps, out):
    """Smallest demand with npv >= 0 per row and strategy: ``out`` (rows, 4) [tokens/month].

    The npv is evaluated at the increasing demands ``scan``; the first point where it is
    >= 0 brackets a crossing with the point before, which ``steps`` geometric bisections
    narrow (the result is the upper end, where npv >= 0). 0 where npv >= 0 already at
    ``scan[0]`` (the first token); ``inf`` where never up to ``scan[-1]``.
    """
    for i in range(K.shape[0]):
        k = K[i]
        s = S[i]
        for w in range(4):
            out[i, w] = np.inf
        left = 4
        for j in range(scan.shape[0]):
            dem = scan[j]
            b, r, o = _npv_bor(k, s, dem)
            h, owns = _npv_h(k, s, dem)
            if not owns:
                h = -1.0
            vals = (b, r, o, h)
            for w in range(4):
                if out[i, w] == np.inf and vals[w] >= 0.0:
                    if j == 0:
                        out[i, w] = 0.0
                    else:
                        lo = scan[j - 1]
                        hi = dem
                        for _ in range(steps):
                            mid = math.sqrt(lo * hi)
                            if mid <= lo or mid >= hi:
                                break
                            if _npv_one(k, s, mid, w) >= 0.0:
                                hi = mid
                            else:
                                lo = mid
                        out[i, w] = hi
                    left -= 1
            if left == 0:
                break


@njit(**_JIT)
def _irr(flows, n, resale):
    """Yearly rate x with sum_t (1+x)**(-t/12) flows[t] + (1+x)**(-n/12) resale = 0.

    Safeguarded Newton (bisection when a step leaves the bracket) on y = log(1+x) within
    [IRR_LO, IRR_HI]; NaN when the flows never change sign or the bracket holds no sign
    change of the present value.
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
    flo = _pv(flows, n, resale, lo)
    fhi = _pv(flows, n, resale, hi)
    if not (flo * fhi <= 0.0):
        return np.nan
    if flo == 0.0:
        return math.expm1(lo)
    if fhi == 0.0:
        return math.expm1(hi)
    if flo > 0.0:  # orient so that g(lo) < 0 < g(hi)
        lo, hi = hi, lo
    y = 0.5 * (lo + hi)
    dx_old = abs(hi - lo)
    dx = dx_old
    for _ in range(200):
        g, dg = _pv_d(flows, n, resale, y)
        if g == 0.0:
            break
        if g < 0.0:
            lo = y
        else:
            hi = y
        newton_out = dg == 0.0 or ((y - hi) * dg - g) * ((y - lo) * dg - g) > 0.0
        if newton_out or abs(2.0 * g) > abs(dx_old * dg):
            dx_old = dx
            dx = 0.5 * (hi - lo)
            y = lo + dx
        else:
            dx_old = dx
            dx = g / dg
            y -= dx
        if abs(dx) < 1e-13 * max(1.0, abs(y)):
            break
    return math.expm1(y)


@njit(**_JIT)
def _pv(flows, n, resale, y):
    acc = resale * math.exp(-y * n / 12.0)
    for t in range(n):
        acc += flows[t] * math.exp(-y * t / 12.0)
    return acc


@njit(**_JIT)
def _pv_d(flows, n, resale, y):
    e = math.exp(-y * n / 12.0)
    g = resale * e
    dg = -n / 12.0 * resale * e
    for t in range(n):
        e = math.exp(-y * t / 12.0)
        g += flows[t] * e
        dg -= t / 12.0 * flows[t] * e
    return g, dg


@njit(**_JIT)
def paths(K, S, demands, want_irr, want_cash, res, irr, cash):
    """Month-by-month flows of buy, rent, owned, hybrid of every row at every demand.

    Fills ``res`` (rows, demands, NRES): payback month, peak cash need, buy's fleet and
    storage at the horizon, buy's capex, buy's level cost by component and the npv;
    ``irr`` (rows, demands, 2) of buy and hybrid when ``want_irr``; ``cash`` (rows,
    demands, months, 4), the cumulative discounted flow, when ``want_cash`` (months past a
    row's horizon repeat its final value).
    """
    M = K.shape[2]
    fb = np.empty(M)
    fh = np.empty(M)
    cum = np.empty(4)
    low = np.empty(4)
    flow = np.empty(4)
    for i in range(K.shape[0]):
        k = K[i]
        s = S[i]
        T = int(s[T_])
        for j in range(demands.shape[0]):
            dem = demands[j]
            nh_end = 0.0
            for t in range(T):
                nh_end = max(nh_end, math.floor(dem * k[QH, t] * (1.0 + EPS)))
            fixed_h = (s[SOV] - s[STAFF]) if nh_end > 0 else 0.0
            n = 0.0
            paid = 0.0
            top = 0.0
            nh = 0.0
            paid_h = 0.0
            top_h = 0.0
            res_b = 0.0
            res_h = 0.0
            capn = 0.0
            caps = 0.0
            init = 0.0
            c_hw = 0.0
            c_pw = 0.0
            c_up = 0.0
            c_st = 0.0
            c_api = 0.0
            for w in range(4):
                cum[w] = 0.0
                low[w] = 0.0
                res[i, j, PAY + w] = np.inf
            for t in range(T):
                d = k[D, t]
                demand_t = dem * k[GD, t]
                api = k[P, t] * demand_t
                phi = k[PHI, t]
                # buy, owned, rent: a fleet for all demand
                c = math.ceil(dem * k[Q, t] * (1.0 - EPS))
                new = max(c, n) - n
                n += new
                capex_n = new * k[PP, t]
                paid += capex_n
                res_b += capex_n * k[RS, t]
                tb = s[TBPT] * phi * demand_t
                new_tb = max(tb, top) - top
                top += new_tb
                capex_s = new_tb * s[SSD]
                common = phi * api + s[SOV] - s[STAFF] - capex_s
                upkeep = s[MF12] * paid
                flow[0] = common - n * s[POWER] - upkeep - capex_n
                flow[1] = common - c * phi * k[GRH, t]
                flow[2] = common - n * (s[POWER] + s[MF12] * s[NODE0])
                # hybrid: a base-load fleet, the rest to the API
                f = math.floor(dem * k[QH, t] * (1.0 + EPS))
                new_h = max(f, nh) - nh
                nh += new_h
                capex_nh = new_h * k[PP, t]
                paid_h += capex_nh
                res_h += capex_nh * k[RS, t]
                served = phi * min(demand_t, nh * k[CAPH, t])
                tb_h = s[TBPT] * served
                new_tbh = max(tb_h, top_h) - top_h
                top_h += new_tbh
                flow[3] = (k[P, t] * served + fixed_h - nh * s[POWER] - s[MF12] * paid_h
                           - capex_nh - new_tbh * s[SSD])
                fb[t] = flow[0]
                fh[t] = flow[3]
                capn += capex_n
                caps += capex_s
                if t == 0:
                    init = capex_n + capex_s
                c_hw += d * capex_n
                c_pw += d * n * s[POWER]
                c_up += d * upkeep
                c_st += d * capex_s
                c_api += d * (1.0 - phi) * api
                for w in range(4):
                    cum[w] += d * flow[w]
                if t == T - 1:
                    cum[0] += s[DT] * res_b
                    cum[3] += s[DT] * res_h
                for w in range(4):
                    if cum[w] >= 0.0 and res[i, j, PAY + w] == np.inf:
                        res[i, j, PAY + w] = t + 1.0
                    if cum[w] < low[w]:
                        low[w] = cum[w]
                    if want_cash:
                        cash[i, j, t, w] = cum[w]
            if want_cash:
                for t in range(T, M):
                    for w in range(4):
                        cash[i, j, t, w] = cum[w]
            for w in range(4):
                res[i, j, PEAK + w] = -low[w]
                res[i, j, NPV + w] = cum[w]
            res[i, j, NODES] = n
            res[i, j, TB] = top
            res[i, j, INIT] = init
            res[i, j, CAPN] = capn
            res[i, j, CAPS] = caps
            a = s[ANN]
            res[i, j, COMP + 0] = (c_hw - s[DT] * res_b) / a
            res[i, j, COMP + 1] = c_pw / a
            res[i, j, COMP + 2] = c_up / a
            res[i, j, COMP + 3] = c_st / a
            res[i, j, COMP + 4] = s[STAFF]
            res[i, j, COMP + 5] = c_api / a
            if want_irr:
                irr[i, j, 0] = _irr(fb, T, res_b)
                irr[i, j, 1] = _irr(fh, T, res_h)
