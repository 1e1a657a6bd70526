"""The internal rate of return of a stream of monthly flows and a resale at the horizon
(:func:`yearly_irr`), on its own: it reads no row buffer.

The present value is a polynomial in the monthly factor ``v = exp(-y / 12)`` of the log
rate ``y = log(1 + x)``; the root is sought in ``y`` over [IRR_LO, IRR_HI].
"""

from __future__ import annotations

import math

import numpy as np

from .jit import jit

IRR_LO, IRR_HI = math.log(0.01), math.log(1e4)  # yearly rate from -99% to +999,900%
IRR_GUESS = math.log(1.1)
#: :func:`yearly_irr` stops when Newton's step in the log rate is below IRR_TOL
#: (relative, at least 1): the root is then about IRR_TOL**2 away (Newton) or closer (Halley)
IRR_TOL = 1e-7


@jit
def _pv(flows: np.ndarray, n: int, resale: float, y: float) -> tuple[float, float]:
    """Present value of ``flows`` and ``resale`` at the yearly log rate ``y`` and its
    derivative in ``y`` (Horner in the monthly factor ``exp(-y / 12)``)."""
    v = math.exp(-y / 12.0)
    g = resale
    dg = n * resale
    for t in range(n - 1, -1, -1):
        g = g * v + flows[t]
        dg = dg * v + t * flows[t]
    # g = sum_t f_t v^t (+ resale v^n); dg/dy = -(1/12) sum_t t f_t v^t
    return g, -dg / 12.0


@jit
def _pv2(flows: np.ndarray, n: int, resale: float, y: float) -> tuple[float, float, float]:
    """:func:`_pv` and the second derivative in ``y``, (1/144) sum_t t^2 f_t v^t: Horner
    in v^2 over the even and the odd months apart (six independent chains, half as long:
    the loop is bound by the latency of its multiply-adds)."""
    v = math.exp(-y / 12.0)
    w = v * v
    m = n // 2  # the top pair of months: 2m (<= n) and 2m + 1 (<= n, or past it)
    te = 2.0 * m
    ce = flows[2 * m] if 2 * m < n else resale
    co = resale if 2 * m + 1 == n else 0.0
    ge = ce
    go = co
    de = te * ce
    do = (te + 1.0) * co
    d2e = te * de
    d2o = (te + 1.0) * do
    for k in range(m - 1, -1, -1):
        te = 2.0 * k
        ce = flows[2 * k]
        co = flows[2 * k + 1]
        ge = ge * w + ce
        go = go * w + co
        de = de * w + te * ce
        do = do * w + (te + 1.0) * co
        d2e = d2e * w + te * (te * ce)
        d2o = d2o * w + (te + 1.0) * ((te + 1.0) * co)
    return ge + v * go, -(de + v * do) / 12.0, (d2e + v * d2o) / 144.0


@jit
def _pv_ends(flows: np.ndarray, n: int, resale: float) -> tuple[float, float]:
    """Present value of ``flows`` and ``resale`` at IRR_LO and IRR_HI (one pass, two
    independent Horner chains)."""
    v_lo = math.exp(-IRR_LO / 12.0)
    v_hi = math.exp(-IRR_HI / 12.0)
    g_lo = resale
    g_hi = resale
    for t in range(n - 1, -1, -1):
        g_lo = g_lo * v_lo + flows[t]
        g_hi = g_hi * v_hi + flows[t]
    return g_lo, g_hi


@jit
def _changes(acc: float, prev: float) -> tuple[float, bool]:
    """Sign of ``acc`` (0 when 0) and whether it differs from the nonzero sign ``prev``."""
    sv = 1.0 if acc > 0.0 else (-1.0 if acc < 0.0 else 0.0)
    return sv, prev != 0.0 and sv != 0.0 and sv != prev


@jit
def one_root(flows: np.ndarray, n: int, resale: float) -> bool:
    """Whether the present value of ``flows`` and ``resale`` has at most one root in the
    monthly factor v = exp(-y / 12) on each side of v = 1, and none at 1: then the
    bracket [IRR_LO, IRR_HI], when its ends differ in sign, holds exactly one root.

    Descartes' rule of signs on P(v) / (1 - v) = sum_t S_t v^t (``S_t``, the running sums
    of the flows from month 0: roots in 0 < v < 1) and on the reversed polynomial (running
    sums from the horizon: roots v > 1). A running sum within rounding of 0 answers False.
    """
    tiny = 0.0
    for t in range(n):
        tiny += abs(flows[t])
    tiny = 1e-12 * (tiny + abs(resale))
    acc = 0.0
    prev = 0.0
    cs = 0
    for t in range(n + 1):
        acc += flows[t] if t < n else resale
        if abs(acc) <= tiny:
            if t == n:
                return False  # (a root at v = 1, or too close to tell)
            if acc != 0.0:
                return False
        sv, changed = _changes(acc, prev)
        cs += changed
        if sv != 0.0:
            prev = sv
    acc = 0.0
    prev = 0.0
    cr = 0
    for t in range(n, -1, -1):
        acc += flows[t] if t < n else resale
        if abs(acc) <= tiny and acc != 0.0:
            return False
        sv, changed = _changes(acc, prev)
        cr += changed
        if sv != 0.0:
            prev = sv
    return cs <= 1 and cr <= 1


