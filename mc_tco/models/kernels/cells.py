"""Every output of :func:`.cell.cell` of one row at many demands (:func:`cell_row`): the
scalar month loop with the demands in the SIMD lanes, the base rows' outputs at every grid
point (payback, peak cash, the irr, buy's fleet, storage, investment and cost components,
the hybrid's share served).

:func:`.cell.cell` runs one demand at a time: 4.7 us a cell of the default book's base
rows at its 46 demands, 1.8 of the default run's 17 CPU seconds (issue 26). Here 1.8 us
(4,096 rows at 46 demands: 0.86 -> 0.33 s, 0.13 s of it the irr): a group of :data:`PB`
demands runs each month together, in three passes over the months:

1. each demand's fleet for the busiest hour and the hybrid's size, found as
   :func:`.block.npv_block` finds them (from last month's where that is exact, the rule
   skipped where no node can pay at the group's largest demand): :func:`.cell.cell`'s
   whole numbers (its :func:`.hybrid.n_star` one demand at a time took 0.22 of those
   0.86 s, this 0.06);
2. the reserved terms' largest fleet (a term's need looks ahead to its last month);
3. the costs, taxes, flows, paths and sums of the six strategies, each line
   :func:`.cell.cell`'s with its arithmetic in the same order (so the same numbers to the
   last bit), each in a loop over the group's demands with no branch LLVM cannot turn into
   a select, the group's state in one flat buffer at constant offsets, so that LLVM runs
   the loops in SIMD lanes (``wide``, :func:`.jit.jit`'s 512-bit preference, changed
   neither their speed nor their compile time on the AMD AVX-512 machine of 2026-12-06:
   not set).

The month-only factors are computed once a month for every demand (the resale factor's
pow, the reserved term's price of a node). Rows whose purchases stop depreciating before
exit (a tax life shorter than the time to exit: the straight-line depreciation ends at a
month of its own for every purchase) and fewer than ``PB / 2`` demands stay with
:func:`.cell.cell`; for every other row the depreciation of a purchase runs past exit,
where none is counted, so its end need not be tracked. The irr of buy and the hybrid is
:func:`.irr.yearly_irr` of each demand's flows, as :func:`.cell.cell`'s.
"""

from __future__ import annotations

import math

import numpy as np

from .block import PB
from .cell import (
    COMP,
    COMPONENTS,
    FLEETU,
    HYBS,
    INIT,
    INV_NET,
    INV_NODE,
    INV_SSD,
    IRR,
    NODES,
    NOUT,
    PAY,
    PEAK,
    SPAY,
    SPEAK,
    TBMAX,
    cell,
)
from .hybrid import (
    eta,
    eta_inv,
    first_near,
    first_reaching,
    fleet_peak,
    fleet_peak_near,
    fleet_size,
    load_share,
    n_star_sizes,
    peak_exact,
    with_spares,
)
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

__all__ = ["cell_row"]

# ---- a group's state vectors (offsets in units of PB): the scalars of :func:`.cell.cell`
(NB_TOP, NB_PREV, NH_TOP, NH_PREV, PB_SUM, PH_SUM, RES_B, RES_H, HW_D, OWNS, TB1, TB3, TB5,
 S_SERVED, S_FULL, S_HYB, S_DEM, OWNED_OUT) = range(18)
# per strategy s = 1..5 (offset + s - 1): cell's Z rows
SLOPE, DEPS, CAPS, CUM, CUMN, LOW, LOWN, PAYS, PAYN, LUMP, FLOW = (18 + 5 * i for i in range(11))
# the month's costs and capex of each strategy (offset + s - 1)
COST, CAPX = 73, 78
# the month's common quantities, the month's fleets
API, NBT, UP_B, SSD_B, REST, STAFFV, NEED_T, NS_T, NRES_T, TAXV = range(83, 93)
# the outputs summed over the months (offset + cell's output index): INIT .. NODES and the
# components
OUT = 93
NST = OUT + NOUT


