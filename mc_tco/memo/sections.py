"""The memo's sections: each a function ``section(ctx) -> Section | None``.

:data:`SECTIONS` is the memo, in order. Adding a section (e.g. the decision analyses of
:mod:`mc_tco.decision`) is one line in that list: a function that takes the
:class:`MemoContext` and returns a :class:`~mc_tco.memo.render.Section` (or None to skip).

Every sentence is computed from the results in ``ctx``: numbers come from the stored
summaries or from :mod:`mc_tco.memo.analysis`, and words that compare numbers ("ahead of",
"tied", "never") are chosen by comparing them, so no part of the memo can contradict
another.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cached_property

import numpy as np
import xarray as xr

from ..book import Book, loads_book
from ..fmt import fmt_value
from . import analysis as A
from . import figures as F
from .claims import ARTICLE_BAND, RULES, Claim, evaluate_claims
from .fmt import pct, pct_ci, pct_range, prob, tokens, usd, users
from .render import Figure, Paragraph, Section, Table, markdown_section

__all__ = ["SECTIONS", "MemoContext"]

STRATEGY_TEXT = {
    "buy": "buying 8×B300 nodes",
    "rent": "renting the same GPUs by the hour",
    "owned": "running GPUs the company already owns",
    "hybrid": "the hybrid (buying only the nodes demand keeps busy, the rest to the API)",
}
VERB = {"buy": "buying", "rent": "renting", "owned": "already-owned GPUs",
        "hybrid": "the hybrid"}
TOP_FIVE = 5


@dataclass
class MemoContext:
    """The results a memo is written from, and what is computed from them once.

    Parameters
    ----------
    ds : xr.Dataset
        Results of the TCO model (``mc-tco run``), loaded.
    demand : float
        The decision demand (tokens/month), a point of ``ds``'s demand grid.
    compare : xr.Dataset, optional
        Results of another book to set beside ``ds``.
    command : str
        The command line that regenerates the memo (printed under provenance).
    paths : dict
        ``{"results": ..., "compare": ...}``: the files the memo was made from.
    """

    ds: xr.Dataset
    demand: float
    compare: xr.Dataset | None = None
    command: str = ""
    paths: dict = field(default_factory=dict)
    strategy: str = "buy"
    created: str = field(
        default_factory=lambda: datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    )

    @property
    def n(self) -> int:
        return int(self.ds.sizes["sample"])

    @property
    def conf(self) -> float:
        return float(self.ds.attrs.get("conf_level", 0.95))

    @cached_property
    def book(self) -> Book:
        return loads_book(self.ds.attrs["book_text"], self.ds.attrs.get("book_path", "<book>"))

    @cached_property
    def compare_book(self) -> Book | None:
        if self.compare is None:
            return None
        c = self.compare
        return loads_book(c.attrs["book_text"], c.attrs.get("book_path", "<book>"))

    @cached_property
    def ranking(self) -> A.Ranking:
        return A.ranking(self.ds, self.demand, self.strategy)

    @cached_property
    def summary_markdown(self) -> str:
        """The one-page summary (:mod:`mc_tco.memo.summary`) as Markdown."""
        from .summary import summary_data, summary_markdown

        horizon = self.ds.sizes.get("month", 48) / 12
        return summary_markdown(summary_data(self.ds, self.demand), horizon)

    @cached_property
    def claims(self) -> list[Claim]:
        return evaluate_claims(self.ds)

    @cached_property
    def tornado(self) -> xr.Dataset:
        return A.tornado(self.ds, self.demand, self.strategy, conf_level=self.conf,
                         seed=int(self.ds.attrs.get("seed", 0)))

    @cached_property
    def report_demands(self) -> list[float]:
        report = self.ds.mc_tco.report.get("demand") or []
        grid = self.ds["demand"].values
        pts = [float(d) for d in report if np.any(np.isclose(grid, d, rtol=1e-6, atol=0))]
        if self.demand not in pts:
            pts = sorted([*pts, self.demand])
        return pts

    def p(self, strategy: str, demand: float, ds: xr.Dataset | None = None):
        """P(strategy beats the API) at ``demand``: ``(p, lower, upper, wins)``."""
        ds = self.ds if ds is None else ds
        sel = {"target": "saving>0", "strategy": strategy}
        d = A.grid_point(ds, demand)
        p = float(ds["p_positive"].sel(sel).sel(demand=d))
        lo, hi = (float(v) for v in ds["p_positive_ci"].sel(sel).sel(demand=d).values)
        return p, lo, hi, round(p * ds.sizes["sample"])


def _name(ds: xr.Dataset) -> str:
    return str(ds.attrs.get("book_name", "the book"))


def _stem(ds: xr.Dataset) -> str:
    path = str(ds.attrs.get("book_path", "book"))
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
        sel = {"target": r.target, "demand": r.demand, "strategy": r.strategy}
        sh = ds["shapley"].sel(sel)
        half = ds["shapley_conf"].sel(sel)
        if np.isfinite(sh.values).any():
            order = np.argsort(-np.nan_to_num(sh.values, nan=-np.inf))[:3]
            lead = ", ".join(f"`{sh['input'].values[j]}` {sh.values[j]:.3f} ± "
                             f"{half.values[j]:.3f}" for j in order)
            out.append(f"The ranking that accounts for them is by Shapley effects (each "
                       f"input's share of the variance, summing to 1; Owen 2014): for "
                       f"{_target_words(r)} at {tokens(r.demand)} it is led by {lead}.")
    if "ST_group" in ds and ds.attrs.get("groups_independent"):
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


def _target_words(r: A.Ranking) -> str:
    if r.by_indicator:
        return f"whether {VERB[r.strategy]} beats the API"
    return f"the monthly saving of {VERB[r.strategy]}"


def ranking_sentences(r: A.Ranking, n: int) -> list[str]:
    """What the ranking says, computed: which target was ranked and why, then the leaders.

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
                   f"indices of 'beats the API' to rank anything (they would be noise)")
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
                   f"(ST ± 95% half-width): {listed}.")
    return out


