"""What every section reads: :class:`MemoContext` (the results, the decision demand and
the numbers computed once from them) and the ranking sentences."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from mc_tco.book import Book, loads_book
from mc_tco.decision.at_demand import added_demands, ranking_demand
from mc_tco.decision.indices import Ranking, ranking, shapley_leaders
from mc_tco.decision.tco_data import grid_point
from mc_tco.decision.tornado import tornado
from mc_tco.report.memo.base import MemoBase
from mc_tco.report.memo.claims import Claim, evaluate_claims
from mc_tco.report.memo.fmt import pct, pct_ci, tokens

if TYPE_CHECKING:
    from mc_tco.report.memo.one_page import Summary
from mc_tco.results.points import point_index

__all__ = ["Later", "MemoContext", "ranking_sentences"]


class Later:
    """A dataset made on first use, once (thread-safe): the compared results of
    ``mc-tco report``, whose run goes on while the memo's own sections are written."""

    def __init__(self, make: Callable[[], xr.Dataset]):
        self._make: Callable[[], xr.Dataset] | None = make
        self._value: xr.Dataset | None = None
        self._lock = threading.Lock()

    def get(self) -> xr.Dataset:
        """The dataset (made by the first call; later calls return it)."""
        with self._lock:
            if self._make is not None:
                self._value, self._make = self._make(), None
        assert self._value is not None
        return self._value

STRATEGY_TEXT = {
    "buy": "buying 8×B300 nodes",
    "rent": "renting the same GPUs on demand by the hour",
    "reserved": "reserving them on 12-month commitments at a discount",
    "owned": "running GPUs the company already owns",
    "hybrid": "the hybrid (holding the nodes that pay for themselves at the margin, the "
              "peaks to the API)",
}
VERB = {"api": "the API", "buy": "buying", "rent": "renting", "reserved": "reserving",
        "owned": "already-owned GPUs", "hybrid": "the hybrid"}
TOP_FIVE = 5


