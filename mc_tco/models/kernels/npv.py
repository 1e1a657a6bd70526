"""The npv of the six strategies of one row at one demand (:func:`npv_cell`): the engine's
hot path, the same month loop as :func:`.cell.cell` with its state in scalars (registers,
not arrays) and the taxes in closed form.

The after-tax npv of a strategy is, with ``C = sum d (api - cost)``, ``X = sum d capex`` and
``DEP = sum d dep`` (MODEL.md's flows, rearranged)::

    npv = (1 - tax) C - tax X + tax DEP + SOV + d[exit] (resale - tax (resale - BV))

where a purchase ``cx`` in month ``u < exit`` adds ``bonus cx d[u] + (1 - bonus) cx / L
(CDISC[min(e, exit)] - CDISC[u])`` to ``DEP`` and ``cx (1 - bonus) (1 - (min(e, exit) - u) / L)``
to the book value ``BV`` (``L = 12 tax_depreciation_years``, ``e = ceil(u + L)``): each
purchase's depreciation summed at once instead of month by month. rent and owned buy the
same SSDs as buy, so they share its storage sums.
"""

from __future__ import annotations

import math

import numpy as np

from .hybrid import eta, load_share, n_star
from .jit import jit
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

# ---- the result vector of npv_cell
NPV = 0  # 6: api .. hybrid
SUM_API, SUM_SOV, SUM_DD, HYB_TOP, ANN = range(6, 11)
NRES_OUT = 11
# ---- the scratch of npv_cell (rows of months)
W_NEED, W_NRES, W_T0, W_IN = range(4)
NW_NPV = 4


@jit(inline="always")
def _ceil(v: float) -> float:
    return math.ceil(v - TOL * max(1.0, abs(v)))


@jit(inline="always")
def depreciated(x: float, g: float, u: float, e: float, bonus: float, f: float, cde: float,
                ex: float) -> tuple[float, float]:
    """The discounted depreciation and the book value left at exit of a stream of
    purchases, every one before exit and still depreciating then, from its moments (``x =
    sum d cx``, ``g = sum CDISC[t] cx``, ``u = sum t cx``, ``e = sum cx``; ``f = (1 -
    bonus) / L``, ``cde = CDISC[exit]``): the one formula of :func:`npv_cell`,
    :mod:`.block` and :mod:`.lanes`."""
    return bonus * x + f * (cde * e - g), (1.0 - bonus) * e - f * (ex * e - u)


@jit(inline="always")
def _dep(cx: float, u: int, ex: int, life: float, bonus: float, cd: np.ndarray,
         d: float) -> tuple[float, float]:
    """Discounted depreciation and book value left at exit of a purchase ``cx`` in ``u``."""
    if u >= ex:
        return 0.0, cx
    e = min(float(math.ceil(u + life)), float(ex))
    straight = cx * (1.0 - bonus) / life
    return (bonus * cx * d + straight * (cd[int(e)] - cd[u]),
            cx * (1.0 - bonus) - straight * (e - u))


@jit
def fleet(V: np.ndarray, S: np.ndarray, dem: float, W: np.ndarray) -> float:
    """``need[t]`` and the reserved terms of one row at ``dem`` into ``W``; returns the
    largest need before exit (owned's fleet)."""
    T, ex = int(S[T_]), int(S[EXIT])
    a, ut, e1, sf, spare = S[A_], S[UTIL], S[E1], S[SFULL], S[SPARE]
    top = 0.0
    for t in range(T):
        x = dem * V[DU, t] * a / (V[CAP, t] * ut)
        k = max(0.0, _ceil(x))
        while k * eta(k, e1, sf) < x - TOL * max(1.0, x):
            k += 1.0
        need = k + _ceil(spare * k)
        W[W_NEED, t] = need
        W[W_NRES, t] = 0.0
        W[W_IN, t] = 0.0
        W[W_T0, t] = 0.0
        if t < ex:
            top = max(top, need)
    term = int(S[TERM])
    start = S[START]
    while start < ex:
        s0 = int(start)
        end = min(s0 + term, T)
        most = 0.0
        for t in range(s0, end):
            most = max(most, W[W_NEED, t])
        for t in range(s0, end):
            W[W_NRES, t] = most
            W[W_T0, t] = s0
            W[W_IN, t] = 1.0
        start += term
    return top