# ----------------------------------------------------------------------------- sections


ACTION = {"api": "Keep paying the API", "buy": "Buy the nodes", "rent": "Rent the GPUs",
          "hybrid": "Buy a base-load fleet and send the peaks to the API (hybrid)"}
SUBJECT = {"api": "the API", "buy": "buying", "rent": "renting", "hybrid": "the hybrid"}


def cheapest_shares(ds: xr.Dataset, demand: float):
    """Share of scenarios in which each of :data:`~mc_tco.memo.analysis.CHOICES` (api,
    buy, rent, hybrid) is the cheapest at ``demand``, with its interval.

    Returns ``{strategy: (p, lower, upper)}`` (ties go to the API: switching must pay).
    """
    choices = list(A.CHOICES)
    cost = ds["cost"].sel(demand=demand, strategy=choices).transpose("sample", "strategy")
    best = xr.DataArray(np.argmin(cost.values, axis=1), dims="sample",
                        coords={"sample": cost["sample"].values})
    conf = float(ds.attrs.get("conf_level", 0.95))
    reps = int(ds.attrs.get("replicates", 0)) if ds.attrs.get("ci") == "rqmc" else None
    return {s: A.prob_with_ci(best == i, conf, reps)[:3] for i, s in enumerate(choices)}


def best_alternative(ctx: MemoContext, demand: float | None = None) -> str:
    """The self-hosting strategy (buy, rent, hybrid) most likely to beat the API."""
    d = ctx.demand if demand is None else demand
    return max(("buy", "rent", "hybrid"), key=lambda s: ctx.p(s, d)[0])


def answer_paragraph(ctx: MemoContext) -> str:
    """The memo's first paragraph: the option cheapest most often, the best strategy with
    its P(beats the API), then P(beats the API) of every strategy at the decision demand."""
    d = ctx.demand
    shares = cheapest_shares(ctx.ds, d)
    top = max(shares, key=lambda s: shares[s][0])
    where = f"At {tokens(d)} tokens/month ({users(d)} at 100M tokens a month each)"
    if shares[top][0] >= 0.5:
        head = (f"**{ACTION[top]}.** {where}, {SUBJECT[top]} is the cheapest of the API, "
                f"buying, renting and the hybrid in {pct_ci(*shares[top], ctx.conf)} of "
                "scenarios.")
    else:
        listed = ", ".join(f"{SUBJECT[s]} in {pct_ci(*shares[s], ctx.conf)}" for s in shares)
        head = (f"**No option is cheapest in most scenarios.** {where}, the cheapest is "
                f"{listed}.")
    best = top if top != "api" else best_alternative(ctx)
    p, lo, hi, _ = ctx.p(best, d)
    lead = "The best self-hosting strategy" if top == "api" else "It"
    head += (f" {lead}, {SUBJECT[best]}, beats the API in {pct_ci(p, lo, hi, ctx.conf)}.")
    parts = [head]
    for s in A.STRATEGIES:
        p, lo, hi, k = ctx.p(s, d)
        count = "none" if k == 0 else ("all" if k == ctx.n else f"{k:,}")
        lead = STRATEGY_TEXT[s][0].upper() + STRATEGY_TEXT[s][1:]
        parts.append(
            f"{lead} beats the API in {pct_ci(p, lo, hi, ctx.conf)} of scenarios "
            f"({count} of {ctx.n:,})."
        )
    return " ".join(parts)


def nonmonotone_note(ds: xr.Dataset, demand: float, strategy: str = "buy") -> str:
    """Why a strategy can break even below ``demand`` and still lose at ``demand``: the
    share of scenarios where that happens, or "" when it does not."""
    be = ds["breakeven_demand"].sel(strategy=strategy).values
    loses = ds["saving"].sel(demand=demand, strategy=strategy).values < 0
    k = int(np.count_nonzero((be <= demand) & loses))
    if k == 0:
        return ""
    n = int(ds.sizes["sample"])
    return (f"The saving is not monotone in demand: nodes come whole, so a demand just above "
            f"what a fleet can serve buys one more node that is mostly idle, and the saving "
            f"dips. In {k:,} of {n:,} scenarios {VERB[strategy]} breaks even at some demand "
            f"below {tokens(demand)} yet loses at {tokens(demand)} itself, which is why "
            "\"breaks even by\" a demand is more common than \"beats the API at\" it.")


