"""The hybrid's fleet rule of version 3 (``shared/MODEL.md``): each month, the largest fleet
whose margin over its own costs is largest, found without trying every fleet size.

The margin of ``n`` nodes in a month is ``V L(y_n) - n C - staff [n > 0]`` with ``V`` the
level API bill of the month's demand less its SSDs, ``C`` a node's level monthly cost,
``y_n = n eta(n) u`` its capacity in mean loads (``u``: one full-efficiency node's) and
``L`` the concave, piecewise-linear share of the load that capacity serves (kinks at the
profile's levels ``b`` and ``a``). Between the first sizes whose capacity reaches ``b`` and
``a`` (:func:`first_size`: the root of a quadratic or a line, then one step each way) and
the sizes around ``scale_full_nodes`` where ``eta`` reaches 1, the margin is convex in ``n``
(``eta < 1``: the capacity is quadratic in ``n``) or linear, so its maximum over each stretch
is at one of its ends: those eight sizes, and none, are the only ones tried
(:func:`n_star_closed`: no loop and no division, so :mod:`.block` runs it on 4 demands at
once; :func:`n_star` for one month).

Of sizes within 1e-9 (relative) of the best, the largest is taken, as MODEL.md's rule; it is
the largest of the sizes tried, which differs from the largest of all sizes only where
the margin is flat to 1e-9 along a stretch (an exact tie between different fleets).
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit

TOL = 1e-9


@jit(inline="always")
def eta(n: float, e1: float, sfull: float) -> float:
    """Scale efficiency of an ``n``-node deployment."""
    return e1 + (1.0 - e1) * min(1.0, max(0.0, n - 1.0) / (sfull - 1.0))


@jit(inline="always")
def load_share(y: float, a: float, hp: float, b: float) -> float:
    """``L(y)``: the share of the month's load that capacity ``y`` (in mean loads) serves."""
    return hp * min(a, y) + (1.0 - hp) * min(b, y)


@jit(inline="always")
def rule_constants(e1: float, sfull: float) -> tuple[float, float, float, float, float, float]:
    """A row's constants of :func:`first_size` and :func:`n_star_closed`: ``inv = 1 /
    (scale_full_nodes - 1)``, ``beta = (1 - e1) inv`` (the quadratic's), the floor and
    ceiling of ``scale_full_nodes``, the capacity factor ``floor eta(floor)`` and
    ``1 / eta(scale_full_nodes)``."""
    inv = 1.0 / (sfull - 1.0)
    floor_s, ceil_s = np.floor(sfull), np.ceil(sfull)
    capq = floor_s * eta_inv(floor_s, e1, inv)
    return inv, (1.0 - e1) * inv, floor_s, ceil_s, capq, 1.0 / eta_inv(max(sfull, 1.0), e1, inv)


@jit(inline="always")
def eta_inv(n: float, e1: float, inv: float) -> float:
    """``eta(n)`` with ``inv = 1 / (scale_full_nodes - 1)`` (no division in the loop)."""
    return e1 + (1.0 - e1) * min(1.0, max(0.0, n - 1.0) * inv)


@jit(inline="always")
def first_size(q: float, e1: float, inv: float, beta: float, capq: float, floor_s: float,
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
    if n > 1.0 and m * eta_inv(m, e1, inv) >= q:
        n = m
    if n * eta_inv(n, e1, inv) < q:
        n += 1.0
    return n


@jit(inline="always")
def _margin(n: float, u: float, value: float, c: float, staff: float, a: float, hp: float,
            b: float, e1: float, inv: float) -> float:
    return value * load_share(n * eta_inv(n, e1, inv) * u, a, hp, b) - n * c - staff


@jit(inline="always")
def _pick(n: float, m: float, thr: float, pick: float) -> float:
    return max(pick, n) if m >= thr else pick


@jit(inline="always")
def n_star_closed(u: float, q: float, value: float, c: float, staff: float, a: float,
                  hp: float, b: float, e1: float, inv: float, beta: float, capq: float,
                  floor_s: float, ceil_s: float, inv_eta_s: float) -> float:
    """The largest best fleet of a month with positive demand (see the module): the eight fleet
    sizes 1, the first sizes whose capacity reaches ``b`` and ``a`` and the ones before
    them, and the sizes around ``scale_full_nodes`` (between them the margin is convex or
    linear in ``n``: its maximum over a stretch is at an end), and 0. ``u``: a node's
    capacity in mean loads (``cu / demand``), ``q = 1 / u``."""
    na = first_size(a * q, e1, inv, beta, capq, floor_s, inv_eta_s)
    nb = na if b >= a else first_size(b * q, e1, inv, beta, capq, floor_s, inv_eta_s)
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


@jit
def n_star(demand: float, cu: float, value: float, c: float, staff: float, a: float,
           hp: float, b: float, e1: float, sfull: float) -> float:
    """The largest maximiser of the month's margin over fleet sizes ``n >= 0``.

    ``demand``: the month's tokens; ``cu``: a node's tokens at the SLO load and full
    efficiency; ``value``: level price less SSDs per token times ``demand``; ``c``: a node's
    level cost; ``staff``: the staff owning any node brings. Sizes run to the first whose
    capacity reaches the peak ``a`` (more serve nothing more); with no demand a node serves
    nothing, so none is held (but at no cost: the largest of the tie).
    """
    if demand == 0.0:
        return 1.0 if -c - staff >= -TOL else 0.0
    inv, beta, floor_s, ceil_s, capq, inv_eta_s = rule_constants(e1, sfull)
    return n_star_closed(cu / demand, demand / cu, value, c, staff, a, hp, b, e1, inv, beta,
                         capq, floor_s, ceil_s, inv_eta_s)
