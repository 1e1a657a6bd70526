"""The memo's names for :mod:`mc_tco.report.fmt` (the one formatting module; its docstring has the
memo's rounding rules), plus :func:`users` of a demand in tokens a month."""

from __future__ import annotations

from mc_tco.decision.tco_data import TOKENS_PER_USER
from mc_tco.report import fmt as _fmt
from mc_tco.report.fmt import money, months, pct, pct_ci, pct_range, prob, prob_ci, share_of, tokens

__all__ = ["and_list", "money", "months", "pct", "pct_ci", "pct_range", "prob", "prob_ci",
           "share_of", "tokens", "users"]


def users(d: float, label: str = "heavy users", digits: int | None = None) -> str:
    """Users at 100M tokens a month each of a demand ``d``: '5,000 heavy users'; rounded
    to ``digits`` significant digits first when given ('about 4,500 heavy users')."""
    n = float(d) / TOKENS_PER_USER
    return _fmt.users(float(f"{n:.{digits}g}") if digits else n, label)


def and_list(items: list[str]) -> str:
    """Items as a sentence lists them: 'a', 'a and b', 'a, b and c'."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
