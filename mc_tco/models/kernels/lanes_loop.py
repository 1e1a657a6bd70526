"""The month loops of :mod:`.lanes` (a block of :data:`L` rows at one demand) and the
layout of their buffers: :func:`terms`, once a block (the reserved terms: where each
starts and ends, its rent, the months in one), :func:`needs`, the first pass at a demand
(each month's fleet, the hybrid's first size reaching the peak, each term's largest
need), and :func:`month_loop`, :func:`.npv.npv_cell`'s month loop with the rows in the
lanes.

Every buffer is lane-major: a quantity of the block is :data:`L` consecutive floats, at an
offset (in units of ``L``) named below; the month vectors ``Vl`` at ``(t NV + k) L`` and
the first pass's months ``wk`` at ``(t NWK + k) L``. The lanes' loops have a constant trip
count of 16, so that LLVM vectorizes them with its runtime alias checks (it does not at 8).
"""

from __future__ import annotations

import math

import numpy as np

from .hybrid import eta, load_share, n_star_closed
from .hybrid import eta_inv as _eta
from .hybrid import first_peak as _first_peak
from .hybrid import first_reaching as _first
from .hybrid import fleet_size as _fleet
from .hybrid import peak_exact as _peak_exact
from .hybrid import with_spares as _with_spares
from .jit import jit
from .rows import (
    A_,
    B_,
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
    MF12,
    NET,
    NODE0,
    NV,
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
    TBPT,
    TERM,
    TOL,
    UTIL,
)

L = 16  # rows per block (lanes)
# ---- lane scalars (offsets in units of L)
(QT, QEX, QA, QHP, QB, QUT, QE1, QSF, QSPARE, QPC, QORUN, QSTAFF, QTBPT, QSSD, QMF12, QNET1,
 QG, QSOV, QRESP, QINV, QBETA, QFLOOR, QCEIL, QCAPQ, QIES, QTOP, QKEEP, QSTART, QTERM) = range(29)
NQ = 29
# ---- state (offsets in units of L): running maxima, storage, the sums of npv_cell
(NBT, NBP, NHT, NHP, OWNS, TBB, TBR, TBH, UPB, UPH, C1, C2, C3, C4, C5, R1, R5, SAPI, SDD,
 SSOV, SANN, HYBT, NS, CLOSED, PARTB, PARTH) = range(26)
# the purchase streams, four moments each (sum d cx, sum CDISC[t] cx, sum t cx, sum cx):
# buy, buy's SSDs (also rent's and owned's), reserved, hybrid
MB, MS, MR, MH = range(26, 42, 4)
NST = 42
# ---- the first pass's months (offsets (t * NWK + k) * L): need, the hybrid's first size
# reaching the peak, the reserved term's need (at a demand: :func:`needs`); its node rent,
# in a term, the term's first month, its last (the block's: :func:`terms`)
WNEED, WNA, WNRES, WRT0, WIN, WFIRST, WLAST = range(7)
NWK = 7
# ---- the carried lane values ``cy`` (4 L): at a demand (:func:`needs`) the running largest
# need (offset 0) and a term's largest need going back (2 L); once a block (:func:`terms`)
# the rent of the term's first month (L) and the term start (3 L)


@jit(inline="always")
def at(buf: np.ndarray, k: int, j: int) -> float:
    """Lane ``j`` of the quantity at offset ``k`` of a lane-major buffer."""
    return buf[k * L + j]


