"""The hybrid's fleet rule of version 3 (``shared/MODEL.md``): each month, the largest fleet
whose margin over its own costs is largest, found without trying every fleet size.

The margin of ``n`` nodes in a month is ``V L(y_n) - n C - staff [n > 0]`` with ``V`` the
level API bill of the month's demand less its SSDs, ``C`` a node's level monthly cost,
``y_n = n eta(n) u`` its capacity in mean loads (``u``: one full-efficiency node's) and
``L`` the concave, piecewise-linear share of the load that capacity serves (kinks at the
profile's levels ``b`` and ``a``). Where ``eta`` is 1 (from ``scale_full_nodes`` on) the
margin is concave and piecewise linear in ``n``, so its maximum over whole numbers is at a
kink's floor or ceiling or an end of the range: those are the only sizes tried. Below
``scale_full_nodes`` (``eta < 1``) every size is tried, unless a concave upper bound (the
margin with ``eta = 1``) shows none of them can reach the best.

:func:`n_star_closed` is the same rule without branches (eight sizes in closed form,
vectorized over demands). It is kept apart on purpose: one demand at a time, this search is
1.4x faster (tried: the scalar month loop with the closed form ran 17M cell-months/s
against 24M), and the scalar loop serves the Shapley pass's few demands and the
break-even's bisection. Both are tested against every fleet size (``tests/models``).

Of sizes within 1e-9 (relative) of the best, the largest is taken, as MODEL.md's rule; it is
the largest of the sizes tried, which differs from the largest of all sizes only where
the margin is flat to 1e-9 along a stretch (an exact tie between different fleets).
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit
from .rows import TOL


@jit
def eta(n: float, e1: float, sfull: float) -> float:
    """Scale efficiency of an ``n``-node deployment."""
    return e1 + (1.0 - e1) * min(1.0, max(0.0, n - 1.0) / (sfull - 1.0))


@jit
def load_share(y: float, a: float, hp: float, b: float) -> float:
    """``L(y)``: the share of the month's load that capacity ``y`` (in mean loads) serves."""
    return hp * min(a, y) + (1.0 - hp) * min(b, y)


@jit(inline="always")
def _margin(n: float, v: float, c: float, staff: float, u: float, a: float, hp: float,
            b: float, e1: float, sfull: float) -> float:
    if n == 0.0:
        return 0.0
    return v * load_share(n * eta(n, e1, sfull) * u, a, hp, b) - n * c - staff


@jit(inline="always")
def _try(buf: np.ndarray, k: int, n: float, lo: float, hi: float) -> int:
    """Add the fleet size ``n`` (clipped to ``lo .. hi``) to the candidates ``buf[:k]``."""
    n = min(max(n, lo), hi)
    buf[0, k] = n
    return k + 1


@jit(inline="always")
def _bound(n: float, value: float, c: float, staff: float, u: float, a: float, hp: float,
           b: float, last: float) -> float:
    """The margin with ``eta = 1`` at ``n`` clipped to ``1 .. last`` (an upper bound)."""
    m = min(max(n, 1.0), last)
    return value * load_share(m * u, a, hp, b) - m * c - staff


@jit(inline="always")
def _none_pays(value: float, c: float, staff: float, a: float, hp: float, b: float) -> bool:
    """Whether :func:`n_star`'s margin is below ``-TOL`` at every fleet ``n >= 1``, as the
    computer rounds it (so that its pick is 0): with ``c >= 0``, ``L(y) <= hp a + (1 - hp)
    b`` and ``n c >= c``, each rounded margin is at most this bound rounded in the same
    order (rounding is monotone; ``L >= 0`` for ``value < 0``: a profile's ``hp, a, b >=
    0``, a positive demand)."""
    top = max(0.0, value) * (hp * a + (1.0 - hp) * b) - c - staff
    return c >= 0.0 and 0.0 <= hp <= 1.0 and a >= 0.0 and b >= 0.0 and top < -TOL


