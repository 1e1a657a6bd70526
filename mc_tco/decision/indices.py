"""The inputs ranked by the file's ranking index, with the ranks their intervals allow.

Read from the indices stored in a results file (``ST``, ``ST_conf``, ``S1``, ``S1_conf``,
and ``shapley``, ``shapley_conf``); nothing is re-estimated. The index is the file's rule
(``ds.mc_tco.ranking_index``, :mod:`mc_tco.results.ranking`): the total Sobol' index with
independent inputs, the Shapley effects with correlations. Which target is ranked at a
demand (the indicator "beats the API" or the monthly saving itself) follows
:func:`ranking`'s rule.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
import xarray as xr

from mc_tco.decision.shares import (
    MIN_EVENTS,
    indicator_by_demand,
    indicator_counts,
    rare_indicator,
)
from mc_tco.results.ranking import rank_order

__all__ = ["Ranking", "above_its_error", "indicator_rankable", "input_order", "rank_intervals",
           "ranking", "shapley_leaders", "sobol_by_demand"]


def rank_intervals(st: np.ndarray, conf: np.ndarray):
    """Rank of each index and the range of ranks its confidence interval allows.

    An input's best possible rank is one plus the number of inputs whose interval lies
    wholly above its own; its worst is the number of inputs whose interval reaches its own
    or higher. Two inputs whose intervals overlap can swap ranks: they are tied.

    Returns
    -------
    rank, best, worst : ndarray of int
        1 = most influential; NaN indices rank last.
    """
    st = np.nan_to_num(np.asarray(st, dtype=float), nan=-np.inf)
    conf = np.nan_to_num(np.asarray(conf, dtype=float), nan=0.0)
    lo, hi = st - conf, st + conf
    order: np.ndarray | list[int] = rank_order(st)
    rank = np.empty(st.size, dtype=int)
    rank[order] = np.arange(1, st.size + 1)
    best = 1 + (lo[None, :] > hi[:, None]).sum(axis=1)
    worst = (hi[None, :] >= lo[:, None]).sum(axis=1)
    return rank, best, np.maximum(worst, rank)


@dataclass(frozen=True)
class Ranking:
    """The inputs ranked at one demand for one strategy, and why that target was used.

    ``table`` has dim ``input`` (sorted by ``index``, most influential first) and
    variables ``ST``, ``ST_conf``, ``S1``, ``S1_conf`` (unit 1; with correlations "moved
    one at a time", their attr ``index_meaning``), ``shapley``, ``shapley_conf`` when the
    run has them, and ``rank``, ``rank_best``, ``rank_worst`` (by ``index``).
    """

    target: str
    demand: float
    strategy: str
    wins: int
    n: int
    indicator_rare: bool
    table: xr.Dataset
    #: where the indicator is too rare here, the nearest demand where enough scenarios win
    #: and lose for its indices to rank (None: enough here, or no demand has enough)
    nearest_demand: float | None = None
    #: the index the inputs are ranked by: the file's ``ranking_index`` (``ST`` or
    #: ``shapley``), or ``ST`` where it has no Shapley effects at this point
    index: str = "ST"
    #: why ``index`` is not the file's ranking index here ('' when it is)
    index_note: str = ""
    #: where no index has an interval (the target varies in a handful of scenarios, so
    #: some scramble has none: the estimates are noise, e.g. ST above 1), the number of
    #: scenarios in which it is not 0; None where the ranking has its intervals
    unranked_varied: int | None = None

    @property
    def ranked(self) -> bool:
        """Whether the indices have intervals here (else they rank nothing)."""
        return self.unranked_varied is None

    @property
    def by_indicator(self) -> bool:
        """Whether the ranking is of the decision indicator (``target > 0``)."""
        return self.target.endswith(">0")

    def tied_with_top(self) -> list[str]:
        """The inputs whose interval overlaps the top input's (the top one included)."""
        t = self.table
        return [str(i) for i in t["input"].values[t["rank_best"].values == 1]]


def above_its_error(st, conf) -> bool:
    """Whether the largest of the indices ``st`` exceeds its own half-width ``conf`` (NaN
    indices left out): an indicator's indices rank only then, else they are noise."""
    st = np.asarray(st, dtype=float)
    if not np.isfinite(st).any():
        return False
    top = int(np.nanargmax(st))
    return bool(st[top] > np.asarray(conf, dtype=float)[top])


def ranking(
    ds: xr.Dataset, demand: float, strategy: str = "buy", min_events: int = MIN_EVENTS
) -> Ranking:
    """Rank the inputs at ``demand`` by the file's ranking index (ST, or the Shapley
    effects with correlations): by the indicator "beats the API" when it is common enough
    to rank, otherwise by the monthly saving itself.

    The indicator's indices are used when at least ``min_events`` scenarios win and as many
    lose, and the top index is above its own half-width; otherwise they are noise (a
    handful of winning samples) and the continuous saving is ranked instead. The order is
    ``ds.mc_tco.ranking``'s (one order for every reader).
    """
    wins, n = indicator_counts(ds, demand, strategy)
    rare = rare_indicator(wins, n, min_events)
    index, note = _index_at(ds, demand, strategy)
    target = "saving"
    if not rare:
        at = {"target": "saving>0", "demand": demand, "strategy": strategy}
        if above_its_error(ds[index].sel(at).values, ds[f"{index}_conf"].sel(at).values):
            target = "saving>0"
    ranked = ds.mc_tco.ranking(target, index=index, demand=demand, strategy=strategy)
    names = [v for v in ("ST", "ST_conf", "S1", "S1_conf", "shapley", "shapley_conf")
             if v in ranked]
    table = xr.Dataset({v: ranked[v].drop_vars(["target", "demand", "strategy"],
                                               errors="ignore") for v in names})
    rank, best, worst = rank_intervals(table[index].values, table[f"{index}_conf"].values)
    table["rank"] = ("input", rank)
    table["rank_best"] = ("input", best)
    table["rank_worst"] = ("input", worst)
    table = table.sortby("rank")
    nearest = None
    if rare:
        from mc_tco.results.targets import rare_ranking

        flag = rare_ranking(ds, "saving>0", {"demand": demand, "strategy": strategy},
                            min_events)
        nearest = flag["nearest_demand"] if flag else None
    varied = None
    if not np.isfinite(table[f"{index}_conf"].values).any():
        y = ds["saving"].sel(demand=demand, strategy=strategy).values
        varied = int(np.count_nonzero(y[np.isfinite(y)]))
    return Ranking(target, demand, strategy, wins, n, rare, table, nearest, index, note,
                   varied)


def _index_at(ds: xr.Dataset, demand: float, strategy: str) -> tuple[str, str]:
    """The index that ranks the inputs at a point, and why it is not the file's rule.

    The file's ``ranking_index``; ``ST`` where that is ``shapley`` but the run has no
    Shapley effects at ``demand`` (``--shapley-at report``), or where nothing ranks single
    inputs (``ST_group``, ``none``): the note says so.
    """
    rule = ds.mc_tco.ranking_index
    if rule == "ST":
        return "ST", ""
    if rule == "shapley":
        at = {"target": "saving", "demand": demand, "strategy": strategy}
        if np.isfinite(ds["shapley"].sel(at).values).any():
            return "shapley", ""
        return "ST", (f"ranked by ST (moved one at a time): the run estimated its Shapley "
                      f"effects at {ds.mc_tco.shapley_where()} only (--shapley-at report)")
    return "ST", ("ranked by ST (moved one at a time): the inputs are correlated and the run "
                  "has no Shapley effects")


def input_order(ds: xr.Dataset, strategy: str = "buy") -> list[str]:
    """Inputs grouped by the book's groups, groups and members ordered by influence.

    Influence is the mean over demand of the file's ranking index (ST, or the Shapley
    effects with correlations, :attr:`ds.mc_tco.ranking_index`) for the saving (NaN
    cells, and demands without Shapley effects, ignored); a group ranks by its most
    influential member. Inputs without a group form a group "".
    """
    index = "shapley" if ds.mc_tco.ranking_index == "shapley" else "ST"
    st = ds[index].sel(target="saving", strategy=strategy)
    influence = st.clip(min=0).mean("demand", skipna=True).fillna(0).values
    names = [str(v) for v in ds["input"].values]
    groups = [str(g) for g in ds["input_group"].values] if "input_group" in ds.coords \
        else [""] * len(names)
    best: dict[str, float] = {}
    for g, v in zip(groups, influence, strict=True):
        best[g] = max(best.get(g, -1.0), v)
    key = {n: (-best[g], g, -v) for n, g, v in zip(names, groups, influence, strict=True)}
    return sorted(names, key=lambda n: key[n])


def indicator_rankable(ds: xr.Dataset, strategies, min_events: int = MIN_EVENTS
                       ) -> xr.DataArray:
    """Whether the indicator "beats the API" has at least ``min_events`` winning and as many
    losing scenarios, per demand and strategy (its Sobol' indices are ranked only then)."""
    saving = ds["saving"].sel(strategy=list(strategies))
    # one demand at a time: the whole variable (sample x demand x strategy) is 552 MB on a
    # 2^18-row file, and a demand added from the stored rows is joined to it (a copy)
    wins = xr.concat([(saving.isel(demand=i) > 0).sum("sample")
                      for i in range(saving.sizes["demand"])], dim="demand") \
        if "demand" in saving.dims else (saving > 0).sum("sample")
    n = ds.sizes["sample"]
    # a DataArray: numpy's stubs do not know xarray's __array_ufunc__
    return cast(xr.DataArray, np.minimum(wins, n - wins)) >= min_events


def sobol_by_demand(ds: xr.Dataset, strategy: str) -> xr.Dataset:
    """The stored total Sobol' indices of ``strategy`` at every demand, for the heat map:
    of the monthly saving, and of "beats the API" where it can be ranked.

    Returns
    -------
    xr.Dataset
        ``ST_saving`` and ``ST_indicator`` (input, demand; unit 1), the latter NaN at the
        demands where fewer than :data:`MIN_EVENTS` scenarios win or lose
        (:func:`~mc_tco.decision.shares.indicator_by_demand`); ``ranked`` (the number of
        demands where some input of the indicator has an index).
    """
    st_s = ds["ST"].sel(target="saving", strategy=strategy)
    st_i = ds["ST"].sel(target="saving>0", strategy=strategy)
    st_i = st_i.where(~indicator_by_demand(ds, strategy)["rare"])
    # a DataArray: numpy's stubs do not know xarray's __array_ufunc__
    ranked = int(cast(xr.DataArray, np.isfinite(st_i)).any("input").sum())
    return xr.Dataset({"ST_saving": st_s.drop_vars("target"),
                       "ST_indicator": st_i.drop_vars("target"), "ranked": ranked},
                      attrs={"units": "1"})


def shapley_leaders(ds: xr.Dataset, demand: float, strategy: str, target: str,
                    top: int = 3) -> xr.Dataset:
    """The inputs with the largest stored Shapley effects of ``target`` for ``strategy``, at
    ``demand`` or, when the run estimated them at some demands only (``--shapley-at
    report``), at the nearest such demand.

    Returns
    -------
    xr.Dataset
        ``shapley`` and ``shapley_conf`` (input; unit 1, the first ``top`` by effect,
        book order on a tie, NaN last; no input when no effect is finite there), and the
        attribute ``demand``: where they were read.
    """
    at = ds.mc_tco.shapley_point(demand=demand, strategy=strategy)
    sel = {"target": target, **at}
    sh = ds["shapley"].sel(sel)
    half = ds["shapley_conf"].sel(sel)
    order: np.ndarray | list[int] = (rank_order(sh.values, top=top)
                                     if np.isfinite(sh.values).any() else [])
    names = sh["input"].values[order]
    return xr.Dataset({"shapley": ("input", sh.values[order]),
                       "shapley_conf": ("input", half.values[order])},
                      coords={"input": names}, attrs={"demand": at["demand"], "units": "1"})
