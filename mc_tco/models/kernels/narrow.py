"""The npv of one of buy, rent, reserved and owned of one row at one demand
(:func:`npv_one`): what the break-even search's narrowing (:func:`.grid.breakeven`)
evaluates, a strategy at a time.

:func:`.npv.npv_cell`'s month loop with only the terms the strategy's npv reads: the same
operations in the same order, so the same number bit for bit (tested against it), without
the others' work, above all the hybrid's rule (:func:`.hybrid.n_star`, about half of a
cell's work). The hybrid's own narrowing keeps :func:`.npv.npv_cell`: a version of it
without the others saved a third of its evaluations' time but cost 1.8 CPU s more to
compile cold (the rule compiled in once more).
"""

from __future__ import annotations

import numpy as np

from .jit import jit
from .npv import W_IN, W_NEED, W_NRES, W_T0, _dep, depreciated, fleet
from .rows import (
    BONUS,
    CDISC,
    COLO,
    DISC,
    DU,
    EXIT,
    G_,
    HOURS_PER_MONTH,
    KEEP,
    LIFE,
    MF12,
    NET,
    NODE0,
    ORES,
    PC,
    PHI,
    PN,
    POWER,
    RESD,
    RN,
    SELF,
    SOV,
    SSD,
    STAFF,
    T_,
    TAX,
    TBPT,
)


@jit
def npv_one(V: np.ndarray, S: np.ndarray, dem: float, W: np.ndarray, buf: np.ndarray,
            s: int) -> float:
    """Strategy ``s``'s npv (1 buy, 2 rent, 3 reserved, 4 owned) of one row at ``dem``, as
    :func:`.npv.npv_cell` gives it. ``W``: (>= :data:`.npv.NW_NPV`, months) scratch;
    ``buf``: unused (:func:`.npv.npv_cell`'s arguments)."""
    T, ex = int(S[T_]), int(S[EXIT])
    power, colo, staff0, tbpt, ssd = S[POWER], S[COLO], S[STAFF], S[TBPT], S[SSD]
    mf12, keep, net, G, sov = S[MF12], S[KEEP], S[NET], S[G_], S[SOV]
    rate, life, bonus = S[TAX], S[LIFE], S[BONUS]
    res_price = G * (1.0 - S[RESD]) * HOURS_PER_MONTH
    nb = s == 1 or s == 4  # buy's fleet (owned holds it too)
    sb = s == 1 or s == 2 or s == 4  # buy's SSDs (rent's and owned's)
    own_top = fleet(V, S, dem, W)
    cd = V[CDISC]
    c = 0.0  # sum d (api - cost)
    x1 = x3 = xs = 0.0  # sum d capex (xs: buy's SSDs, also rent's and owned's)
    p1 = p3 = ps = 0.0  # discounted depreciation
    b1 = b3 = bs = 0.0  # book value at exit
    r1 = 0.0  # buy's resale at exit
    g1 = g3 = gs = u1 = u3 = us = e1_ = e3 = es = 0.0  # moments of purchases
    long_life = life >= ex  # every purchase before exit is still depreciating at exit
    tb_b = tb_r = 0.0
    nb_top = nb_prev = up_b = 0.0
    s_sov = 0.0
    net_b = ssd_b = ssd_r = 0.0
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
        if rate != 0.0:
            cx_b = net_b + ssd_b
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
    if rate != 0.0 and long_life:
        f, cde = (1.0 - bonus) / life, cd[ex]
        if s == 1:
            p1, b1 = depreciated(x1, g1, u1, e1_, bonus, f, cde, ex)
        if sb:
            ps, bs = depreciated(xs, gs, us, es, bonus, f, cde, ex)
        if s == 3:
            p3, b3 = depreciated(x3, g3, u3, e3, bonus, f, cde, ex)
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
    else:
        owned_out = own_top * V[PN, 0] * S[ORES]
        value = (k * c - rate * xs + rate * ps + s_sov + d_ex * rate * bs
                 - owned_out + d_ex * owned_out * keep ** (ex / 12.0))
    return value
