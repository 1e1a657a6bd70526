"""Month-by-month flows of buy, rent, owned and hybrid (:func:`paths`): payback, peak cash
need, buy's fleet, storage, capex and cost components, the npv, and (optionally) the irr
and the cumulative discounted flow of every month.

The months run in the outer loop and a block of :data:`PB` demands in the inner one, as
in :func:`.npv.npv_grid`; the result's fields are :data:`.layout.PATH_FIELDS`.
"""

from __future__ import annotations

import math

import numpy as np

from .factors import row
from .irr import IRR_GUESS, yearly_irr
from .jit import jit
from .layout import (
    ANN,
    CAPH,
    CAPN,
    CAPS,
    COMP,
    DT,
    EPS,
    GD,
    GRH,
    INIT,
    MAX_QH,
    MF12,
    NODE0,
    NODES,
    NPV,
    NS,
    NV,
    PAY,
    PEAK,
    PHI,
    POWER,
    PP,
    QH,
    RS,
    SOV,
    SSD,
    STAFF,
    T_,
    TB,
    TBPT,
    D,
    P,
    Q,
)

#: demands per block of :func:`paths`
PB = 32
# ---- paths' state vectors (offsets in units of PB): payback month and lowest cumulative
# flow of the 4 strategies, then the fleets and sums
PAY_, LOW_ = 0, 4
(N_, TOP_, NH_, TOPH_, PAID_, PAIDH_, RESB_, RESH_, CAPN_, CAPS_, INIT_, CHW_, CPW_, CUP_,
 CST_, CAPI_, FIXH_, CUM_) = range(8, 26)  # CUM_: 4 strategies, to 29
NPB = CUM_ + 4
# ---- paths' month buffer (month, 6, PB): buy's and the hybrid's flows, the cumulative flows
FB_, FH_, CASH_ = 0, 1, 2


@jit(inline="always")
def _path_months(st: np.ndarray, dems: np.ndarray, nb: int, k: np.ndarray, sc: np.ndarray, T: int,
                 fl: np.ndarray, want_cash: bool) -> None:
    """The ``T`` months of :func:`paths` for the ``nb`` demands ``dems`` of a block, the
    demands in the inner loop (vectorized as :func:`.npv._grid_months`): state vectors of PB in
    ``st``, the month's flows of buy and hybrid (and with ``want_cash`` the cumulative
    flows) into ``fl``. ``sc``: the row's scalars (:data:`NS`). Payback month and lowest
    flow are stored ``+ 0.0`` (the same numbers: they are never -0), as the running
    maxima of :func:`.npv._grid_months`. Inlined into :func:`paths`, where LLVM sees that its
    buffers are distinct: called, it would not vectorize."""
    for t in range(T):
        _path_month(st, dems, nb, k, sc, t, T, fl, want_cash)


