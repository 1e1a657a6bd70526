"""One scenario at one demand, month by month, version 3 (``shared/MODEL.md``): the six
strategies' costs, taxes, flows and everything read from them (:func:`cell`).

A row's demand-independent factors come from :func:`.rows.row_factors`; ``W`` is the
cell's scratch (:data:`NW` rows of months), ``Z`` its small state (:data:`NZ`, 6).
Strategy index: 0 api, 1 buy, 2 rent, 3 reserved, 4 owned, 5 hybrid. The results go to
``out`` at the offsets below (six entries where a strategy index follows).
"""

from __future__ import annotations

import math

import numpy as np

from .hybrid import eta, load_share, n_star
from .irr import IRR_GUESS, yearly_irr
from .jit import jit
from .rows import (
    A_,
    B_,
    BONUS,
    CAP,
    CNODE,
    COLO,
    DISC,
    DU,
    E1,
    EXIT,
    G_,
    HOURS_PER_MONTH,
    HP,
    KEEP,
    LIFE,
    LUMPM,
    MF12,
    NET,
    NODE0,
    ORES,
    PBAR,
    PC,
    PHI,
    PN,
    POWER,
    RESD,
    RN,
    SELF,
    SFULL,
    SOV,
    SPARE,
    SSD,
    STAFF,
    START,
    STOK,
    T_,
    TAX,
    TBPT,
    TERM,
    TOL,
    UTIL,
)

# ---- out: per strategy (6 each), then buy's and the hybrid's scalars, buy's components
# (the npv, level cost and cost per Mtok are :func:`.npv.npv_cell`'s and :mod:`.block`'s)
PAY, PEAK, SPAY, SPEAK, IRR = (6 * i for i in range(5))
(NODES, TBMAX, INIT, INV_NODE, INV_NET, INV_SSD, FLEETU, HYBS) = range(30, 38)
COMP = 38
COMPONENTS = ("hardware", "network", "power", "colocation", "upkeep", "storage", "staff",
              "setup_api", "tax")
NOUT = COMP + len(COMPONENTS)
# ---- W: months of the cell
NEED, NRES, T0, INRES, FLOWB, FLOWH = range(6)
DIFF = 6  # 6 .. 11: straight-line depreciation ending, per strategy
NW = 12
# ---- Z: (NZ, 6) per-strategy state
(COST, CAPX, TBS, SLOPE, DEPS, CAPS, CUM, CUMN, LOW, LOWN, PAYS, PAYN, BACK, LUMP,
 RESALE) = range(15)
NZ = 15


@jit(inline="always")
def ceil_tol(v: float) -> float:
    """``ceil(v - 1e-9 max(1, |v|))``."""
    return math.ceil(v - TOL * max(1.0, abs(v)))


