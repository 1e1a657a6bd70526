"""The version-3 kernels' drivers: every row at every demand of a grid (:func:`grid`), the
cash paths at a few demands (:func:`cash`), and each strategy's break-even demand
(:func:`breakeven`). They release the GIL: the engine's thread workers run them in
parallel."""

from __future__ import annotations

import math

import numpy as np

from . import lanes
from . import npv as fast
from .block import PB, npv_row
from .cell import NOUT, NW, NZ, cell
from .cells import cell_row
from .jit import jit
from .narrow import npv_one
from .rows import CNODE, DISC, DU, EXIT, LIFE, PBAR, PC, SELF, SFULL, SOV, STAFF, STOK, T_, TAX


@jit
def _scratch(V: np.ndarray, S: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    months = V.shape[2]
    top = 2.0
    for i in range(S.shape[0]):
        top = max(top, S[i, SFULL])
    return (np.zeros((NW, months)), np.zeros((NZ, 6)),
            np.zeros((2, math.ceil(top) + 16)))


@jit
def _npv_rows(V: np.ndarray, S: np.ndarray, dems: np.ndarray, which: np.ndarray,
              out: np.ndarray, by: np.ndarray, saving: np.ndarray) -> None:
    """:func:`.block.npv_row` of the rows ``which`` into ``out``; with a non-empty
    ``saving``, also each row's npv divided by its ``by`` into it (while the row is in
    the cache: :func:`divided`)."""
    _, _, buf = _scratch(V, S)
    for i in which:
        npv_row(V[i], S[i], dems, buf, out[i])
        if saving.shape[0]:
            _divided_row(out[i], by[i], saving[i])


@jit
def _divided_row(src: np.ndarray, b: float, out: np.ndarray) -> None:
    for d in range(out.shape[0]):
        for s in range(out.shape[1]):
            out[d, s] = src[d, fast.NPV + s] / b


@jit
def divided(src: np.ndarray, by: np.ndarray, out: np.ndarray) -> None:
    """``out[i, d, s] = src[i, d, NPV + s] / by[i]``: the strategies' npv in
    :func:`npv_grid`'s result divided by a per-row number (the saving: npv over the
    annuity). numpy's broadcast division over that strided view took 2.4 CPU s of the
    default run, most of it reading ``src`` back from memory."""
    for i in range(out.shape[0]):
        _divided_row(src[i], by[i], out[i])


_NONE3, _NONE1 = np.empty((0, 0, 0)), np.empty(0)


def npv_grid(V: np.ndarray, S: np.ndarray, dems: np.ndarray, out: np.ndarray,
             by: np.ndarray | None = None, saving: np.ndarray | None = None) -> None:
    """The npv of every strategy and the sums the level cost needs (:mod:`.npv`'s result
    vector) of every row of ``V, S`` at every demand of ``dems`` into ``out`` (rows,
    demands, NRES_OUT): the engine's hot path (:func:`.block.npv_row`: demands in the SIMD
    lanes), or for fewer than ``PB / 2`` demands (the Shapley pass's report points)
    :func:`.lanes.npv_lanes` (rows in the lanes; the rows it leaves to the scalar loop
    through ``npv_row``). With ``by`` and ``saving`` (rows, demands, 6), also the npv
    divided by ``by`` into ``saving`` (:func:`divided`). (A Python function: the
    two kernels are compiled apart, each when first used.)"""
    dems = np.array(dems, dtype=float)  # (writable: the model's are read-only, and a
    # read-only array is another type, compiling npv_row a second time)
    if dems.shape[0] >= PB // 2:
        if saving is None or by is None:
            _npv_rows(V, S, dems, np.arange(V.shape[0]), out, _NONE1, _NONE3)
        else:
            _npv_rows(V, S, dems, np.arange(V.shape[0]), out, by, saving)
        return
    short = (S[:, TAX] != 0.0) & (S[:, LIFE] < S[:, EXIT])  # (purchases depreciated before
    lanes.npv_lanes(V, S, dems, np.flatnonzero(~short), out)  # exit: npv_cell's)
    if short.any():
        _npv_rows(V, S, dems, np.flatnonzero(short), out, _NONE1, _NONE3)
    if saving is not None and by is not None:
        divided(out, by, saving)


@jit
def grid(V: np.ndarray, S: np.ndarray, dems: np.ndarray, paths: bool, want_irr: bool,
         out: np.ndarray) -> None:
    """Every output of :func:`.cell.cell` (but the npv, which :func:`npv_grid` gives) of
    every row of ``V, S`` at every demand of ``dems`` into ``out`` (rows, demands, NOUT);
    ``paths``: payback and peak cash, ``want_irr``: the irr. A row at a time, its demands
    in the SIMD lanes (:func:`.cells.cell_row`: the same numbers, 2.4x faster at the
    default book's 46 demands)."""
    W, Z, buf = _scratch(V, S)
    for i in range(V.shape[0]):
        cell_row(V[i], S[i], dems, W, Z, buf, out[i], paths, want_irr)


@jit
def cash(V: np.ndarray, S: np.ndarray, dems: np.ndarray, path: np.ndarray,
         year: np.ndarray) -> None:
    """The cumulative discounted flow of every month (rows, demands, month, 6) into
    ``path`` and the nominal cash by year (rows, demands, year, 6) into ``year``."""
    W, Z, buf = _scratch(V, S)
    res = np.empty(NOUT)
    yes = dems.shape[0] >= 0  # True, typed as a bool (not a literal): :func:`grid`'s types
    for i in range(V.shape[0]):
        for j in range(dems.shape[0]):
            cell(V[i], S[i], dems[j], W, Z, buf, res, yes, not yes, path[i, j], year[i, j],
                 yes)


@jit(inline="always")
def _ok_of(v: float, top: float, s: int) -> bool:
    """Whether strategy ``s`` of npv ``v`` breaks even (the hybrid: and owns a node, its
    largest fleet ``top`` > 0)."""
    return v >= 0.0 and (s != 5 or top > 0.0)


@jit(inline="always")
def _g_of(v: float, top: float, s: int) -> float:
    """The function whose first root :func:`breakeven` brackets: strategy ``s``'s npv
    ``v``, and for a hybrid that holds no node (``top`` 0: not a break-even) the largest
    number below 0."""
    if s == 5 and top <= 0.0 and v >= 0.0:
        return -5e-324
    return v


@jit(inline="always")
def _ok(res: np.ndarray, s: int) -> bool:
    """:func:`_ok_of` of strategy ``s`` in the npv results ``res``."""
    return _ok_of(res[fast.NPV + s], res[fast.HYB_TOP], s)


@jit(inline="always")
def _g(res: np.ndarray, s: int) -> float:
    """:func:`_g_of` of strategy ``s`` in the npv results ``res``."""
    return _g_of(res[fast.NPV + s], res[fast.HYB_TOP], s)


@jit
def _narrow(v: np.ndarray, sc: np.ndarray, s: int, a: float, b: float, ga: float, gb: float,
            rel: float, W: np.ndarray, buf: np.ndarray, res: np.ndarray) -> float:
    """Narrow the bracket ``a < b`` (strategy ``s`` does not break even at ``a``, does at
    ``b``; ``ga, gb``: :func:`_g` there, NaN if unknown) to ``b - a <= rel b``; return ``b``.

    Each step tries the secant point of the ends (regula falsi), held at least ``rel b / 2``
    inside the bracket so that a root next to an end is closed in one more step; an end
    kept twice in a row has its value halved (Illinois: superlinear where the npv is smooth
    in demand, as between the fleet's steps); a step that fails to halve the bracket of two
    steps before is followed by a bisection, so the worst case is about twice bisection's
    evaluations and the bracket invariant is bisection's: not at ``a``, at ``b``.
    """
    kept = 0  # 1: the last step kept a, -1: it kept b
    w_check = b - a
    n = 0
    while b - a > rel * b:
        w = b - a
        c = 0.5 * (a + b)
        bisect = False
        if n == 2:  # every two steps: bisect if they did not halve the bracket
            n = 0
            bisect = w > 0.5 * w_check
            w_check = w
        n += 1
        if not bisect and ga < 0.0 and gb >= 0.0 and math.isfinite(gb - ga):
            tol = 0.5 * rel * b
            c = min(max(b - gb * (w / (gb - ga)), a + tol), b - tol)
        if s == 5:
            fast.npv_cell(v, sc, c, W, buf, res)
            value, top = res[fast.NPV + 5], res[fast.HYB_TOP]
        else:  # (npv_cell's npv of s, without the hybrid's rule)
            value, top = npv_one(v, sc, c, W, buf, s), 0.0
        gc = _g_of(value, top, s)
        if _ok_of(value, top, s):
            b, gb = c, gc
            if kept == 1:
                ga *= 0.5
            kept = 1
        else:
            a, ga = c, gc
            if kept == -1:
                gb *= 0.5
            kept = -1
    return b


@jit
def _least(v: np.ndarray, sc: np.ndarray) -> float:
    """A demand below which no strategy of the row breaks even (a lower bound).

    Purchases never raise an after-tax npv (a purchase ``cx`` in month ``u`` costs
    ``cx d[u]``, returns at most ``tax cx d[u]`` in depreciation and book value and
    ``(1 - tax) cx d[u]`` in resale), so buy, rent, reserved and owned break even only where
    ``(1 - tax) (D K - staff A_exit) + SOV >= 0`` (``K``: the discounted API bill per unit of
    planned demand, ``A_exit`` the discount factors before exit, ``SOV`` the discounted
    sovereignty); the hybrid owns a node only in a month whose level API bill less SSDs
    exceeds a node's level cost and the staff.
    """
    T, ex = int(sc[T_]), int(sc[EXIT])
    staff, rate = sc[STAFF], sc[TAX]
    k = a_ex = sov = 0.0
    hyb = math.inf
    for t in range(T):
        d = v[DISC, t]
        k += d * v[PC, t] * v[DU, t]
        sov += d * sc[SOV] * v[SELF, t]
        if t < ex:
            a_ex += d
            value = (v[PBAR, t] - v[STOK, t]) * v[DU, t]
            if value > 0.0:
                hyb = min(hyb, (v[CNODE, t] + staff) / value)
    if rate >= 1.0 or k <= 0.0:
        return 0.0
    others = (staff * a_ex - sov / (1.0 - rate)) / k
    return max(0.0, min(others, hyb) * (1.0 - 1e-6))


@jit
def breakeven(V: np.ndarray, S: np.ndarray, lo: float, hi: float, ratio: float, rel: float,
              out: np.ndarray) -> None:
    """Smallest demand at which each strategy's npv is >= 0, (rows, 6), api NaN.

    A geometric scan from ``lo`` to ``hi`` (steps of ``ratio``) evaluates all strategies
    at once, :data:`.block.PB` demands at a time (:func:`.block.npv_row`), and stops when
    every strategy has its bracket; each bracket (the first scan point with npv >= 0 and
    the one before it) is then narrowed to a relative width ``rel`` by :func:`_narrow`
    (regula falsi, Illinois, with bisection steps: the same bracket invariant as
    bisection in about a quarter of its evaluations). 0 where npv >= 0 at 1 token a month,
    inf where never up to ``hi``. A positive window narrower than a step can be missed.
    """
    W, _, buf = _scratch(V, S)
    res = np.empty(fast.NRES_OUT)
    left = np.empty(6)
    g_left, g_right, g_prev = np.empty(6), np.empty(6), np.empty(6)
    K = math.floor(math.log(hi / lo) / math.log(ratio) + 1e-9) + 1  # scan points
    scan = np.empty(PB)
    block = np.empty((PB, fast.NRES_OUT))
    for i in range(V.shape[0]):
        out[i, 0] = math.nan
        for s in range(1, 6):
            out[i, s] = -1.0  # not found yet
        fast.npv_cell(V[i], S[i], 1.0, W, buf, res)
        todo = 0
        for s in range(1, 6):
            g_prev[s] = _g(res, s)
            if _ok(res, s):
                out[i, s] = 0.0
            else:
                todo += 1
        k_first = 0
        least = _least(V[i], S[i])
        if least > lo:  # no strategy breaks even below: skip those scan points (the same
            # lattice, one point before, so the brackets are the full scan's)
            k_first = max(0, math.floor(math.log(least / lo) / math.log(ratio)) - 1)
        prev = 1.0 if k_first == 0 else lo * ratio ** (k_first - 1)
        if k_first > 0:  # (the npv there is not computed: the first step bisects)
            for s in range(1, 6):
                g_prev[s] = math.nan
        for k0 in range(k_first, K, PB):  # the scan points lo * ratio**k, PB at a time
            if todo == 0:
                break
            m = min(PB, K - k0)
            for j in range(PB):
                scan[j] = lo * ratio ** (k0 + min(j, m - 1))
            npv_row(V[i], S[i], scan, buf, block)
            for j in range(m):
                for s in range(1, 6):
                    if out[i, s] < 0.0 and _ok(block[j], s):
                        out[i, s] = scan[j]
                        left[s] = prev
                        g_left[s] = g_prev[s]
                        g_right[s] = _g(block[j], s)
                        todo -= 1
                    g_prev[s] = _g(block[j], s)
                prev = scan[j]
        for s in range(1, 6):
            if out[i, s] < 0.0:
                out[i, s] = math.inf
            elif out[i, s] > 0.0:
                out[i, s] = _narrow(V[i], S[i], s, left[s], out[i, s], g_left[s],
                                    g_right[s], rel, W, buf, res)
