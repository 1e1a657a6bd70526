"""The article's five claims (shared/MODEL.md), tested against a results dataset.

Each claim is split into parts, each a statement that is true or false in every scenario
(sample). A part's probability is the share of scenarios where it is true, with the
interval of its Monte Carlo error from the spread of the run's independent scrambles
(:func:`mc_tco.report.memo.analysis.prob_with_ci`; Wilson's on the pooled count only where that
cannot work). The verdicts follow fixed rules (:data:`RULES`), which
the memo prints next to them:

* a part **holds** when it is true in at least 90% of scenarios, **does not hold** when it
  is true in at most 10%, and **holds only in part** in between;
* a claim holds when all its parts hold, does not hold when none holds (every part
  fails) **or when its substantive part fails** (issue 15: claim 2's "breaks even by
  500B" is its substance; its other part, "not below 300B", is trivially true when buying
  never breaks even), and holds only in part otherwise;
* a part is **borderline** when its Monte Carlo interval crosses 90% or 10%: more
  samples could change its word;
* a part stated at a demand (claims 3 and 4: a few hundred users, break-even scale) is
  read at that exact demand, never at the nearest grid point (issue 11 item 6): the TCO
  model adds :data:`CLAIM_DEMANDS` to every run's grid, and a results file whose grid lacks
  one (an older run) gets **not evaluated**, for the part and its claim, with the fix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial

import numpy as np
import xarray as xr

from mc_tco.report.memo.analysis import TOKENS_PER_USER, prob_with_ci
from mc_tco.report.memo.fmt import money, prob, prob_ci, share_of, tokens, users
from mc_tco.results.points import point_index
from mc_tco.results.run_info import RunInfo

__all__ = [
    "CLAIM_DEMANDS",
    "DOES_NOT_HOLD",
    "HOLDS",
    "HOLDS_IN_PART",
    "NOT_EVALUATED",
    "RULES",
    "Claim",
    "Part",
    "claim_verdict",
    "evaluate_claims",
    "part_verdict",
    ]

HOLDS = "holds"
HOLDS_IN_PART = "holds only in part"
DOES_NOT_HOLD = "does not hold"
#: a part (and its claim) whose demand is not on the results' grid: no verdict is given
NOT_EVALUATED = "not evaluated"

#: a part holds when true in at least this share of scenarios
HOLDS_AT = 0.9
#: a part does not hold when true in at most this share of scenarios
FAILS_AT = 0.1

RULES = (
    f"A part of a claim **holds** when it is true in at least {HOLDS_AT:.0%} of the book's "
    f"scenarios, **does not hold** when it is true in at most {FAILS_AT:.0%}, and **holds "
    "only in part** in between. A claim holds when all its parts hold, does not hold when "
    "all its parts do not hold or when its substantive part (marked *substance*) does not "
    "hold, and holds only in part otherwise. A share is *borderline* "
    "when its {level} Monte Carlo interval crosses " f"{HOLDS_AT:.0%} or {FAILS_AT:.0%}."
)

#: "a few hundred users" (the article) at 100M tokens each: 300 users
FEW_HUNDRED_USERS = 300 * TOKENS_PER_USER
#: the top of the article's break-even band, "~300-500B tokens/month"
BREAKEVEN_SCALE = 5e11
ARTICLE_BAND = (3e11, 5e11)
#: the demands the claims are read at, exactly (the TCO model's spec adds them to every grid)
CLAIM_DEMANDS = (FEW_HUNDRED_USERS, BREAKEVEN_SCALE)


def part_verdict(p: float) -> str:
    """The verdict word for a part that is true in a share ``p`` of scenarios."""
    if math.isnan(p):
        return "not testable"
    if p >= HOLDS_AT:
        return HOLDS
    if p <= FAILS_AT:
        return DOES_NOT_HOLD
    return HOLDS_IN_PART


def claim_verdict(verdicts: list[str], substantive: list[bool] | None = None) -> str:
    """The verdict of a claim from the verdicts of its parts.

    A claim whose substantive part does not hold does not hold, whatever its other parts
    say (a part that is true only because the substance fails cannot rescue it). A claim
    with a part that was not evaluated gets no verdict (:data:`NOT_EVALUATED`).
    """
    substantive = substantive or [False] * len(verdicts)
    if NOT_EVALUATED in verdicts:
        return NOT_EVALUATED
    if any(s and v == DOES_NOT_HOLD for v, s in zip(verdicts, substantive, strict=True)):
        return DOES_NOT_HOLD
    if verdicts and all(v == HOLDS for v in verdicts):
        return HOLDS
    if verdicts and all(v == DOES_NOT_HOLD for v in verdicts):
        return DOES_NOT_HOLD
    return HOLDS_IN_PART


@dataclass
class Part:
    """One testable statement of a claim and the share of scenarios where it is true."""

    statement: str
    p: float
    lower: float
    upper: float
    k: int
    n: int
    substantive: bool = False
    #: why the part was not evaluated (its demand is not on the grid), or ""
    missing: str = ""

    @property
    def verdict(self) -> str:
        return NOT_EVALUATED if self.missing else part_verdict(self.p)

    @property
    def borderline(self) -> bool:
        if self.missing or math.isnan(self.p):
            return False
        return any(self.lower <= t <= self.upper for t in (HOLDS_AT, FAILS_AT))

    def text(self) -> str:
        """'Statement: true in 23% of scenarios: holds only in part': the share rounded by
        the body's rules (:func:`mc_tco.report.memo.fmt.prob_ci`), with its interval only when it
        crosses a verdict's threshold (borderline: there the interval changes the
        reading); full precision in claims.csv."""
        share = (prob_ci(self.p, self.lower, self.upper, short=True) if self.borderline
                 else prob(self.p))
        flag = " (borderline)" if self.borderline else ""
        head = self.statement[:1].upper() + self.statement[1:]
        mark = " (*substance*)" if self.substantive else ""
        if self.missing:
            return f"{head}{mark}: **{NOT_EVALUATED}**: {self.missing}."
        return f"{head}{mark}: true in {share} of scenarios: **{self.verdict}**{flag}."


@dataclass
class Claim:
    """An article claim, its reading as parts, the evidence and the verdict."""

    number: int
    quote: str
    reading: str
    parts: list[Part]
    evidence: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        return claim_verdict([p.verdict for p in self.parts],
                             [p.substantive for p in self.parts])


def _part(statement: str, event, run: RunInfo, substantive: bool = False) -> Part:
    """A part of a claim: P(event) with the interval of the run ``run``
    (``ds.mc_tco.run``: its level, and its scrambles when the intervals are theirs)."""
    p, lo, hi, k, n = prob_with_ci(event, run.conf_level, run.replicates)
    return Part(statement, p, lo, hi, k, n, substantive)


def claim_demand(ds: xr.Dataset, demand: float) -> float | None:
    """The grid value equal to ``demand`` (:func:`mc_tco.results.points.point_index`), or
    None: a claim's demand is read exactly or not at all."""
    grid = np.asarray(ds["demand"].values, dtype=float)
    i = point_index(grid, demand)
    return None if i is None else float(grid[i])


