"""The npv of one strategy of one row at one demand (:func:`npv_one`): what the break-even
search's narrowing (:func:`.grid.breakeven`) evaluates, a strategy at a time.

:func:`.npv.npv_cell`'s month loop with only the terms the strategy's npv reads: the same
operations in the same order, so the same number bit for bit (tested against it), without
the others' work. Buy, rent, reserved and owned skip the hybrid's rule (:func:`.hybrid.
n_star`, most of a cell's work); the hybrid skips the fleet for the busiest hour and the
reserved terms (:func:`.npv.fleet`).
"""

from __future__ import annotations

import math

import numpy as np

from .hybrid import eta, load_share, n_star
from .jit import jit
from .npv import W_IN, W_NEED, W_NRES, W_T0, _dep, depreciated, fleet
from .rows import (
    A_,
    B_,
    BONUS,
    CAP,
    CDISC,
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
    SSD,
    STAFF,
    STOK,
    T_,
    TAX,
    TBPT,
    UTIL,
)


@jit
def npv_one(V: np.ndarray, S: np.ndarray, dem: float, W: np.ndarray, buf: np.ndarray,
            s: int) -> tuple[float, float]:
    """Strategy ``s``'s npv (1 buy .. 5 hybrid) of one row at ``dem``, as
    :func:`.npv.npv_cell` gives it, and the hybrid's largest fleet (``HYB_TOP``; 0 for the
    others). ``W``: (>= :data:`.npv.NW_NPV`, months) scratch; ``buf``: the hybrid rule's."""
    T, ex = int(S[T_]), int(S[EXIT])
    a, hp, b, ut, e1, sf = S[A_], S[HP], S[B_], S[UTIL], S[E1], S[SFULL]
    power, colo, staff0, tbpt, ssd = S[POWER], S[COLO], S[STAFF], S[TBPT], S[SSD]
    mf12, keep, net, G, sov = S[MF12], S[KEEP], S[NET], S[G_], S[SOV]
    rate, life, bonus = S[TAX], S[LIFE], S[BONUS]
    res_price = G * (1.0 - S[RESD]) * HOURS_PER_MONTH
    hyb = s == 5
    nb = s == 1 or s == 4  # buy's fleet (owned holds it too)
    sb = s == 1 or s == 2 or s == 4  # buy's SSDs (rent's and owned's)
    own_top = 0.0 if hyb else fleet(V, S, dem, W)
    cd = V[CDISC]
    c = 0.0  # sum d (api - cost)
    x1 = x3 = x5 = xs = 0.0  # sum d capex (xs: buy's SSDs, also rent's and owned's)
    p1 = p3 = p5 = ps = 0.0  # discounted depreciation
    b1 = b3 = b5 = bs = 0.0  # book value at exit
    r1 = r5 = 0.0  # resale at exit
    g1 = g3 = g5 = gs = u1 = u3 = u5 = us = e1_ = e3 = e5 = es = 0.0  # moments of purchases
    long_life = life >= ex  # every purchase before exit is still depreciating at exit
    tb_b = tb_r = tb_h = 0.0
    nb_top = nb_prev = nh_top = nh_prev = up_b = up_h = 0.0
    owns = False
    s_sov = hyb_top = 0.0
    net_b = ssd_b = ssd_r = net_h = ssd_h = 0.0
    for t in range(T):
        D = dem * V[DU, t]
        p, d, phi, own = V[PC, t], V[DISC, t], V[PHI, t], V[SELF, t]
        api = p * D
        before = t < ex
        staff = staff0 if before else 0.0
        s_sov += d * sov * own
        served_api = phi * api  # the bill buy, rent and owned save
        if sb:
            v = max(tb_b, tbpt * phi * D)
            ssd_b = (v - tb_b) * ssd
            tb_b = v
        if nb:
            nb_top = max(nb_top, W[W_NEED, t])
            nbt = nb_top if before else 0.0
            part_b = max(0.0, nbt - nb_prev) * V[PN, t]
            nb_prev = nbt
            if s == 1:
                up_b += mf12 * part_b
                net_b = part_b * (1.0 + net)
                c += d * (served_api - staff - nbt * (power + colo) - (up_b if before else 0.0)
                          - net_b - ssd_b)
                if part_b > 0.0:
                    r1 += part_b * keep ** ((ex - t) / 12.0)
            else:
                c += d * (served_api - staff - nbt * (power + colo + mf12 * S[NODE0]) - ssd_b)
        elif s == 2:
            c += d * (served_api - staff - W[W_NEED, t] * phi * G * V[RN, t] * HOURS_PER_MONTH
                      - ssd_b)
        elif s == 3:
            inres = W[W_IN, t] * own
            v = max(tb_r, tbpt * inres * D)
            ssd_r = (v - tb_r) * ssd
            tb_r = v
            c += d * (inres * api - staff - W[W_NRES, t] * V[RN, int(W[W_T0, t])] * res_price
                      - ssd_r)
        else:  # the hybrid's rule
            cu = V[CAP, t] * ut
            # (after exit its fleet is 0 whatever the rule picks: not asked)
            ns = n_star(D, cu, (V[PBAR, t] - V[STOK, t]) * D, V[CNODE, t], staff, a, hp, b,
                        e1, sf, buf) if before else 0.0
            nh_top = max(nh_top, ns)
            nht = nh_top if before else 0.0
            part_h = max(0.0, nht - nh_prev) * V[PN, t]
            nh_prev = nht
            if nht > 0.0:
                owns = True
            y = 0.0 if nht == 0.0 else (math.inf if D == 0.0
                                        else nht * eta(nht, e1, sf) * cu / D)
            served_h = phi * D * load_share(y, a, hp, b)
            v = max(tb_h, tbpt * served_h)
            ssd_h = (v - tb_h) * ssd
            tb_h = v
            up_h += mf12 * part_h
            net_h = part_h * (1.0 + net)
            c += d * (p * served_h - (staff if owns else 0.0) - nht * (power + colo)
                      - (up_h if before else 0.0) - net_h - ssd_h)
            if part_h > 0.0:
                r5 += part_h * keep ** ((ex - t) / 12.0)
            hyb_top = max(hyb_top, nht)
        if rate != 0.0:
            cx_b, cx_h = net_b + ssd_b, net_h + ssd_h
            if long_life:  # every purchase is still depreciating at exit: sums of moments
                cdt = cd[t]
                if s == 1:
                    x1 += d * cx_b
                    g1 += cdt * cx_b
                    u1 += t * cx_b
                    e1_ += cx_b
                if sb:
                    xs += d * ssd_b
                    gs += cdt * ssd_b
                    us += t * ssd_b
                    es += ssd_b
                if s == 3:
                    x3 += d * ssd_r
                    g3 += cdt * ssd_r
                    u3 += t * ssd_r
                    e3 += ssd_r
                if hyb:
                    x5 += d * cx_h
                    g5 += cdt * cx_h
                    u5 += t * cx_h
                    e5 += cx_h
            else:
                if s == 1 and net_b != 0.0:
                    x1 += d * net_b
                    q, w = _dep(net_b, t, ex, life, bonus, cd, d)
                    p1 += q
                    b1 += w
                if sb and ssd_b != 0.0:
                    xs += d * ssd_b
                    q, w = _dep(ssd_b, t, ex, life, bonus, cd, d)
                    ps += q
                    bs += w
                if s == 3 and ssd_r != 0.0:
                    x3 += d * ssd_r
                    q, w = _dep(ssd_r, t, ex, life, bonus, cd, d)
                    p3 += q
                    b3 += w
                if hyb and cx_h != 0.0:
                    x5 += d * cx_h
                    q, w = _dep(cx_h, t, ex, life, bonus, cd, d)
                    p5 += q
                    b5 += w
    if rate != 0.0 and long_life:
        f, cde = (1.0 - bonus) / life, cd[ex]
        if s == 1:
            p1, b1 = depreciated(x1, g1, u1, e1_, bonus, f, cde, ex)
        if sb:
            ps, bs = depreciated(xs, gs, us, es, bonus, f, cde, ex)
        if s == 3:
            p3, b3 = depreciated(x3, g3, u3, e3, bonus, f, cde, ex)
        if hyb:
            p5, b5 = depreciated(x5, g5, u5, e5, bonus, f, cde, ex)
        if s == 1:
            x1 -= xs  # (buy's X is x1 + xs below)
            p1 -= ps
            b1 -= bs
    d_ex = V[DISC, ex]
    k = 1.0 - rate
    if s == 1:
        value = (k * c - rate * (x1 + xs) + rate * (p1 + ps) + s_sov
                 + d_ex * (r1 - rate * (r1 - (b1 + bs))))
    elif s == 2:
        value = k * c - rate * xs + rate * ps + s_sov + d_ex * rate * bs
    elif s == 3:
        value = k * c - rate * x3 + rate * p3 + s_sov + d_ex * rate * b3
    elif s == 4:
        owned_out = own_top * V[PN, 0] * S[ORES]
        value = (k * c - rate * xs + rate * ps + s_sov + d_ex * rate * bs
                 - owned_out + d_ex * owned_out * keep ** (ex / 12.0))
    else:
        value = k * c - rate * x5 + rate * p5 + d_ex * (r5 - rate * (r5 - b5))
    return value, hyb_top