@dataclass
class MemoContext(MemoBase):
    """The results the TCO memo is written from, and what is computed from them once.

    Parameters
    ----------
    ds : xr.Dataset
        Results of the TCO model (``mc-tco run``), loaded.
    demand : float
        The decision demand (tokens/month), a point of ``ds``'s demand grid.
    compare : xr.Dataset or Later, optional
        Results of another book to set beside ``ds`` (read as :attr:`compared`; a
        :class:`Later` is made when a section first reads it).
    strategy : str
        The strategy the ranking, tornado and scenario discovery explain: the one the
        summary names (:func:`mc_tco.report.memo.answer.decision_strategy`).
    demand_asked : bool
        Whether the reader gave the demand (the summary then does not call it the book's).
    command, paths, created
        As in :class:`~mc_tco.report.memo.base.MemoBase` (keywords only).
    """

    demand: float
    compare: xr.Dataset | Later | None = None
    strategy: str = "buy"
    #: whether the reader gave the demand (``--demand``), else it is the book's focus
    demand_asked: bool = False

    @property
    def added(self) -> bool:
        """Whether the decision demand is not a point of the run's grid: its numbers come
        from the stored scenarios evaluated there
        (:func:`mc_tco.decision.at_demand.with_demands`)."""
        return self.demand in added_demands(self.ds)

    @property
    def rank_demand(self) -> float:
        """Where the Sobol' indices and Shapley effects are read: the decision demand, or
        the nearest point of the run's grid when it is not one
        (:func:`mc_tco.decision.at_demand.ranking_demand`)."""
        return ranking_demand(self.ds, self.demand)

    @property
    def target(self) -> str:
        """The target the shared sections explain: the monthly saving against the API."""
        return "saving"

    @property
    def option(self) -> str:
        """The alternative the shared sections explain: :attr:`strategy`."""
        return self.strategy

    @property
    def point(self) -> dict:
        """The memo's grid point: the decision demand."""
        return {"demand": self.demand}

    @cached_property
    def book(self) -> Book:
        """The book the results file was made from (its stored text)."""
        return _loads(self.ds)

    @property
    def compared(self) -> xr.Dataset | None:
        """The results set beside ``ds`` (None without ``--compare``)."""
        c = self.compare
        return c.get() if isinstance(c, Later) else c

    @cached_property
    def compare_book(self) -> Book | None:
        """The compared results' book, or None without ``--compare``."""
        other = self.compared
        return None if other is None else _loads(other)

    @cached_property
    def ranking(self) -> Ranking:
        """The ranking of the inputs at the memo's strategy, at :attr:`rank_demand`."""
        return ranking(self.ds, self.rank_demand, self.strategy)

    @cached_property
    def one_page_markdown(self) -> str:
        """The one-page summary (:mod:`mc_tco.report.memo.one_page`) as Markdown."""
        from mc_tco.report.memo.one_page import one_page_markdown

        horizon = self.ds.sizes.get("month", 48) / 12
        return one_page_markdown(self.summary, horizon)

    @cached_property
    def summary(self) -> Summary:
        """The one-page summary's numbers and sentences
        (:func:`mc_tco.report.memo.one_page.one_page_data`)."""
        from mc_tco.decision.why import why_numbers
        from mc_tco.report.memo.one_page import one_page_data
        from mc_tco.report.words.why import reason_text, trigger_lines

        # the reason derived from the cost components and tested by its counterfactuals,
        # and the triggers in quantities a person measures (issue 24, points 3 and 6): the
        # same numbers as the section "Why, what to watch" (computed once per results)
        why = why_numbers(self.ds, self.demand)
        return one_page_data(self.ds, self.demand, reason=reason_text(why),
                             triggers=trigger_lines(why), demand_note=self.demand_note)

    @property
    def summary_cash(self) -> xr.Dataset:
        """The summary's cash by year (the recommended option first)."""
        assert self.summary.budget is not None
        return self.summary.budget.cash

    @property
    def demand_note(self) -> str:
        """The first screen's words on the demand: it is an assumption to replace, and the
        command that replaces it."""
        grid = self.ds["demand"].values
        path = self.paths.get("results") or "RESULTS"
        example = 8e11 if self.demand != 8e11 else 2e12
        how = (f"`mc-tco memo {path} --demand {tokens(example)}` recomputes every number at "
               f"exactly the demand you give (any value from {tokens(grid.min())} to "
               f"{tokens(grid.max())} tokens/month).")
        if not self.demand_asked:
            return (f"**Your demand is an assumption: replace it.** {tokens(self.demand)} "
                    "tokens/month is the book's default planning volume, not one you "
                    "measured; put in yours (the monthly tokens on your API invoice, or your "
                    "plan): " + how)
        where = (" It is not a point of the run's demand grid: the model was evaluated "
                 f"there on each of the {self.n:,} stored scenarios." if self.added else "")
        return (f"**Your demand, {tokens(self.demand)} tokens/month, is the volume you "
                f"gave** (`--demand`).{where} To try another: " + how)

    @cached_property
    def cash_by_year(self) -> xr.Dataset:
        """The nominal cash by year of every option at the report demand nearest the
        decision demand (:func:`mc_tco.decision.budget.cash_by_year`)."""
        from mc_tco.decision.budget import cash_by_year

        return cash_by_year(self.ds, self.demand)

    @cached_property
    def cost_per_mtok(self) -> xr.Dataset:
        """The cost per million tokens of every option at the decision demand
        (:func:`mc_tco.decision.budget.cost_per_mtok`)."""
        from mc_tco.decision.budget import cost_per_mtok

        return cost_per_mtok(self.ds, self.demand)

    @cached_property
    def claims(self) -> list[Claim]:
        """The article's claims, evaluated on the results."""
        return evaluate_claims(self.ds)

    @cached_property
    def tornado(self) -> xr.Dataset:
        """The tornado at the memo's demand and strategy."""
        return tornado(self.ds, self.demand, self.strategy, conf_level=self.conf,
                         seed=self.ds.mc_tco.run.seed)

    @cached_property
    def report_demands(self) -> list[float]:
        """The book's report demands that are on the results' grid."""
        report = self.ds.mc_tco.report.get("demand") or []
        grid = self.ds["demand"].values
        pts = [float(d) for d in report if point_index(grid, d) is not None]
        if self.demand not in pts:
            pts = sorted([*pts, self.demand])
        return pts

    def p(self, strategy: str, demand: float, ds: xr.Dataset | None = None
          ) -> tuple[float, float, float, int]:
        """P(strategy beats the API) at ``demand``: ``(p, lower, upper, wins)``."""
        ds = self.ds if ds is None else ds
        sel = {"target": "saving>0", "strategy": strategy}
        d = grid_point(ds, demand)
        p = float(ds["p_positive"].sel(sel).sel(demand=d))
        lo, hi = (float(v) for v in ds["p_positive_ci"].sel(sel).sel(demand=d).values)
        return p, lo, hi, round(p * ds.sizes["sample"])