@jit(inline="always")
def _path_month(st: np.ndarray, dems: np.ndarray, nb: int, k: np.ndarray, sc: np.ndarray, t: int,
                T: int, fl: np.ndarray, want_cash: bool) -> None:
    """One month ``t`` of :func:`_path_months`."""
    d = k[D, t]
    gd = k[GD, t]
    p = k[P, t]
    phi = k[PHI, t]
    q = k[Q, t]
    qh = k[QH, t]
    pp = k[PP, t]
    rs = k[RS, t]
    grh = k[GRH, t]
    caph = k[CAPH, t]
    sov = sc[SOV]
    staff = sc[STAFF]
    power = sc[POWER]
    mf12 = sc[MF12]
    own_run = power + mf12 * sc[NODE0]
    tbpt = sc[TBPT]
    ssd = sc[SSD]
    dt = sc[DT]
    t1 = t + 1.0
    first = t == 0
    final = t == T - 1
    for j in range(nb):
        dem = dems[j]
        demand_t = dem * gd
        api = p * demand_t
        # buy, owned, rent: a fleet for all demand
        c = np.ceil(dem * q * (1.0 - EPS))
        n = st[N_ * PB + j]
        new = max(c, n) - n
        n += new
        st[N_ * PB + j] = n
        capex_n = new * pp
        paid = st[PAID_ * PB + j] + capex_n
        st[PAID_ * PB + j] = paid
        res_b = st[RESB_ * PB + j] + capex_n * rs
        st[RESB_ * PB + j] = res_b
        tb = tbpt * phi * demand_t
        top = st[TOP_ * PB + j]
        new_tb = max(tb, top) - top
        st[TOP_ * PB + j] = top + new_tb
        capex_s = new_tb * ssd
        common = phi * api + sov - staff - capex_s
        upkeep = mf12 * paid
        flow0 = common - n * power - upkeep - capex_n
        flow1 = common - c * phi * grh
        flow2 = common - n * own_run
        # hybrid: a base-load fleet, the rest to the API
        f = np.floor(dem * qh * (1.0 + EPS))
        nh = st[NH_ * PB + j]
        new_h = max(f, nh) - nh
        nh += new_h
        st[NH_ * PB + j] = nh
        capex_nh = new_h * pp
        paid_h = st[PAIDH_ * PB + j] + capex_nh
        st[PAIDH_ * PB + j] = paid_h
        res_h = st[RESH_ * PB + j] + capex_nh * rs
        st[RESH_ * PB + j] = res_h
        served = phi * min(demand_t, nh * caph if nh > 0.0 else 0.0)
        tb_h = tbpt * served
        top_h = st[TOPH_ * PB + j]
        new_tbh = max(tb_h, top_h) - top_h
        st[TOPH_ * PB + j] = top_h + new_tbh
        flow3 = (p * served + st[FIXH_ * PB + j] - nh * power - mf12 * paid_h
                 - capex_nh - new_tbh * ssd)
        fl[t, FB_, j] = flow0
        fl[t, FH_, j] = flow3
        st[CAPN_ * PB + j] += capex_n
        st[CAPS_ * PB + j] += capex_s
        if first:
            st[INIT_ * PB + j] = capex_n + capex_s
        st[CHW_ * PB + j] += d * capex_n
        st[CPW_ * PB + j] += d * n * power
        st[CUP_ * PB + j] += d * upkeep
        st[CST_ * PB + j] += d * capex_s
        st[CAPI_ * PB + j] += d * (1.0 - phi) * api
        cum0 = st[CUM_ * PB + j] + d * flow0
        cum1 = st[(CUM_ + 1) * PB + j] + d * flow1
        cum2 = st[(CUM_ + 2) * PB + j] + d * flow2
        cum3 = st[(CUM_ + 3) * PB + j] + d * flow3
        if final:
            cum0 += dt * res_b
            cum3 += dt * res_h
        st[CUM_ * PB + j] = cum0
        st[(CUM_ + 1) * PB + j] = cum1
        st[(CUM_ + 2) * PB + j] = cum2
        st[(CUM_ + 3) * PB + j] = cum3
        for w, cum in ((0, cum0), (1, cum1), (2, cum2), (3, cum3)):
            pay = st[(PAY_ + w) * PB + j]
            low = st[(LOW_ + w) * PB + j]
            st[(PAY_ + w) * PB + j] = (t1 if cum >= 0.0 and pay == np.inf else pay) + 0.0
            st[(LOW_ + w) * PB + j] = (cum if cum < low else low) + 0.0
        if want_cash:
            fl[t, CASH_, j] = cum0
            fl[t, CASH_ + 1, j] = cum1
            fl[t, CASH_ + 2, j] = cum2
            fl[t, CASH_ + 3, j] = cum3