@jit
def _fleets(V: np.ndarray, S: np.ndarray, dems: np.ndarray, need: np.ndarray,
            ns: np.ndarray) -> None:
    """Pass 1: each demand's fleet with spares ``need`` (months, PB) and the hybrid's size
    ``ns`` (months, PB; 0 from exit on): :func:`.cell.cell`'s whole numbers, found as
    :func:`.block.npv_block` finds them (from last month's where that is exact, the
    hybrid's rule skipped where no node can pay at the group's largest demand)."""
    T, ex = int(S[T_]), int(S[EXIT])
    a, hp, b, ut, e1, sf = S[A_], S[HP], S[B_], S[UTIL], S[E1], S[SFULL]
    staff0, spare = S[STAFF], S[SPARE]
    inv = 1.0 / (sf - 1.0)
    beta = (1.0 - e1) * inv
    floor_s, ceil_s = np.floor(sf), np.ceil(sf)
    capq = floor_s * eta_inv(floor_s, e1, inv)
    inv_eta_s = 1.0 / eta_inv(max(sf, 1.0), e1, inv)
    w_zero = 0.0 * eta_inv(0.0, e1, inv)
    near = 0.0 < e1 <= 1.0  # (n eta(n) rises with n: a guess's test is exact)
    kn, na, nb = np.zeros(PB), np.zeros(PB), np.zeros(PB)
    d_top = dems[0]
    for j in range(PB):
        d_top = max(d_top, dems[j])
    for t in range(T):
        du = V[DU, t]
        cu = V[CAP, t] * ut
        inv_cu = 1.0 / cu
        if t >= ex:
            for j in range(PB):
                x = dems[j] * du * inv_cu * a
                kn[j] = fleet_size(x, e1, inv, beta, capq, floor_s, inv_eta_s)
                need[t, j] = with_spares(kn[j], spare)
                ns[t, j] = 0.0
            continue
        if peak_exact(d_top * du * inv_cu * a, e1):
            bad = 0
            if near:
                for j in range(PB):
                    x = dems[j] * du * inv_cu * a
                    k, n_a, ok = fleet_peak_near(max(1.0, kn[j]), x, e1, inv, w_zero)
                    kn[j] = k
                    na[j] = n_a
                    bad += 0 if ok else 1
            if bad > 0 or not near:
                for j in range(PB):
                    x = dems[j] * du * inv_cu * a
                    k, n_a = fleet_peak(x, e1, inv, beta, capq, floor_s, inv_eta_s, w_zero)
                    kn[j] = k
                    na[j] = n_a
        else:
            for j in range(PB):
                x = dems[j] * du * inv_cu * a
                kn[j] = fleet_size(x, e1, inv, beta, capq, floor_s, inv_eta_s)
                na[j] = first_reaching(x, e1, inv, beta, capq, floor_s, inv_eta_s)
        for j in range(PB):
            need[t, j] = with_spares(kn[j], spare)
        vtok = (V[PBAR, t] - V[STOK, t]) * du
        cnode = V[CNODE, t]
        if du == 0.0:
            zero_ns = 1.0 if -cnode - staff0 >= -TOL else 0.0
            for j in range(PB):
                ns[t, j] = zero_ns
        elif cnode >= 0.0 and (max(0.0, vtok * d_top) * (hp * a + (1.0 - hp) * b) - cnode
                               - staff0 < -TOL):
            for j in range(PB):
                ns[t, j] = 0.0
        else:
            if b >= a:
                for j in range(PB):
                    nb[j] = na[j]
            else:
                bad = 0
                if near:
                    for j in range(PB):
                        q = dems[j] * du * inv_cu
                        k, ok = first_near(max(1.0, nb[j]), b * q, e1, inv)
                        nb[j] = k
                        bad += 0 if ok else 1
                if bad > 0 or not near:
                    for j in range(PB):
                        q = dems[j] * du * inv_cu
                        nb[j] = first_reaching(b * q, e1, inv, beta, capq, floor_s, inv_eta_s)
            na_top = na[0]
            for j in range(PB):
                na_top = max(na_top, na[j])
            if na_top <= floor_s:
                for j in range(PB):
                    ns[t, j] = n_star_sizes(cu / (dems[j] * du), vtok * dems[j], cnode, staff0,
                                            a, hp, b, e1, inv, floor_s, ceil_s, na[j], nb[j],
                                            False)
            else:
                for j in range(PB):
                    ns[t, j] = n_star_sizes(cu / (dems[j] * du), vtok * dems[j], cnode, staff0,
                                            a, hp, b, e1, inv, floor_s, ceil_s, na[j], nb[j],
                                            True)