def section_answer(ctx: MemoContext) -> Section:
    ds, d, s = ctx.ds, ctx.demand, ctx.strategy
    blocks = [Paragraph(answer_paragraph(ctx))]

    # over demand: where does buying win in half the scenarios, and its break-even
    p_all = ds["p_positive"].sel(target="saving>0", strategy=s)
    ci_all = ds["p_positive_ci"].sel(target="saving>0", strategy=s)
    grid = ds["demand"].values
    half = grid[p_all.values >= 0.5]
    if half.size:
        first = float(half[0])
        over = (f"{VERB[s].capitalize()} beats the API in at least half of the scenarios from "
                f"{tokens(first)} tokens/month ({users(first)}) on the grid.")
    else:
        j = int(np.argmax(p_all.values))
        over = (f"At no demand from {tokens(grid[0])} to {tokens(grid[-1])} tokens/month does "
                f"{VERB[s]} beat the API in half of the scenarios; its highest share is "
                f"{pct_ci(p_all.values[j], *ci_all.values[j], ctx.conf)} at "
                f"{tokens(grid[j])}.")
    be = ds["breakeven_demand"].sel(strategy=s).values
    q05, q50, q95 = np.quantile(be, [0.05, 0.5, 0.95], method="inverted_cdf")
    never = ds["breakeven_demand_p_never"].sel(strategy=s)
    never_ci = ds["breakeven_demand_p_never_ci"].sel(strategy=s).values
    med = "never (more than half of the scenarios never break even)" if math.isinf(q50) \
        else tokens(q50) + " tokens/month"
    be_text = (f"The demand at which {VERB[s]} breaks even has a median of {med}; 90% of "
               f"scenarios lie between {tokens(q05)} and {tokens(q95)}. It never breaks even, "
               f"at any demand, in {pct_ci(float(never), *never_ci, ctx.conf)} of scenarios.")
    rent_never = float(ds["breakeven_demand_p_never"].sel(strategy="rent"))
    rent_ci = ds["breakeven_demand_p_never_ci"].sel(strategy="rent").values
    rent_text = (f"Renting never breaks even in "
                 f"{pct_ci(rent_never, *rent_ci, ctx.conf)} of scenarios.")
    note = nonmonotone_note(ds, d, s)
    blocks.append(Paragraph(" ".join([over, be_text, rent_text] + ([note] if note else []))))

    qs = ds["saving"].sel(demand=d, strategy=s).values
    lo, mid, hi = np.quantile(qs, [0.05, 0.5, 0.95])
    sign = "costs more than" if mid < 0 else "saves against"
    blocks.append(Paragraph(
        f"At {tokens(d)}, the median scenario's monthly saving from {VERB[s]} is {usd(mid)} "
        f"(it {sign} the API); 90% of scenarios lie between {usd(lo)} and {usd(hi)}. "
        "These bands are the spread of the assumptions, not Monte Carlo error."
    ))
    blocks.append(Paragraph(claims_sentence(ctx.claims)))
    return Section("The answer", blocks, "answer")


def claims_sentence(claims: list[Claim]) -> str:
    """'Of the article's five claims, under this book claims 1 and 5 hold; ...'."""
    plural = {"holds": "hold", "holds only in part": "hold only in part",
              "does not hold": "do not hold"}
    parts = []
    for verdict in plural:
        nums = [str(c.number) for c in claims if c.verdict == verdict]
        if not nums:
            continue
        listed = nums[0] if len(nums) == 1 else ", ".join(nums[:-1]) + " and " + nums[-1]
        if len(nums) == 1:
            parts.append(f"claim {listed} {verdict}")
        else:
            parts.append(f"claims {listed} {plural[verdict]}")
    if not any(c.verdict == "does not hold" for c in claims):
        parts.append("none fails outright")
    return (f"Of the article's {len(claims)} claims tested, under this book "
            + "; ".join(parts) + " (see \"The article's claims\").")


def section_outlook(ctx: MemoContext) -> Section:
    ds, d = ctx.ds, ctx.demand
    n = ctx.n
    pp = ds["p_positive"].sel(target="saving>0")
    ci = ds["p_positive_ci"].sel(target="saving>0")
    quant = ds["target_quantile"].sel(target="saving")
    blocks = [
        Figure("fan_chart", F.to_png(F.fan_chart(quant, demand=d)),
               "Monthly saving against the API, by demand",
               "Per strategy: the median, 25-75% and 5-95% of scenarios. Above the zero line "
               "the strategy is cheaper than the API. The y axis is symmetric-logarithmic "
               "(linear near zero)."),
        Figure("acceptability", F.to_png(F.acceptability_figure(pp, ci, demand=d, n=n)),
               "How likely each strategy beats the API",
               "P(strategy beats the API) by demand, with its 95% Monte Carlo interval "
               "(Wilson): the analogue of an acceptability curve. Right: the same on a log "
               "scale, where rare wins show; the dashed line is one scenario in the sample."),
    ]
    x = _cdf_x(ds)
    cdf = A.breakeven_cdf(ds, x, conf_level=ctx.conf)
    never = {s: float(ds["breakeven_demand_p_never"].sel(strategy=s)) for s in A.STRATEGIES}
    blocks.append(Figure(
        "breakeven_cdf", F.to_png(F.breakeven_cdf_figure(cdf, never, ARTICLE_BAND)),
        "Where each strategy breaks even",
        "Distribution of the break-even demand (exact per scenario): the share of scenarios "
        "that have broken even by each demand, with its 95% Monte Carlo interval. The "
        "shaded band is the article's ~300-500B tokens/month."
    ))
    bd = A.cost_breakdown(ds)
    comp = bd["component_median"].sel(demand=d)
    biggest = str(comp["component"].values[int(np.argmax(comp.values))])
    share = float(comp.max() / comp.sum())
    blocks.append(Figure(
        "cost_breakdown", F.to_png(F.cost_breakdown_figure(bd, demand=d)),
        "What buying costs, against the API bill",
        f"Buying's monthly cost by component (medians) against the API bill. At "
        f"{tokens(d)} the largest component is {biggest} ({pct(share)} of the sum of the "
        f"component medians)."
    ))
    return Section("Saving and odds by demand", blocks, "outlook")