@jit
def n_star(demand: float, cu: float, value: float, c: float, staff: float, a: float,
           hp: float, b: float, e1: float, sfull: float, buf: np.ndarray) -> float:
    """The largest maximiser of the month's margin over fleet sizes ``n >= 0``.

    ``demand``: the month's tokens; ``cu``: a node's tokens at the SLO load and full
    efficiency; ``value``: level price less SSDs per token times ``demand``; ``c``: a node's
    level cost; ``staff``: the staff owning any node brings. Sizes run to the first whose
    capacity reaches the peak ``a`` (more serve nothing more). ``buf``: (2, >= 64) scratch.

    0 at once where no fleet can pay (:func:`_none_pays`: most months at small demands).
    """
    if demand != 0.0 and _none_pays(value, c, staff, a, hp, b):
        return 0.0
    k = 0
    buf[0, k] = 0.0
    k += 1
    u = cu / demand if demand else math.inf
    if demand == 0.0:  # any node: y = inf, serving nothing
        buf[0, k] = 1.0
        k += 1
    else:
        last_small = np.ceil(sfull) - 1.0 if e1 < 1.0 else 0.0  # sizes with eta < 1
        reached = False
        if last_small >= 1.0 and last_small * eta(last_small, e1, sfull) * u >= a:
            n = 1.0  # a small fleet reaches the peak: try every size up to it
            while True:
                buf[0, k] = n
                k += 1
                if n * eta(n, e1, sfull) * u >= a:
                    break
                n += 1.0
            reached = True
        if not reached:
            lo = last_small + 1.0
            ef = eta(lo, e1, sfull)
            top = max(lo, np.ceil(a / (ef * u)))
            while top > lo and (top - 1.0) * eta(top - 1.0, e1, sfull) * u >= a:
                top -= 1.0
            while top * eta(top, e1, sfull) * u < a:
                top += 1.0
            kb, ka = b / (ef * u), a / (ef * u)
            k = _try(buf, k, lo, lo, top)
            k = _try(buf, k, np.floor(kb), lo, top)
            k = _try(buf, k, np.ceil(kb), lo, top)
            k = _try(buf, k, np.floor(ka), lo, top)
            k = _try(buf, k, np.ceil(ka), lo, top)
            k = _try(buf, k, top, lo, top)
            if last_small >= 1.0:
                best = 0.0
                for i in range(k):
                    best = max(best, _margin(buf[0, i], value, c, staff, u, a, hp, b, e1, sfull))
                # an upper bound of the small sizes' margins: eta = 1 (concave in n)
                bound = -math.inf
                if value > 0.0:
                    bound = max(_bound(1.0, value, c, staff, u, a, hp, b, last_small),
                                _bound(np.floor(b / u), value, c, staff, u, a, hp, b, last_small),
                                _bound(np.ceil(b / u), value, c, staff, u, a, hp, b, last_small),
                                _bound(np.floor(a / u), value, c, staff, u, a, hp, b, last_small),
                                _bound(np.ceil(a / u), value, c, staff, u, a, hp, b, last_small),
                                _bound(last_small, value, c, staff, u, a, hp, b, last_small))
                if value <= 0.0 or bound >= best - TOL * max(1.0, abs(best)):
                    n = 1.0
                    while n <= last_small:
                        buf[0, k] = n
                        k += 1
                        n += 1.0
    best = -math.inf
    for i in range(k):
        buf[1, i] = _margin(buf[0, i], value, c, staff, u, a, hp, b, e1, sfull) \
            if buf[0, i] else 0.0
        best = max(best, buf[1, i])
    tol = best - TOL * max(1.0, abs(best))
    pick = 0.0
    for i in range(k):
        if buf[1, i] >= tol and buf[0, i] > pick:
            pick = buf[0, i]
    return pick


# ---- the closed form of the rule (no branch LLVM cannot turn into a select: it runs in
# the lanes of :func:`.block.npv_block`), with the fleet for the busiest hour it needs


@jit
def eta_inv(n: float, e1: float, inv: float) -> float:
    """``eta(n)`` with ``inv = 1 / (scale_full_nodes - 1)`` (no division in the loop)."""
    return e1 + (1.0 - e1) * min(1.0, max(0.0, n - 1.0) * inv)


@jit
def _root(q: float, e1: float, beta: float, capq: float, floor_s: float, inv_eta_s: float,
          ) -> float:
    """:func:`first_reaching` before its corrections: the ceil of the root of ``n eta(n) =
    q``, a quadratic (``eta < 1``, ``beta = (1 - e1) inv``, up to ``capq = floor_s
    eta(floor_s)``) or a line (``inv_eta_s = 1 / eta(scale_full_nodes)``), at least 1."""
    g = e1 - beta
    quad = beta > 0.0 and capq >= q
    bq = beta if beta > 0.0 else 1.0
    n_q = np.ceil((math.sqrt(g * g + 4.0 * bq * q) - g) * (0.5 / bq))
    n_l = np.ceil(q * inv_eta_s)
    if beta > 0.0:
        n_l = max(n_l, floor_s + 1.0)
    return max(1.0, n_q if quad else n_l)


