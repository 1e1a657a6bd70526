"""One ranking of inputs: every reader (the terminal, the memo, the app, the accessor, the
adaptive stopping rule) orders inputs by a score through :func:`rank_order`, so inputs with
tied scores come in the same order everywhere: the book's order.

**The rule for correlated inputs** (:func:`ranking_rule`, stored by the run as the file's
``ranking_index`` attr and read back by ``ds.mc_tco.ranking_index``). Which index ranks:

* ``"ST"``: the inputs are independent; the total Sobol' index is a share of the variance.
* ``"shapley"``: the book has correlations and the run has Shapley effects (the default
  with correlations): they are shares of the variance under correlation. ``ST``/``S1`` are
  kept in the file with ``index_meaning`` = :data:`MOVED_ONE_AT_A_TIME`.
* ``"ST_group"``: correlations without Shapley effects (``--no-shapley``), every pair
  within one of the book's groups and the groups ranked (``--by group``): the grouped
  indices are then exact shares of the variance; the groups rank, not the inputs.
* ``"none"``: correlations, no Shapley effects and no exact groups: nothing ranks.

The accessor's ranking, the terminal, the memo (through
:func:`mc_tco.decision.indices.ranking`) and ``--target-halfwidth`` (which converges on the
ranking index's half-widths) all follow it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["INDEX_MEANING", "MOVED_ONE_AT_A_TIME", "RANKING_INDICES", "VARIANCE_SHARE",
           "rank_order", "ranking_rule"]

#: the values of the file's ``ranking_index`` attr
RANKING_INDICES = ("ST", "shapley", "ST_group", "none")

#: the variable attr that says what an index means in this file
INDEX_MEANING = "index_meaning"

#: ``index_meaning`` of an index that is a share of the output's variance
VARIANCE_SHARE = "share of the variance"

#: ``index_meaning`` of the per-input Sobol' indices of a book with correlations
MOVED_ONE_AT_A_TIME = (
    "moved one at a time: the input redrawn alone from its margin, the others held, which "
    "breaks its correlations; not a share of the variance and not the ranking "
    "(ranking_index names it)")


def ranking_rule(correlated: bool, shapley: bool, groups_exact: bool = False) -> str:
    """The index that ranks a run's inputs (one of :data:`RANKING_INDICES`).

    Parameters
    ----------
    correlated : bool
        The book has correlations.
    shapley : bool
        The run has Shapley effects.
    groups_exact : bool
        The run ranks the book's groups (``--by group``) and every correlation stays
        within a group.
    """
    if not correlated:
        return "ST"
    if shapley:
        return "shapley"
    return "ST_group" if groups_exact else "none"


def rank_order(scores, top: int | None = None) -> np.ndarray:
    """Indices of ``scores`` by score descending, ties in the given (book) order, NaN last.

    Parameters
    ----------
    scores : array_like
        One score per input, in the book's order (or any array: it is ranked flattened,
        in C order, e.g. a matrix of pair indices).
    top : int, optional
        Keep the first ``top`` indices.

    Returns
    -------
    numpy.ndarray
        Integer indices into the flattened ``scores``.
    """
    s = np.asarray(scores, dtype=float).ravel()
    order = np.argsort(-np.nan_to_num(s, nan=-np.inf), kind="stable")
    return order if top is None else order[:top]