def _cdf_x(ds: xr.Dataset) -> np.ndarray:
    """Demands for the break-even CDF: the grid's range, stretched (at most 100x) to show
    where finite break-even demands end."""
    grid = ds["demand"].values
    be = ds["breakeven_demand"].sel(strategy=list(A.STRATEGIES)).values
    finite = be[np.isfinite(be)]
    top = grid[-1] if finite.size == 0 else max(grid[-1], min(finite.max(), 100 * grid[-1]))
    return np.geomspace(grid[0], top, 400)


def _heatmap_st(ds: xr.Dataset, strategy: str) -> tuple[xr.DataArray, xr.DataArray]:
    st_s = ds["ST"].sel(target="saving", strategy=strategy)
    st_i = ds["ST"].sel(target="saving>0", strategy=strategy)
    wins = (ds["saving"].sel(strategy=strategy) > 0).sum("sample")
    n = ds.sizes["sample"]
    rare = np.minimum(wins, n - wins) < A.MIN_EVENTS
    return st_s, st_i.where(~rare)


def section_sobol(ctx: MemoContext) -> Section:
    """Appendix: the Sobol' ranking (table, heat map) behind 'Which assumptions matter'."""
    ds, d, s = ctx.ds, ctx.demand, ctx.strategy
    r = ctx.ranking
    order = A.input_order(ds, s)
    groups = dict(zip(map(str, ds["input"].values), map(str, ds["input_group"].values),
                      strict=True))
    st_s, st_i = _heatmap_st(ds, s)
    ranked_cols = int(np.isfinite(st_i).any("input").sum())
    blocks = [Paragraph(" ".join(ranking_sentences(r, ctx.n) + dependence_sentences(ctx)))]
    rows = []
    t = r.table
    for name in [str(v) for v in t["input"].values][:10]:
        row = t.sel(input=name)
        rank, best, worst = int(row["rank"]), int(row["rank_best"]), int(row["rank_worst"])
        rows.append([
            str(rank), f"{best}-{worst}" if best != worst else str(best), f"`{name}`",
            groups.get(name, "") or "-",
            f"{float(row['ST']):.3f} ± {float(row['ST_conf']):.3f}",
            f"{float(row['S1']):.3f} ± {float(row['S1_conf']):.3f}",
        ])
    blocks.append(Table(
        ["rank", "possible ranks", "input", "group", "ST ± 95%", "S1 ± 95%"], rows, "rrllrr",
        caption=f"Top inputs for {_target_words(r)} at {tokens(d)}. 'Possible ranks': the ranks"
                " its interval allows against the others' (overlapping intervals can swap)."
    ))
    blocks.append(Figure(
        "sobol_heatmap", F.to_png(F.sobol_heatmap(st_s, st_i, order, groups, demand=d,
                                               strategy=s)),
        "Which inputs drive the outcome, by demand",
        f"Total Sobol' index ST of each input (rows, grouped by the book's groups, most "
        f"influential first) at every demand (columns): left for the monthly saving of "
        f"{VERB[s]}, right for 'beats the API'. Hatched cells are not ranked: fewer than "
        f"{A.MIN_EVENTS} scenarios win (or lose) there; {ranked_cols} of "
        f"{ds.sizes['demand']} demands can be ranked for the indicator."
    ))
    return Section("Appendix A. Sobol' indices: which inputs drive the outcome", blocks,
                   "sobol")


def _tornado_labels(ctx: MemoContext, tor: xr.Dataset) -> dict[str, str]:
    """'plain label (low - high unit)' per input of the tornado."""
    from .labels import plain

    units = dict(zip(map(str, ctx.ds["input"].values),
                     map(str, ctx.ds["input_unit"].values), strict=True)) \
        if "input_unit" in ctx.ds.coords else {}
    out = {}
    for name in map(str, tor["input"].values):
        lo, hi = (float(tor[k].sel(input=name)) for k in ("low_value", "high_value"))
        unit = units.get(name, "")
        unit = "" if unit in ("1", "") else " " + unit
        out[name] = f"{plain(name)}: {fmt_value(lo)} to {fmt_value(hi)}{unit}"
    return out