@jit
def _irr_newton(flows: np.ndarray, n: int, resale: float, lo: float, hi: float) -> float:
    """The log rate of :func:`yearly_irr` by safeguarded Newton (bisection when a step
    leaves the bracket ``lo, hi``, oriented so that the present value is < 0 at ``lo``)
    from IRR_GUESS: for flows with more than one sign change, which may have several roots
    (Descartes), this picks the same one whatever the demand before."""
    y = IRR_GUESS  # most returns lie near it: Newton starts there, not mid-bracket
    dx_old = abs(hi - lo)
    dx = dx_old
    for _ in range(200):
        g, dg = _pv(flows, n, resale, y)
        if g == 0.0:
            break
        if g < 0.0:
            lo = y
        else:
            hi = y
        if dg == 0.0 or ((y - hi) * dg - g) * ((y - lo) * dg - g) > 0.0 \
                or abs(2.0 * g) > abs(dx_old * dg):
            dx_old = dx
            dx = 0.5 * (hi - lo)
            y = lo + dx
        else:
            dx_old = dx
            dx = g / dg
            y -= dx
        if abs(dx) < 1e-14 * max(1.0, abs(y)):
            break
    return y


@jit
def yearly_irr(flows: np.ndarray, n: int, resale: float, guess: float) -> float:
    """Yearly rate x with sum_t (1+x)**(-t/12) flows[t] + (1+x)**(-n/12) resale = 0.

    NaN when the flows never change sign or the present value has the same sign at both
    ends of the bracket [IRR_LO, IRR_HI] of y = log(1+x). Flows that change sign once have
    one root (Descartes' rule of signs, in ``exp(-y / 12)``): Halley's method on y from the
    log rate ``guess`` (the root at the previous demand; IRR_GUESS where that is NaN or
    outside the bracket), safeguarded by the bracket (a step that leaves it falls back to
    Newton's, then to bisection), converges in 2-3 evaluations. Flows that change sign
    more often go to :func:`_irr_newton`, whose root does not depend on the guess.

    Parameters
    ----------
    flows : np.ndarray
        The monthly flows, months ``0 .. n-1`` (only the first ``n`` are read) [USD].
    n : int
        The number of months; ``resale`` comes at month ``n``.
    resale : float
        The flow at month ``n`` (the fleet's resale) [USD].
    guess : float
        A first log rate ``log(1 + x)``; NaN or outside (IRR_LO, IRR_HI): IRR_GUESS.

    Returns
    -------
    float
        The yearly rate x [1/year], or NaN.
    """
    sign = 0.0
    changes = 0
    for t in range(n + 1):
        v = flows[t] if t < n else resale
        if v != 0.0:
            sv = 1.0 if v > 0.0 else -1.0
            if sign != 0.0 and sv != sign:
                changes += 1
            sign = sv
    if changes == 0:
        return np.nan
    lo = IRR_LO
    hi = IRR_HI
    flo, fhi = _pv_ends(flows, n, resale)
    if not (flo * fhi <= 0.0):
        return np.nan
    if flo == 0.0:
        return math.expm1(lo)
    if fhi == 0.0:
        return math.expm1(hi)
    if flo > 0.0:  # orient so that g(lo) < 0 < g(hi)
        lo, hi = hi, lo
    if changes > 1 and not one_root(flows, n, resale):  # maybe several roots: the
        # one found from IRR_GUESS, as ever
        return math.expm1(_irr_newton(flows, n, resale, lo, hi))
    y = guess if IRR_LO < guess < IRR_HI else IRR_GUESS  # (False for NaN)
    for _ in range(200):
        g, dg, d2g = _pv2(flows, n, resale, y)
        if g == 0.0:
            break
        if g < 0.0:
            lo = y
        else:
            hi = y
        newton = g / dg
        dx = 2.0 * g * dg / (2.0 * dg * dg - g * d2g)  # Halley
        if abs(newton) < IRR_TOL * max(1.0, abs(y)):  # converged: one last step
            y -= dx if abs(dx) <= 2.0 * abs(newton) else newton
            break
        nxt = y - dx
        if not min(lo, hi) < nxt < max(lo, hi):  # (NaN too)
            nxt = y - newton
            if not min(lo, hi) < nxt < max(lo, hi):
                nxt = 0.5 * (lo + hi)
        y = nxt
        if abs(hi - lo) < 1e-15 * max(1.0, abs(y)):
            break
    return math.expm1(y)
