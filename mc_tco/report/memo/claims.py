"""The article's five claims (shared/MODEL.md), tested against a results dataset.

Each claim is split into parts, each a statement that is true or false in every scenario
(sample). A part's probability is the share of scenarios where it is true, with the
interval of its Monte Carlo error from the spread of the run's independent scrambles
(:func:`mc_tco.decision.shares.share_with_interval`; Wilson's on the pooled count only where
that cannot work); the shares, quantiles and verdict rules are computed in
:mod:`mc_tco.decision.claims`, this module words them. The verdicts follow fixed rules
(:data:`RULES`), which the memo prints next to them:

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

from mc_tco.decision.claims import (
    ARTICLE_BAND,
    BREAKEVEN_SCALE,
    CLAIM_DEMANDS,
    DOES_NOT_HOLD,
    FAILS_AT,
    FEW_HUNDRED_USERS,
    HOLDS,
    HOLDS_AT,
    HOLDS_IN_PART,
    NOT_EVALUATED,
    AtDemand,
    borderline,
    claim_demand,
    claim_numbers,
    claim_verdict,
    part_verdict,
)
from mc_tco.decision.shares import Share
from mc_tco.report.memo.fmt import money, prob, prob_ci, share_of, tokens, users

__all__ = [
    "ARTICLE_BAND",
    "BREAKEVEN_SCALE",
    "CLAIM_DEMANDS",
    "DOES_NOT_HOLD",
    "FEW_HUNDRED_USERS",
    "HOLDS",
    "HOLDS_IN_PART",
    "NOT_EVALUATED",
    "RULES",
    "Claim",
    "Part",
    "claim_demand",
    "claim_verdict",
    "evaluate_claims",
    "part_verdict",
    ]

RULES = (
    f"A part of a claim **holds** when it is true in at least {HOLDS_AT:.0%} of the book's "
    f"scenarios, **does not hold** when it is true in at most {FAILS_AT:.0%}, and **holds "
    "only in part** in between. A claim holds when all its parts hold, does not hold when "
    "all its parts do not hold or when its substantive part (marked *substance*) does not "
    "hold, and holds only in part otherwise. A share is *borderline* "
    "when its {level} Monte Carlo interval crosses " f"{HOLDS_AT:.0%} or {FAILS_AT:.0%}."
)


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
        """The part's verdict from its probability (not evaluated when it is missing)."""
        return NOT_EVALUATED if self.missing else part_verdict(self.p)

    @property
    def borderline(self) -> bool:
        """Whether the part's interval straddles a verdict's threshold."""
        return not self.missing and borderline(self.p, self.lower, self.upper)

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
        """The claim's verdict from those of its parts."""
        return claim_verdict([p.verdict for p in self.parts],
                             [p.substantive for p in self.parts])


def _part(statement: str, share: Share, substantive: bool = False) -> Part:
    """A part of a claim: its statement and the share of scenarios where it is true."""
    return Part(statement, share.p, share.lower, share.upper, share.k, share.n, substantive)


def _not_on_grid(statement: str, demand: float) -> Part:
    exact = f"{demand:g}".replace("e+", "e")
    why = (f"the results' demand grid has no point at {tokens(demand)} tokens/month (an "
           f"older run); rerun the book, which now adds it, or add include = [{exact}] to "
           "its [grid.demand]")
    return Part(statement, math.nan, math.nan, math.nan, 0, 0, missing=why)


def _q(band: tuple[float, ...], fmt) -> str:
    """'median M (5-95%: a - b)' of the (5%, 50%, 95%) quantiles of a quantity."""
    lo, med, hi = band
    return f"median {fmt(med)} (90% of scenarios {fmt(lo)} - {fmt(hi)})"


# Hourly amounts with one decimal, as the claim's evidence reads them: '56.8 USD/h'.
_PER_HOUR = partial(money, per=" USD/h", symbol="", compact=False, decimals=1)


def _at_both(points: tuple[AtDemand, AtDemand], share: str, band: str, words: str,
             ) -> tuple[list[Part], list[str]]:
    """The parts of claims 3 and 4 at both demands and their evidence."""
    parts, evidence = [], []
    for pt, at in zip(points, (_at_words(FEW_HUNDRED_USERS), _at_words(BREAKEVEN_SCALE)),
                      strict=True):
        if pt.grid_demand is None:
            parts.append(_not_on_grid(f"{words} {at}", pt.demand))
            continue
        parts.append(_part(f"{words} {at}", getattr(pt, share)))
        evidence.append(f"{at}: {_q(getattr(pt, band), share_of)}")
    return parts, evidence


