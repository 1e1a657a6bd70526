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

:func:`.block.n_star_closed` is the same rule without branches (eight sizes in closed form,
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


@jit
def n_star(demand: float, cu: float, value: float, c: float, staff: float, a: float,
           hp: float, b: float, e1: float, sfull: float, buf: np.ndarray) -> float:
    """The largest maximiser of the month's margin over fleet sizes ``n >= 0``.

    ``demand``: the month's tokens; ``cu``: a node's tokens at the SLO load and full
    efficiency; ``value``: level price less SSDs per token times ``demand``; ``c``: a node's
    level cost; ``staff``: the staff owning any node brings. Sizes run to the first whose
    capacity reaches the peak ``a`` (more serve nothing more). ``buf``: (2, >= 64) scratch.
    """
    k = 0
    buf[0, k] = 0.0
    k += 1
    if demand == 0.0:  # any node: y = inf, serving nothing
        buf[0, k] = 1.0
        k += 1
    else:
        u = cu / demand
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
        buf[1, i] = _margin(buf[0, i], value, c, staff, cu / demand if demand else math.inf,
                            a, hp, b, e1, sfull) if buf[0, i] else 0.0
        best = max(best, buf[1, i])
    tol = best - TOL * max(1.0, abs(best))
    pick = 0.0
    for i in range(k):
        if buf[1, i] >= tol and buf[0, i] > pick:
            pick = buf[0, i]
    return pick