@jit
def cell(V: np.ndarray, S: np.ndarray, dem: float, W: np.ndarray, Z: np.ndarray,
         buf: np.ndarray, out: np.ndarray, paths: bool, want_irr: bool,
         cash: np.ndarray, year: np.ndarray, want_cash: bool) -> None:
    """Every output of one row at the demand ``dem`` into ``out`` (see the module).

    ``paths``: also payback, peak cash and the irr (``want_irr``); ``want_cash``: the
    cumulative discounted flow of every month into ``cash`` (month, 6) and the nominal
    cash by year into ``year`` (year, 6).
    """
    T, ex, lm = int(S[T_]), int(S[EXIT]), int(S[LUMPM])
    a, hp, b, ut = S[A_], S[HP], S[B_], S[UTIL]
    e1, sf = S[E1], S[SFULL]
    power, colo, staff0, tbpt, ssd = S[POWER], S[COLO], S[STAFF], S[TBPT], S[SSD]
    mf12, keep, net, G = S[MF12], S[KEEP], S[NET], S[G_]
    rate, life, bonus = S[TAX], S[LIFE], S[BONUS]
    # ---- fleets for all demand, the reserved terms
    own_top = 0.0
    for t in range(T):
        D = dem * V[DU, t]
        x = D * a / (V[CAP, t] * ut)
        k = max(0.0, ceil_tol(x))
        while k * eta(k, e1, sf) < x - TOL * max(1.0, x):
            k += 1.0
        W[NEED, t] = k + ceil_tol(S[SPARE] * k)
        W[NRES, t] = 0.0
        W[INRES, t] = 0.0
        W[T0, t] = 0.0
        if t < ex:
            own_top = max(own_top, W[NEED, t])
    term = int(S[TERM])
    start = S[START]
    while start < ex:
        s0 = int(start)
        end = min(s0 + term, T)
        top = 0.0
        for t in range(s0, end):
            top = max(top, W[NEED, t])
        for t in range(s0, end):
            W[NRES, t] = top
            W[T0, t] = s0
            W[INRES, t] = 1.0
        start += term
    Z[:, :] = 0.0
    for s in range(6):
        Z[PAYS, s] = math.inf
        Z[PAYN, s] = math.inf
        for t in range(T + 1):
            W[DIFF + s, t] = 0.0
    owned_out = own_top * V[PN, 0] * S[ORES]
    Z[CUM, 4] = -owned_out
    Z[CUMN, 4] = -owned_out
    d_ex = V[DISC, ex]
    sum_served = sum_full = sum_hyb = sum_dem = 0.0
    nb_top = nb_prev = nh_top = nh_prev = 0.0
    part_b_sum = part_h_sum = res_b = res_h = hw_d = 0.0
    owns = False
    for i in range(NOUT):
        out[i] = 0.0
    for t in range(T):
        D = dem * V[DU, t]
        p, d, phi, alive_self = V[PC, t], V[DISC, t], V[PHI, t], V[SELF, t]
        api = p * D
        before = t < ex
        staff = staff0 if before else 0.0
        # buy: bought when needed, sold at exit
        nb_top = max(nb_top, W[NEED, t])
        nbt = nb_top if before else 0.0
        part_b = max(0.0, nbt - nb_prev) * V[PN, t]
        nb_prev = nbt
        part_b_sum += part_b
        hw_d += d * part_b
        if part_b > 0.0:
            res_b += part_b * keep ** ((ex - t) / 12.0)
        # the hybrid: the month's largest best fleet, never sold before exit
        cu = V[CAP, t] * ut
        # (after exit its fleet is 0 whatever the rule picks: not asked)
        ns = n_star(D, cu, (V[PBAR, t] - V[STOK, t]) * D, V[CNODE, t], staff, a, hp, b, e1,
                    sf, buf) if before else 0.0
        nh_top = max(nh_top, ns)
        nht = nh_top if before else 0.0
        part_h = max(0.0, nht - nh_prev) * V[PN, t]
        nh_prev = nht
        part_h_sum += part_h
        if part_h > 0.0:
            res_h += part_h * keep ** ((ex - t) / 12.0)
        if nht > 0.0:
            owns = True
        if nht == 0.0:
            y = 0.0
        elif D == 0.0:
            y = math.inf
        else:
            y = nht * eta(nht, e1, sf) * cu / D
        served_h = phi * D * load_share(y, a, hp, b)
        served, served_r = phi * D, W[INRES, t] * alive_self * D
        # storage: the running maximum of the stored terabytes
        tb = max(Z[TBS, 1], tbpt * served)
        ssd_b = (tb - Z[TBS, 1]) * ssd
        Z[TBS, 1] = tb
        tb = max(Z[TBS, 3], tbpt * served_r)
        ssd_r = (tb - Z[TBS, 3]) * ssd
        Z[TBS, 3] = tb
        tb = max(Z[TBS, 5], tbpt * served_h)
        ssd_h = (tb - Z[TBS, 5]) * ssd
        Z[TBS, 5] = tb
        rest = (1.0 - phi) * api
        up_b = mf12 * part_b_sum if before else 0.0
        up_h = mf12 * part_h_sum if before else 0.0
        rent = W[NEED, t] * phi * G * V[RN, t] * HOURS_PER_MONTH
        res = W[NRES, t] * G * V[RN, int(W[T0, t])] * (1.0 - S[RESD]) * HOURS_PER_MONTH
        Z[COST, 0] = api
        Z[COST, 1] = staff + nbt * (power + colo) + up_b + part_b * (1 + net) + ssd_b + rest
        Z[COST, 2] = staff + rent + ssd_b + rest
        Z[COST, 3] = staff + res + ssd_r + (1.0 - W[INRES, t] * alive_self) * api
        Z[COST, 4] = staff + nbt * (power + colo + mf12 * S[NODE0]) + ssd_b + rest
        Z[COST, 5] = ((staff if owns else 0.0) + nht * (power + colo) + up_h
                      + part_h * (1 + net) + ssd_h + api - p * served_h)
        Z[CAPX, 1] = part_b * (1 + net) + ssd_b
        Z[CAPX, 2] = ssd_b
        Z[CAPX, 3] = ssd_r
        Z[CAPX, 4] = ssd_b
        Z[CAPX, 5] = part_h * (1 + net) + ssd_h
        sum_served += served
        sum_full += nbt * V[CAP, t]
        sum_hyb += served_h
        sum_dem += D
        if t == 0:
            out[INIT] = Z[CAPX, 1]
        out[INV_NET] += part_b * net
        out[INV_SSD] += ssd_b
        out[TBMAX] = max(out[TBMAX], Z[TBS, 1])
        out[NODES] = max(out[NODES], nbt)
        for s in range(1, 6):
            cx = Z[CAPX, s]
            tax = 0.0
            if rate != 0.0:
                Z[SLOPE, s] -= W[DIFF + s, t]
                if cx != 0.0:
                    c = cx * (1.0 - bonus) / life
                    Z[SLOPE, s] += c
                    e = math.ceil(t + life)
                    if e < T:
                        W[DIFF + s, e] += c
                dep = Z[SLOPE, s] + bonus * cx if before else 0.0
                Z[DEPS, s] += dep
                Z[CAPS, s] += cx
                tax = rate * (api - (Z[COST, s] - cx) - dep)
            flow = api - Z[COST, s] - tax + (S[SOV] * alive_self if s != 5 else 0.0)
            if s == 1:
                W[FLOWB, t] = flow
                out[COMP + 2] += d * nbt * power
                out[COMP + 3] += d * nbt * colo
                out[COMP + 4] += d * up_b
                out[COMP + 5] += d * ssd_b
                out[COMP + 6] += d * staff
                out[COMP + 7] += d * rest
                out[COMP + 8] += d * tax
            elif s == 5:
                W[FLOWH, t] = flow
            if t == lm:  # the lump at exit: resale less the tax on its gain over book value
                resale = res_b if s == 1 else (res_h if s == 5 else 0.0)
                tax_exit = rate * (resale - (Z[CAPS, s] - Z[DEPS, s]))
                Z[LUMP, s] = resale - tax_exit
                Z[RESALE, s] = resale
                Z[BACK, s] = resale
                if s == 4:
                    back = owned_out * keep ** (ex / 12.0)
                    Z[LUMP, s] += back
                    Z[BACK, s] += back
                if s == 1:
                    out[COMP + 8] += d_ex * tax_exit
            if paths:
                lump = Z[LUMP, s] if t == lm else 0.0
                Z[CUM, s] += d * flow + d_ex * lump
                Z[CUMN, s] += flow + lump
                Z[LOW, s] = min(Z[LOW, s], Z[CUM, s])
                Z[LOWN, s] = min(Z[LOWN, s], Z[CUMN, s])
                counts = s != 5 or owns  # the hybrid's payback runs from its first node
                if counts and Z[PAYS, s] == math.inf and Z[CUM, s] >= 0.0:
                    Z[PAYS, s] = t + 1.0
                if counts and Z[PAYN, s] == math.inf and Z[CUMN, s] >= 0.0:
                    Z[PAYN, s] = t + 1.0
                if want_cash:
                    cash[t, s] = Z[CUM, s]
        if want_cash:
            cash[t, 0] = 0.0
            yr = t // 12
            if t % 12 == 0:
                for s in range(6):
                    year[yr, s] = 0.0
            for s in range(6):
                year[yr, s] += Z[COST, s]
                if t == lm:
                    year[yr, s] -= Z[BACK, s]
    ann = 0.0
    for t in range(T):
        ann += V[DISC, t]
    for s in range(6):
        out[IRR + s] = math.nan
        never = s == 0 or (s == 5 and not owns)
        if paths:
            out[PAY + s] = 0.0 if never else Z[PAYS, s]
            out[SPAY + s] = 0.0 if never else Z[PAYN, s]
            out[PEAK + s] = 0.0 if never else -Z[LOW, s]
            out[SPEAK + s] = 0.0 if never else -Z[LOWN, s]
    out[COMP + 0] = hw_d - d_ex * res_b
    out[COMP + 1] = hw_d * net
    for i in range(len(COMPONENTS)):
        out[COMP + i] /= ann
    out[INV_NODE] = part_b_sum
    out[FLEETU] = sum_served / sum_full if sum_full > 0.0 else math.nan
    out[HYBS] = sum_hyb / sum_dem if sum_dem > 0.0 else math.nan
    if paths and want_irr:
        out[IRR + 1] = yearly_irr(W[FLOWB], ex, Z[LUMP, 1], IRR_GUESS)
        out[IRR + 5] = yearly_irr(W[FLOWH], ex, Z[LUMP, 5], IRR_GUESS)