def section_drivers(ctx: MemoContext) -> Section:
    """Which assumptions move the gap most, in dollars (details in Appendix A)."""
    d, s = ctx.demand, ctx.strategy
    tor = ctx.tornado
    labels = _tornado_labels(ctx, tor)
    top = str(tor["input"].values[0])
    sw = tor.sel(input=top)
    lo, hi = sw["swing_ci"].values
    swing = float(sw["swing"])
    direction = "raises" if swing > 0 else "lowers"
    blocks = [Paragraph(
        f"The assumption that moves the gap between {VERB[s]} and the API most, in dollars, "
        f"is the {labels[top]}; from its low to its high end it {direction} the median "
        f"saving of {VERB[s]} by {usd(abs(12 * swing), ' a year')}. The chart shows the "
        "twelve largest such swings; the variance-based ranking (Sobol' indices) is in "
        "Appendix A."
    )]
    blocks.append(Figure(
        "tornado", F.to_png(F.tornado_figure(tor, ctx.ranking.table, target_label=(
            "indicator" if ctx.ranking.by_indicator else "saving"), labels=labels)),
        f"What moves the saving of {VERB[s]} at {tokens(d)}",
        f"The median monthly saving of {VERB[s]} among the 10% of "
        f"scenarios where an assumption is lowest (around its 5% quantile) and the 10% where "
        f"it is highest (around 95%), the others left uncertain; linear dollar axis. The "
        f"largest swing is `{top}`: {usd(swing)} from its low to its high "
        f"end (95% bootstrap interval {usd(lo, '')} to {usd(hi, '')})."
    ))
    blocks.append(Paragraph(_appendix_pointers(ctx)))
    return Section("Which assumptions matter", blocks, "drivers")


def _appendix_pointers(ctx: MemoContext) -> str:
    """One plain sentence each for the appendix's analyses, with the EVPI at your demand."""
    from ..decision.information import evpi_by_demand

    d = ctx.demand
    evpi = float(evpi_by_demand(ctx.ds).sel(demand=d))
    api_year = 12 * float(ctx.ds["cost"].sel(demand=d, strategy="api").median())
    if evpi * 12 < 0.01 * api_year:
        voi = (f"knowing every assumption exactly before deciding would be worth about "
               f"{usd(12 * evpi, ' a year')} on average, under 1% of the API bill: no study "
               "or pilot can change this answer at this volume")
    else:
        voi = (f"knowing every assumption exactly before deciding would be worth about "
               f"{usd(12 * evpi, ' a year')} on average ({prob(12 * evpi / api_year)} of the "
               "API bill): measuring the assumptions at the top of this chart first can pay")
    return (f"At {tokens(d)}, {voi} (Appendix C). Appendix B lists the combinations of "
            f"assumptions under which {VERB[ctx.strategy]} wins (scenario discovery); "
            "Appendix D checks whether the answer depends on the shapes chosen for the "
            "distributions.")


def section_claims(ctx: MemoContext) -> Section:
    rows = []
    for c in ctx.claims:
        cell = [f"Read as: {c.reading}", *(p.text() for p in c.parts), *c.evidence]
        rows.append([str(c.number), f"\"{c.quote}\"", cell, f"**{c.verdict}**"])
    blocks = [
        Table(["#", "the article says", "what this book's scenarios say (share of scenarios "
               "where it is true, with its 95% Monte Carlo interval)", "verdict"], rows,
              "rlll"),
        Paragraph("How the verdicts are decided: " + RULES),
        Paragraph(
            "\"A few hundred users\" is the demand grid point nearest 300 heavy users at 100M "
            "tokens a month (3e10 tokens/month); \"break-even scale\" is the point nearest "
            "500B tokens/month, the top of the article's break-even band."
        ),
        Paragraph(heavy_user_note()),
    ]
    note = nonmonotone_note(ctx.ds, nearest_grid(ctx.ds, 5e11), "buy")
    if note:
        blocks.append(Paragraph(note))
    return Section("The article's claims", blocks, "claims")


#: the article's own mapping of its break-even band to heavy users
ARTICLE_USERS = (2000, 4000)


def heavy_user_note() -> str:
    """The article's "300-500B tokens/month <-> 2,000-4,000 heavy users", stated as the
    article's, with the correction at its own 100M tokens per user."""
    lo, hi = (x / A.TOKENS_PER_USER for x in ARTICLE_BAND)
    return (f"The article maps its break-even band, {tokens(ARTICLE_BAND[0])}-"
            f"{tokens(ARTICLE_BAND[1])} tokens/month, to {ARTICLE_USERS[0]:,}-"
            f"{ARTICLE_USERS[1]:,} heavy users; at its own 100M tokens per heavy user a month "
            f"that band is {lo:,.0f}-{hi:,.0f} users, which is what this memo uses wherever "
            "it converts tokens to users.")


def nearest_grid(ds: xr.Dataset, demand: float) -> float:
    return A.nearest_point(ds, demand)


