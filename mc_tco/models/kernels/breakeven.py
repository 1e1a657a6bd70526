"""The smallest demand at which each strategy's npv is >= 0 (:func:`breakeven`).

Buy, rent and owned (with LB > 0) are exact (:func:`_walk_exact`: the npv is piecewise
linear between the demands where a node count changes); the hybrid walks up the demand,
its npv evaluated in batches (:func:`_first_nonneg`), and bisects the first bracket
where it turns >= 0. The linear bounds of :func:`bounds` let both walks skip demands
where the npv cannot be >= 0.
"""

from __future__ import annotations

import math

import numpy as np

from .factors import row
from .jit import jit
from .layout import (
    CAPH,
    CB,
    DD,
    DP,
    EPS,
    GD,
    LB,
    NS,
    NV,
    PHI,
    QH,
    SSDTB,
    T_,
    VB,
    VO,
    VR,
    Q,
)
from .npv import npv_one

#: the break-even walk: smallest relative step, and the evaluations after which it falls
#: back to its coarse relative step (extreme inputs: a node of a few tokens a month)
MIN_STEP = 1e-9
BUDGET = 20000


@jit
def bounds(k: np.ndarray, s: np.ndarray,
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per strategy, ``a, b, lo_a, lo_b, q``: ``npv(dem) <= a dem + b`` and (the hybrid
    only; else ``-inf``) ``npv(dem) >= lo_a dem + lo_b`` for every demand, and ``q``, the
    largest node count per unit of demand over the months.

    From ``x <= ceil(x) < x + 1`` (and ``x - 1 < floor(x) <= x``) for the node counts,
    with the running maximum ``Qc[t]`` of D/cap per unit demand: ``n_buy[t] =
    ceil(dem Qc[t])``. The hybrid serves ``phi min(D, n caph)``, between ``phi (D -
    caph)`` and ``phi D``, and its storage peak lies between the month's and the running
    peak of ``phi D``.
    """
    a = np.empty(4)
    b = np.empty(4)
    lo_a = np.full(4, -np.inf)
    lo_b = np.full(4, -np.inf)
    q = np.empty(4)
    qc = 0.0
    qhc = 0.0
    qr = 0.0
    top = 0.0
    a_b = s[LB]
    a_o = s[LB]
    a_r = s[LB]
    a_h = 0.0
    b_b = s[CB]
    b_o = s[CB]
    b_r = s[CB]
    b_h = max(s[CB], 0.0)
    la_h = s[LB]
    lb_h = min(s[CB], 0.0)
    for t in range(int(s[T_])):
        qc = max(qc, k[Q, t] * (1.0 - EPS))
        qhc = max(qhc, k[QH, t] * (1.0 + EPS))
        qr = max(qr, k[Q, t])
        a_b -= qc * k[VB, t]
        a_o -= qc * k[VO, t]
        a_r -= k[Q, t] * (1.0 - EPS) * k[VR, t]
        b_b -= min(0.0, k[VB, t])
        b_o -= min(0.0, k[VO, t])
        b_r -= min(0.0, k[VR, t])
        served = k[PHI, t] * k[GD, t]  # per unit demand
        top = max(top, served)
        a_h += (k[DP, t] - s[SSDTB] * k[DD, t]) * served - qhc * k[VB, t]
        b_h += max(0.0, k[VB, t]) + s[SSDTB] * k[DD, t] * k[PHI, t] * k[CAPH, t]
        la_h -= qhc * k[VB, t]
        lb_h += min(0.0, k[VB, t]) - k[DP, t] * k[PHI, t] * k[CAPH, t]
    a[0], a[1], a[2], a[3] = a_b, a_r, a_o, a_h
    b[0], b[1], b[2], b[3] = b_b, b_r, b_o, b_h
    lo_a[3] = la_h
    lo_b[3] = lb_h
    q[0], q[1], q[2], q[3] = qr, qr, qr, qhc
    return a, b, lo_a, lo_b, q


#: demands per batch of the break-even walks (:func:`_first_nonneg`)
HB = 16


@jit
def _h_months(st: np.ndarray, dems: np.ndarray, nb: int, k: np.ndarray, T: int,
              ssdtb: float) -> None:
    """:func:`.npv._npv_h`'s months for the ``nb`` demands ``dems``, the demands in the inner
    loop (vectorized as :func:`.npv._grid_months`; state vectors of HB: the hybrid's fleet,
    storage peak and sum)."""
    for t in range(T):
        qh = k[QH, t]
        gd = k[GD, t]
        phi = k[PHI, t]
        caph = k[CAPH, t]
        vb = k[VB, t]
        dp = k[DP, t]
        dd = k[DD, t]
        for j in range(nb):
            dem = dems[j]
            f = np.floor(dem * qh * (1.0 + EPS))
            nh = st[j]
            nh = f if f > nh else nh
            st[j] = nh + 0.0
            base = nh * caph if nh > 0.0 else 0.0  # (0 nodes x an infinite capacity)
            served = phi * min(dem * gd, base)
            top = st[HB + j]
            top = served if served > top else top
            st[HB + j] = top + 0.0
            st[2 * HB + j] += dp * served - ssdtb * top * dd - nh * vb


@jit
def _first_nonneg(k: np.ndarray, s: np.ndarray, w: int, dems: np.ndarray, nb: int, st: np.ndarray,
                  vals: np.ndarray) -> int:
    """The index of the first of the ``nb`` (<= HB) demands ``dems`` where the npv of
    strategy ``w`` is >= 0 (:func:`.npv.npv_one`), or -1. The hybrid's npv at all of them at
    once (:func:`_h_months`, the same numbers to the bit; ``st`` (3 HB,) and ``vals`` (HB,)
    are scratch), the others' one by one up to the first."""
    if w != 3:
        for j in range(nb):
            if npv_one(k, s, dems[j], w) >= 0.0:
                return j
        return -1
    st[:] = 0.0
    _h_months(st, dems, nb, k, int(s[T_]), s[SSDTB])
    for j in range(nb):
        vals[j] = st[2 * HB + j] + s[CB] if st[j] > 0 else -1.0
    for j in range(nb):
        if vals[j] >= 0.0:
            return j
    return -1


@jit
def _first_crossing(k: np.ndarray, s: np.ndarray, w: int, lo: float, hi: float, levels: int,
                    pts: np.ndarray, st: np.ndarray, vals: np.ndarray) -> float:
    """The first demand in (lo, hi] with npv >= 0, given npv(lo) < 0 <= npv(hi): each
    level scans the bracket at 7 interior points (geometric) and keeps the first
    sub-bracket that turns >= 0, so the result is the smallest crossing up to a window
    narrower than an eighth of the bracket at some level. (The 7 points of a level are
    evaluated together by :func:`_first_nonneg`; ``pts``, ``st``, ``vals``: its scratch.)"""
    for _ in range(levels):
        if hi / lo - 1.0 < 1e-13:
            break
        ratio = (hi / lo) ** 0.125
        x = lo
        nb = 0
        for _ in range(7):
            y = x * ratio
            if y >= hi:
                break
            pts[nb] = y
            nb += 1
            x = y
        j = _first_nonneg(k, s, w, pts, nb, st, vals)
        if j >= 0:
            hi = pts[j]
            x = pts[j - 1] if j > 0 else lo
        lo = x
    return hi


@jit
def _rel_step(dem: float, q: float, step: float, fine: float, used: int) -> float:
    """The walk's relative step at ``dem``: at most ``step``, at most ``fine`` of a node's
    capacity (``1 / q``), at least MIN_STEP; ``step`` once BUDGET evaluations are used."""
    if used > BUDGET:
        return step
    return max(MIN_STEP, min(step, fine / (dem * q + 1.0)))


@jit
def _piece_root(k: np.ndarray, s: np.ndarray, w: int, x: float, v: float, floor_: float) -> float:
    """The root of the linear piece of npv that ends at ``x`` (npv ``v >= 0``) with slope
    LB, no lower than ``floor_``, nudged up until npv >= 0 there (rounding)."""
    r = max(floor_, x - v / s[LB])
    for _ in range(60):
        if r >= x or npv_one(k, s, r, w) >= 0.0:
            break
        r = min(x, r * (1.0 + 1e-13) + 1e-300)
    return min(r, x)


@jit
def _walk_exact(k: np.ndarray, s: np.ndarray, w: int, a: float, b: float, q: float, lowest: float,
                highest: float, step: float, fine: float) -> float:
    """Smallest demand with npv >= 0 for buy (w=0), rent (1) or owned (2), with LB > 0.

    Between the demands where a node count changes (``m / Q'[t]``: ``Q' = Qc (1-EPS)``
    for buy and owned, whose fleet is ``ceil(dem Qc[t])``, ``Q (1-EPS)`` for rent) the
    node counts are constant and the npv is linear with slope LB > 0, so on each piece
    ``(b_k, b_k+1]`` its maximum is at the right end. The walk steps up; in a step
    ``(prev, dem]`` the npv is at most ``npv(prev) + (dem - prev)(LB + NQ) + N`` (counts
    only grow; ``N``, ``NQ`` from the weights' negative parts), and only where that bound
    is >= 0 are the piece ends inside the step evaluated. The first piece end with npv
    >= 0 gives the exact root of its piece.
    """
    T = int(s[T_])
    neg = 0.0
    negq = 0.0
    vec = VB if w == 0 else (VR if w == 1 else VO)
    qc = 0.0
    for t in range(T):
        qc = max(qc, k[Q, t])
        qt = k[Q, t] if w == 1 else qc
        if k[vec, t] < 0.0:
            neg -= k[vec, t]
            negq -= qt * (1.0 - EPS) * k[vec, t]
    prev = 1.0
    v_prev = npv_one(k, s, prev, w)
    dem = lowest
    used = 0
    while dem <= highest:
        v = npv_one(k, s, dem, w)
        if v_prev + (dem - prev) * (s[LB] + negq) + neg >= 0.0:
            best = np.inf
            v_best = 0.0
            if v >= 0.0:
                best = dem
                v_best = v
            qc = 0.0
            for t in range(T):
                qc = max(qc, k[Q, t])
                qt = (k[Q, t] if w == 1 else qc) * (1.0 - EPS)
                if qt <= 0.0:
                    continue
                m = math.floor(prev * qt) + 1.0
                span = math.floor(dem * qt) - m
                if not span <= 64.0:
                    continue  # a coarse step (past the budget): its ends only
                for c in range(int(span) + 1):  # (counted: m + 1 == m past 2**53)
                    x = (m + c) / qt * (1.0 - 1e-12)
                    if prev < x < best:
                        vx = npv_one(k, s, x, w)
                        if vx >= 0.0:
                            best = x
                            v_best = vx
                            break
            if best < np.inf:
                return _piece_root(k, s, w, best, v_best, prev)
        used += 1
        nxt = dem * (1.0 + _rel_step(dem, q, step, fine, used))
        bound = a * dem + b
        if bound < -1e-9 * (abs(a * dem) + abs(b)):
            if a <= 0.0:
                return np.inf  # the upper bound only falls: never
            jump = -b / a * (1.0 - 1e-12)
            if jump > nxt:  # no crossing below the bound's root: restart the walk there
                prev = jump
                v_prev = npv_one(k, s, prev, w)
                dem = jump * (1.0 + _rel_step(jump, q, step, fine, used))
                continue
        prev = dem
        v_prev = v
        dem = nxt
    return np.inf


@jit
def breakeven(X: np.ndarray, M: int, lowest: float, highest: float, step: float, fine: float,
              steps: int, out: np.ndarray) -> None:
    """Smallest demand with npv >= 0 per row and strategy: ``out`` (rows, 4) [tokens/month].

    Buy, rent and owned (with a positive margin per token LB): exact, by
    :func:`_walk_exact`. The hybrid (and any strategy with LB <= 0): walks up from
    ``lowest`` to ``highest`` in steps of at most ``step`` (relative) and at most ``fine``
    of one node's capacity in its busiest month, jumping over demands where the linear
    upper bound of :func:`bounds` is below 0 and stopping where it stays there; the first
    demand with npv >= 0 and the one before bracket a crossing, which
    :func:`_first_crossing` narrows in up to ``steps`` levels (the result is the upper
    end, where npv >= 0). 0 where npv >= 0 already at 1 token/month; ``inf`` where never
    up to ``highest``. The walk's points do not depend on the npv, so it lays out the next
    HB of them and evaluates them together (:func:`_first_nonneg`): the same points and
    result as one at a time.
    """
    k = np.empty((NV, M))
    s = np.empty(NS)
    pts = np.empty(HB)
    vals = np.empty(HB)
    st = np.empty(3 * HB)
    for i in range(X.shape[0]):
        row(X[i], k, s)
        a, b, lo_a, lo_b, q = bounds(k, s)
        for w in range(4):
            out[i, w] = np.inf
            if npv_one(k, s, 1.0, w) >= 0.0:
                out[i, w] = 0.0
                continue
            if w < 3 and s[LB] > 0.0:
                out[i, w] = _walk_exact(k, s, w, a[w], b[w], q[w], lowest, highest, step,
                                        fine)
                continue
            prev = 1.0
            dem = lowest
            # npv >= 0 for sure past the root of the lower bound: the walk ends there
            # (and, for the hybrid, past one node: it breaks even only with one)
            last = highest
            if lo_a[w] > 0.0:
                sure = max(lowest, -lo_b[w] / lo_a[w], 1.0 / q[w]) * (1.0 + 1e-9)
                if sure < highest:  # (False for NaN)
                    last = sure
            used = 0
            while True:
                # the walk's next HB points (fewer where it ends), evaluated together
                nb = 0
                end = False
                while nb < HB:
                    dem = min(dem, last)
                    pts[nb] = dem
                    nb += 1
                    if not dem < last:  # (NaN too)
                        end = True
                        break
                    bound = a[w] * dem + b[w]
                    slack = 1e-9 * (abs(a[w] * dem) + abs(b[w]))
                    used += 1
                    nxt = dem * (1.0 + _rel_step(dem, q[w], step, fine, used))
                    if bound < -slack:
                        if a[w] <= 0.0:
                            end = True  # the bound only falls: never
                            break
                        nxt = max(nxt, -b[w] / a[w] * (1.0 - 1e-12))
                    dem = nxt
                j = _first_nonneg(k, s, w, pts, nb, st, vals)
                if j >= 0:
                    lo = pts[j - 1] if j > 0 else prev
                    out[i, w] = _first_crossing(k, s, w, lo, pts[j], steps, pts, st, vals)
                    break
                if end:
                    break
                prev = pts[nb - 1]
