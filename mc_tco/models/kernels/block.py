"""The npv of one row at a block of :data:`PB` demands (:func:`npv_block`): the engine's hot
path, :func:`.npv.npv_cell`'s month loop with the months outside and the demands inside.

Everything that does not depend on the demand (prices, capacity, discount factors, the
reserved terms' dates, the resale factors) is computed once a month; the inner loop over
the block's demands has no branch LLVM cannot turn into a select, so it runs 4 demands per
AVX2 instruction. Its state lives in one flat buffer at offsets ``k * PB + j`` (``PB`` a
constant, so LLVM sees that the state vectors are distinct). The fleet for all demand is
the smallest ``k`` with ``k eta(k) >= x``, found from the root of that quadratic (``eta <
1``) or line and corrected by one step each way (the hybrid's first size reaching the peak
follows from it, :func:`_first_peak`: one root a demand-month instead of two, the block
1.19x faster); the hybrid tries the eight fleet sizes
of :func:`.hybrid.n_star_closed` (its docstring tells why they suffice), in a loop of its
own that is skipped in a month where no node can pay at the block's largest demand (a
third of the work, and most months at the grid's small demands; a block of 8 demands ran
at 0.4x this one's speed per demand, slower than the scalar loop: few demands go there
instead). Rows whose
purchases stop depreciating before exit (a tax life shorter than the horizon) go to
:func:`.npv.npv_cell` instead.
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit
from .npv import ANN, HYB_TOP, NPV, NRES_OUT, NW_NPV, SUM_API, SUM_DD, SUM_SOV, npv_cell
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

PB = 16  # demands per block
# ---- state vectors (offsets in units of PB)
(NBT, NBP, NHT, NHP, OWNS, TBB, TBR, TBH, UPB, UPH, C1, C2, C3, C4, C5, R1, R5, OWNT, HYBT,
 TNEED, NS, KN, NA) = range(23)
# the purchase streams, four moments each (:func:`_purchase`): buy, buy's SSDs (also rent's
# and owned's), reserved, hybrid
X1, XS, X3, X5 = range(23, 39, 4)
NST = 39


@jit(inline="always")
def _eta(n: float, e1: float, inv: float) -> float:
    """``eta(n)`` with ``inv = 1 / (scale_full_nodes - 1)`` (no division in the loop)."""
    return e1 + (1.0 - e1) * min(1.0, max(0.0, n - 1.0) * inv)


@jit(inline="always")
def _first(q: float, e1: float, inv: float, beta: float, capq: float, floor_s: float,
           inv_eta_s: float) -> float:
    """Smallest whole ``n >= 1`` with ``n eta(n) >= q`` (``q > 0``)."""
    g = e1 - beta
    quad = beta > 0.0 and capq >= q
    bq = beta if beta > 0.0 else 1.0
    n_q = np.ceil((math.sqrt(g * g + 4.0 * bq * q) - g) * (0.5 / bq))
    n_l = np.ceil(q * inv_eta_s)
    if beta > 0.0:
        n_l = max(n_l, floor_s + 1.0)
    n = max(1.0, n_q if quad else n_l)
    m = n - 1.0
    if n > 1.0 and m * _eta(m, e1, inv) >= q:
        n = m
    if n * _eta(n, e1, inv) < q:
        n += 1.0
    return n


@jit(inline="always")
def _share(y: float, a: float, hp: float, b: float) -> float:
    return hp * min(a, y) + (1.0 - hp) * min(b, y)


@jit(inline="always")
def _margin(n: float, u: float, value: float, c: float, staff: float, a: float, hp: float,
            b: float, e1: float, inv: float) -> float:
    return value * _share(n * _eta(n, e1, inv) * u, a, hp, b) - n * c - staff


@jit(inline="always")
def _pick(n: float, m: float, thr: float, pick: float) -> float:
    return max(pick, n) if m >= thr else pick


@jit(inline="always")
def n_star_closed(u: float, q: float, value: float, c: float, staff: float, a: float,
                  hp: float, b: float, e1: float, inv: float, beta: float, capq: float,
                  floor_s: float, ceil_s: float, inv_eta_s: float, na: float) -> float:
    """:func:`.hybrid.n_star` without its buffer, for a positive ``demand``: the eight fleet
    sizes 1, the first sizes whose capacity reaches ``b`` and ``a`` and the ones before
    them, and the sizes around ``scale_full_nodes`` (between them the margin is convex or
    linear in ``n``: its maximum over a stretch is at an end), and 0. ``u``: a node's
    capacity in mean loads (``cu / demand``), ``q = 1 / u``; ``na``: the first size whose
    capacity reaches ``a`` (``_first(a q)``, :func:`_first_peak`)."""
    nb = na if b >= a else _first(b * q, e1, inv, beta, capq, floor_s, inv_eta_s)
    n2, n4 = max(1.0, nb - 1.0), max(1.0, na - 1.0)
    n6, n7 = min(na, floor_s), min(na, ceil_s)
    m1 = _margin(1.0, u, value, c, staff, a, hp, b, e1, inv)
    m2 = _margin(n2, u, value, c, staff, a, hp, b, e1, inv)
    m3 = _margin(nb, u, value, c, staff, a, hp, b, e1, inv)
    m4 = _margin(n4, u, value, c, staff, a, hp, b, e1, inv)
    m5 = _margin(na, u, value, c, staff, a, hp, b, e1, inv)
    m6 = _margin(n6, u, value, c, staff, a, hp, b, e1, inv)
    m7 = _margin(n7, u, value, c, staff, a, hp, b, e1, inv)
    best = max(0.0, max(max(max(m1, m2), max(m3, m4)), max(max(m5, m6), m7)))
    thr = best - TOL * max(1.0, abs(best))
    pick = 0.0
    pick = _pick(1.0, m1, thr, pick)
    pick = _pick(n2, m2, thr, pick)
    pick = _pick(nb, m3, thr, pick)
    pick = _pick(n4, m4, thr, pick)
    pick = _pick(na, m5, thr, pick)
    pick = _pick(n6, m6, thr, pick)
    return _pick(n7, m7, thr, pick)


@jit(inline="always")
def _fleet(x: float, e1: float, inv: float, beta: float, capq: float, floor_s: float,
           inv_eta_s: float) -> float:
    """The fleet for load ``x`` (nodes at full efficiency) before its spares: the first
    ``k`` with ``k eta(k) >= x`` less MODEL.md's tolerance, 0 for no load."""
    thr = x - TOL * max(1.0, x)
    return 0.0 if thr <= 0.0 else _first(thr, e1, inv, beta, capq, floor_s, inv_eta_s)