@jit
def _terms(S: np.ndarray, need: np.ndarray, nres: np.ndarray, t0: np.ndarray,
           inres: np.ndarray) -> None:
    """Pass 2: each month's reserved fleet ``nres`` (months, PB; its term's largest need),
    the month its term starts ``t0`` and whether it is in one ``inres`` (months), as
    :func:`.cell.cell`'s."""
    T, ex = int(S[T_]), int(S[EXIT])
    nres[:T] = 0.0
    t0[:T] = 0.0
    inres[:T] = 0.0
    term = int(S[TERM])
    start = S[START]
    top = np.empty(PB)
    while start < ex:
        s0 = int(start)
        end = min(s0 + term, T)
        top[:] = 0.0
        for t in range(s0, end):
            for j in range(PB):
                top[j] = max(top[j], need[t, j])
        for t in range(s0, end):
            for j in range(PB):
                nres[t, j] = top[j]
            t0[t] = s0
            inres[t] = 1.0
        start += term


@jit(inline="always")
def _common(st: np.ndarray, dems: np.ndarray, du: float, p: float, d: float, phi: float,
            alive_self: float, before: bool, staff: float, pn: float, back: float, cu: float,
            in_t: float, rn_t: float, rn_0: float, cap: float, a: float, hp: float, b: float,
            e1: float, sf: float, power: float, colo: float, tbpt: float, ssd: float,
            mf12: float, net: float, G: float, resd: float, node0: float) -> None:
    """A month's quantities of a group's demands that every strategy reads (its fleets,
    storage, costs and capex), :func:`.cell.cell`'s lines before its loop over the
    strategies; the running sums of the outputs."""
    for j in range(PB):
        D = dems[j] * du
        api = p * D
        need = st[NEED_T * PB + j]
        nb_top = max(st[NB_TOP * PB + j], need)
        st[NB_TOP * PB + j] = nb_top
        nbt = nb_top if before else 0.0
        part_b = max(0.0, nbt - st[NB_PREV * PB + j]) * pn
        st[NB_PREV * PB + j] = nbt
        part_b_sum = st[PB_SUM * PB + j] + part_b
        st[PB_SUM * PB + j] = part_b_sum
        st[HW_D * PB + j] += d * part_b
        res_b = st[RES_B * PB + j]
        st[RES_B * PB + j] = res_b + part_b * back if part_b > 0.0 else res_b
        nh_top = max(st[NH_TOP * PB + j], st[NS_T * PB + j])
        st[NH_TOP * PB + j] = nh_top
        nht = nh_top if before else 0.0
        part_h = max(0.0, nht - st[NH_PREV * PB + j]) * pn
        st[NH_PREV * PB + j] = nht
        part_h_sum = st[PH_SUM * PB + j] + part_h
        st[PH_SUM * PB + j] = part_h_sum
        res_h = st[RES_H * PB + j]
        st[RES_H * PB + j] = res_h + part_h * back if part_h > 0.0 else res_h
        owns = nht > 0.0 or st[OWNS * PB + j] != 0.0
        st[OWNS * PB + j] = 1.0 if owns else 0.0
        y = 0.0 if nht == 0.0 else (math.inf if D == 0.0 else nht * eta(nht, e1, sf) * cu / D)
        served_h = phi * D * load_share(y, a, hp, b)
        served, served_r = phi * D, in_t * alive_self * D
        tb_prev = st[TB1 * PB + j]
        tb1 = max(tb_prev, tbpt * served)
        ssd_b = (tb1 - tb_prev) * ssd
        st[TB1 * PB + j] = tb1
        tb_prev = st[TB3 * PB + j]
        tb = max(tb_prev, tbpt * served_r)
        ssd_r = (tb - tb_prev) * ssd
        st[TB3 * PB + j] = tb
        tb_prev = st[TB5 * PB + j]
        tb = max(tb_prev, tbpt * served_h)
        ssd_h = (tb - tb_prev) * ssd
        st[TB5 * PB + j] = tb
        rest = (1.0 - phi) * api
        up_b = mf12 * part_b_sum if before else 0.0
        up_h = mf12 * part_h_sum if before else 0.0
        rent = need * phi * G * rn_t * HOURS_PER_MONTH
        res = st[NRES_T * PB + j] * G * rn_0 * (1.0 - resd) * HOURS_PER_MONTH
        st[(COST + 0) * PB + j] = (staff + nbt * (power + colo) + up_b + part_b * (1 + net)
                                   + ssd_b + rest)
        st[(COST + 1) * PB + j] = staff + rent + ssd_b + rest
        st[(COST + 2) * PB + j] = staff + res + ssd_r + (1.0 - in_t * alive_self) * api
        st[(COST + 3) * PB + j] = (staff + nbt * (power + colo + mf12 * node0) + ssd_b
                                   + rest)
        st[(COST + 4) * PB + j] = ((staff if owns else 0.0) + nht * (power + colo) + up_h
                                   + part_h * (1 + net) + ssd_h + api - p * served_h)
        capx1 = part_b * (1 + net) + ssd_b
        st[(CAPX + 0) * PB + j] = capx1
        st[(CAPX + 1) * PB + j] = ssd_b
        st[(CAPX + 2) * PB + j] = ssd_r
        st[(CAPX + 3) * PB + j] = ssd_b
        st[(CAPX + 4) * PB + j] = part_h * (1 + net) + ssd_h
        st[S_SERVED * PB + j] += served
        st[S_FULL * PB + j] += nbt * cap
        st[S_HYB * PB + j] += served_h
        st[S_DEM * PB + j] += D
        st[(OUT + INV_NET) * PB + j] += part_b * net
        st[(OUT + INV_SSD) * PB + j] += ssd_b
        st[(OUT + TBMAX) * PB + j] = max(st[(OUT + TBMAX) * PB + j], tb1)
        st[(OUT + NODES) * PB + j] = max(st[(OUT + NODES) * PB + j], nbt)
        st[API * PB + j] = api
        st[NBT * PB + j] = nbt
        st[UP_B * PB + j] = up_b
        st[SSD_B * PB + j] = ssd_b
        st[REST * PB + j] = rest
        st[STAFFV * PB + j] = staff