@jit(wide=True)
def load(V: np.ndarray, S: np.ndarray, blk: np.ndarray, Vl: np.ndarray,
          q: np.ndarray) -> int:
    """The month vectors of the rows ``blk`` lane-major into ``Vl`` ((t NV + k) L + j; past
    a row's horizon its last month with a discount factor of 0) and their scalars into
    ``q``; returns the block's longest horizon."""
    tm = 1
    for j in range(L):
        tm = max(tm, int(S[blk[j], T_]))
    for k in range(NV):  # (a vector at a time: its months' lines stay in the L1 cache)
        for j in range(L):
            i = blk[j]
            T = int(S[i, T_])
            for t in range(T):
                Vl[(t * NV + k) * L + j] = V[i, k, t]
            for t in range(T, tm):
                Vl[(t * NV + k) * L + j] = 0.0 if k == DISC else V[i, k, T - 1]
    for j in range(L):
        s = S[blk[j]]
        T = int(s[T_])
        e1, sf = s[E1], s[SFULL]
        inv = 1.0 / (sf - 1.0)
        floor_s = np.floor(sf)
        q[QT * L + j] = T
        q[QEX * L + j] = s[EXIT]
        q[QA * L + j] = s[A_]
        q[QHP * L + j] = s[HP]
        q[QB * L + j] = s[B_]
        q[QUT * L + j] = s[UTIL]
        q[QE1 * L + j] = e1
        q[QSF * L + j] = sf
        q[QSPARE * L + j] = s[SPARE]
        q[QPC * L + j] = s[POWER] + s[COLO]
        q[QORUN * L + j] = s[POWER] + s[COLO] + s[MF12] * s[NODE0]
        q[QSTAFF * L + j] = s[STAFF]
        q[QTBPT * L + j] = s[TBPT]
        q[QSSD * L + j] = s[SSD]
        q[QMF12 * L + j] = s[MF12]
        q[QNET1 * L + j] = 1.0 + s[NET]
        q[QG * L + j] = s[G_]
        q[QSOV * L + j] = s[SOV]
        q[QRESP * L + j] = s[G_] * (1.0 - s[RESD]) * HOURS_PER_MONTH
        q[QINV * L + j] = inv
        q[QBETA * L + j] = (1.0 - e1) * inv
        q[QFLOOR * L + j] = floor_s
        q[QCEIL * L + j] = np.ceil(sf)
        q[QCAPQ * L + j] = floor_s * _eta(floor_s, e1, inv)
        q[QIES * L + j] = 1.0 / _eta(max(sf, 1.0), e1, inv)
        q[QTOP * L + j] = s[HP] * s[A_] + (1.0 - s[HP]) * s[B_]
        q[QKEEP * L + j] = s[KEEP]
        q[QSTART * L + j] = s[START]
        q[QTERM * L + j] = int(s[TERM])
    return tm


@jit(wide=True)
def terms(tm: int, Vl: np.ndarray, q: np.ndarray, wk: np.ndarray, cy: np.ndarray) -> None:
    """The reserved terms of the block (:func:`.npv.fleet`'s loop, what no demand changes),
    into ``wk``: each month's term start ``s`` (terms of ``term`` months from ``start``
    while ``s < exit``, the last cut at the horizon) carried forward, whether the month
    starts a term, the rent of the term's first month, whether the month is in a term;
    backward, whether it ends one. Once a block: :func:`needs` reads them at each demand."""
    for j in range(L):
        cy[L + j] = 0.0
        cy[3 * L + j] = q[QSTART * L + j]
    for t in range(tm):
        o, w, tf = t * NV * L, t * NWK * L, float(t)
        for j in range(L):
            s0, term = q[QSTART * L + j], q[QTERM * L + j]
            ts = cy[3 * L + j]  # (from t = start on: start + term floor((t - start) / term))
            ts = ts + term if tf >= ts + term else ts
            cy[3 * L + j] = ts
            first = tf == ts
            rent = Vl[o + RN * L + j] if first else cy[L + j]
            cy[L + j] = rent
            wk[w + WRT0 * L + j] = rent
            wk[w + WFIRST * L + j] = 1.0 if first else 0.0
            wk[w + WIN * L + j] = 1.0 if ((tf >= s0) & (ts < q[QEX * L + j])
                                          & (tf < q[QT * L + j])) else 0.0
    for r in range(tm):  # (unsigned indices: no wraparound test in a descending loop)
        t = tm - 1 - r
        w, tf = t * NWK * L, float(t)
        for j in range(L):
            term = q[QTERM * L + j]
            ts = cy[3 * L + j]  # (back to the term start holding t, from t = start on)
            ts = ts - term if tf < ts else ts
            cy[3 * L + j] = ts
            last = (tf == ts + term - 1.0) | (tf == q[QT * L + j] - 1.0)
            wk[np.uint64(w + WLAST * L + j)] = 1.0 if last else 0.0


