"""Whether correlations stay inside the book's groups (then grouped Sobol' stays exact).

With correlated inputs the per-input ``AB^(k)`` rows of a Saltelli design are not draws
from the joint distribution, but if every correlated pair lies inside one group, the groups
are mutually independent: the grouped design swaps whole groups between two joint draws
``A`` and ``B`` (each correlated through the copula first), every ``AB^(g)`` row is again a
joint draw, and the grouped first-order and total indices are exact Sobol' indices of the
(independent) groups (Jacques, Lavergne & Devictor 2006).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

__all__ = ["crossing_pairs", "groups_independent"]


def _pair_names(pair):
    if isinstance(pair, Mapping):
        return tuple(pair["between"])
    return tuple(pair[:2])


def crossing_pairs(groups: Mapping[str, str], pairs: Iterable) -> list[tuple[str, str]]:
    """The correlated pairs whose two inputs are in different groups (or not in any).

    Parameters
    ----------
    groups : mapping of input name -> group name
        The book's grouping of the uncertain inputs; an input missing from it is its own
        group (so any pair with it crosses, unless both names are the same input).
    pairs : iterable
        The correlations: mappings with ``"between": [a, b]`` or tuples ``(a, b, ...)``;
        pairs with a zero correlation may be left out or included (they are reported).

    Returns
    -------
    list of (str, str)
        The crossing pairs, in the order given.
    """
    out = []
    for pair in pairs:
        a, b = _pair_names(pair)
        ga, gb = groups.get(a), groups.get(b)
        if ga is None or gb is None or ga != gb:
            out.append((a, b))
    return out


def groups_independent(groups: Mapping[str, str], pairs: Iterable) -> bool:
    """True when every correlated pair lies inside one group (the groups are independent)."""
    return not crossing_pairs(groups, pairs)
