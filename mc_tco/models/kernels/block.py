"""The npv of one row at every demand of a grid (:func:`npv_row`, :func:`npv_block`): the
engine's hot path, :func:`.npv.npv_cell`'s month loop with the months outside and the
demands inside, in groups of :data:`PB`.

What depends on the month alone is computed once a month for all the row's demands, and
what costs a call (the resale factor's pow, the reserved term's floor division) once a row
(:func:`_months`). The loops over a group's demands have no branch LLVM cannot turn into a
select, so they run 8 demands per AVX-512 instruction (:func:`.jit.jit`'s ``wide``; 4 with
AVX2). A group's state lives in one flat buffer at offsets ``k * PB + j`` (``PB`` a
constant, so LLVM sees that the state vectors are distinct). Each month of a group:

* the fleet for the busiest hour and the hybrid's first size reaching the peak
  (:func:`.hybrid.fleet_peak_near` from last month's, a step each way, where that is exact
  for every demand of the group, else :func:`.hybrid.fleet_peak` from the root of ``k
  eta(k) = x``);
* the hybrid's rule (:func:`.hybrid.n_star_sizes`, its first sizes reaching ``b`` found as
  the fleet's), skipped where no node can pay at the group's largest demand (most months
  at the grid's small demands), its sizes around ``scale_full_nodes`` dropped where every
  first size reaching the peak is below it (they are that size);
* the costs (:func:`_before_exit`), without the hybrid's terms in a group whose hybrid has
  held no node yet; after exit (:func:`_after_exit`) only what is not exactly 0 then.

Every shortcut gives the same numbers bit for bit (the terms dropped are exact zeros, the
sizes and fleets the same whole numbers). Rows whose purchases stop depreciating before
exit (a tax life shorter than the horizon), and fewer than ``PB / 2`` demands, go to
:func:`.npv.npv_cell` instead.
"""

from __future__ import annotations

import math

import numpy as np

from .hybrid import eta_inv as _eta
from .hybrid import first_near as _first_near
from .hybrid import first_reaching as _first
from .hybrid import fleet_peak as _fleet_peak
from .hybrid import fleet_peak_near as _fleet_peak_near
from .hybrid import fleet_size as _fleet
from .hybrid import load_share as _share
from .hybrid import n_star_sizes
from .hybrid import peak_exact as _peak_exact
from .hybrid import with_spares as _with_spares
from .jit import jit
from .npv import (
    ANN,
    HYB_TOP,
    NPV,
    NRES_OUT,
    NW_NPV,
    SUM_API,
    SUM_DD,
    SUM_SOV,
    depreciated,
    npv_cell,
)
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
(NBT, NHT, TBB, TBR, TBH, UPB, UPH, C1, C2, C3, C4, C5, R1, R5, TNEED, NS, KN, NA,
 NB) = range(19)
# the purchase streams, four moments each (:func:`_purchase`): buy, buy's SSDs (also rent's
# and owned's), reserved, hybrid
X1, XS, X3, X5 = range(19, 35, 4)
NST = 35


@jit
def _purchase(st: np.ndarray, k: int, j: int, d: float, cdt: float, t: int, cx: float,
              ) -> None:
    """Add a purchase ``cx`` in month ``t`` to the moments of its stream at state offset
    ``k`` (``sum d cx``, ``sum CDISC[t] cx``, ``sum t cx``, ``sum cx``)."""
    st[k * PB + j] += d * cx
    st[(k + 1) * PB + j] += cdt * cx
    st[(k + 2) * PB + j] += t * cx
    st[(k + 3) * PB + j] += cx


@jit
def _depreciation(st: np.ndarray, k: int, j: int, bonus: float, f: float, cde: float,
                  ex: int) -> tuple[float, float, float]:
    """The discounted purchases, their discounted depreciation and the book value left at
    exit of the stream at state offset ``k``, from its moments (``f = (1 - bonus) / L``,
    ``cde = CDISC[exit]``; every purchase before exit, still depreciating at exit)."""
    x, g, u, e = (st[k * PB + j], st[(k + 1) * PB + j], st[(k + 2) * PB + j],
                  st[(k + 3) * PB + j])
    p, b = depreciated(x, g, u, e, bonus, f, cde, ex)  # (npv.py's formula)
    return x, p, b


# ---- the month table of a row (:func:`_months`, rows of months): what depends on the
# month alone and costs a call (a pow, a floor division), computed once a row, not a block
(M_BACK, M_RENT, M_INRES, M_IN, M_NEW, M_RES) = range(6)
NM = 6