@jit
def npv_cell(V: np.ndarray, S: np.ndarray, dem: float, W: np.ndarray, buf: np.ndarray,
             out: np.ndarray) -> None:
    """The npv of every strategy of one row at ``dem`` and the sums ``cost`` needs, into
    ``out`` (:data:`NRES_OUT`). ``W``: (:data:`NW_NPV`, months) scratch; ``buf``: the
    hybrid rule's."""
    T, ex = int(S[T_]), int(S[EXIT])
    a, hp, b, ut, e1, sf = S[A_], S[HP], S[B_], S[UTIL], S[E1], S[SFULL]
    power, colo, staff0, tbpt, ssd = S[POWER], S[COLO], S[STAFF], S[TBPT], S[SSD]
    mf12, keep, net, G, sov = S[MF12], S[KEEP], S[NET], S[G_], S[SOV]
    rate, life, bonus = S[TAX], S[LIFE], S[BONUS]
    res_price = G * (1.0 - S[RESD]) * HOURS_PER_MONTH
    own_top = fleet(V, S, dem, W)
    cd = V[CDISC]
    c1 = c2 = c3 = c4 = c5 = 0.0  # sum d (api - cost)
    x1 = x3 = x5 = xs = 0.0  # sum d capex (xs: buy's SSDs, also rent's and owned's)
    p1 = p3 = p5 = ps = 0.0  # discounted depreciation
    b1 = b3 = b5 = bs = 0.0  # book value at exit
    r1 = r5 = 0.0  # resale at exit
    g1 = g3 = g5 = gs = u1 = u3 = u5 = us = e1_ = e3 = e5 = es = 0.0  # moments of purchases
    long_life = life >= ex  # every purchase before exit is still depreciating at exit
    tb_b = tb_r = tb_h = 0.0
    nb_top = nb_prev = nh_top = nh_prev = up_b = up_h = 0.0
    owns = False
    s_api = s_sov = s_dd = ann = hyb_top = 0.0
    for t in range(T):
        D = dem * V[DU, t]
        p, d, phi, own = V[PC, t], V[DISC, t], V[PHI, t], V[SELF, t]
        api = p * D
        before = t < ex
        staff = staff0 if before else 0.0
        ann += d
        s_api += d * api
        s_dd += d * D
        s_sov += d * sov * own
        # buy and owned: the fleet for the busiest hour, bought when needed
        nb_top = max(nb_top, W[W_NEED, t])
        nbt = nb_top if before else 0.0
        part_b = max(0.0, nbt - nb_prev) * V[PN, t]
        nb_prev = nbt
        # the hybrid's rule
        cu = V[CAP, t] * ut
        ns = n_star(D, cu, (V[PBAR, t] - V[STOK, t]) * D, V[CNODE, t], staff, a, hp, b, e1,
                    sf, buf)
        nh_top = max(nh_top, ns)
        nht = nh_top if before else 0.0
        part_h = max(0.0, nht - nh_prev) * V[PN, t]
        nh_prev = nht
        if nht > 0.0:
            owns = True
        y = 0.0 if nht == 0.0 else (math.inf if D == 0.0 else nht * eta(nht, e1, sf) * cu / D)
        served_h = phi * D * load_share(y, a, hp, b)
        # storage
        v = max(tb_b, tbpt * phi * D)
        ssd_b = (v - tb_b) * ssd
        tb_b = v
        inres = W[W_IN, t] * own
        v = max(tb_r, tbpt * inres * D)
        ssd_r = (v - tb_r) * ssd
        tb_r = v
        v = max(tb_h, tbpt * served_h)
        ssd_h = (v - tb_h) * ssd
        tb_h = v
        up_b += mf12 * part_b
        up_h += mf12 * part_h
        served_api = phi * api  # the bill buy, rent and owned save
        net_b, net_h = part_b * (1.0 + net), part_h * (1.0 + net)
        c1 += d * (served_api - staff - nbt * (power + colo) - (up_b if before else 0.0)
                   - net_b - ssd_b)
        c2 += d * (served_api - staff - W[W_NEED, t] * phi * G * V[RN, t] * HOURS_PER_MONTH
                   - ssd_b)
        c3 += d * (inres * api - staff - W[W_NRES, t] * V[RN, int(W[W_T0, t])] * res_price
                   - ssd_r)
        c4 += d * (served_api - staff - nbt * (power + colo + mf12 * S[NODE0]) - ssd_b)
        c5 += d * (p * served_h - (staff if owns else 0.0) - nht * (power + colo)
                   - (up_h if before else 0.0) - net_h - ssd_h)
        if part_b > 0.0:
            r1 += part_b * keep ** ((ex - t) / 12.0)
        if part_h > 0.0:
            r5 += part_h * keep ** ((ex - t) / 12.0)
        hyb_top = max(hyb_top, nht)
        if rate != 0.0:
            cx_b, cx_h = net_b + ssd_b, net_h + ssd_h
            if long_life:  # every purchase is still depreciating at exit: sums of moments
                cdt = cd[t]
                x1 += d * cx_b
                g1 += cdt * cx_b
                u1 += t * cx_b
                e1_ += cx_b
                xs += d * ssd_b
                gs += cdt * ssd_b
                us += t * ssd_b
                es += ssd_b
                x3 += d * ssd_r
                g3 += cdt * ssd_r
                u3 += t * ssd_r
                e3 += ssd_r
                x5 += d * cx_h
                g5 += cdt * cx_h
                u5 += t * cx_h
                e5 += cx_h
            else:
                if net_b != 0.0:
                    x1 += d * net_b
                    q, w = _dep(net_b, t, ex, life, bonus, cd, d)
                    p1 += q
                    b1 += w
                if ssd_b != 0.0:
                    xs += d * ssd_b
                    q, w = _dep(ssd_b, t, ex, life, bonus, cd, d)
                    ps += q
                    bs += w
                if ssd_r != 0.0:
                    x3 += d * ssd_r
                    q, w = _dep(ssd_r, t, ex, life, bonus, cd, d)
                    p3 += q
                    b3 += w
                if cx_h != 0.0:
                    x5 += d * cx_h
                    q, w = _dep(cx_h, t, ex, life, bonus, cd, d)
                    p5 += q
                    b5 += w
    if rate != 0.0 and long_life:
        # purchases u < exit (none after): depreciation sum_u cx (bonus d[u] + (1 - bonus)
        # / L (CD[exit] - CD[u])), book value sum_u cx (1 - bonus) (1 - (exit - u) / L)
        f, cde = (1.0 - bonus) / life, cd[ex]
        p1, b1 = depreciated(x1, g1, u1, e1_, bonus, f, cde, ex)
        ps, bs = depreciated(xs, gs, us, es, bonus, f, cde, ex)
        p3, b3 = depreciated(x3, g3, u3, e3, bonus, f, cde, ex)
        p5, b5 = depreciated(x5, g5, u5, e5, bonus, f, cde, ex)
        x1 -= xs  # (buy's X is x1 + xs below)
        p1 -= ps
        b1 -= bs
    d_ex = V[DISC, ex]
    k = 1.0 - rate
    owned_out = own_top * V[PN, 0] * S[ORES]
    out[NPV] = 0.0
    out[NPV + 1] = (k * c1 - rate * (x1 + xs) + rate * (p1 + ps) + s_sov
                    + d_ex * (r1 - rate * (r1 - (b1 + bs))))
    out[NPV + 2] = k * c2 - rate * xs + rate * ps + s_sov + d_ex * rate * bs
    out[NPV + 3] = k * c3 - rate * x3 + rate * p3 + s_sov + d_ex * rate * b3
    out[NPV + 4] = (k * c4 - rate * xs + rate * ps + s_sov + d_ex * rate * bs
                    - owned_out + d_ex * owned_out * keep ** (ex / 12.0))
    out[NPV + 5] = k * c5 - rate * x5 + rate * p5 + d_ex * (r5 - rate * (r5 - b5))
    out[SUM_API] = s_api
    out[SUM_SOV] = s_sov
    out[SUM_DD] = s_dd
    out[ANN] = ann
    out[HYB_TOP] = hyb_top