@jit(inline="always")
def _flow(st: np.ndarray, k: int, taxed: bool, rate: float, bonus: float, life: float,
          before: bool, sov_t: float) -> None:
    """Strategy ``k + 1``'s tax and flow of the month (``taxed``: a tax rate not 0, a
    literal), :func:`.cell.cell`'s lines in its loop over the strategies."""
    for j in range(PB):
        api = st[API * PB + j]
        cost = st[(COST + k) * PB + j]
        tax = 0.0
        if taxed:
            cx = st[(CAPX + k) * PB + j]
            slope = st[(SLOPE + k) * PB + j]
            slope = slope + cx * (1.0 - bonus) / life if cx != 0.0 else slope
            st[(SLOPE + k) * PB + j] = slope
            dep = slope + bonus * cx if before else 0.0
            st[(DEPS + k) * PB + j] += dep
            st[(CAPS + k) * PB + j] += cx
            tax = rate * (api - (cost - cx) - dep)
        st[TAXV * PB + j] = tax
        st[(FLOW + k) * PB + j] = api - cost - tax + sov_t


@jit(inline="always")
def _components(st: np.ndarray, d: float, power: float, colo: float) -> None:
    """Buy's cost components of the month."""
    for j in range(PB):
        nbt = st[NBT * PB + j]
        st[(OUT + COMP + 2) * PB + j] += d * nbt * power
        st[(OUT + COMP + 3) * PB + j] += d * nbt * colo
        st[(OUT + COMP + 4) * PB + j] += d * st[UP_B * PB + j]
        st[(OUT + COMP + 5) * PB + j] += d * st[SSD_B * PB + j]
        st[(OUT + COMP + 6) * PB + j] += d * st[STAFFV * PB + j]
        st[(OUT + COMP + 7) * PB + j] += d * st[REST * PB + j]
        st[(OUT + COMP + 8) * PB + j] += d * st[TAXV * PB + j]