def _at_words(demand: float) -> str:
    return f"at {tokens(demand)} tokens/month ({users(demand, 'users')})"


def evaluate_claims(ds) -> list[Claim]:
    """Test the article's five claims against the scenarios of a results dataset.

    Parameters
    ----------
    ds : xr.Dataset
        Results of the TCO model (``mc-tco run``).

    Returns
    -------
    list of Claim
        In the order of shared/MODEL.md, with the numbers of
        :func:`mc_tco.decision.claims.claim_numbers`. "At a few hundred users" is 300 users
        x 100M tokens (3e10 tokens/month); "at break-even scale" is 500B tokens/month, the
        top of the article's break-even band. Both are read at exactly that demand; a grid
        without one leaves the parts there (and their claims) not evaluated.
    """
    c = claim_numbers(ds)
    claims = []
    claims.append(Claim(
        1,
        "Renting never pays off at any utilization.",
        "Renting never breaks even against the API, at any demand: on demand by the hour "
        "(the article's reading, the claim's substance), and reserved on 12-month "
        "commitments at a discount, which the article did not price.",
        [_part("renting on demand never breaks even", c.rent_never, True),
         _part("reserving for 12 months never breaks even", c.reserved_never)],
        [f"The API bill of a fully used node is below the on-demand rent of its eight GPUs "
         f"in {prob(c.api_below_rent.p)} of scenarios (see claim 5)."],
    ))

    claims.append(Claim(
        2,
        "Self-hosting breaks even only when purchased outright with sustained demand above "
        "~300B tokens/month.",
        "Buying does not break even below 300B tokens/month, and does by 500B (the "
        "article's break-even band, ~300-500B).",
        [_part("buying does not break even below 300B", c.buy_not_below),
         _part("buying breaks even by 500B", c.buy_by, True)],
        [f"Break-even demand of buying: median {tokens(c.buy_breakeven.median)}; it never "
         f"breaks even in {prob(c.buy_breakeven.p_never)} of scenarios. Renting never "
         f"breaks even in {prob(c.rent_never.p)}. The first part is also true in every "
         "scenario where buying never breaks even, so it cannot carry the claim: the "
         "verdict follows the second, the claim's substance."],
    ))

    points = (c.at_users, c.at_scale)
    parts, ev = _at_both(points, "gpu_over_90", "gpu_share", "over 90%")
    claims.append(Claim(
        3,
        "Hardware is over 90% of the investment.",
        "The GPU nodes are over 90% of what buying spends on hardware over the horizon "
        "(nodes, their network gear and the KV-cache SSDs, undiscounted), at a few hundred "
        "users and at break-even scale.",
        parts,
        [f"GPU share of the investment {'; '.join(ev)}."] if ev else [],
    ))

    parts, ev = _at_both(points, "ssd_under_10", "ssd_ratio", "under 10%")
    if c.at_users.grid_demand is not None:
        tb = c.at_users.storage_tb
        assert tb is not None  # read at the few-hundred-users demand whenever it is on the grid
        ev[0] += f", for {_q(tb, lambda v: f'{v:,.0f} TB')}"
    claims.append(Claim(
        4,
        "KV cache SSDs are a rounding error.",
        "The KV-cache SSDs cost under 10% of the GPU investment, at a few hundred users and "
        "at break-even scale.",
        parts,
        [f"SSDs / GPUs {'; '.join(ev)}."] if ev else [],
    ))

    claims.append(Claim(
        5,
        "Eight rented B300s cost 56.8 USD/hour while the same load billed through the API "
        "tops out in the tens of USD/hour.",
        "The API bill of the load one fully used node serves is below the node's rent, and "
        "under 100 USD/hour.",
        [_part("API bill below the rent", c.api_below_rent, True),
         _part("API bill under 100 USD/hour", c.api_under_100)],
        [f"Rent of eight GPUs: {_q(c.rent_hour, _PER_HOUR)}; API bill of a full node's load: "
         f"{_q(c.api_hour, _PER_HOUR)}."],
    ))
    return claims