@jit
def first_reaching(q: float, e1: float, inv: float, beta: float, capq: float,
                   floor_s: float, inv_eta_s: float) -> float:
    """Smallest whole ``n >= 1`` with ``n eta(n) >= q`` (``q > 0``): :func:`_root`,
    corrected by a step each way (both tests from the root, side by side: one ``eta``
    after the other was a longer chain of latencies)."""
    n = _root(q, e1, beta, capq, floor_s, inv_eta_s)
    m = n - 1.0
    down = (n > 1.0) & (m * eta_inv(m, e1, inv) >= q)
    return m if down else (n + 1.0 if n * eta_inv(n, e1, inv) < q else n)


@jit
def _margin_closed(n: float, u: float, value: float, c: float, staff: float, a: float,
                   hp: float, b: float, e1: float, inv: float) -> float:
    return value * load_share(n * eta_inv(n, e1, inv) * u, a, hp, b) - n * c - staff


@jit
def _pick(n: float, m: float, thr: float, pick: float) -> float:
    return max(pick, n) if m >= thr else pick


@jit(inline="always")
def n_star_closed(u: float, q: float, value: float, c: float, staff: float, a: float,
                  hp: float, b: float, e1: float, inv: float, beta: float, capq: float,
                  floor_s: float, ceil_s: float, inv_eta_s: float, na: float,
                  ends: bool = True) -> float:
    """:func:`n_star` without its buffer, for a positive ``demand``: the eight fleet sizes
    1, the first sizes whose capacity reaches ``b`` and ``a`` and the ones before them, and
    the sizes around ``scale_full_nodes`` (between them the margin is convex or linear in
    ``n``: its maximum over a stretch is at an end), and 0. ``u``: a node's capacity in mean
    loads (``cu / demand``), ``q = 1 / u``; ``na``: the first size whose capacity reaches
    ``a`` (``first_reaching(a q)``, :func:`first_peak`). ``ends``: :func:`n_star_sizes`."""
    nb = na if b >= a else first_reaching(b * q, e1, inv, beta, capq, floor_s, inv_eta_s)
    return n_star_sizes(u, value, c, staff, a, hp, b, e1, inv, floor_s, ceil_s, na, nb, ends)


@jit(inline="always")
def n_star_sizes(u: float, value: float, c: float, staff: float, a: float, hp: float,
                 b: float, e1: float, inv: float, floor_s: float, ceil_s: float, na: float,
                 nb: float, ends: bool) -> float:
    """:func:`n_star_closed` from its first sizes reaching ``a`` and ``b`` (``na``, ``nb``).
    ``ends=False`` (a literal: LLVM drops the code) where ``na <= floor(scale_full_nodes)``:
    the sizes around ``scale_full_nodes`` are then ``na`` (the same margin, the same
    pick)."""
    n2, n4 = max(1.0, nb - 1.0), max(1.0, na - 1.0)
    m1 = _margin_closed(1.0, u, value, c, staff, a, hp, b, e1, inv)
    m2 = _margin_closed(n2, u, value, c, staff, a, hp, b, e1, inv)
    m3 = _margin_closed(nb, u, value, c, staff, a, hp, b, e1, inv)
    m4 = _margin_closed(n4, u, value, c, staff, a, hp, b, e1, inv)
    m5 = _margin_closed(na, u, value, c, staff, a, hp, b, e1, inv)
    if ends:
        n6, n7 = min(na, floor_s), min(na, ceil_s)
        m6 = _margin_closed(n6, u, value, c, staff, a, hp, b, e1, inv)
        m7 = _margin_closed(n7, u, value, c, staff, a, hp, b, e1, inv)
        best = max(0.0, max(max(max(m1, m2), max(m3, m4)), max(max(m5, m6), m7)))
    else:
        n6 = n7 = na
        m6 = m7 = m5
        best = max(0.0, max(max(max(m1, m2), max(m3, m4)), m5))
    thr = best - TOL * max(1.0, abs(best))
    pick = 0.0
    pick = _pick(1.0, m1, thr, pick)
    pick = _pick(n2, m2, thr, pick)
    pick = _pick(nb, m3, thr, pick)
    pick = _pick(n4, m4, thr, pick)
    pick = _pick(na, m5, thr, pick)
    pick = _pick(n6, m6, thr, pick)
    return _pick(n7, m7, thr, pick)


@jit
def fleet_size(x: float, e1: float, inv: float, beta: float, capq: float, floor_s: float,
               inv_eta_s: float) -> float:
    """The fleet for load ``x`` (nodes at full efficiency) before its spares: the first
    ``k`` with ``k eta(k) >= x`` less MODEL.md's tolerance, 0 for no load."""
    thr = x - TOL * max(1.0, x)
    return 0.0 if thr <= 0.0 else first_reaching(thr, e1, inv, beta, capq, floor_s, inv_eta_s)