def _loads(ds: xr.Dataset) -> Book:
    """The book stored in results ``ds``."""
    run = ds.mc_tco.run
    return loads_book(run.book_text, run.book_path or "<book>")


def _name(ds: xr.Dataset) -> str:
    return ds.mc_tco.run.book_name or "the book"


def _stem(ds: xr.Dataset) -> str:
    path = ds.mc_tco.run.book_path or "book"
    return path.rsplit("/", 1)[-1].removesuffix(".toml")


def _st(table: xr.Dataset, name: str) -> str:
    row = table.sel(input=name)
    return f"{float(row['ST']):.3f} ± {float(row['ST_conf']):.3f}"


def dependence_sentences(ctx: MemoContext) -> list[str]:
    """Which ranking is valid when the book correlates inputs, and the Shapley leaders.

    Empty for a book without ``[[correlation]]`` pairs. The numbers are the run's
    (``shapley``, ``shapley_conf``, ``correlations``); nothing is computed here.
    """
    ds, r = ctx.ds, ctx.ranking
    pairs = ds.mc_tco.correlations
    if not pairs:
        return []
    listed = "; ".join(f"`{p['between'][0]}` ~ `{p['between'][1]}` {p['kind']} "
                       f"{p['value']:+.2f}" for p in pairs)
    out = [f"The book correlates {len(pairs)} pair{'s' * (len(pairs) > 1)} of inputs "
           f"({listed}). With correlated inputs the Sobol' indices of single inputs are not "
           "defined (the design's mixed rows break the correlations), so ST and S1 here "
           "describe the model's response to each input moved on its own, not shares of "
           "the outcome's variance."]
    if "shapley" in ds:
        # a run estimates them at the report points only (--shapley-at report): the memo
        # at another demand reads the nearest one, and says so
        lead_ds = shapley_leaders(ds, r.demand, r.strategy, r.target, top=3)
        at_d = lead_ds.attrs["demand"]
        moved = "" if point_index([at_d], r.demand) is not None else (
            f" (the nearest demand where the run estimated them; {tokens(r.demand)} is "
            "not one: rerun with --shapley-at grid)")
        if lead_ds.sizes["input"]:
            lead = ", ".join(f"`{name}` {v:.3f} ± {c:.3f}" for name, v, c in zip(
                lead_ds["input"].values, lead_ds["shapley"].values,
                lead_ds["shapley_conf"].values, strict=True))
            out.append(f"The ranking that accounts for them is by Shapley effects (each "
                       f"input's share of the variance, summing to 1; Owen 2014): for "
                       f"{_target_words(r)} at {tokens(at_d)}{moved} it is led by "
                       f"{lead}.")
    if "ST_group" in ds and ds.mc_tco.run.groups_independent:
        out.append("The grouped Sobol' indices remain exact: every correlation lies within "
                   "one of the book's groups, so the groups are independent.")
    if "independent_p_positive" in ds:
        sel = {"target": "saving>0", "strategy": r.strategy}
        at = {"demand": r.demand}
        p = float(ds["p_positive"].sel(sel).sel(at))
        q = float(ds["independent_p_positive"].sel(sel).sel(at))
        qlo, qhi = ds["independent_p_positive_ci"].sel(sel).sel(at).values
        lo, hi = ds["correlation_change_ci"].sel(sel).sel(at).values
        moved = "do not detectably change" if lo <= 0 <= hi else "change"
        level = ds.mc_tco.conf_level
        out.append(f"Does the answer depend on the correlations? At {tokens(r.demand)}, "
                   f"{VERB[r.strategy]} beats the API in {pct(p)} of the scenarios with "
                   f"them and {pct_ci(q, qlo, qhi, level)} with the inputs independent "
                   f"(same Sobol' points): the correlations {moved} it "
                   f"({100 * lo:+.1f} to {100 * hi:+.1f} percentage points, paired "
                   f"{level:.0%} interval).")
    return out