def section_assumptions(ctx: MemoContext) -> Section:
    book, r = ctx.book, ctx.ranking
    t = r.table
    rank = {str(i): int(v) for i, v in zip(t["input"].values, t["rank"].values, strict=True)}
    rows, flagged = [], []
    order = sorted(book.inputs.values(),
                   key=lambda i: (rank.get(i.name, 10**6), list(book.inputs).index(i.name)))
    for inp in order:
        q05, q50, q95 = (float(v) for v in inp.quantiles([0.05, 0.5, 0.95]))
        if inp.name in rank:
            row = t.sel(input=inp.name)
            st = f"{rank[inp.name]} ({float(row['ST']):.3f} ± {float(row['ST_conf']):.3f})"
        else:
            st = "constant"
        flag = inp.is_assumption and rank.get(inp.name, 10**6) <= TOP_FIVE
        if flag:
            flagged.append(inp.name)
        rows.append([
            ("**⚑** " if flag else "") + f"`{inp.name}`",
            inp.group or "-",
            inp.describe(),
            *(fmt_value(v) for v in (q05, q50, q95)),
            inp.unit or "-",
            inp.source or "(no source)",
            st,
        ])
    words = _target_words(r)
    intro = (
        f"Every input of the book `{ctx.ds.attrs.get('book_path', '')}`, ordered by its total "
        f"Sobol' index ST for {words} at {tokens(ctx.demand)} (rank, then ST ± 95% "
        f"half-width). **⚑** marks an input that is both in the top {TOP_FIVE} and sourced "
        "only by an assumption (its source begins with 'assumption'): important and weakly "
        "sourced, the first to pin down."
    )
    if flagged:
        tail = (f"Flagged: {', '.join(f'`{x}`' for x in flagged)}.")
    else:
        tail = f"No input in the top {TOP_FIVE} rests on an assumption alone."
    return Section("The assumptions", [
        Paragraph(intro + " " + tail),
        Table(["input", "group", "distribution", "5%", "50%", "95%", "unit", "source",
               "ST rank"], rows, "lllrrrlll"),
    ], "assumptions")


def _compare_word(a: tuple, b: tuple) -> str:
    """'higher here' / 'lower here' when the intervals are disjoint, else no difference."""
    (_, la, ha), (_, lb, hb) = a, b
    if la > hb:
        return "higher here"
    if ha < lb:
        return "lower here"
    return "no difference that this sample can tell (the intervals overlap)"


def section_compare(ctx: MemoContext) -> Section | None:
    if ctx.compare is None:
        return None
    ds, other, d, s = ctx.ds, ctx.compare, ctx.demand, ctx.strategy
    book, obook = ctx.book, ctx.compare_book
    mine = {i.name for i in book.uncertain}
    theirs = {i.name for i in obook.uncertain}
    added = [i.name for i in book.uncertain if i.name not in theirs]
    dropped = [i.name for i in obook.uncertain if i.name not in mine]
    changed = [n for n in mine & theirs
               if book.inputs[n].describe() != obook.inputs[n].describe()]
    name, oname = _name(ds), _name(other)
    d_other = A.grid_point(other, d, "--demand (in the --compare results)")
    p_me = ctx.p(s, d)[:3]
    p_ot = ctx.p(s, d_other, other)[:3]
    never_me = (float(ds["breakeven_demand_p_never"].sel(strategy=s)),
                *ds["breakeven_demand_p_never_ci"].sel(strategy=s).values)
    never_ot = (float(other["breakeven_demand_p_never"].sel(strategy=s)),
                *other["breakeven_demand_p_never_ci"].sel(strategy=s).values)
    text = [
        f"This book (**{name}**) is set beside **{oname}** "
        f"(`{other.attrs.get('book_path', '')}`). It makes {len(added)} input"
        f"{'s' if len(added) != 1 else ''} uncertain that the other fixes"
        + (f" ({', '.join(f'`{x}`' for x in added)})" if added else "")
        + (f", fixes {len(dropped)} that the other leaves uncertain "
           f"({', '.join(f'`{x}`' for x in dropped)})" if dropped else "")
        + (f", and gives {len(changed)} shared input{'s' if len(changed) != 1 else ''} "
           f"other distributions ({', '.join(f'`{x}`' for x in sorted(changed))})"
           if changed else "") + ".",
        f"What that changes: at {tokens(d)}, {VERB[s]} beats the API in "
        f"{pct_ci(*p_me, ctx.conf)} of this book's scenarios against "
        f"{pct_ci(*p_ot, ctx.conf)} of the other's: {_compare_word(p_me, p_ot)}. It "
        f"never breaks even in {pct_ci(*never_me, ctx.conf)} here against "
        f"{pct_ci(*never_ot, ctx.conf)} there: {_compare_word(never_me, never_ot)}.",
    ]
    grid_o = other["demand"].values
    shared = [x for x in ctx.report_demands if np.any(np.isclose(grid_o, x, rtol=1e-6, atol=0))]
    if shared and shared[-1] != d:  # the largest report demand shows where the books part
        far = shared[-1]
        p_far, p_far_ot = ctx.p(s, far)[:3], ctx.p(s, far, other)[:3]
        text.append(
            f"At {tokens(far)}, {VERB[s]} beats the API in {pct_ci(*p_far, ctx.conf)} here "
            f"against {pct_ci(*p_far_ot, ctx.conf)} there: {_compare_word(p_far, p_far_ot)}."
        )
    r_me = ctx.ranking
    r_ot = A.ranking(other, d_other, s)
    top_me = [str(v) for v in r_me.table["input"].values[:TOP_FIVE]]
    new_top = [x for x in top_me if x not in theirs]
    if r_me.target == r_ot.target:
        if new_top:
            lead = ("the most influential input is one the other book does not vary"
                    if top_me[0] in new_top else
                    "the most influential input is still one both books vary")
            text.append(
                f"Of this book's top {TOP_FIVE} inputs for {_target_words(r_me)} at "
                f"{tokens(d)}, {len(new_top)} ({', '.join(f'`{x}`' for x in new_top)}) "
                f"{'are' if len(new_top) > 1 else 'is'} fixed in the other book; {lead}."
            )
        else:
            text.append(f"This book's top {TOP_FIVE} inputs are all uncertain in the other "
                        "book too.")
    else:
        text.append(f"The two rankings below rank different targets ({_target_words(r_me)} "
                    f"here, {_target_words(r_ot)} there), by the rule of the section above.")
    blocks = [Paragraph(" ".join(text))]
    rows = []
    for strat in A.STRATEGIES:
        for label, dd in ((name, ds), (oname, other)):
            cells = []
            for x in shared:
                p, lo, hi, _ = ctx.p(strat, x, dd)
                cells.append(pct_range(p, lo, hi))
            rows.append([strat, label, *cells])
    blocks.append(Table(["strategy", "book", *[tokens(x) for x in shared]], rows,
                        "ll" + "r" * len(shared),
                        caption=f"P(strategy beats the API), with its {ctx.conf:.0%} Monte "
                                "Carlo interval in brackets."))

    rows = []
    for strat in A.STRATEGIES:
        for label, dd in ((name, ds), (oname, other)):
            q = dd["breakeven_demand_quantile"].sel(strategy=strat)
            pn = float(dd["breakeven_demand_p_never"].sel(strategy=strat))
            rows.append([strat, label, *(tokens(float(q.sel(quantile=v)))
                                         for v in (0.05, 0.25, 0.5, 0.75, 0.95)), pct(pn)])
    blocks.append(Table(["strategy", "book", "5%", "25%", "median", "75%", "95%", "never"],
                        rows, "llrrrrrr",
                        caption="Break-even demand (tokens/month) quantiles per book."))

    rows = []
    ot_names = [str(v) for v in r_ot.table["input"].values]
    for i in range(TOP_FIVE):
        cells = [str(i + 1)]
        for r, names in ((r_me, top_me), (r_ot, ot_names)):
            if i < len(names):
                cells.append(f"`{names[i]}` ({_st(r.table, names[i])})")
            else:
                cells.append("-")
        rows.append(cells)
    blocks.append(Table(["rank", f"{name}: ST", f"{oname}: ST"], rows, "rll",
                        caption=f"Top inputs at {tokens(d)} (ST ± 95% half-width), for "
                        + (_target_words(r_me) if r_me.target == r_ot.target else
                           f"{_target_words(r_me)} here and {_target_words(r_ot)} there")
                        + "."))

    books = []
    for label, dd in ((name, ds), (oname, other)):
        books.append((label, dd["p_positive"].sel(target="saving>0"),
                      dd["p_positive_ci"].sel(target="saving>0"),
                      A.breakeven_cdf(dd, _cdf_x(dd), conf_level=ctx.conf)))
    blocks.append(Figure(
        "compare", F.to_png(F.compare_figure(books, band=ARTICLE_BAND)),
        "The two books side by side",
        f"Left: P(beats the API) of buying and of already-owned GPUs under both books (solid: "
        f"{name}; dashed: {oname}). Right: the distribution of buying's break-even demand."
    ))
    return Section("Compared with another book", blocks, "compare")


