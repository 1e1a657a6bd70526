"""Which option leads: the option with the largest of a few numbers already computed (a
share of scenarios, a P(beats the API), a mean), and the options in that order.

The memo, the terminal and the app word the leader; they do not choose it.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["by_value", "leader"]


def leader(values: Mapping[str, float]) -> str:
    """The key of ``values`` with the largest value; on a tie the first in order.

    Parameters
    ----------
    values : mapping of str to float
        One number per option (e.g. its share of scenarios where it is cheapest).

    Returns
    -------
    str
        That option.
    """
    return max(values, key=lambda k: values[k])


def by_value(values: Mapping[str, float]) -> list[str]:
    """The keys of ``values``, largest value first; ties keep their order."""
    return sorted(values, key=lambda k: -values[k])