def _target_words(r: Ranking) -> str:
    if r.by_indicator:
        return f"whether {VERB[r.strategy]} beats the API"
    return f"the monthly saving of {VERB[r.strategy]}"


def ranking_sentences(r: Ranking, n: int, level: str = "95%") -> list[str]:
    """What the ranking says, computed: which target was ranked and why, then the leaders.

    ``level`` is the run's interval level as people read it ('80%' with ``--conf-level
    0.8``, :attr:`MemoContext.level`): the half-widths are at that level.

    Uses "tied" when the top inputs' intervals overlap and "dominates" only when the top
    input is alone at the top and its ST exceeds 0.5 by more than its half-width.
    """
    d = tokens(r.demand)
    out = []
    if r.by_indicator:
        out.append(
            f"Ranked by what decides whether {VERB[r.strategy]} beats the API at {d} "
            f"(the total Sobol' index ST of the indicator; {r.wins:,} of {n:,} scenarios win)."
        )
    else:
        if r.indicator_rare:
            side = "win" if r.wins < n - r.wins else "lose"
            count = r.wins if side == "win" else n - r.wins
            side = side + "s" if count == 1 else side  # "1 of 8,192 scenarios wins"
            why = (f"only {count:,} of {n:,} scenarios {side} at {d}, too few for the Sobol' "
                   f"indices of 'beats the API' to rank anything (they would be noise)"
                   + (f"; the nearest demand with enough is {tokens(r.nearest_demand)}"
                      if r.nearest_demand is not None else ""))
        else:
            why = "the Sobol' indices of 'beats the API' are within their own error there"
        out.append(
            f"Ranked by what moves the monthly saving of {VERB[r.strategy]} at {d} (total "
            f"Sobol' index ST of the saving), not by what makes it win: {why}."
        )
    t = r.table
    names = [str(v) for v in t["input"].values]
    if not np.isfinite(t["ST"].values).any():
        out.append("The target does not vary there: no input can be ranked.")
        return out
    tied = r.tied_with_top()
    if len(tied) == 1:
        top, second = names[0], names[1] if len(names) > 1 else None
        st_top = float(t["ST"].sel(input=top))
        conf_top = float(t["ST_conf"].sel(input=top))
        verb = "dominates it" if st_top - conf_top > 0.5 else "moves it most"
        tail = f", clearly ahead of `{second}` (ST {_st(t, second)})" if second else ""
        out.append(f"`{top}` {verb} (ST {_st(t, top)}){tail}.")
    else:
        listed = ", ".join(f"`{x}` ({_st(t, x)})" for x in tied)
        out.append(f"{len(tied)} inputs share the top, tied within their Monte Carlo error "
                   f"(ST ± {level} half-width): {listed}.")
    return out
