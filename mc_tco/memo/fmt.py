"""Number formats shared by the memo's sentences, tables and figures (one place, so the
same number reads the same everywhere).

Rounding rules (issue 15), for a reader deciding on a budget, not for a statistician:

* in the body and the one-page summary, a probability is rounded to the nearest percent,
  and one below 1% or above 99% reads "below 1%" / "above 99%" (:func:`prob`);
  an interval is shown only where it changes the reading (:func:`prob_ci`); a share of a
  total or a ratio (GPU share of the investment) is a whole percent (:func:`share_of`);
* money has two significant digits in the summary (:func:`money`: "$1.1M", "$670k"),
  three where the body reads it against an interval (``money(x, digits=3)``);
  months are whole, and a payback that never comes reads "never";
* the appendix and the CSV files keep full precision (:func:`pct_ci`, :func:`pct`).
"""

from __future__ import annotations

import math

from ..fmt import fmt_pct, fmt_prob_ci, fmt_tokens
from .analysis import TOKENS_PER_USER

__all__ = ["money", "months", "pct", "pct_ci", "pct_range", "prob", "prob_ci", "share_of", "tokens",
           "users"]


def prob(p: float) -> str:
    """A probability for the body: '12%', 'below 1%', 'above 99%', 'n/a'."""
    p = float(p)
    if math.isnan(p):
        return "n/a"
    if p < 0.01:
        return "below 1%"
    if p > 0.99:
        return "above 99%"
    return f"{100 * p:.0f}%"


def prob_ci(p: float, lo: float, hi: float, level: float = 0.95, short: bool = False) -> str:
    """A probability for the body with its interval only when the interval changes the
    reading: '16%' when both ends round to 16%, else '16% (95% MC interval 15-17%)';
    ``short`` (table cells under a header that names the interval): '16% (15-17%)'."""
    if prob(lo) == prob(hi) or math.isnan(float(p)):
        return prob(p)
    ends = [prob(v).replace("below ", "<").replace("above ", ">").removesuffix("%")
            for v in (lo, hi)]
    if ends in (["<1", "1"], ["99", ">99"]):  # 'below 1% (<1-1%)' reads no differently
        return prob(p)
    return f"{prob(p)} ({'' if short else f'{level:.0%} MC interval '}{ends[0]}-{ends[1]}%)"


def share_of(x: float) -> str:
    """A quantity that is a share or a ratio (not a probability), in whole percent for the
    body: '92%', '9%', '164%', '0.4%' (one decimal below 1%, so a small share is not 0)."""
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if x == 0:
        return "0%"
    return f"{100 * x:.1f}%" if abs(x) < 0.01 else f"{100 * x:.0f}%"


def money(x: float, per: str = "", digits: int = 2) -> str:
    """Money with ``digits`` significant digits, a currency sign and a scale.

    Two digits (the default) for the summary and the body's round figures ('$1.1M',
    '-$36k', '$950'); three where a figure is read against its interval ('-$41.2k/month',
    '$56.8/h'). ``per`` is appended ('/month', ' a year').
    """
    x = float(x)
    if math.isnan(x):
        return "n/a"
    sign = "-" if x < 0 else ""
    a = abs(float(f"{abs(x):.{digits}g}"))
    if a == 0:
        return f"$0{per}"
    scale, suffix = next(((s, u) for s, u in ((1e9, "B"), (1e6, "M"), (1e3, "k")) if a >= s),
                         (1.0, ""))
    v = a / scale
    decimals = max(0, digits - 1 - math.floor(math.log10(v)))
    text = f"{v:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").removesuffix(".")
    return f"{sign}${text}{suffix}{per}"


def months(x: float) -> str:
    """A payback month for the summary: '14 months', 'never', 'n/a'."""
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "never"
    return f"{x:.0f} month{'s' if round(x) != 1 else ''}"


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