@jit(wide=True)
def needs(dem: float, tm: int, Vl: np.ndarray, q: np.ndarray, wk: np.ndarray,
           top: np.ndarray, cy: np.ndarray, rb: np.ndarray) -> None:
    """:func:`.npv.fleet` of the block at ``dem``: each month's need and the hybrid's first
    size reaching the peak (lanes) and, in the same pass, the running largest need of the
    month's reserved term (the terms: :func:`terms`); backward, each term's largest need
    (the running one at its last month) into ``wk``; each row's largest need before exit
    (owned's fleet) into ``top``."""
    for j in range(L):
        top[j] = 0.0
        cy[j] = cy[2 * L + j] = 0.0
    for t in range(tm):
        o, w, tf = t * NV * L, t * NWK * L, float(t)
        inexact = 0
        for j in range(L):
            x = dem * Vl[o + DU * L + j] * q[QA * L + j] / (
                Vl[o + CAP * L + j] * q[QUT * L + j])
            e1, inv = q[QE1 * L + j], q[QINV * L + j]
            k = _fleet(x, e1, inv, q[QBETA * L + j], q[QCAPQ * L + j], q[QFLOOR * L + j],
                       q[QIES * L + j])
            wk[w + WNEED * L + j] = _with_spares(k, q[QSPARE * L + j])
            wk[w + WNA * L + j] = _first_peak(k, x, e1, inv)
            inexact += 0 if _peak_exact(x, e1) else 1
        if inexact:  # (a load of ~1e8 nodes, or a scale efficiency near 0)
            for j in range(L):
                x = dem * Vl[o + DU * L + j] * q[QA * L + j] / (
                    Vl[o + CAP * L + j] * q[QUT * L + j])
                wk[w + WNA * L + j] = _first(x, q[QE1 * L + j], q[QINV * L + j],
                                             q[QBETA * L + j], q[QCAPQ * L + j],
                                             q[QFLOOR * L + j], q[QIES * L + j])
        for j in range(L):
            need = wk[w + WNEED * L + j]
            run = need if wk[w + WFIRST * L + j] > 0.0 else max(cy[j], need)
            cy[j] = run
            rb[t * L + j] = run
            top[j] = max(top[j], need) if tf < q[QEX * L + j] else top[j]
    for r in range(tm):  # (unsigned indices: no wraparound test in a descending loop)
        t = tm - 1 - r
        w = t * NWK * L
        for j in range(L):
            most = (rb[np.uint64(t * L + j)] if wk[np.uint64(w + WLAST * L + j)] > 0.0
                    else cy[2 * L + j])
            cy[2 * L + j] = most
            wk[np.uint64(w + WNRES * L + j)] = (most if wk[np.uint64(w + WIN * L + j)] > 0.0
                                                else 0.0)


@jit(inline="always")
def _moments(st: np.ndarray, k: int, j: int, d: float, cdt: float, t: float,
             cx: float) -> None:
    st[k * L + j] += d * cx
    st[(k + 1) * L + j] += cdt * cx
    st[(k + 2) * L + j] += t * cx
    st[(k + 3) * L + j] += cx


