"""Number formats shared by the memo's sentences, tables and figures (one place, so the
same number reads the same everywhere)."""

from __future__ import annotations

import math

from ..fmt import fmt_pct, fmt_prob_ci, fmt_tokens
from .analysis import TOKENS_PER_USER

__all__ = ["pct", "pct_ci", "pct_range", "tokens", "usd", "users"]


def pct(p: float) -> str:
    """A share in percent: '23.1%', '0.024%', '0%', '100%'."""
    p = float(p)
    return "100%" if p == 1 else fmt_pct(p)


def pct_ci(p: float, lo: float, hi: float, level: float = 0.95) -> str:
    """'23.1% (95% MC interval 22.2-24.0%)': a share with its Monte Carlo interval."""
    if math.isnan(float(p)):
        return "n/a"
    text = fmt_prob_ci(float(p), float(lo), float(hi))
    value, _, interval = text.partition(" (")
    return f"{value} ({level:.0%} MC interval {interval[:-1]}%)"


def pct_range(p: float, lo: float, hi: float) -> str:
    """'23.1% (22.2-24.0%)': a share with its interval, short form for tables."""
    if math.isnan(float(p)):
        return "n/a"
    value, _, interval = fmt_prob_ci(float(p), float(lo), float(hi)).partition(" (")
    return f"{value} ({interval[:-1]}%)"


def tokens(d: float) -> str:
    """Tokens a month for people: '500B', '3T', '30B', 'never'."""
    d = float(d)
    if math.isfinite(d) and d >= 1e15:
        return f"{d / 1e12:,.0f}T"
    return fmt_tokens(d)


def users(d: float) -> str:
    """Heavy users at 100M tokens a month each: '5,000 heavy users'."""
    return f"{float(d) / TOKENS_PER_USER:,.0f} heavy users"


def usd(x: float, per: str = "/month") -> str:
    """Money with three significant digits: '-$41.2k/month', '$1.2M/month', '$56.8/h'."""
    x = float(x)
    if math.isnan(x):
        return "n/a"
    sign = "-" if x < 0 else ""
    a = abs(x)
    for scale, suffix in ((1e9, "B"), (1e6, "M"), (1e3, "k")):
        if a >= scale:
            return f"{sign}${a / scale:.3g}{suffix}{per}"
    return f"{sign}${a:.3g}{per}"