def _not_on_grid(statement: str, demand: float) -> Part:
    exact = f"{demand:g}".replace("e+", "e")
    why = (f"the results' demand grid has no point at {tokens(demand)} tokens/month (an "
           f"older run); rerun the book, which now adds it, or add include = [{exact}] to "
           "its [grid.demand]")
    return Part(statement, math.nan, math.nan, math.nan, 0, 0, missing=why)


def _q(da: xr.DataArray, fmt, qs=(0.05, 0.5, 0.95)) -> str:
    """'median M (5-95%: a - b)' of a per-sample quantity."""
    lo, med, hi = np.quantile(da.values, qs)
    return f"median {fmt(med)} (90% of scenarios {fmt(lo)} - {fmt(hi)})"


# Hourly amounts with one decimal, as the claim's evidence reads them: '56.8 USD/h'.
_PER_HOUR = partial(money, per=" USD/h", symbol="", compact=False, decimals=1)


def evaluate_claims(ds: xr.Dataset) -> list[Claim]:
    """Test the article's five claims against the scenarios of a results dataset.

    Parameters
    ----------
    ds : xr.Dataset
        Results of the TCO model (``mc-tco run``).

    Returns
    -------
    list of Claim
        In the order of shared/MODEL.md. "At a few hundred users" is 300 users x 100M
        tokens (3e10 tokens/month); "at break-even scale" is 500B tokens/month, the top of
        the article's break-even band. Both are read at exactly that demand; a grid without
        one leaves the parts there (and their claims) not evaluated.
    """
    run = ds.mc_tco.run
    users_d = claim_demand(ds, FEW_HUNDRED_USERS)
    scale_d = claim_demand(ds, BREAKEVEN_SCALE)
    at_users = f"at {tokens(FEW_HUNDRED_USERS)} tokens/month ({users(FEW_HUNDRED_USERS, 'users')})"
    at_scale = f"at {tokens(BREAKEVEN_SCALE)} tokens/month ({users(BREAKEVEN_SCALE, 'users')})"
    be = ds["breakeven_demand"]
    claims = []

    rent_be = be.sel(strategy="rent")
    buy_rent = ds["node_api_revenue_per_hour"] < ds["rent_per_node_hour"]
    claims.append(Claim(
        1,
        "Renting never pays off at any utilization.",
        "Renting never breaks even against the API, at any demand.",
        [_part("renting never breaks even", np.isinf(rent_be), run, True)],
        [f"The API bill of a fully used node is below the rent of its eight GPUs in "
         f"{prob(float(buy_rent.mean()))} of scenarios (see claim 5)."],
    ))

    buy_be = be.sel(strategy="buy")
    p_never = float(np.isinf(buy_be).mean())
    med = float(np.quantile(buy_be.values, 0.5, method="inverted_cdf"))
    claims.append(Claim(
        2,
        "Self-hosting breaks even only when purchased outright with sustained demand above "
        "~300B tokens/month.",
        "Buying does not break even below 300B tokens/month, and does by 500B (the "
        "article's break-even band, ~300-500B).",
        [_part("buying does not break even below 300B", buy_be >= ARTICLE_BAND[0], run),
         _part("buying breaks even by 500B", buy_be <= ARTICLE_BAND[1], run, True)],
        [f"Break-even demand of buying: median {tokens(med)}; it never breaks even in "
         f"{prob(p_never)} of scenarios. Renting never breaks even in "
         f"{prob(float(np.isinf(rent_be).mean()))}. The first part is also true in every "
         "scenario where buying never breaks even, so it cannot carry the claim: the "
         "verdict follows the second, the claim's substance."],
    ))

    def at_both(name: str, test, words: str, fmt) -> tuple[list[Part], list[str]]:
        """The parts of claims 3 and 4 at both demands and their evidence."""
        parts, evidence = [], []
        for d, demand, at in ((users_d, FEW_HUNDRED_USERS, at_users),
                              (scale_d, BREAKEVEN_SCALE, at_scale)):
            if d is None:
                parts.append(_not_on_grid(f"{words} {at}", demand))
                continue
            da = ds[name].sel(demand=d)
            parts.append(_part(f"{words} {at}", test(da), run))
            evidence.append(f"{at}: {_q(da, fmt)}")
        return parts, evidence

    parts, ev = at_both("gpu_share", lambda v: v > 0.9, "over 90%", share_of)
    claims.append(Claim(
        3,
        "Hardware is over 90% of the investment.",
        "The GPU nodes are over 90% of what buying spends on hardware over the horizon "
        "(nodes + KV-cache SSDs, undiscounted), at a few hundred users and at break-even "
        "scale.",
        parts,
        [f"GPU share of the investment {'; '.join(ev)}."] if ev else [],
    ))

    parts, ev = at_both("storage_to_gpu_ratio", lambda v: v < 0.1, "under 10%", share_of)
    if users_d is not None:
        tb_u = ds["storage_tb"].sel(demand=users_d)
        ev[0] += f", for {_q(tb_u, lambda v: f'{v:,.0f} TB')}"
    claims.append(Claim(
        4,
        "KV cache SSDs are a rounding error.",
        "The KV-cache SSDs cost under 10% of the GPU investment, at a few hundred users and "
        "at break-even scale.",
        parts,
        [f"SSDs / GPUs {'; '.join(ev)}."] if ev else [],
    ))

    api_h = ds["node_api_revenue_per_hour"]
    rent_h = ds["rent_per_node_hour"]
    claims.append(Claim(
        5,
        "Eight rented B300s cost 56.8 USD/hour while the same load billed through the API "
        "tops out in the tens of USD/hour.",
        "The API bill of the load one fully used node serves is below the node's rent, and "
        "under 100 USD/hour.",
        [_part("API bill below the rent", buy_rent, run, True),
         _part("API bill under 100 USD/hour", api_h < 100, run)],
        [f"Rent of eight GPUs: {_q(rent_h, _PER_HOUR)}; API bill of a full node's load: "
         f"{_q(api_h, _PER_HOUR)}."],
    ))
    return claims
