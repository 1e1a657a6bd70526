"""Number formats for people: the one place where mc_tco turns a number into words.

Every reader (the terminal, the decision analyses, the memo's sentences, tables and figure
axes, the explorer's server) formats money, token counts, counts of users and percentages
here, so the same number reads the same everywhere. ``mc_tco/app/static/app.js`` repeats
:func:`number`, :func:`money` (``digits=3``) and :func:`pct` for the ticks it draws in the
browser; ``tests/fmt_cases.json`` holds the cases both implementations must meet.

Rounding rule: a number is rounded to the digits it is shown with *before* its unit
(k, M, B, T) is chosen, so 999.6 million tokens read ``1B``, never ``1e+03M``.

Rules of the memo (issue 15), for a reader deciding on a budget, not for a statistician:

* in the body and the one-page summary, a probability is rounded to the nearest percent,
  and one below 1% or above 99% reads "below 1%" / "above 99%" (:func:`prob`); an interval
  is shown only where it changes the reading (:func:`prob_ci`); a share of a total or a
  ratio is a whole percent (:func:`share_of`);
* money has two significant digits in the summary (:func:`money`: "$1.1M", "$670k"),
  three where the body reads it against an interval (``money(x, digits=3)``); months are
  whole, and a payback that never comes reads "never";
* the appendix and the CSV files keep full precision (:func:`pct_ci`, :func:`pct`).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["fmt_money", "fmt_pct", "fmt_prob_ci", "fmt_tokens", "fmt_value", "money",
           "months", "number", "pct", "pct_ci", "pct_range", "prob", "prob_ci",
           "rounded", "share_of", "to_error", "tokens", "users"]

_SCALES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))
#: an amount of money below this (USD) prints as 0: a millionth of a dollar is far below
#: any amount the memo reads (the smallest, a cost per million tokens, is about 1e-2)
MONEY_ZERO = 1e-6


def _sig(a: float, digits: int) -> float:
    """``a`` rounded to ``digits`` significant digits."""
    return float(f"{a:.{digits}g}")


def _digits_text(v: float, digits: int) -> str:
    """A positive ``v`` (already rounded) with ``digits`` significant digits, no exponent
    and no trailing zeros: 1.5 -> '1.5', 120 -> '120', 0.063 -> '0.063'."""
    decimals = max(0, digits - 1 - math.floor(math.log10(v)))
    text = f"{v:.{decimals}f}"
    return text.rstrip("0").removesuffix(".") if "." in text else text


def _scaled(a: float, digits: int, k_from: float = 1e3) -> str:
    """A non-negative finite ``a`` with ``digits`` significant digits and a scale
    (k from ``k_from``, M, B, T); whole T from 1,000T on."""
    a = _sig(a, digits)
    if a == 0:
        return "0"
    if a >= 1e15:
        return f"{a / 1e12:,.0f}T"
    for scale, suffix in _SCALES:
        if a >= max(scale, k_from if suffix == "k" else scale):
            return _digits_text(a / scale, digits) + suffix
    return f"{a:,.0f}" if a >= 10 ** (digits - 1) else _digits_text(a, digits)


def number(x: float, digits: int = 3, *, k_from: float = 1e3, inf: str = "inf") -> str:
    """A count or a value for labels and axes, with a scale: '100B', '2.5k', '0.63'.

    Parameters
    ----------
    x : float
        The number.
    digits : int
        Significant digits shown.
    k_from : float
        Smallest value written with 'k' (1e4 keeps '5,000' whole).
    inf : str
        The text of an infinite value (its sign is kept).

    Examples
    --------
    >>> number(999.6e6), number(1234), number(-0.5), number(5000, k_from=1e4)
    ('1B', '1.23k', '-0.5', '5,000')
    """
    if x is None or math.isnan(x):
        return "n/a"
    sign = "-" if x < 0 else ""
    if math.isinf(x):
        return sign + inf
    return sign + _scaled(abs(float(x)), digits, k_from)


def tokens(x: float, digits: int = 3) -> str:
    """A token count (a demand a month): '100B', '2.5T', '1,500T'; inf reads 'never'.

    Examples
    --------
    >>> tokens(1e11), tokens(999.5e9), tokens(float("inf")), tokens(2e15)
    ('100B', '1T', 'never', '2,000T')
    """
    if x is not None and math.isinf(x):
        return "never"
    return number(x, digits)


def users(n: float, label: str = "heavy users") -> str:
    """A number of users, whole, with thousands separators: '5,000 heavy users'."""
    return f"{float(n):,.0f} {label}" if label else f"{float(n):,.0f}"


def rounded(x: float, digits: int = 2) -> str:
    """A number with ``digits`` significant digits and thousands separators, no scale:
    '1,200', '0.63', '476,000'.

    Examples
    --------
    >>> rounded(1234), rounded(0.6349), rounded(476_123, 3), rounded(999.6, 3)
    ('1,200', '0.63', '476,000', '1,000')
    """
    x = float(x)
    if not math.isfinite(x):
        return "never" if x > 0 else ("n/a" if math.isnan(x) else "-inf")
    v = _sig(x, digits)
    if v == 0:
        return "0"
    return f"{v:,.0f}" if abs(v) >= 10 ** (digits - 1) else f"{v:.{digits}g}"


def money(x: float, per: str = "", digits: int = 2, *, symbol: str = "$",
          compact: bool = True, decimals: int | None = None) -> str:
    """An amount of money.

    Parameters
    ----------
    x : float
        The amount (USD).
    per : str
        Appended: '/month', ' a year', ' USD/h'.
    digits : int
        Significant digits: 2 in the summary ('$1.1M'), 3 where an amount is read against
        its interval ('-$41.2k/month'); below 10 in the terminal form.
    symbol : str
        The currency sign before the number ('' in the terminal).
    compact : bool
        Scale the amount (k, M, B, T); else whole units with thousands separators from 10
        up, ``digits`` significant digits below 10 (the terminal: '1,152', '77', '0.88').
    decimals : int, optional
        Fixed decimals with thousands separators instead (not compact): '56.8 USD/h'.

    Returns
    -------
    str
        The text; 'n/a' for NaN or an infinite amount; '0' (with its sign and unit) below
        :data:`MONEY_ZERO`, the rounding noise of a sum that is 0 (an EVPI of 5.6e-13).

    Examples
    --------
    >>> money(-36512, "/month", digits=3), money(999_700), money(950)
    ('-$36.5k/month', '$1M', '$950')
    >>> money(5.6e-13), money(5.6e-13, symbol="", compact=False), money(0.0031)
    ('$0', '0', '$0.0031')
    >>> money(1152.4, symbol="", compact=False), money(999.6, symbol="", compact=False)
    ('1,152', '1,000')
    >>> money(56.84, " USD/h", symbol="", compact=False, decimals=1)
    '56.8 USD/h'
    """
    x = float(x)
    if not math.isfinite(x):
        return "n/a"
    if abs(x) < MONEY_ZERO:
        x = 0.0
    sign = "-" if x < 0 else ""
    a = abs(x)
    if decimals is not None:
        text = f"{a:,.{decimals}f}"
    elif compact:
        text = _scaled(a, digits)
    elif a == 0:
        text = "0"
    else:
        text = f"{a:,.0f}" if a >= 10 or _sig(a, digits) >= 10 else f"{a:.{digits}g}"
    return f"{sign}{symbol}{text}{per}"


def fmt_money(x: float) -> str:
    """Money for the terminal: '1,152', '77', '0.88', '0', 'n/a' (:func:`money`)."""
    return money(x, symbol="", compact=False)


def to_error(x: float, half: float, digits: int = 2) -> tuple[str, str]:
    """An amount and its Monte Carlo half-width with no more digits than the error
    supports: the half-width to ``digits`` significant digits, the amount rounded to the
    same decimal place, both with thousands separators.

    Examples
    --------
    >>> to_error(169323, 7260)
    ('169,300', '7,300')
    >>> to_error(201.4, 58.3), to_error(0.01234, 0.0021)
    (('201', '58'), ('0.0123', '0.0021'))
    >>> to_error(5.0, 0.0)
    ('5', '0')
    """
    x, half = float(x), abs(float(half))
    if not (math.isfinite(x) and math.isfinite(half)):
        return (fmt_money(x), fmt_money(half))
    if half == 0:
        return (fmt_money(x), "0")
    place = digits - 1 - math.floor(math.log10(half))  # decimals kept (negative: tens ...)
    decimals = max(place, 0)
    return (f"{round(x, place):,.{decimals}f}", f"{round(half, place):,.{decimals}f}")


def fmt_tokens(x: float) -> str:
    """A token count for the terminal (:func:`tokens`)."""
    return tokens(x)


def fmt_value(x: float, unit: str = "") -> str:
    """A number with 3 significant digits and thousands separators from 10,000: '41,234',
    '512', '0.884'; a token count as :func:`tokens`.

    Examples
    --------
    >>> fmt_value(9999.6), fmt_value(999.6), fmt_value(0.8841), fmt_value(5e11, "tokens/month")
    ('10,000', '1000', '0.884', '500B')
    """
    if isinstance(x, float | np.floating) and not math.isfinite(x):
        return "never" if x > 0 else ("n/a" if math.isnan(x) else "-inf")
    if unit == "tokens/month":
        return tokens(float(x))
    ax = abs(x)
    if round(ax) >= 1e4:
        return f"{x:,.0f}"
    if _sig(ax, 3) >= 100:
        return f"{x:.0f}"
    return f"{x:.3g}"


def _decimals(x: float) -> int:
    """Decimals (in percent) that show a probability ``x`` with two significant digits,
    counted after rounding (0.996% reads '1.0%', not '1.00%')."""
    p = _sig(100 * abs(x), 2)
    if p == 0 or p >= 1:
        return 1
    return min(4, max(1, 1 - int(np.floor(np.log10(p)))))


def fmt_pct(p: float, decimals: int | None = None) -> str:
    """A probability in percent with two significant digits below 1%, one decimal above:
    '23.1%', '0.024%', '0%', '100.0%'.

    Examples
    --------
    >>> fmt_pct(0.231), fmt_pct(0.00024), fmt_pct(0.00996), fmt_pct(0.5, 0)
    ('23.1%', '0.024%', '1.0%', '50%')
    """
    if math.isnan(p):
        return "n/a"
    if p == 0:
        return "0%"
    return f"{100 * p:.{decimals if decimals is not None else _decimals(p)}f}%"


def pct(p: float) -> str:
    """A share in percent as :func:`fmt_pct`, but all of it reads '100%' (the memo, the
    explorer): '23.1%', '0.024%', '0%', '100%'."""
    p = float(p)
    return "100%" if p == 1 else fmt_pct(p)


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


def pct_ci(p: float, lo: float, hi: float, level: float = 0.95) -> str:
    """'23.1% (95% MC interval 22.2-24.0%)': a share with its Monte Carlo interval."""
    if math.isnan(float(p)):
        return "n/a"
    value, _, interval = fmt_prob_ci(float(p), float(lo), float(hi)).partition(" (")
    return f"{value} ({level:.0%} MC interval {interval[:-1]}%)"


def pct_range(p: float, lo: float, hi: float) -> str:
    """'23.1% (22.2-24.0%)': a share with its interval, short form for tables."""
    if math.isnan(float(p)):
        return "n/a"
    value, _, interval = fmt_prob_ci(float(p), float(lo), float(hi)).partition(" (")
    return f"{value} ({interval[:-1]}%)"


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
    body: '92%', '9%', '164%', '0.4%' (one decimal below 1%, so a small share is not 0),
    '<0.1%' for a positive share that one decimal would show as 0.

    Examples
    --------
    >>> share_of(0.92), share_of(0.004), share_of(0.00996), share_of(0.00949)
    ('92%', '0.4%', '1%', '0.9%')
    >>> share_of(0.0003), share_of(-0.0003)
    ('<0.1%', '>-0.1%')
    """
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if x == 0:
        return "0%"
    if round(abs(100 * x), 1) == 0:
        return "<0.1%" if x > 0 else ">-0.1%"
    return f"{100 * x:.1f}%" if round(abs(100 * x), 1) < 1 else f"{100 * x:.0f}%"


def months(x: float) -> str:
    """A payback month for the summary: '14 months', 'never', 'n/a'."""
    x = float(x)
    if math.isnan(x):
        return "n/a"
    if math.isinf(x):
        return "never"
    return f"{x:.0f} month{'s' if round(x) != 1 else ''}"
