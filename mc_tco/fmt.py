"""Number formats for people: token counts, values with their unit, shares in percent with
their intervals, and money. One place, so the same number reads the same in the terminal,
the decision analyses and the memo."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["fmt_money", "fmt_pct", "fmt_prob_ci", "fmt_tokens", "fmt_value"]


def fmt_tokens(x: float) -> str:
    """A token count for people: 1e11 -> '100B', 2.5e12 -> '2.5T', inf -> 'never'."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "n/a"
    if math.isinf(x):
        return "never"
    for scale, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= scale:
            v = x / scale
            return f"{v:.3g}{suffix}"
    return f"{x:.3g}"


def fmt_value(x: float, unit: str = "") -> str:
    """A number with 3 significant digits and thousands separators where it helps."""
    if isinstance(x, float | np.floating) and not math.isfinite(x):
        return "never" if x > 0 else ("n/a" if math.isnan(x) else "-inf")
    if unit == "tokens/month":
        return fmt_tokens(float(x))
    ax = abs(x)
    if ax >= 1e4:
        return f"{x:,.0f}"
    if ax >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}"


def _decimals(x: float) -> int:
    """Decimals (in percent) that show a probability ``x`` with two significant digits."""
    pct = 100 * x
    if pct == 0 or pct >= 1:
        return 1
    return min(4, max(1, 1 - int(np.floor(np.log10(pct)))))


def fmt_pct(p: float, decimals: int | None = None) -> str:
    """A probability in percent: '23.1%', '0.024%', '0%'."""
    if math.isnan(p):
        return "n/a"
    if p == 0:
        return "0%"
    return f"{100 * p:.{decimals if decimals is not None else _decimals(p)}f}%"


def fmt_prob_ci(p: float, lo: float, hi: float) -> str:
    """'23.1% (22.2-24.0)': a probability with its interval, in percent.

    Small probabilities keep two significant digits of the upper bound, so an interval
    never reads '(0.0-0.0)' when it reaches 0.05%.
    """
    if math.isnan(p):
        return "n/a"
    tail = min(hi, 1 - lo)
    d = _decimals(tail) if tail < 0.01 else 1
    lo_text = "0" if lo == 0 else f"{100 * lo:.{d}f}"
    hi_text = "100" if hi == 1 else f"{100 * hi:.{d}f}"
    p_text = "100%" if p == 1 else fmt_pct(p, d if p else None)
    return f"{p_text} ({lo_text}-{hi_text})"


def fmt_money(x: float) -> str:
    """An amount of money (USD, USD/month) for the terminal: 1,152 / 77 / 0.88 / 0.

    Whole units from 10 up, with thousands separators from 1,000; two significant digits
    below 10; ``n/a`` for NaN or an infinite value. The memo's sentences write money with a
    currency sign and a scale instead (``mc_tco.memo.fmt.money``: '$41.2k/month').
    """
    if not math.isfinite(x):
        return "n/a"
    ax = abs(x)
    if ax == 0:
        return "0"
    if ax >= 1000:
        return f"{x:,.0f}"
    if ax >= 10:
        return f"{x:.0f}"
    return f"{x:.2g}"
