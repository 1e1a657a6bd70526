"""The npv of buy, rent, owned and hybrid over a grid of demands (:func:`npv_grid`), and
of one strategy at one demand (:func:`npv_one`, the break-even walks' evaluation).

Strategy ``w`` of :func:`npv_one`: buy (0), rent (1), owned (2), hybrid (3). The grid
runs the months in the outer loop and a block of demands in the inner one, its state in
a small buffer of (state, demand): LLVM vectorizes the inner loop (4 demands per AVX2
instruction), each demand's operations keep their order, so the numbers are those of
:func:`npv_one` per demand, to the bit.
"""

from __future__ import annotations

import numpy as np

from .factors import row
from .jit import jit
from .layout import (
    ANN,
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


@jit
def _npv_fleet(k: np.ndarray, s: np.ndarray, dem: float, vec: int) -> float:
    """npv of buy (``vec`` VB) or owned (VO) of one row at demand ``dem`` [USD]: the fleet
    ``ceil(dem Q[t] (1 - EPS))`` at its running maximum, by the node weights."""
    n = 0.0
    a = 0.0
    for t in range(int(s[T_])):
        c = np.ceil(dem * k[Q, t] * (1.0 - EPS))
        if c > n:
            n = c
        a += n * k[vec, t]
    return dem * s[LB] + s[CB] - a


@jit
def _npv_rent(k: np.ndarray, s: np.ndarray, dem: float) -> float:
    """npv of rent of one row at demand ``dem`` [USD]: the month's fleet by VR."""
    a = 0.0
    for t in range(int(s[T_])):
        a += np.ceil(dem * k[Q, t] * (1.0 - EPS)) * k[VR, t]
    return dem * s[LB] + s[CB] - a


@jit
def _npv_h(k: np.ndarray, s: np.ndarray, dem: float) -> tuple[float, bool]:
    """npv of the hybrid of one row at demand ``dem`` [USD], and whether it owns a node."""
    nh = 0.0
    top = 0.0
    acc = 0.0
    for t in range(int(s[T_])):
        f = np.floor(dem * k[QH, t] * (1.0 + EPS))
        if f > nh:
            nh = f
        base = nh * k[CAPH, t] if nh > 0.0 else 0.0  # (0 nodes x an infinite capacity)
        served = k[PHI, t] * min(dem * k[GD, t], base)
        if served > top:
            top = served
        acc += k[DP, t] * served - s[SSDTB] * top * k[DD, t] - nh * k[VB, t]
    return acc + (s[CB] if nh > 0 else 0.0), nh > 0


#: demands per block of :func:`npv_grid` (its state: 7 vectors of BLOCK in L1 cache)
BLOCK = 64
# ---- npv_grid's state vectors (offsets in units of BLOCK): the running maxima (fleet,
# hybrid fleet, storage peak), then the sums (buy, owned, rent, hybrid)
RUN, SUMS = 0, 3


@jit
def _grid_months(st: np.ndarray, dems: np.ndarray, nb: int, k: np.ndarray, T: int,
                 ssdtb: float) -> None:
    """The ``T`` months of :func:`npv_grid` for the ``nb`` demands ``dems`` of a block:
    :func:`_npv_fleet`, :func:`_npv_rent` and :func:`_npv_h`'s steps, the demands in the
    inner loop.

    Written for LLVM's loop vectorizer (4 demands per AVX2 instruction): the month's
    factors are scalars and the state lives in one buffer at offsets known at compile
    time. A running maximum is stored as ``max + 0.0`` (the same number: the maxima are
    never -0): stored back plainly where it was read, LLVM turns it into a conditional
    store, a masked store in vector form, slow on x86. The operations and their order per
    demand are those of these functions, so the sums are the same to the bit.
    """
    for t in range(T):
        q = k[Q, t]
        qh = k[QH, t]
        gd = k[GD, t]
        phi = k[PHI, t]
        caph = k[CAPH, t]
        vb = k[VB, t]
        vo = k[VO, t]
        vr = k[VR, t]
        dp = k[DP, t]
        dd = k[DD, t]
        for j in range(nb):
            dem = dems[j]
            c = np.ceil(dem * q * (1.0 - EPS))
            n = st[RUN * BLOCK + j]
            n = c if c > n else n
            st[RUN * BLOCK + j] = n + 0.0
            st[SUMS * BLOCK + j] += n * vb
            st[(SUMS + 1) * BLOCK + j] += n * vo
            st[(SUMS + 2) * BLOCK + j] += c * vr
            f = np.floor(dem * qh * (1.0 + EPS))
            nh = st[(RUN + 1) * BLOCK + j]
            nh = f if f > nh else nh
            st[(RUN + 1) * BLOCK + j] = nh + 0.0
            base = nh * caph if nh > 0.0 else 0.0  # (0 nodes x an infinite capacity)
            served = phi * min(dem * gd, base)
            top = st[(RUN + 2) * BLOCK + j]
            top = served if served > top else top
            st[(RUN + 2) * BLOCK + j] = top + 0.0
            st[(SUMS + 3) * BLOCK + j] += dp * served - ssdtb * top * dd - nh * vb


@jit
def npv_grid(X: np.ndarray, M: int, demands: np.ndarray, level: bool, out: np.ndarray,
             ) -> None:
    """``out[i, j, :]`` = npv of api (0), buy, rent, owned, hybrid of row ``i`` at
    ``demands[j]`` [USD], or its level monthly equivalent (npv / annuity) when ``level``.

    The same numbers, to the bit, as :func:`.npv.npv_one` demand by demand, computed by
    months in blocks of :data:`BLOCK` demands (:func:`_grid_months`).
    """
    nd = demands.shape[0]
    k = np.empty((NV, M))
    s = np.empty(NS)
    st = np.empty((SUMS + 4) * BLOCK)
    dems = np.empty(BLOCK)
    for i in range(X.shape[0]):
        row(X[i], k, s)
        T = int(s[T_])
        ssdtb = s[SSDTB]
        scale = 1.0 / s[ANN] if level else 1.0
        for j0 in range(0, nd, BLOCK):
            nb = min(BLOCK, nd - j0)
            st[:] = 0.0
            for j in range(nb):
                dems[j] = demands[j0 + j]
            _grid_months(st, dems, nb, k, T, ssdtb)
            for j in range(nb):
                base = dems[j] * s[LB] + s[CB]
                nh = st[(RUN + 1) * BLOCK + j]
                out[i, j0 + j, 0] = 0.0
                out[i, j0 + j, 1] = (base - st[SUMS * BLOCK + j]) * scale
                out[i, j0 + j, 2] = (base - st[(SUMS + 2) * BLOCK + j]) * scale
                out[i, j0 + j, 3] = (base - st[(SUMS + 1) * BLOCK + j]) * scale
                out[i, j0 + j, 4] = (st[(SUMS + 3) * BLOCK + j]
                                     + (s[CB] if nh > 0 else 0.0)) * scale


@jit
def npv_one(k: np.ndarray, s: np.ndarray, dem: float, which: int) -> float:
    """npv of buy (0), rent (1), owned (2) or hybrid (3) of one row at ``dem`` [USD]; the
    hybrid's is -1 without a node (it breaks even only with one: without, it is the API)."""
    if which == 3:
        h, owns = _npv_h(k, s, dem)
        return h if owns else -1.0
    if which == 1:
        return _npv_rent(k, s, dem)
    return _npv_fleet(k, s, dem, VB if which == 0 else VO)