@jit(wide=True)
def month_loop(dem: float, tm: int, Vl: np.ndarray, q: np.ndarray, wk: np.ndarray,
            st: np.ndarray) -> None:
    """:func:`.npv.npv_cell`'s month loop of the block at ``dem``, the sums into ``st``."""
    st[:] = 0.0
    for t in range(tm):
        o, w = t * NV * L, t * NWK * L
        tf = float(t)
        # the hybrid's rule: none where no node can pay (with c >= 0 a fleet of n >= 1
        # earns at most value (hp a + (1 - hp) b) - c - staff), 0 or 1 at no demand
        closed = 0
        for j in range(L):
            D = dem * Vl[o + DU * L + j]
            staff = q[QSTAFF * L + j] if tf < q[QEX * L + j] else 0.0
            cnode = Vl[o + CNODE * L + j]
            value = (Vl[o + PBAR * L + j] - Vl[o + STOK * L + j]) * D
            skip = (cnode >= 0.0) & (max(0.0, value) * q[QTOP * L + j] - cnode - staff
                                     < -TOL)
            zero = 1.0 if -cnode - staff >= -TOL else 0.0
            st[NS * L + j] = zero if D == 0.0 else 0.0
            c = 0 if D == 0.0 or skip else 1
            st[CLOSED * L + j] = c
            closed += c
        if closed:
            for j in range(L):
                D = dem * Vl[o + DU * L + j]
                staff = q[QSTAFF * L + j] if tf < q[QEX * L + j] else 0.0
                cu = Vl[o + CAP * L + j] * q[QUT * L + j]
                value = (Vl[o + PBAR * L + j] - Vl[o + STOK * L + j]) * D
                ns = n_star_closed(cu / D, D / cu, value, Vl[o + CNODE * L + j], staff,
                                   q[QA * L + j], q[QHP * L + j], q[QB * L + j],
                                   q[QE1 * L + j], q[QINV * L + j], q[QBETA * L + j],
                                   q[QCAPQ * L + j], q[QFLOOR * L + j], q[QCEIL * L + j],
                                   q[QIES * L + j], wk[w + WNA * L + j])
                st[NS * L + j] = ns if st[CLOSED * L + j] > 0.0 else st[NS * L + j]
        for j in range(L):
            D = dem * Vl[o + DU * L + j]
            p, d = Vl[o + PC * L + j], Vl[o + DISC * L + j]
            phi, own = Vl[o + PHI * L + j], Vl[o + SELF * L + j]
            pn = Vl[o + PN * L + j]
            api = p * D
            before = tf < q[QEX * L + j]
            staff = q[QSTAFF * L + j] if before else 0.0
            st[SANN * L + j] += d
            st[SAPI * L + j] += d * api
            st[SDD * L + j] += d * D
            st[SSOV * L + j] += d * q[QSOV * L + j] * own
            need = wk[w + WNEED * L + j]
            nb_top = max(st[NBT * L + j], need)
            nbt = nb_top if before else 0.0
            part_b = max(0.0, nbt - st[NBP * L + j]) * pn
            cu = Vl[o + CAP * L + j] * q[QUT * L + j]
            nh_top = max(st[NHT * L + j], st[NS * L + j])
            nht = nh_top if before else 0.0
            part_h = max(0.0, nht - st[NHP * L + j]) * pn
            owns = 1.0 if nht > 0.0 else st[OWNS * L + j]
            e1, sf = q[QE1 * L + j], q[QSF * L + j]
            y = 0.0 if nht == 0.0 else (math.inf if D == 0.0 else nht * eta(nht, e1, sf) * cu / D)
            served_h = phi * D * load_share(y, q[QA * L + j], q[QHP * L + j], q[QB * L + j])
            tbpt, ssd = q[QTBPT * L + j], q[QSSD * L + j]
            tb = st[TBB * L + j]
            v = max(tb, tbpt * phi * D)
            ssd_b = (v - tb) * ssd
            st[TBB * L + j] = v
            inres = wk[w + WIN * L + j] * own
            tb = st[TBR * L + j]
            v = max(tb, tbpt * inres * D)
            ssd_r = (v - tb) * ssd
            st[TBR * L + j] = v
            tb = st[TBH * L + j]
            v = max(tb, tbpt * served_h)
            ssd_h = (v - tb) * ssd
            st[TBH * L + j] = v
            mf12 = q[QMF12 * L + j]
            up_b = st[UPB * L + j] + mf12 * part_b
            up_h = st[UPH * L + j] + mf12 * part_h
            served_api = phi * api
            net1 = q[QNET1 * L + j]
            net_b, net_h = part_b * net1, part_h * net1
            pc = q[QPC * L + j]
            st[C1 * L + j] += d * (served_api - staff - nbt * pc - (up_b if before else 0.0)
                                   - net_b - ssd_b)
            st[C2 * L + j] += d * (served_api - staff - need * phi * q[QG * L + j]
                                   * Vl[o + RN * L + j] * HOURS_PER_MONTH - ssd_b)
            st[C3 * L + j] += d * (inres * api - staff - wk[w + WNRES * L + j]
                                   * wk[w + WRT0 * L + j] * q[QRESP * L + j] - ssd_r)
            st[C4 * L + j] += d * (served_api - staff - nbt * q[QORUN * L + j] - ssd_b)
            st[C5 * L + j] += d * (p * served_h - (staff if owns > 0.0 else 0.0) - nht * pc
                                   - (up_h if before else 0.0) - net_h - ssd_h)
            cdt = Vl[o + CDISC * L + j]
            _moments(st, MB, j, d, cdt, tf, net_b + ssd_b)
            _moments(st, MS, j, d, cdt, tf, ssd_b)
            _moments(st, MR, j, d, cdt, tf, ssd_r)
            _moments(st, MH, j, d, cdt, tf, net_h + ssd_h)
            st[PARTB * L + j] = part_b
            st[PARTH * L + j] = part_h
            st[NBT * L + j] = nb_top
            st[NBP * L + j] = nbt
            st[NHT * L + j] = nh_top
            st[NHP * L + j] = nht
            st[OWNS * L + j] = owns
            st[UPB * L + j] = up_b
            st[UPH * L + j] = up_h
            st[HYBT * L + j] = max(st[HYBT * L + j], nht)
        for j in range(L):  # the resale of a month's purchases (a pow: not in the lanes)
            part_b, part_h = st[PARTB * L + j], st[PARTH * L + j]
            if part_b > 0.0:
                st[R1 * L + j] += part_b * q[QKEEP * L + j] ** ((q[QEX * L + j] - tf) / 12.0)
            if part_h > 0.0:
                st[R5 * L + j] += part_h * q[QKEEP * L + j] ** ((q[QEX * L + j] - tf) / 12.0)
