"""The npv of a block of :data:`L` rows at one demand (:func:`npv_lanes`): the engine's hot
path where a call asks for few demands (the Shapley pass's report points), the rows in the
SIMD lanes instead of :func:`.block.npv_block`'s demands.

Each block's month vectors are copied lane-major (month, vector, lane) once and serve every
demand; the row scalars become lane vectors. The month loop is :func:`.npv.npv_cell`'s with
its arithmetic in the same order, so its sums are the scalar loop's to the last bit; every
per-row branch of that loop is a per-lane select:

* the horizon ``T``: a row shorter than the block's longest has its months past ``T``
  filled with its last month and a discount factor of 0, so that they add exactly 0 to
  every sum and leave every running maximum as it was;
* the exit, ``before``, the staff, the hybrid's ``owns`` and its zero-demand case: selects;
* the reserved terms (each term's largest need, which looks ahead): where each term
  starts and ends, its rent and the months in one, once a block (:func:`.lanes_loop.terms`:
  no demand changes them); at each demand a first pass (:func:`.lanes_loop.needs`), forward
  the running largest need beside the month's fleet, backward the term's largest need
  from its last month;
* the resale factor ``keep ** ((exit - t) / 12)`` of a month with a purchase: a scalar loop
  after the lanes' (a purchase is rare);
* :func:`.hybrid.peak_exact` and the hybrid's skip test (no node can pay): the fast path
  where they hold for every lane of the block, the exact one where any lane needs it
  (rows sorted so that rows skipping the rule at the same demands share blocks ran 6%
  slower: a block's rows are then far apart in memory).

The month loops and the buffers' layout are in :mod:`.lanes_loop`.

The fleet sizes are found in closed form (:func:`.hybrid.fleet_size`, :func:`.hybrid.n_star_closed`,
tested against the scalar loop's searches): the same whole numbers except where a size's
capacity equals the load to the last bit, or the hybrid's margins tie to 1e-9 along a
stretch (MODEL.md's tie rule, :mod:`.hybrid`). Rows whose purchases stop depreciating
before exit are left to :func:`.npv.npv_cell`, as in :func:`.block.npv_row`.
"""

from __future__ import annotations

import numpy as np

from . import lanes_loop as lp
from .jit import jit
from .lanes_loop import L, at
from .npv import ANN, HYB_TOP, NPV, SUM_API, SUM_DD, SUM_SOV, depreciated
from .rows import (
    BONUS,
    CDISC,
    DISC,
    EXIT,
    KEEP,
    LIFE,
    NV,
    ORES,
    PN,
    TAX,
)


@jit
def _results(V: np.ndarray, S: np.ndarray, i: int, j: int, st: np.ndarray, own_top: float,
             out: np.ndarray) -> None:
    """:func:`.npv.npv_cell`'s result vector of lane ``j`` (row ``i``) from its sums."""
    s = S[i]
    ex = int(s[EXIT])
    rate, life, bonus, keep = s[TAX], s[LIFE], s[BONUS], s[KEEP]
    x1 = x3 = x5 = xs = p1 = p3 = p5 = ps = b1 = b3 = b5 = bs = 0.0
    if rate != 0.0:  # (every purchase still depreciating at exit: npv_lanes's rows)
        f, cde = (1.0 - bonus) / life, V[i, CDISC, ex]
        x1, g1, u1, e1_ = (at(st, lp.MB, j), at(st, lp.MB + 1, j), at(st, lp.MB + 2, j),
                           at(st, lp.MB + 3, j))
        xs, gs, us, es = (at(st, lp.MS, j), at(st, lp.MS + 1, j), at(st, lp.MS + 2, j),
                          at(st, lp.MS + 3, j))
        x3, g3, u3, e3 = (at(st, lp.MR, j), at(st, lp.MR + 1, j), at(st, lp.MR + 2, j),
                          at(st, lp.MR + 3, j))
        x5, g5, u5, e5 = (at(st, lp.MH, j), at(st, lp.MH + 1, j), at(st, lp.MH + 2, j),
                          at(st, lp.MH + 3, j))
        p1, b1 = depreciated(x1, g1, u1, e1_, bonus, f, cde, ex)
        ps, bs = depreciated(xs, gs, us, es, bonus, f, cde, ex)
        p3, b3 = depreciated(x3, g3, u3, e3, bonus, f, cde, ex)
        p5, b5 = depreciated(x5, g5, u5, e5, bonus, f, cde, ex)
        x1 -= xs
        p1 -= ps
        b1 -= bs
    c1, c2, c3 = at(st, lp.C1, j), at(st, lp.C2, j), at(st, lp.C3, j)
    c4, c5 = at(st, lp.C4, j), at(st, lp.C5, j)
    r1, r5, s_sov = at(st, lp.R1, j), at(st, lp.R5, j), at(st, lp.SSOV, j)
    d_ex = V[i, DISC, ex]
    k = 1.0 - rate
    owned_out = own_top * V[i, PN, 0] * s[ORES]
    out[NPV] = 0.0
    out[NPV + 1] = (k * c1 - rate * (x1 + xs) + rate * (p1 + ps) + s_sov
                    + d_ex * (r1 - rate * (r1 - (b1 + bs))))
    out[NPV + 2] = k * c2 - rate * xs + rate * ps + s_sov + d_ex * rate * bs
    out[NPV + 3] = k * c3 - rate * x3 + rate * p3 + s_sov + d_ex * rate * b3
    out[NPV + 4] = (k * c4 - rate * xs + rate * ps + s_sov + d_ex * rate * bs
                    - owned_out + d_ex * owned_out * keep ** (ex / 12.0))
    out[NPV + 5] = k * c5 - rate * x5 + rate * p5 + d_ex * (r5 - rate * (r5 - b5))
    out[SUM_API] = at(st, lp.SAPI, j)
    out[SUM_SOV] = s_sov
    out[SUM_DD] = at(st, lp.SDD, j)
    out[ANN] = at(st, lp.SANN, j)
    out[HYB_TOP] = at(st, lp.HYBT, j)


@jit(wide=True)
def npv_lanes(V: np.ndarray, S: np.ndarray, dems: np.ndarray, rows: np.ndarray,
              out: np.ndarray) -> None:
    """:func:`.npv.npv_cell` of the rows ``rows`` of ``V, S`` at every demand of ``dems``
    into ``out`` (rows of ``V``, demands, NRES_OUT), :data:`L` rows at a time in the
    order of ``rows`` (the last block padded with its final row); every row's purchases
    still depreciating at exit (:func:`.npv.npv_cell` takes the others)."""
    months = V.shape[2]
    m = rows.shape[0]
    Vl = np.empty(months * NV * L)
    q = np.empty(lp.NQ * L)
    st = np.empty(lp.NST * L)
    wk = np.empty(months * lp.NWK * L)
    cy = np.empty(4 * L)
    rb = np.empty(months * L)
    top = np.empty(L)
    blk = np.empty(L, np.int64)
    for lo in range(0, m, L):
        cnt = min(L, m - lo)
        for j in range(L):
            blk[j] = rows[lo + min(j, cnt - 1)]
        tm = lp.load(V, S, blk, Vl, q)
        lp.terms(tm, Vl, q, wk, cy)
        for jd in range(dems.shape[0]):
            lp.needs(dems[jd], tm, Vl, q, wk, top, cy, rb)
            lp.month_loop(dems[jd], tm, Vl, q, wk, st)
            for j in range(cnt):
                _results(V, S, blk[j], j, st, top[j], out[blk[j], jd])