@jit(inline="always")
def _lump(st: np.ndarray, k: int, resale_at: int, rate: float, d_ex: float,
          back_owned: float) -> None:
    """Strategy ``k + 1``'s lump at exit: its resale (state offset ``resale_at``, -1: none)
    less the tax on the gain over book value (owned: and its servers' resale)."""
    for j in range(PB):
        resale = st[resale_at * PB + j] if resale_at >= 0 else 0.0
        tax_exit = rate * (resale - (st[(CAPS + k) * PB + j] - st[(DEPS + k) * PB + j]))
        lump = resale - tax_exit
        if k == 3:
            lump += st[OWNED_OUT * PB + j] * back_owned
        st[(LUMP + k) * PB + j] = lump
        if k == 0:
            st[(OUT + COMP + 8) * PB + j] += d_ex * tax_exit


@jit(inline="always")
def _path(st: np.ndarray, k: int, last: bool, d: float, d_ex: float, t: int,
          hybrid: bool) -> None:
    """Strategy ``k + 1``'s cumulative flows, their lows and paybacks after month ``t``."""
    for j in range(PB):
        flow = st[(FLOW + k) * PB + j]
        lump = st[(LUMP + k) * PB + j] if last else 0.0
        cum = st[(CUM + k) * PB + j] + (d * flow + d_ex * lump)
        cumn = st[(CUMN + k) * PB + j] + (flow + lump)
        st[(CUM + k) * PB + j] = cum
        st[(CUMN + k) * PB + j] = cumn
        st[(LOW + k) * PB + j] = min(st[(LOW + k) * PB + j], cum)
        st[(LOWN + k) * PB + j] = min(st[(LOWN + k) * PB + j], cumn)
        counts = not hybrid or st[OWNS * PB + j] != 0.0
        pays = st[(PAYS + k) * PB + j]
        st[(PAYS + k) * PB + j] = (t + 1.0 if counts and pays == math.inf and cum >= 0.0
                                   else pays)
        payn = st[(PAYN + k) * PB + j]
        st[(PAYN + k) * PB + j] = (t + 1.0 if counts and payn == math.inf and cumn >= 0.0
                                   else payn)