@jit
def with_spares(k: float, spare: float) -> float:
    """The fleet ``k`` (:func:`fleet_size`) with its spares."""
    v = spare * k
    return k + np.ceil(v - TOL * max(1.0, abs(v)))


@jit
def _near(n: float, q: float, e1: float, inv: float) -> tuple[float, float, bool]:
    """The smallest of ``n - 1, n, n + 1`` (``n >= 1`` whole) whose ``k eta(k)`` reaches
    ``q``, that ``k eta(k)``, and whether ``k`` is the smallest ``k >= 1`` of all: where the
    step down reaches ``q`` and ``n - 2`` does not (or ``n - 1 = 1``), where the step up
    reaches it, or where neither is taken (``n eta(n)`` rises with ``n`` for ``0 < e1 <=
    1``)."""
    mm, m, p = n - 2.0, n - 1.0, n + 1.0
    w_mm, w_m = mm * eta_inv(mm, e1, inv), m * eta_inv(m, e1, inv)
    w_n, w_p = n * eta_inv(n, e1, inv), p * eta_inv(p, e1, inv)
    down = (n > 1.0) & (w_m >= q)
    up = w_n < q
    k = m if down else (p if up else n)
    w_k = w_m if down else (w_p if up else w_n)
    ok = (down & ((m == 1.0) | (w_mm < q))) | (up & (w_p >= q)) | (not (down | up))
    return k, w_k, ok


@jit
def first_near(n: float, q: float, e1: float, inv: float) -> tuple[float, bool]:
    """:func:`first_reaching` from a guess ``n >= 1`` (last month's), and whether it is
    exact (:func:`_near`: a guess within a step; needs ``0 < e1 <= 1``)."""
    k, _, ok = _near(n, q, e1, inv)
    return k, ok


@jit
def _fleet_near(n: float, x: float, e1: float, inv: float, w_zero: float,
                ) -> tuple[float, float, bool]:
    """``fleet_size(x)``, ``first_peak`` of it, and whether they are exact, from a whole
    ``n >= 1`` within a step of the fleet (:func:`_near` at the fleet's threshold). ``w_zero
    = 0 eta(0)`` (``first_peak``'s test at no load)."""
    thr = x - TOL * max(1.0, x)
    k, w_k, ok = _near(n, thr, e1, inv)
    none = thr <= 0.0
    k = 0.0 if none else k
    w_k = w_zero if none else w_k
    return k, max(1.0, k if w_k >= x else k + 1.0), ok | none


@jit
def fleet_peak(x: float, e1: float, inv: float, beta: float, capq: float, floor_s: float,
               inv_eta_s: float, w_zero: float) -> tuple[float, float]:
    """``k = fleet_size(x)`` and ``first_peak(k, x)`` at once, their ``eta`` side by side:
    the root's neighbours ``n - 1``, ``n``, ``n + 1`` give both ``k`` and ``k eta(k)``
    (:func:`_fleet_near`; a root is within a step)."""
    thr = x - TOL * max(1.0, x)
    k, na, _ = _fleet_near(_root(thr, e1, beta, capq, floor_s, inv_eta_s), x, e1, inv,
                           w_zero)
    return k, na


@jit
def fleet_peak_near(n: float, x: float, e1: float, inv: float, w_zero: float,
                    ) -> tuple[float, float, bool]:
    """:func:`fleet_peak` from a guess ``n >= 1`` (last month's fleet) instead of a root
    (no square root, a shorter chain of latencies), and whether it is exact (a guess within
    a step of the fleet; needs ``0 < e1 <= 1``)."""
    return _fleet_near(n, x, e1, inv, w_zero)


@jit
def first_peak(k: float, x: float, e1: float, inv: float) -> float:
    """``first_reaching(x)`` from ``k = fleet_size(x)``, without a second root:
    ``first_reaching`` is the smallest ``n >= 1`` with ``n eta(n) >= x`` (exact: its root
    is corrected by a step each way) and ``k`` the smallest with ``k eta(k) >= x - TOL
    max(1, x)``, so the answer is ``k`` or, since ``(k + 1) eta(k + 1) >= k eta(k) + e1``,
    ``k + 1`` wherever ``TOL max(1, x) <= e1`` (:func:`peak_exact`, checked at the block's
    largest load)."""
    return max(1.0, k if k * eta_inv(k, e1, inv) >= x else k + 1.0)


@jit
def peak_exact(x: float, e1: float) -> bool:
    """Whether :func:`first_peak` equals ``first_reaching(x)`` at load ``x`` (with a margin
    of 2 for the rounding; False for NaN)."""
    return e1 >= 2.0 * TOL and 2.0 * TOL * x <= e1