@jit(inline="always")
def _with_spares(k: float, spare: float) -> float:
    """The fleet ``k`` (:func:`_fleet`) with its spares."""
    v = spare * k
    return k + np.ceil(v - TOL * max(1.0, abs(v)))


@jit(inline="always")
def _first_peak(k: float, x: float, e1: float, inv: float) -> float:
    """``_first(x)`` from ``k = _fleet(x)``, without a second root: ``_first`` is the
    smallest ``n >= 1`` with ``n eta(n) >= x`` (exact: its root is corrected by a step each
    way) and ``k`` the smallest with ``k eta(k) >= x - TOL max(1, x)``, so the answer is
    ``k`` or, since ``(k + 1) eta(k + 1) >= k eta(k) + e1``, ``k + 1`` wherever ``TOL
    max(1, x) <= e1`` (:func:`_peak_exact`, checked at the block's largest load)."""
    return max(1.0, k if k * _eta(k, e1, inv) >= x else k + 1.0)


@jit(inline="always")
def _peak_exact(x: float, e1: float) -> bool:
    """Whether :func:`_first_peak` equals ``_first(x)`` at load ``x`` (with a margin of 2
    for the rounding; False for NaN)."""
    return e1 >= 2.0 * TOL and 2.0 * TOL * x <= e1