@jit
def _months(V: np.ndarray, S: np.ndarray, dems: np.ndarray, need: np.ndarray,
            ns: np.ndarray, nres: np.ndarray, t0: np.ndarray, inres: np.ndarray,
            st: np.ndarray, out: np.ndarray, flows: np.ndarray, paths: bool) -> None:
    """Pass 3: :func:`.cell.cell`'s month loop over a group's demands, its outputs into
    ``out`` (PB, NOUT) but the irr, buy's and the hybrid's flows into ``flows`` (2, PB,
    months). The group's state is one flat buffer ``st`` at constant offsets
    (:data:`NST` vectors of PB): LLVM then sees the vectors are distinct and runs the
    loops over the demands in SIMD lanes."""
    T, ex, lm = int(S[T_]), int(S[EXIT]), int(S[LUMPM])
    a, hp, b, ut = S[A_], S[HP], S[B_], S[UTIL]
    e1, sf = S[E1], S[SFULL]
    power, colo, staff0, tbpt, ssd = S[POWER], S[COLO], S[STAFF], S[TBPT], S[SSD]
    mf12, keep, net, G = S[MF12], S[KEEP], S[NET], S[G_]
    rate, life, bonus = S[TAX], S[LIFE], S[BONUS]
    sov, resd, node0 = S[SOV], S[RESD], S[NODE0]
    st[:] = 0.0
    for k in range(5):
        for j in range(PB):
            st[(PAYS + k) * PB + j] = math.inf
            st[(PAYN + k) * PB + j] = math.inf
    for j in range(PB):
        top = 0.0
        for t in range(min(ex, T)):
            top = max(top, need[t, j])
        owned_out = top * V[PN, 0] * S[ORES]
        st[OWNED_OUT * PB + j] = owned_out
        st[(CUM + 3) * PB + j] = -owned_out
        st[(CUMN + 3) * PB + j] = -owned_out
    d_ex = V[DISC, ex]
    back_owned = keep ** (ex / 12.0)
    taxed = rate != 0.0
    for t in range(T):
        du, p, d, phi, alive_self = V[DU, t], V[PC, t], V[DISC, t], V[PHI, t], V[SELF, t]
        before = t < ex
        staff = staff0 if before else 0.0
        back = keep ** ((ex - t) / 12.0)
        last = t == lm
        for j in range(PB):
            st[NEED_T * PB + j] = need[t, j]
            st[NS_T * PB + j] = ns[t, j]
            st[NRES_T * PB + j] = nres[t, j]
        _common(st, dems, du, p, d, phi, alive_self, before, staff, V[PN, t], back,
                V[CAP, t] * ut, inres[t], V[RN, t], V[RN, int(t0[t])], V[CAP, t], a, hp, b,
                e1, sf, power, colo, tbpt, ssd, mf12, net, G, resd, node0)
        if t == 0:
            for j in range(PB):
                st[(OUT + INIT) * PB + j] = st[CAPX * PB + j]
        sov_t = sov * alive_self
        # each strategy's tax and flow, buy's components, the lumps at exit and the paths:
        # cell's loop over the strategies, each strategy's lines in its order
        if taxed:
            _flow(st, 0, True, rate, bonus, life, before, sov_t)
            _components(st, d, power, colo)
            _flow(st, 1, True, rate, bonus, life, before, sov_t)
            _flow(st, 2, True, rate, bonus, life, before, sov_t)
            _flow(st, 3, True, rate, bonus, life, before, sov_t)
            _flow(st, 4, True, rate, bonus, life, before, 0.0)
        else:
            _flow(st, 0, False, rate, bonus, life, before, sov_t)
            _components(st, d, power, colo)
            _flow(st, 1, False, rate, bonus, life, before, sov_t)
            _flow(st, 2, False, rate, bonus, life, before, sov_t)
            _flow(st, 3, False, rate, bonus, life, before, sov_t)
            _flow(st, 4, False, rate, bonus, life, before, 0.0)
        if last:
            _lump(st, 0, RES_B, rate, d_ex, back_owned)
            _lump(st, 1, -1, rate, d_ex, back_owned)
            _lump(st, 2, -1, rate, d_ex, back_owned)
            _lump(st, 3, -1, rate, d_ex, back_owned)
            _lump(st, 4, RES_H, rate, d_ex, back_owned)
        if paths:
            for k in range(4):
                _path(st, k, last, d, d_ex, t, False)
            _path(st, 4, last, d, d_ex, t, True)
        for j in range(PB):
            flows[0, j, t] = st[FLOW * PB + j]
            flows[1, j, t] = st[(FLOW + 4) * PB + j]
    ann = 0.0
    for t in range(T):
        ann += V[DISC, t]
    for j in range(PB):
        o = out[j]
        for i in range(NOUT):
            o[i] = 0.0
        o[INIT] = st[(OUT + INIT) * PB + j]
        o[INV_NET] = st[(OUT + INV_NET) * PB + j]
        o[INV_SSD] = st[(OUT + INV_SSD) * PB + j]
        o[TBMAX] = st[(OUT + TBMAX) * PB + j]
        o[NODES] = st[(OUT + NODES) * PB + j]
        for i in range(2, len(COMPONENTS)):
            o[COMP + i] = st[(OUT + COMP + i) * PB + j]
        owns = st[OWNS * PB + j] != 0.0
        for s in range(6):
            o[IRR + s] = math.nan
            if paths:
                never = s == 0 or (s == 5 and not owns)
                k = max(s - 1, 0)
                o[PAY + s] = 0.0 if never else st[(PAYS + k) * PB + j]
                o[SPAY + s] = 0.0 if never else st[(PAYN + k) * PB + j]
                o[PEAK + s] = 0.0 if never else -st[(LOW + k) * PB + j]
                o[SPEAK + s] = 0.0 if never else -st[(LOWN + k) * PB + j]
        hw_d = st[HW_D * PB + j]
        o[COMP + 0] = hw_d - d_ex * st[RES_B * PB + j]
        o[COMP + 1] = hw_d * net
        for i in range(len(COMPONENTS)):
            o[COMP + i] /= ann
        o[INV_NODE] = st[PB_SUM * PB + j]
        full, dem = st[S_FULL * PB + j], st[S_DEM * PB + j]
        o[FLEETU] = st[S_SERVED * PB + j] / full if full > 0.0 else math.nan
        o[HYBS] = st[S_HYB * PB + j] / dem if dem > 0.0 else math.nan


