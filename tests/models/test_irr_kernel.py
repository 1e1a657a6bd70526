"""The irr kernel on its own (``mc_tco.models.kernels.irr``), against scipy's brentq on the
present value in the yearly rate, for random streams of monthly flows and a resale; and
the cases where it defines no rate (NaN). No row buffer, no model."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from mc_tco.models.kernels.irr import IRR_GUESS, IRR_HI, IRR_LO, one_root, yearly_irr

LOW, HIGH = math.expm1(IRR_LO), math.expm1(IRR_HI)  # the yearly rates -99% and +999,900%
GUESSES = (IRR_GUESS, IRR_LO + 0.01, IRR_HI - 0.01, 0.0, 50.0, np.nan)


def present_value(x, flows, resale):
    """sum_t (1 + x)**(-t/12) flows[t] + (1 + x)**(-n/12) resale, in the yearly rate x."""
    n = len(flows)
    return sum(f * (1.0 + x) ** (-t / 12.0) for t, f in enumerate(flows)) + resale * (
        1.0 + x) ** (-n / 12.0)


def one_sign_change(rng):
    """Flows of one sign for the first k months, of the other after (the resale too)."""
    n = int(rng.integers(1, 121))
    k = int(rng.integers(1, n + 1))
    first = -1.0 if rng.random() < 0.7 else 1.0  # mostly an investment, then returns
    flows = np.empty(n)
    flows[:k] = first * rng.uniform(0.1, 1.0, k) * 10.0 ** rng.uniform(0, 6)
    flows[k:] = -first * rng.uniform(0.0, 1.0, n - k) * 10.0 ** rng.uniform(0, 5)
    resale = -first * rng.uniform(0, 1) * 10.0 ** rng.uniform(0, 6) if rng.random() < 0.6 \
        else 0.0
    if k == n and resale == 0.0:
        resale = -first  # (else no sign change)
    return flows, resale


def test_an_analytic_rate():
    """100 out at month 0, 110 back after 12 months: 10% a year; 121 after 24: 10% too."""
    assert yearly_irr(np.array([-100.0]), 1, 0.0, IRR_GUESS) != yearly_irr(
        np.array([-100.0]), 1, 0.0, IRR_GUESS)  # NaN: no sign change
    flows = np.zeros(12)
    flows[0] = -100.0
    assert yearly_irr(flows, 12, 110.0, IRR_GUESS) == pytest.approx(0.1, rel=1e-12)
    flows = np.zeros(24)
    flows[0] = -100.0
    assert yearly_irr(flows, 24, 121.0, IRR_GUESS) == pytest.approx(0.1, rel=1e-12)


def test_one_sign_change_against_brentq():
    """Random streams with one sign change: the root brentq finds in the yearly rate over
    [-99%, +999,900%] from every first guess, or NaN where the present value has the same
    sign at both ends (the root lies outside)."""
    rng = np.random.default_rng(22)
    inside = outside = 0
    for _ in range(400):
        flows, resale = one_sign_change(rng)
        n = len(flows)
        lo, hi = present_value(LOW, flows, resale), present_value(HIGH, flows, resale)
        for guess in GUESSES:
            got = yearly_irr(flows, n, resale, guess)
            if lo * hi < 0:
                want = brentq(present_value, LOW, HIGH, args=(flows, resale), xtol=1e-15,
                              rtol=1e-15, maxiter=500)
                assert math.log1p(got) == pytest.approx(math.log1p(want), abs=1e-10), (
                    flows, resale, guess)
            else:
                assert math.isnan(got), (flows, resale, guess, got)
        inside += lo * hi < 0
        outside += lo * hi > 0
    assert inside > 250 and outside > 10, (inside, outside)


@pytest.mark.parametrize("flows, resale", [
    ([1.0, 2.0, 3.0], 4.0),  # all positive
    ([5.0, 0.0, 1.0], 0.0),
    ([-1.0, -2.0, -3.0], -4.0),  # all negative
    ([-1.0, 0.0, 0.0], 0.0),
    ([0.0, 0.0, 0.0], 0.0),  # nothing
])
def test_no_sign_change_is_nan(flows, resale):
    flows = np.array(flows)
    for guess in GUESSES:
        assert math.isnan(yearly_irr(flows, len(flows), resale, guess))


@pytest.mark.parametrize("flows, resale, where", [
    ([-1.0, 1e-30], 0.0, "below -99%"),  # almost nothing back
    ([-1.0], 1e-3, "below -99%"),  # 0.1% back after a month: -100% + 1e-36 a year
    ([-1.0, 1e4], 0.0, "above +999,900%"),  # 10^4 back after a month: 10^48 a year
])
def test_a_root_outside_the_range_is_nan(flows, resale, where):
    """One sign change, but the rate lies outside [-99%, +999,900%]: NaN, as the present
    value has the same sign at both ends."""
    flows = np.array(flows)
    assert present_value(LOW, flows, resale) * present_value(HIGH, flows, resale) > 0, where
    for guess in GUESSES:
        assert math.isnan(yearly_irr(flows, len(flows), resale, guess)), where


def test_several_sign_changes_with_one_root_and_any_guess():
    """Flows with several sign changes: where ``one_root`` (Descartes' rule on the running
    sums) says so, the present value changes sign once over the bracket (on a grid of
    4001 rates), and ``yearly_irr`` finds that root (brentq's) from any first guess."""
    rng = np.random.default_rng(3)
    v = np.exp(-np.linspace(IRR_LO, IRR_HI, 4001) / 12)
    claimed = 0
    for _ in range(1500):
        n = 48
        flows = rng.uniform(-1, 3, size=n) * rng.choice([1.0, 10.0], size=n)
        flows[:rng.integers(1, 6)] -= rng.uniform(0, 100)
        resale = rng.normal() * 20
        pv = np.polynomial.polynomial.polyval(v, np.append(flows, resale))
        if pv[0] * pv[-1] >= 0 or not one_root(flows, n, resale):
            continue
        claimed += 1
        assert np.count_nonzero(np.diff(np.sign(pv))) == 1
        if claimed <= 40:
            def f(y, flows=flows, resale=resale):
                return np.polynomial.polynomial.polyval(math.exp(-y / 12), [*flows, resale])

            want = brentq(f, IRR_LO, IRR_HI, xtol=1e-14, rtol=1e-14)
            for guess in GUESSES:
                got = math.log1p(yearly_irr(flows, n, resale, guess))
                assert got == pytest.approx(want, abs=1e-10), guess
    assert claimed > 500


def test_three_roots_give_one_of_them_whatever_the_guess():
    """Present value -(v - a)(v - b)(v - c) in the monthly factor v, the roots where the
    monthly 1 + r is 1.05, 1.1 and 1.2 (three sign changes): ``one_root`` says no, and the
    rate is one of the three, the same from every first guess (safeguarded Newton from
    IRR_GUESS)."""
    a, b, c = 1 / 1.05, 1 / 1.1, 1 / 1.2
    flows = np.array([a * b * c, -(a * b + b * c + c * a), a + b + c])
    resale = -1.0
    assert not one_root(flows, 3, resale)
    roots = [(1 / v) ** 12 - 1.0 for v in (a, b, c)]
    got = {yearly_irr(flows, 3, resale, guess) for guess in GUESSES}
    assert len(got) == 1, got
    (rate,) = got
    assert min(abs(rate - r) / r for r in roots) < 1e-9, (rate, roots)