@jit(inline="always")
def _purchase(st: np.ndarray, k: int, j: int, d: float, cdt: float, t: int, cx: float,
              ) -> None:
    """Add a purchase ``cx`` in month ``t`` to the moments of its stream at state offset
    ``k`` (``sum d cx``, ``sum CDISC[t] cx``, ``sum t cx``, ``sum cx``)."""
    st[k * PB + j] += d * cx
    st[(k + 1) * PB + j] += cdt * cx
    st[(k + 2) * PB + j] += t * cx
    st[(k + 3) * PB + j] += cx


@jit(inline="always")
def _depreciation(st: np.ndarray, k: int, j: int, bonus: float, f: float, cde: float,
                  ex: int) -> tuple[float, float, float]:
    """The discounted purchases, their discounted depreciation and the book value left at
    exit of the stream at state offset ``k``, from its moments (``f = (1 - bonus) / L``,
    ``cde = CDISC[exit]``; every purchase before exit, still depreciating at exit)."""
    x, g, u, e = (st[k * PB + j], st[(k + 1) * PB + j], st[(k + 2) * PB + j],
                  st[(k + 3) * PB + j])
    return x, bonus * x + f * (cde * e - g), (1.0 - bonus) * e - f * (ex * e - u)


@jit
def npv_block(V: np.ndarray, S: np.ndarray, dems: np.ndarray, st: np.ndarray,
              out: np.ndarray) -> None:
    """:func:`.npv.npv_cell` of one row at the ``PB`` demands ``dems`` into ``out`` (PB,
    NRES_OUT). ``st``: the state buffer (NST * PB)."""
    T, ex = int(S[T_]), int(S[EXIT])
    a, hp, b, ut, e1, sf = S[A_], S[HP], S[B_], S[UTIL], S[E1], S[SFULL]
    power, colo, staff0, tbpt, ssd = S[POWER], S[COLO], S[STAFF], S[TBPT], S[SSD]
    mf12, keep, net, G, sov = S[MF12], S[KEEP], S[NET], S[G_], S[SOV]
    rate, life, bonus, spare = S[TAX], S[LIFE], S[BONUS], S[SPARE]
    res_price = G * (1.0 - S[RESD]) * HOURS_PER_MONTH
    inv = 1.0 / (sf - 1.0)
    beta = (1.0 - e1) * inv
    floor_s, ceil_s = np.floor(sf), np.ceil(sf)
    capq = floor_s * _eta(floor_s, e1, inv)
    inv_eta_s = 1.0 / _eta(max(sf, 1.0), e1, inv)
    owned_run = power + colo + mf12 * S[NODE0]
    s0, term = S[START], int(S[TERM])
    st[:] = 0.0
    d_top = dems[0]
    for j in range(PB):
        d_top = max(d_top, dems[j])
    k_api = k_dd = s_sov = ann = t_d = 0.0
    t_start = -1
    for t in range(T):
        du, p, d, phi, own = V[DU, t], V[PC, t], V[DISC, t], V[PHI, t], V[SELF, t]
        before = t < ex
        staff = staff0 if before else 0.0
        ann += d
        k_api += d * p * du
        k_dd += d * du
        s_sov += d * sov * own
        cap, pn = V[CAP, t], V[PN, t]
        cu = cap * ut
        inv_cu = 1.0 / cu
        vtok = (V[PBAR, t] - V[STOK, t]) * du  # value per unit of demand
        cnode = V[CNODE, t]
        back = keep ** ((ex - t) / 12.0) if before else 0.0
        rent_t = phi * G * V[RN, t] * HOURS_PER_MONTH
        cdt = V[CDISC, t]
        # the reserved term holding t (the same for every demand)
        inres = 0.0
        last = in_term = False
        if t >= s0:
            start = int(s0) + int((t - s0) // term) * term
            if start < ex:
                inres = own
                in_term = True
                if start != t_start:
                    t_start = start
                    t_d = 0.0
                    for j in range(PB):
                        st[TNEED * PB + j] = 0.0
                t_d += d
                last = t == start + term - 1 or t == T - 1
        res_t = V[RN, t_start] * res_price * t_d if last else 0.0
        # the fleet for the busiest hour (before spares) of every demand; the hybrid's
        # first size reaching the peak follows from it (one root a demand-month, not two)
        # (the block's largest load decides for all: the load grows with the demand, and
        # _peak_exact keeps a margin of 2 for the rounding)
        if _peak_exact(d_top * du * inv_cu * a, e1):
            for j in range(PB):
                x = dems[j] * du * inv_cu * a
                k = _fleet(x, e1, inv, beta, capq, floor_s, inv_eta_s)
                st[KN * PB + j] = k
                st[NA * PB + j] = _first_peak(k, x, e1, inv)
        else:  # (a load of ~1e8 nodes, or a scale efficiency near 0)
            for j in range(PB):
                x = dems[j] * du * inv_cu * a
                st[KN * PB + j] = _fleet(x, e1, inv, beta, capq, floor_s, inv_eta_s)
                st[NA * PB + j] = _first(x, e1, inv, beta, capq, floor_s, inv_eta_s)
        # the hybrid's rule, in a loop of its own: it is a third of the month's work, and
        # where no node can pay at the block's largest demand (with c >= 0 a fleet of n >= 1
        # nodes earns at most value (hp a + (1 - hp) b) - c - staff) its fleet is 0
        if du == 0.0:  # no demand: a node serves nothing, none held (or a tie at no cost)
            zero_ns = 1.0 if -cnode - staff >= -TOL else 0.0
            for j in range(PB):
                st[NS * PB + j] = zero_ns
        elif cnode >= 0.0 and (max(0.0, vtok * d_top) * (hp * a + (1.0 - hp) * b) - cnode
                               - staff < -TOL):
            for j in range(PB):
                st[NS * PB + j] = 0.0
        else:
            for j in range(PB):
                D = dems[j] * du
                st[NS * PB + j] = n_star_closed(cu / D, D * inv_cu, vtok * dems[j], cnode,
                                                staff, a, hp, b, e1, inv, beta, capq,
                                                floor_s, ceil_s, inv_eta_s, st[NA * PB + j])
        for j in range(PB):
            D = dems[j] * du
            api = p * D
            u = cu / D
            need = _with_spares(st[KN * PB + j], spare)
            own_t = max(st[OWNT * PB + j], need) if before else st[OWNT * PB + j]
            nb_top = max(st[NBT * PB + j], need)
            nbt = nb_top if before else 0.0
            part_b = max(0.0, nbt - st[NBP * PB + j]) * pn
            ns = st[NS * PB + j]
            nh_top = max(st[NHT * PB + j], ns)
            nht = nh_top if before else 0.0
            part_h = max(0.0, nht - st[NHP * PB + j]) * pn
            owns = 1.0 if nht > 0.0 else st[OWNS * PB + j]
            y = 0.0 if nht == 0.0 else (math.inf if D == 0.0 else nht * _eta(nht, e1, inv) * u)
            served_h = phi * D * _share(y, a, hp, b)
            tb = st[TBB * PB + j]
            v = max(tb, tbpt * phi * D)
            ssd_b = (v - tb) * ssd
            st[TBB * PB + j] = v
            tb = st[TBR * PB + j]
            v = max(tb, tbpt * inres * D)
            ssd_r = (v - tb) * ssd
            st[TBR * PB + j] = v
            tb = st[TBH * PB + j]
            v = max(tb, tbpt * served_h)
            ssd_h = (v - tb) * ssd
            st[TBH * PB + j] = v
            up_b = st[UPB * PB + j] + mf12 * part_b
            up_h = st[UPH * PB + j] + mf12 * part_h
            served_api = phi * api
            net_b, net_h = part_b * (1.0 + net), part_h * (1.0 + net)
            t_need = max(st[TNEED * PB + j], need) if in_term else st[TNEED * PB + j]
            st[C1 * PB + j] += d * (served_api - staff - nbt * (power + colo)
                                    - (up_b if before else 0.0) - net_b - ssd_b)
            st[C2 * PB + j] += d * (served_api - staff - need * rent_t - ssd_b)
            st[C3 * PB + j] += d * (inres * api - staff - ssd_r) - t_need * res_t
            st[C4 * PB + j] += d * (served_api - staff - nbt * owned_run - ssd_b)
            st[C5 * PB + j] += d * (p * served_h - (staff if owns > 0.0 else 0.0)
                                    - nht * (power + colo) - (up_h if before else 0.0)
                                    - net_h - ssd_h)
            st[R1 * PB + j] += part_b * back
            st[R5 * PB + j] += part_h * back
            _purchase(st, X1, j, d, cdt, t, net_b + ssd_b)  # buy
            _purchase(st, XS, j, d, cdt, t, ssd_b)  # buy's SSDs: also rent's and owned's
            _purchase(st, X3, j, d, cdt, t, ssd_r)  # reserved
            _purchase(st, X5, j, d, cdt, t, net_h + ssd_h)  # hybrid
            st[NBT * PB + j] = nb_top
            st[NBP * PB + j] = nbt
            st[NHT * PB + j] = nh_top
            st[NHP * PB + j] = nht
            st[OWNS * PB + j] = owns
            st[UPB * PB + j] = up_b
            st[UPH * PB + j] = up_h
            st[OWNT * PB + j] = own_t
            st[HYBT * PB + j] = max(st[HYBT * PB + j], nht)
            st[TNEED * PB + j] = t_need
    d_ex = V[DISC, ex]
    k = 1.0 - rate
    f, cde = (1.0 - bonus) / life, V[CDISC, ex]
    owned_back = d_ex * keep ** (ex / 12.0) - 1.0
    for j in range(PB):
        xs, ps, bs = _depreciation(st, XS, j, bonus, f, cde, ex)
        x1, p1, b1 = _depreciation(st, X1, j, bonus, f, cde, ex)
        x3, p3, b3 = _depreciation(st, X3, j, bonus, f, cde, ex)
        x5, p5, b5 = _depreciation(st, X5, j, bonus, f, cde, ex)
        r1, r5 = st[R1 * PB + j], st[R5 * PB + j]
        o = out[j]
        o[NPV] = 0.0
        o[NPV + 1] = (k * st[C1 * PB + j] - rate * x1 + rate * p1 + s_sov
                      + d_ex * (r1 - rate * (r1 - b1)))
        o[NPV + 2] = k * st[C2 * PB + j] - rate * xs + rate * ps + s_sov + d_ex * rate * bs
        o[NPV + 3] = k * st[C3 * PB + j] - rate * x3 + rate * p3 + s_sov + d_ex * rate * b3
        o[NPV + 4] = (k * st[C4 * PB + j] - rate * xs + rate * ps + s_sov + d_ex * rate * bs
                      + st[OWNT * PB + j] * V[PN, 0] * S[ORES] * owned_back)
        o[NPV + 5] = k * st[C5 * PB + j] - rate * x5 + rate * p5 + d_ex * (r5 - rate * (r5 - b5))
        o[SUM_API] = dems[j] * k_api
        o[SUM_SOV] = s_sov
        o[SUM_DD] = dems[j] * k_dd
        o[HYB_TOP] = st[HYBT * PB + j]
        o[ANN] = ann


@jit
def npv_row(V: np.ndarray, S: np.ndarray, dems: np.ndarray, buf: np.ndarray,
            out: np.ndarray) -> None:
    """npv of one row at every demand of ``dems`` into ``out`` (demands, NRES_OUT): blocks of
    :data:`PB` (the last padded with its final demand), or the scalar kernel where the tax
    life ends before exit or for fewer than ``PB / 2`` demands."""
    n = dems.shape[0]
    if n < PB // 2 or (S[TAX] != 0.0 and S[LIFE] < S[EXIT]):  # (few demands: no padding)
        W = np.empty((NW_NPV, V.shape[1]))
        for j in range(n):
            npv_cell(V, S, dems[j], W, buf, out[j])
        return
    st = np.empty(NST * PB)
    blk = np.empty(PB)
    res = np.empty((PB, NRES_OUT))
    for lo in range(0, n, PB):
        m = min(PB, n - lo)
        for j in range(PB):
            blk[j] = dems[lo + min(j, m - 1)]
        npv_block(V, S, blk, st, res)
        for j in range(m):
            for i in range(NRES_OUT):
                out[lo + j, i] = res[j, i]