@jit
def cell_row(V: np.ndarray, S: np.ndarray, dems: np.ndarray, W: np.ndarray, Z: np.ndarray,
             buf: np.ndarray, out: np.ndarray, paths: bool, want_irr: bool) -> None:
    """:func:`.cell.cell` of one row at every demand of ``dems`` into ``out`` (demands,
    NOUT): groups of :data:`PB` demands (the last padded with its final demand), or
    :func:`.cell.cell` itself for fewer than ``PB / 2`` demands or where the tax life ends
    before exit. ``W, Z, buf``: :func:`.cell.cell`'s scratch (:data:`.cell.NW`, months),
    (:data:`.cell.NZ`, 6) and (2, >= 64)."""
    n = dems.shape[0]
    if n < PB // 2 or (S[TAX] != 0.0 and S[LIFE] < S[EXIT]):
        none = np.zeros((1, 6))
        no_cash = n < 0  # False, typed as a bool (grid.grid's call of cell)
        for j in range(n):
            cell(V, S, dems[j], W, Z, buf, out[j], paths, want_irr, none, none, no_cash)
        return
    months = V.shape[1]
    need, ns = np.empty((months, PB)), np.empty((months, PB))
    nres, t0, inres = np.empty((months, PB)), np.empty(months), np.empty(months)
    st = np.empty(NST * PB)
    res = np.empty((PB, NOUT))
    flows = np.zeros((2, PB, months))
    dg = np.empty(PB)
    ex = int(S[EXIT])
    for g in range(0, n, PB):
        for j in range(PB):
            dg[j] = dems[min(g + j, n - 1)]
        _fleets(V, S, dg, need, ns)
        _terms(S, need, nres, t0, inres)
        _months(V, S, dg, need, ns, nres, t0, inres, st, res, flows, paths)
        for j in range(min(PB, n - g)):
            o = out[g + j]
            for i in range(NOUT):
                o[i] = res[j, i]
            if paths and want_irr:
                o[IRR + 1] = yearly_irr(flows[0, j], ex, st[LUMP * PB + j], IRR_GUESS)
                o[IRR + 5] = yearly_irr(flows[1, j], ex, st[(LUMP + 4) * PB + j], IRR_GUESS)