def _ci_words(ds: xr.Dataset) -> str:
    """How the Sobol' half-widths were made, in a few words."""
    ci = ds.attrs.get("ci", "bootstrap")
    if ci == "rqmc":
        return f"randomized-QMC ({int(ds.attrs.get('replicates', 0))} independent scrambles)"
    return {"asymptotic": "asymptotic (delta-method)"}.get(ci, "bootstrap")


def section_provenance(ctx: MemoContext) -> Section:
    import matplotlib

    a = ctx.ds.attrs
    rows = [
        ["book", f"{a.get('book_name', '')} (`{a.get('book_path', '')}`)"],
        ["book SHA-256", f"`{a.get('book_sha256', '')}`"],
        ["results file", f"`{ctx.paths.get('results', '')}`"],
        ["samples", f"{int(a.get('samples', ctx.n)):,} base samples, "
                    f"{int(a.get('model_runs', 0)):,} model runs (Saltelli design)"],
        ["seed", str(a.get("seed", ""))],
        ["intervals", f"{ctx.conf:.0%}; {a.get('ci_method', '')}"],
        ["Sobol' estimators", str(a.get("sobol_estimators", ""))],
        ["versions", ", ".join(
            f"{k.removesuffix('_version')} {a[k]}" for k in
            ("mc_tco_version", "numpy_version", "scipy_version", "SALib_version",
             "xarray_version") if k in a) + f", matplotlib {matplotlib.__version__}"],
        ["memo written", ctx.created],
    ]
    if ctx.compare is not None:
        c = ctx.compare.attrs
        rows.insert(3, ["compared with", f"{c.get('book_name', '')} (`{c.get('book_path', '')}`"
                                         f", SHA-256 `{c.get('book_sha256', '')[:16]}…`, "
                                         f"seed {c.get('seed', '')}, "
                                         f"{int(c.get('samples', 0)):,} samples; "
                                         f"`{ctx.paths.get('compare', '')}`)"])
    blocks = [
        Table(["", ""], rows, "ll"),
        Paragraph(f"Regenerate this memo with: `{ctx.command}`" if ctx.command else
                  "Regenerate the results with `mc-tco run` and the memo with `mc-tco memo`."),
        Paragraph(
            "Every number above is read from the results file(s): the memo never re-runs the "
            "model. Probabilities come with Wilson score intervals, Sobol' indices with "
            f"{_ci_words(ctx.ds)} half-widths; quantile bands are the spread of the "
            "assumptions. The "
            "tables are also in the CSV files next to this memo."
        ),
    ]
    return Section("Provenance", blocks, "provenance")


