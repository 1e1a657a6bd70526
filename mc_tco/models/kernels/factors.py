"""The demand-independent factors of one row of inputs: the row buffers ``k`` (vectors
over the months) and ``s`` (scalars) of :mod:`.layout`, which every other kernel reads."""

from __future__ import annotations

import math

import numpy as np

from .jit import jit
from .layout import (
    ANN,
    API_CHG,
    API_LEVEL,
    BLEND,
    CAP0,
    CAPH,
    CB,
    DAYS_PER_MONTH,
    DD,
    DEP,
    DISC,
    DP,
    DT,
    ELEC,
    FINAL,
    FTE,
    FTE_COST,
    GD,
    GRH,
    GROWTH,
    HIT,
    HITRATE,
    HORIZON,
    HOURS_PER_MONTH,
    HUTIL,
    HW_CHG,
    KVKB,
    KW,
    LB,
    LEARN,
    LEVEL,
    MAINT,
    MAX_QH,
    MF12,
    MISS,
    MULT,
    NODE,
    NODE0,
    NV,
    OSHARE,
    OUT,
    OVER,
    P0,
    P_MEAN,
    PHI,
    POWER,
    PP,
    PUE,
    QH,
    RAMP,
    REF,
    REG,
    RENT,
    RS,
    SETUP,
    SOV,
    SOVV,
    SSD,
    SSDP,
    SSDTB,
    STAFF,
    T_,
    TBPT,
    TTL,
    UNIQUE,
    UTIL,
    VB,
    VO,
    VR,
    D,
    G,
    P,
    Q,
)


@jit
def _months(horizon_years: float) -> int:
    """``round(12 * horizon_years)`` (half to even, as numpy), at least 1."""
    v = 12.0 * horizon_years
    r = math.floor(v)
    if v - r > 0.5 or (v - r == 0.5 and r % 2 == 1):
        r += 1
    return max(1, int(r))


@jit
def months(X: np.ndarray) -> int:
    """The longest horizon of the rows of ``X``, in months."""
    m = 1
    for i in range(X.shape[0]):
        m = max(m, _months(X[i, HORIZON]))
    return m


@jit
def row(x: np.ndarray, k: np.ndarray, s: np.ndarray) -> None:
    """Fill ``k`` (NV, months) and ``s`` (NS,) with the demand-independent factors of the
    row of inputs ``x`` (in :data:`.layout.COLUMNS` order): MODEL.md's paths of demand per unit of
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


@jit
def scalars(X: np.ndarray, M: int, out: np.ndarray) -> None:
    """``out[i]`` = the scalars (NS,) of row ``i`` of ``X``."""
    k = np.empty((NV, M))
    for i in range(X.shape[0]):
        row(X[i], k, out[i])