@jit
def paths(X: np.ndarray, M: int, demands: np.ndarray, want_irr: bool, want_cash: bool,
          res: np.ndarray, irr: np.ndarray, cash: np.ndarray) -> None:
    """Month-by-month flows of buy, rent, owned, hybrid of every row at every demand.

    Fills ``res`` (rows, demands, NRES): payback month, peak cash need, buy's fleet and
    storage at the horizon, buy's capex, buy's level cost by component and the npv;
    ``irr`` (rows, demands, 2) of buy and hybrid when ``want_irr``; ``cash`` (rows,
    demands, months, 4), the cumulative discounted flow, when ``want_cash`` (months past a
    row's horizon repeat its final value).

    By months in blocks of :data:`PB` demands (:func:`_path_months`); per demand, the
    operations of MODEL.md's month-by-month loop in its order. The hybrid owns a node
    at the horizon where ``floor(dem max_t QH[t] (1 + EPS)) > 0`` (MAX_QH: the running
    maximum of the monotone node count). The irr starts from the root at the previous
    demand (:func:`.irr.yearly_irr`).
    """
    k = np.empty((NV, M))
    s = np.empty(NS)
    fb = np.empty(M)
    fh = np.empty(M)
    st = np.empty(NPB * PB)
    fl = np.empty((M, 6, PB))
    dems = np.empty(PB)
    for i in range(X.shape[0]):
        row(X[i], k, s)
        T = int(s[T_])
        y_b = IRR_GUESS  # the log rates found at the previous demand: the next guesses
        y_h = IRR_GUESS
        for j0 in range(0, demands.shape[0], PB):
            nb = min(PB, demands.shape[0] - j0)
            st[:] = 0.0
            for j in range(nb):
                dems[j] = demands[j0 + j]
                for w in range(4):
                    st[(PAY_ + w) * PB + j] = np.inf
                nh_end = np.floor(dems[j] * s[MAX_QH] * (1.0 + EPS))
                st[FIXH_ * PB + j] = (s[SOV] - s[STAFF]) if nh_end > 0 else 0.0
            _path_months(st, dems, nb, k, s, T, fl, want_cash)
            for jj in range(nb):
                j = j0 + jj
                for w in range(4):
                    res[i, j, PAY + w] = st[(PAY_ + w) * PB + jj]
                    res[i, j, PEAK + w] = -st[(LOW_ + w) * PB + jj]
                    res[i, j, NPV + w] = st[(CUM_ + w) * PB + jj]
                if not np.floor(dems[jj] * s[MAX_QH] * (1.0 + EPS)) > 0:
                    res[i, j, PAY + 3] = 0.0  # a hybrid without a node is the API: it
                    # never spends ahead
                res_b = st[RESB_ * PB + jj]
                res[i, j, NODES] = st[N_ * PB + jj]
                res[i, j, TB] = st[TOP_ * PB + jj]
                res[i, j, INIT] = st[INIT_ * PB + jj]
                res[i, j, CAPN] = st[CAPN_ * PB + jj]
                res[i, j, CAPS] = st[CAPS_ * PB + jj]
                ann = s[ANN]
                res[i, j, COMP + 0] = (st[CHW_ * PB + jj] - s[DT] * res_b) / ann
                res[i, j, COMP + 1] = st[CPW_ * PB + jj] / ann
                res[i, j, COMP + 2] = st[CUP_ * PB + jj] / ann
                res[i, j, COMP + 3] = st[CST_ * PB + jj] / ann
                res[i, j, COMP + 4] = s[STAFF]
                res[i, j, COMP + 5] = st[CAPI_ * PB + jj] / ann
                if want_cash:
                    for t in range(M):
                        for w in range(4):
                            cash[i, j, t, w] = fl[min(t, T - 1), CASH_ + w, jj]
                if want_irr:
                    for t in range(T):
                        fb[t] = fl[t, FB_, jj]
                        fh[t] = fl[t, FH_, jj]
                    irr[i, j, 0] = yearly_irr(fb, T, res_b, y_b)
                    irr[i, j, 1] = yearly_irr(fh, T, st[RESH_ * PB + jj], y_h)
                    y_b = math.log1p(irr[i, j, 0]) if irr[i, j, 0] == irr[i, j, 0] else y_b
                    y_h = math.log1p(irr[i, j, 1]) if irr[i, j, 1] == irr[i, j, 1] else y_h