#: The memo, in order. Insert a new section with one line, e.g. ``section_decision``.
def section_scenarios(ctx: MemoContext) -> Section | None:
    """Under which conditions does buying pay off? (PRIM, issue 7)"""
    from ..decision.words.prim import scenario_section

    sec = markdown_section(
        scenario_section(ctx.ds, strategy=ctx.strategy, demand=ctx.demand), "scenarios"
    )
    return _appendix(sec, "B")


def section_value_of_information(ctx: MemoContext) -> Section | None:
    """What is it worth to know more before deciding? (EVPI, EVPPI, issue 7)"""
    from ..decision.figures import evpi_figure
    from ..decision.information import evpi_by_demand
    from ..decision.words.voi import voi_section

    curves = [evpi_by_demand(ctx.ds, among=among) for among in (None, ["api", *A.STRATEGIES])]
    figure = Figure(
        "evpi", F.to_png(evpi_figure(ctx.ds, evpi=curves)),
        "What perfect information is worth, by demand",
        "Expected value of perfect information (EVPI) in USD/month, with its 95% Monte Carlo "
        "band, for the choice among the API, buying, renting and the hybrid, and with "
        "already-owned GPUs as a fifth option. " + evpi_peak_words(curves[0]),
    )
    return _appendix(markdown_section(voi_section(ctx.ds, demand=ctx.demand),
                                      "value-of-information", [figure]), "C")


def evpi_peak_words(evpi: xr.DataArray) -> str:
    """Where the EVPI curve is highest, in words that match the curve: at the end of the
    grid ("grows to the end of the grid") or inside it ("peaks at ...")."""
    y = np.nan_to_num(np.asarray(evpi.values, dtype=float), nan=-np.inf)
    d = evpi["demand"].values
    j = int(np.argmax(y))
    if not np.isfinite(y[j]):
        return "It cannot be estimated at any demand."
    if j == len(y) - 1:
        return (f"It is highest at the end of the grid, {tokens(d[j])} tokens/month: the "
                "stakes of a wrong choice grow with the volume.")
    if j == 0:
        return f"It is highest at the start of the grid, {tokens(d[j])} tokens/month."
    return (f"It peaks at {tokens(d[j])} tokens/month, where the choice is closest: where a "
            "memo should say 'measure this first'.")


def section_summary(ctx: MemoContext) -> Section:
    """The one-page summary for decision-makers (issue 15), the memo's first section."""
    return markdown_section(ctx.summary_markdown, "summary")


def section_time(ctx: MemoContext) -> Section:
    """When does self-hosting pay back, how deep is the hole, what return (version 2)."""
    from .sections_time import time_section

    return time_section(ctx)


def section_family(ctx: MemoContext) -> Section | None:
    """Does the answer depend on the shape of the distributions? (issue 7)"""
    from ..decision.words.family import family_section

    return _appendix(markdown_section(family_section(ctx.ds), "family-check"), "D")


def _appendix(sec: Section | None, letter: str) -> Section | None:
    if sec is not None:
        sec.title = f"Appendix {letter}. {sec.title}"
    return sec


#: one line for each term the appendix uses
GLOSSARY = [
    ("scenario", "one draw of every uncertain assumption from its range; the memo's shares "
                 "are shares of scenarios"),
    ("Monte Carlo (MC) interval", "the range a share or median could move if the scenarios "
                                  "were drawn again; not the spread of the assumptions"),
    ("RQMC", "randomized quasi-Monte Carlo: scenarios drawn evenly (a scrambled Sobol' "
             "sequence), in 8 independent scrambles whose spread gives the MC intervals"),
    ("Wilson interval", "an interval for a share, used where a scramble has no or only "
                        "winning scenarios"),
    ("Sobol' index ST / S1", "the share of the outcome's variance an assumption explains, "
                             "with (ST) or without (S1) its interactions with the others"),
    ("possible ranks", "the ranks an assumption's index allows, given the others' intervals"),
    ("EVPI / EVPPI", "expected value of perfect (partial) information: what knowing all (or "
                     "some) assumptions before deciding would be worth, per month"),
    ("PRIM", "patient rule induction: finds ranges of the assumptions where an option wins "
             "(scenario discovery)"),
    ("family check", "the run repeated with other distribution shapes (e.g. triangular "
                     "instead of PERT) for the same ranges"),
    ("book", "the file of assumptions (distributions/*.toml) a run samples"),
    ("NPV", "net present value: the discounted sum of what an option saves against the API"),
    ("IRR", "internal rate of return: the yearly discount rate at which the NPV is zero"),
    ("payback", "the month the discounted running total of savings turns positive"),
]


def section_glossary(ctx: MemoContext) -> Section:
    from .render import Bullets

    return Section("Appendix E. Glossary",
                   [Bullets([f"**{term}**: {text}." for term, text in GLOSSARY])], "glossary")


SECTIONS: list[Callable[[MemoContext], Section | None]] = [
    section_summary,
    section_answer,
    section_outlook,
    section_time,
    section_drivers,
    section_claims,
    section_assumptions,
    section_compare,
    section_sobol,
    section_scenarios,
    section_value_of_information,
    section_family,
    section_glossary,
    section_provenance,
]