@jit(wide=True)
def _months(V: np.ndarray, S: np.ndarray, M: np.ndarray) -> None:
    """The month table ``M`` (:data:`NM`, months) of one row: the resale factor of a node
    bought in ``t`` (``keep ** ((exit - t) / 12)`` before exit, else 0), rent's price of a
    node, and the reserved term holding ``t`` (the share served in it, whether ``t`` is in
    a term, whether a term starts at ``t``, and the term's discounted bill per node at its
    last month)."""
    T, ex = int(S[T_]), int(S[EXIT])
    keep, G = S[KEEP], S[G_]
    res_price = G * (1.0 - S[RESD]) * HOURS_PER_MONTH
    s0, term = S[START], int(S[TERM])
    t_d = 0.0
    t_start = -1
    for t in range(T):
        M[M_BACK, t] = keep ** ((ex - t) / 12.0) if t < ex else 0.0
        M[M_RENT, t] = V[PHI, t] * G * V[RN, t] * HOURS_PER_MONTH
        inres = 0.0
        last = in_term = new = False
        if t >= s0:
            start = int(s0) + int((t - s0) // term) * term
            if start < ex:
                inres = V[SELF, t]
                in_term = True
                if start != t_start:
                    t_start = start
                    t_d = 0.0
                    new = True
                t_d += V[DISC, t]
                last = t == start + term - 1 or t == T - 1
        M[M_INRES, t] = inres
        M[M_IN, t] = 1.0 if in_term else 0.0
        M[M_NEW, t] = 1.0 if new else 0.0
        M[M_RES, t] = V[RN, t_start] * res_price * t_d if last else 0.0


@jit(inline="always")
def _before_exit(sg: np.ndarray, dg: np.ndarray, du: float, p: float, d: float, phi: float,
                 pn: float, cu: float, inres: float, in_term: bool, rent_t: float,
                 res_t: float, back: float, cdt: float, t: int, staff: float, power: float,
                 colo: float, owned_run: float, mf12: float, net: float, spare: float,
                 tbpt: float, ssd: float, a: float, hp: float, b: float, e1: float,
                 inv: float, hyb: bool) -> None:
    """A month ``t < exit`` of one group (its fleets ``KN`` and ``NS`` found): the costs and
    purchases of every strategy. ``hyb=False`` (a literal: LLVM drops the code) where the
    hybrid has held no node yet and holds none this month: its terms are then exactly 0
    (its costs, capex, storage and resale stay 0)."""
    for j in range(PB):
        D = dg[j] * du
        api = p * D
        need = _with_spares(sg[KN * PB + j], spare)
        # buy's fleet: a running maximum (frozen at exit), bought when it grows
        nb_prev = sg[NBT * PB + j]
        nbt = max(nb_prev, need)
        part_b = max(0.0, nbt - nb_prev) * pn
        tb = sg[TBB * PB + j]
        v = max(tb, tbpt * phi * D)
        ssd_b = (v - tb) * ssd
        sg[TBB * PB + j] = v
        tb = sg[TBR * PB + j]
        v = max(tb, tbpt * inres * D)
        ssd_r = (v - tb) * ssd
        sg[TBR * PB + j] = v
        up_b = sg[UPB * PB + j] + mf12 * part_b
        served_api = phi * api
        net_b = part_b * (1.0 + net)
        t_need = max(sg[TNEED * PB + j], need) if in_term else sg[TNEED * PB + j]
        sg[C1 * PB + j] += d * (served_api - staff - nbt * (power + colo) - up_b - net_b
                                - ssd_b)
        sg[C2 * PB + j] += d * (served_api - staff - need * rent_t - ssd_b)
        sg[C3 * PB + j] += d * (inres * api - staff - ssd_r) - t_need * res_t
        sg[C4 * PB + j] += d * (served_api - staff - nbt * owned_run - ssd_b)
        sg[R1 * PB + j] += part_b * back
        _purchase(sg, X1, j, d, cdt, t, net_b + ssd_b)  # buy
        _purchase(sg, XS, j, d, cdt, t, ssd_b)  # buy's SSDs: also rent's and owned's
        _purchase(sg, X3, j, d, cdt, t, ssd_r)  # reserved
        sg[NBT * PB + j] = nbt
        sg[UPB * PB + j] = up_b
        sg[TNEED * PB + j] = t_need
        if hyb:  # the hybrid's fleet: as buy's
            nh_prev = sg[NHT * PB + j]
            nht = max(nh_prev, sg[NS * PB + j])
            part_h = max(0.0, nht - nh_prev) * pn
            y = 0.0 if nht == 0.0 else (math.inf if D == 0.0
                                        else nht * _eta(nht, e1, inv) * (cu / D))
            served_h = phi * D * _share(y, a, hp, b)
            tb = sg[TBH * PB + j]
            v = max(tb, tbpt * served_h)
            ssd_h = (v - tb) * ssd
            sg[TBH * PB + j] = v
            up_h = sg[UPH * PB + j] + mf12 * part_h
            net_h = part_h * (1.0 + net)
            # (its staff from its first node on: nht is a running maximum)
            sg[C5 * PB + j] += d * (p * served_h - (staff if nht > 0.0 else 0.0)
                                    - nht * (power + colo) - up_h - net_h - ssd_h)
            sg[R5 * PB + j] += part_h * back
            _purchase(sg, X5, j, d, cdt, t, net_h + ssd_h)  # hybrid
            sg[NHT * PB + j] = nht
            sg[UPH * PB + j] = up_h


@jit(inline="always")
def _after_exit(sg: np.ndarray, dg: np.ndarray, du: float, p: float, d: float, phi: float,
                inres: float, in_term: bool, rent_t: float, res_t: float, cdt: float, t: int,
                spare: float, tbpt: float, ssd: float) -> None:
    """A month ``t >= exit`` of one group (its fleet ``KN`` found): the month of
    :func:`npv_block` with no staff and no node held or bought (buy's and the hybrid's
    fleets stay at their last values before exit, as owned's), so with the terms that are
    then exactly 0 left out (the hybrid's: it serves nothing). What is left: reservations to
    their term's end, and, as in every month, the bills of the share ``phi`` served in
    house (0 after exit but where an event month's tolerance rounds exit below it)."""
    for j in range(PB):
        D = dg[j] * du
        api = p * D
        need = _with_spares(sg[KN * PB + j], spare)
        tb = sg[TBB * PB + j]
        v = max(tb, tbpt * phi * D)
        ssd_b = (v - tb) * ssd
        sg[TBB * PB + j] = v
        tb = sg[TBR * PB + j]
        v = max(tb, tbpt * inres * D)
        ssd_r = (v - tb) * ssd
        sg[TBR * PB + j] = v
        served_api = phi * api
        t_need = max(sg[TNEED * PB + j], need) if in_term else sg[TNEED * PB + j]
        c = d * (served_api - ssd_b)
        sg[C1 * PB + j] += c
        sg[C2 * PB + j] += d * (served_api - need * rent_t - ssd_b)
        sg[C3 * PB + j] += d * (inres * api - ssd_r) - t_need * res_t
        sg[C4 * PB + j] += c
        _purchase(sg, X1, j, d, cdt, t, ssd_b)
        _purchase(sg, XS, j, d, cdt, t, ssd_b)
        _purchase(sg, X3, j, d, cdt, t, ssd_r)
        sg[TNEED * PB + j] = t_need


@jit(wide=True)
def npv_block(V: np.ndarray, S: np.ndarray, M: np.ndarray, dems: np.ndarray, st: np.ndarray,
              out: np.ndarray) -> None:
    """:func:`.npv.npv_cell` of one row at the demands ``dems`` (groups of ``PB``) into
    ``out`` (demands, NRES_OUT). ``M``: the row's month table (:func:`_months`); ``st``: the
    state buffer (NST * demands), a group's :data:`NST` vectors of ``PB`` after another's."""
    G = dems.shape[0] // PB
    T, ex = int(S[T_]), int(S[EXIT])
    a, hp, b, ut, e1, sf = S[A_], S[HP], S[B_], S[UTIL], S[E1], S[SFULL]
    power, colo, staff0, tbpt, ssd = S[POWER], S[COLO], S[STAFF], S[TBPT], S[SSD]
    mf12, keep, net, sov = S[MF12], S[KEEP], S[NET], S[SOV]
    rate, life, bonus, spare = S[TAX], S[LIFE], S[BONUS], S[SPARE]
    inv = 1.0 / (sf - 1.0)
    beta = (1.0 - e1) * inv
    floor_s, ceil_s = np.floor(sf), np.ceil(sf)
    capq = floor_s * _eta(floor_s, e1, inv)
    inv_eta_s = 1.0 / _eta(max(sf, 1.0), e1, inv)
    w_zero = 0.0 * _eta(0.0, e1, inv)
    near = 0.0 < e1 <= 1.0  # (n eta(n) rises with n: a guess's test is exact)
    owned_run = power + colo + mf12 * S[NODE0]
    st[:] = 0.0
    tops = np.empty(G)  # each group's largest demand
    owned = np.zeros(G, dtype=np.bool_)  # whether a group's hybrid has held a node
    for g in range(G):
        d_top = dems[g * PB]
        for j in range(PB):
            d_top = max(d_top, dems[g * PB + j])
        tops[g] = d_top
    k_api = k_dd = s_sov = ann = 0.0
    for t in range(T):
        du, p, d, phi, own = V[DU, t], V[PC, t], V[DISC, t], V[PHI, t], V[SELF, t]
        ann += d
        k_api += d * p * du
        k_dd += d * du
        s_sov += d * sov * own
        cap, pn = V[CAP, t], V[PN, t]
        cu = cap * ut
        inv_cu = 1.0 / cu
        cdt = V[CDISC, t]
        # the reserved term holding t (the same for every demand)
        inres, in_term, new_term = M[M_INRES, t], M[M_IN, t] != 0.0, M[M_NEW, t] != 0.0
        rent_t, res_t = M[M_RENT, t], M[M_RES, t]
        if t >= ex:  # after exit: no node held or bought, no staff, no hybrid
            for g in range(G):
                sg = st[g * NST * PB:(g + 1) * NST * PB]
                dg = dems[g * PB:(g + 1) * PB]
                if new_term:
                    for j in range(PB):
                        sg[TNEED * PB + j] = 0.0
                for j in range(PB):
                    x = dg[j] * du * inv_cu * a
                    sg[KN * PB + j] = _fleet(x, e1, inv, beta, capq, floor_s, inv_eta_s)
                _after_exit(sg, dg, du, p, d, phi, inres, in_term, rent_t, res_t, cdt, t,
                            spare, tbpt, ssd)
            continue
        vtok = (V[PBAR, t] - V[STOK, t]) * du  # value per unit of demand
        cnode = V[CNODE, t]
        back = M[M_BACK, t]
        for g in range(G):
            sg = st[g * NST * PB:(g + 1) * NST * PB]
            dg = dems[g * PB:(g + 1) * PB]
            d_top = tops[g]
            if new_term:
                for j in range(PB):
                    sg[TNEED * PB + j] = 0.0
            # the fleet for the busiest hour (before spares) of every demand; the hybrid's
            # first size reaching the peak follows from it (one root a demand-month, not
            # two) (the group's largest load decides for all: the load grows with the
            # demand, and _peak_exact keeps a margin of 2 for the rounding)
            # (from last month's fleet where every demand's is within a step of it, else
            # from the root)
            if _peak_exact(d_top * du * inv_cu * a, e1):
                bad = 0
                if near:
                    for j in range(PB):
                        x = dg[j] * du * inv_cu * a
                        k, na, ok = _fleet_peak_near(max(1.0, sg[KN * PB + j]), x, e1, inv,
                                                     w_zero)
                        sg[KN * PB + j] = k
                        sg[NA * PB + j] = na
                        bad += 0 if ok else 1
                if bad > 0 or not near:
                    for j in range(PB):
                        x = dg[j] * du * inv_cu * a
                        k, na = _fleet_peak(x, e1, inv, beta, capq, floor_s, inv_eta_s,
                                            w_zero)
                        sg[KN * PB + j] = k
                        sg[NA * PB + j] = na
            else:  # (a load of ~1e8 nodes, or a scale efficiency near 0)
                for j in range(PB):
                    x = dg[j] * du * inv_cu * a
                    sg[KN * PB + j] = _fleet(x, e1, inv, beta, capq, floor_s, inv_eta_s)
                    sg[NA * PB + j] = _first(x, e1, inv, beta, capq, floor_s, inv_eta_s)
            # the hybrid's rule, in a loop of its own: it is a third of the month's work,
            # and where no node can pay at the group's largest demand (with c >= 0 a fleet
            # of n >= 1 nodes earns at most value (hp a + (1 - hp) b) - c - staff) its
            # fleet is 0
            if du == 0.0:  # no demand: a node serves nothing, none held (or a tie at no cost)
                zero_ns = 1.0 if -cnode - staff0 >= -TOL else 0.0
                for j in range(PB):
                    sg[NS * PB + j] = zero_ns
                owned[g] = owned[g] or zero_ns > 0.0
            elif cnode >= 0.0 and (max(0.0, vtok * d_top) * (hp * a + (1.0 - hp) * b) - cnode
                                   - staff0 < -TOL):
                for j in range(PB):
                    sg[NS * PB + j] = 0.0
            else:
                # the first sizes reaching b: from last month's, as the fleet's
                if b >= a:
                    for j in range(PB):
                        sg[NB * PB + j] = sg[NA * PB + j]
                else:
                    bad = 0
                    if near:
                        for j in range(PB):
                            q = dg[j] * du * inv_cu
                            k, ok = _first_near(max(1.0, sg[NB * PB + j]), b * q, e1, inv)
                            sg[NB * PB + j] = k
                            bad += 0 if ok else 1
                    if bad > 0 or not near:
                        for j in range(PB):
                            q = dg[j] * du * inv_cu
                            sg[NB * PB + j] = _first(b * q, e1, inv, beta, capq, floor_s,
                                                     inv_eta_s)
                na_top = sg[NA * PB]
                for j in range(PB):
                    na_top = max(na_top, sg[NA * PB + j])
                if na_top <= floor_s:  # the sizes around scale_full_nodes are na
                    for j in range(PB):
                        sg[NS * PB + j] = n_star_sizes(
                            cu / (dg[j] * du), vtok * dg[j], cnode, staff0, a, hp, b, e1, inv,
                            floor_s, ceil_s, sg[NA * PB + j], sg[NB * PB + j], False)
                else:
                    for j in range(PB):
                        sg[NS * PB + j] = n_star_sizes(
                            cu / (dg[j] * du), vtok * dg[j], cnode, staff0, a, hp, b, e1, inv,
                            floor_s, ceil_s, sg[NA * PB + j], sg[NB * PB + j], True)
                for j in range(PB):
                    owned[g] = owned[g] or sg[NS * PB + j] > 0.0
            # the costs; a group whose hybrid holds no node yet, and none this month, without
            # the hybrid's terms (exactly 0 there)
            if owned[g]:
                _before_exit(sg, dg, du, p, d, phi, pn, cu, inres, in_term, rent_t, res_t, back,
                             cdt, t, staff0, power, colo, owned_run, mf12, net, spare, tbpt, ssd,
                             a, hp, b, e1, inv, True)
            else:
                _before_exit(sg, dg, du, p, d, phi, pn, cu, inres, in_term, rent_t, res_t, back,
                             cdt, t, staff0, power, colo, owned_run, mf12, net, spare, tbpt, ssd,
                             a, hp, b, e1, inv, False)
    d_ex = V[DISC, ex]
    k = 1.0 - rate
    f, cde = (1.0 - bonus) / life, V[CDISC, ex]
    owned_back = d_ex * keep ** (ex / 12.0) - 1.0
    for g in range(G):
        sg = st[g * NST * PB:(g + 1) * NST * PB]
        for j in range(PB):
            xs, ps, bs = _depreciation(sg, XS, j, bonus, f, cde, ex)
            x1, p1, b1 = _depreciation(sg, X1, j, bonus, f, cde, ex)
            x3, p3, b3 = _depreciation(sg, X3, j, bonus, f, cde, ex)
            x5, p5, b5 = _depreciation(sg, X5, j, bonus, f, cde, ex)
            r1, r5 = sg[R1 * PB + j], sg[R5 * PB + j]
            o = out[g * PB + j]
            o[NPV] = 0.0
            o[NPV + 1] = (k * sg[C1 * PB + j] - rate * x1 + rate * p1 + s_sov
                          + d_ex * (r1 - rate * (r1 - b1)))
            o[NPV + 2] = (k * sg[C2 * PB + j] - rate * xs + rate * ps + s_sov
                          + d_ex * rate * bs)
            o[NPV + 3] = (k * sg[C3 * PB + j] - rate * x3 + rate * p3 + s_sov
                          + d_ex * rate * b3)
            o[NPV + 4] = (k * sg[C4 * PB + j] - rate * xs + rate * ps + s_sov
                          + d_ex * rate * bs
                          + sg[NBT * PB + j] * V[PN, 0] * S[ORES] * owned_back)
            o[NPV + 5] = (k * sg[C5 * PB + j] - rate * x5 + rate * p5
                          + d_ex * (r5 - rate * (r5 - b5)))
            o[SUM_API] = dems[g * PB + j] * k_api
            o[SUM_SOV] = s_sov
            o[SUM_DD] = dems[g * PB + j] * k_dd
            o[HYB_TOP] = sg[NHT * PB + j]
            o[ANN] = ann


@jit(wide=True)
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
    M = np.empty((NM, V.shape[1]))
    _months(V, S, M)
    G = (n + PB - 1) // PB
    blk = np.empty(G * PB)
    for j in range(G * PB):
        blk[j] = dems[min(j, n - 1)]
    st = np.empty(NST * G * PB)
    res = np.empty((G * PB, NRES_OUT))
    npv_block(V, S, M, blk, st, res)
    for j in range(n):
        for i in range(NRES_OUT):
            out[j, i] = res[j, i]
