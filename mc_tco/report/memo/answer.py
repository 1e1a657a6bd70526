"""The answer: the recommendation at the decision demand, its reasons and the outlook
by demand."""

from __future__ import annotations

import math

import xarray as xr

from mc_tco.decision import breakeven, costs, shares
from mc_tco.decision.rule import decide
from mc_tco.decision.tco_data import CHOICES, STRATEGIES
from mc_tco.report.memo import figures as F
from mc_tco.report.memo import figures_drivers as FD
from mc_tco.report.memo.claims import ARTICLE_BAND, Claim
from mc_tco.report.memo.context import (
    STRATEGY_TEXT,
    VERB,
    MemoContext,
)
from mc_tco.report.memo.fmt import and_list, money, prob, prob_ci, share_of, tokens, users
from mc_tco.report.memo.one_page import MOSTLY_API, mc_interval
from mc_tco.report.memo.render import Block, Figure, Paragraph, Section

# ----------------------------------------------------------------------------- sections


ACTION = {"api": "Keep paying the API", "buy": "Buy the nodes",
          "rent": "Rent the GPUs on demand",
          "reserved": "Reserve the GPUs on 12-month commitments",
          "hybrid": "Hold the nodes that pay for themselves and send the peaks to the API "
                    "(hybrid)"}
SUBJECT = VERB  # the strategy as the subject of a sentence


def best_alternative(ctx: MemoContext, demand: float | None = None) -> str:
    """The self-hosting strategy a company can choose (:data:`SELF`: buy, rent, reserved,
    hybrid) with the largest expected NPV against the API (the one rule,
    :func:`mc_tco.decision.rule.decide`)."""
    d = ctx.demand if demand is None else demand
    return decide(ctx.ds, d).best_self


def decision_strategy(ctx: MemoContext) -> str:
    """The strategy the memo's answer is about at the decision demand: the recommended
    option (:func:`mc_tco.decision.rule.decide`) when it is a self-hosting one, else the
    best alternative to the API."""
    dec = decide(ctx.ds, ctx.demand)
    return dec.choice if dec.choice != "api" else dec.best_self


def _set_words(key: tuple[str, ...]) -> str:
    if len(key) == 1:
        return f"{SUBJECT[key[0]]} alone"
    return f"a tie of {and_list([SUBJECT[s] for s in key])}"


def answer_paragraph(ctx: MemoContext) -> str:
    """The memo's first paragraph: the recommendation by the one rule (the largest
    expected NPV against the API) with its interval, which option is cheapest scenario by
    scenario with ties counted as ties, then P(beats the API) of every strategy at the
    decision demand. Shares are rounded by the body's rules
    (:func:`mc_tco.report.memo.fmt.prob_ci`)."""
    d = ctx.demand
    dec = decide(ctx.ds, d)
    where = f"At {tokens(d)} tokens/month ({users(d)} at 100M tokens a month each)"
    years = f"{ctx.ds.sizes.get('month', 48) / 12:g}"
    if dec.choice == "api":
        o = dec.outcomes[dec.best_self]
        head = (f"**{ACTION['api']}.** {where}, no alternative has a positive expected NPV "
                f"against the API over {years} years: the best, {SUBJECT[dec.best_self]}, "
                f"{money(o.mean)} ({mc_interval(o.mean_lower, o.mean_upper, '95% MC interval')}).")
    else:
        o = dec.outcomes[dec.choice]
        action = (MOSTLY_API if dec.choice == "hybrid" and o.same.p >= 0.5 else
                  ACTION[dec.choice])
        head = (f"**{action}.** {where}, {SUBJECT[dec.choice]} has the largest "
                f"expected NPV against the API over {years} years of "
                f"{and_list([SUBJECT[s] for s in CHOICES])}: {money(o.mean)} "
                f"({mc_interval(o.mean_lower, o.mean_upper, '95% MC interval')}).")
    sets = shares.cheapest_sets(ctx.ds, d, CHOICES)
    head += (" Scenario by scenario, the cheapest is "
             + and_list([f"{_set_words(k)} in {prob_ci(v.p, v.lower, v.upper, ctx.conf)}"
                         for k, v in sets.items()]) + " of scenarios.")
    parts = [head]
    for s in STRATEGIES:
        p, lo, hi, k = ctx.p(s, d)
        # a count only where it says more than the share: none or all of them (issue 24:
        # "(892 of 8,192)" has more digits than the share's Monte Carlo error supports)
        count = (f" (none of {ctx.n:,})" if k == 0 else
                 f" (all {ctx.n:,})" if k == ctx.n else "")
        lead = STRATEGY_TEXT[s][0].upper() + STRATEGY_TEXT[s][1:]
        parts.append(
            f"{lead} beats the API in {prob_ci(p, lo, hi, ctx.conf)} of scenarios{count}."
        )
    parts.append(owned_sentence(ctx))
    return " ".join(parts)


def owned_sentence(ctx: MemoContext) -> str:
    """What 'already-owned GPUs' means (issue 24, point 10): it applies only to a company
    with idle servers, priced at what they would sell for; then the strongest sentence the
    stored median saving supports."""
    d = ctx.demand
    med = float(ctx.ds["target_quantile"].sel(target="saving", quantile=0.5,
                                              strategy="owned", demand=d))
    p = ctx.p("owned", d)[0]
    head = ("Already-owned GPUs apply only to a company that has idle 8×B300 servers today; "
            "the model charges them what they would sell for (their opportunity cost), not "
            "their price, and every running cost. ")
    if med < 0:
        return head + (f"Even with such servers on hand, self-hosting loses to the API in "
                       f"the median scenario at {tokens(d)} (median saving "
                       f"{money(med, '/month', digits=3)}; it wins in {prob(p)} of "
                       "scenarios).")
    return head + (f"With such servers on hand, self-hosting beats the API in the median "
                   f"scenario at {tokens(d)} (median saving {money(med, '/month', digits=3)}; "
                   f"it wins in {prob(p)} of scenarios): a company without them cannot count "
                   "on this.")



def _never(ds: xr.Dataset, strategy: str, conf: float) -> str:
    """The stored share of scenarios where ``strategy`` never breaks even, with its
    interval."""
    p = float(ds["breakeven_demand_p_never"].sel(strategy=strategy))
    lo, hi = ds["breakeven_demand_p_never_ci"].sel(strategy=strategy).values
    return prob_ci(p, float(lo), float(hi), conf)


def nonmonotone_note(ds: xr.Dataset, demand: float, strategy: str = "buy") -> str:
    """Why a strategy can break even below ``demand`` and still lose at ``demand``: the
    share of scenarios where that happens, or "" when it does not."""
    k, n = breakeven.nonmonotone_count(ds, demand, strategy)
    if k == 0:
        return ""
    return (f"The saving is not monotone in demand: nodes come whole, so a demand just above "
            f"what a fleet can serve buys one more node that is mostly idle, and the saving "
            f"dips. In {k:,} of {n:,} scenarios {VERB[strategy]} breaks even at some demand "
            f"below {tokens(demand)} yet loses at {tokens(demand)} itself, which is why "
            "\"breaks even by\" a demand is more common than \"beats the API at\" it.")


def answer_blocks(ctx: MemoContext) -> list:
    """The body of the TCO memo's "The answer"
    (:func:`mc_tco.report.memo.shared.section_answer`): the recommendation, the demand where
    the strategy wins in half the scenarios, its break-even and saving, the claims."""
    ds, d, s = ctx.ds, ctx.demand, ctx.strategy
    blocks = [Paragraph(answer_paragraph(ctx))]

    # over demand: where does buying win in half the scenarios, and its break-even
    odds = shares.odds_over_demand(ds, s)
    grid = ds["demand"].values
    if odds.first_half is not None:
        first = odds.first_half
        over = (f"{VERB[s].capitalize()} beats the API in at least half of the scenarios from "
                f"{tokens(first)} tokens/month ({users(first)}) on the grid.")
    else:
        over = (f"At no demand from {tokens(grid[0])} to {tokens(grid[-1])} tokens/month does "
                f"{VERB[s]} beat the API in half of the scenarios; its highest share is "
                f"{prob_ci(*odds.top, ctx.conf)} at "
                f"{tokens(odds.top_demand)}.")
    band = breakeven.breakeven_band(ds, s)
    q05, q50, q95 = band.q05, band.median, band.q95
    never = ds["breakeven_demand_p_never"].sel(strategy=s)
    never_lo, never_hi = ds["breakeven_demand_p_never_ci"].sel(strategy=s).values
    med = "never (more than half of the scenarios never break even)" if math.isinf(q50) \
        else tokens(q50) + " tokens/month"
    be_text = (f"The demand at which {VERB[s]} breaks even has a median of {med}; 90% of "
               f"scenarios lie between {tokens(q05)} and {tokens(q95)}. It never breaks even, "
               f"at any demand, in {prob_ci(float(never), never_lo, never_hi, ctx.conf)} of "
               "scenarios.")
    rent_text = " ".join(
        f"{VERB[r].capitalize()}{' on demand' * (r == 'rent')} never breaks even in "
        f"{_never(ds, r, ctx.conf)} of scenarios." for r in ("rent", "reserved"))
    note = nonmonotone_note(ds, d, s)
    blocks.append(Paragraph(" ".join([over, be_text, rent_text] + ([note] if note else []))))

    lo, mid, hi = costs.saving_band(ds, d, s)
    sign = ("costs more than" if mid < 0 else "saves against" if mid > 0 else
            "spends what" if s != "hybrid" else "buys no server and spends what")
    sign_end = " does" if mid == 0 else ""
    lo_t, mid_t, hi_t = (money(v, "/month", digits=3) for v in (lo, mid, hi))
    blocks.append(Paragraph(
        f"At {tokens(d)}, the median scenario's monthly saving from {VERB[s]} is {mid_t} "
        f"(it {sign} the API{sign_end}); 90% of scenarios lie between {lo_t} and {hi_t}. "
        "These bands are the spread of the assumptions, not Monte Carlo error."
    ))
    blocks.append(Paragraph(claims_sentence(ctx.claims)))
    return blocks


def claims_sentence(claims: list[Claim]) -> str:
    """'Of the article's five claims, under this book claims 1 and 5 hold; ...'."""
    plural = {"holds": "hold", "holds only in part": "hold only in part",
              "does not hold": "do not hold", "not evaluated": "are not evaluated"}
    singular = {"not evaluated": "is not evaluated"}
    parts = []
    for verdict in plural:
        nums = [str(c.number) for c in claims if c.verdict == verdict]
        if not nums:
            continue
        listed = nums[0] if len(nums) == 1 else ", ".join(nums[:-1]) + " and " + nums[-1]
        if len(nums) == 1:
            parts.append(f"claim {listed} {singular.get(verdict, verdict)}")
        else:
            parts.append(f"claims {listed} {plural[verdict]}")
    if not any(c.verdict == "does not hold" for c in claims):
        parts.append("none fails outright" if not any(
            c.verdict == "not evaluated" for c in claims) else
            "none of the others fails outright")
    return (f"Of the article's {len(claims)} claims tested, under this book "
            + "; ".join(parts) + " (Appendix E).")


def section_outlook(ctx: MemoContext) -> Section:
    """The outlook section: the saving and P(beats the API) by demand, and the break-even."""
    ds, d = ctx.ds, ctx.demand
    n = ctx.n
    pp = ds["p_positive"].sel(target="saving>0")
    ci = ds["p_positive_ci"].sel(target="saving>0")
    quant = ds["target_quantile"].sel(target="saving")
    blocks: list[Block] = [
        Figure("fan_chart", F.png(F.fan_chart(quant, demand=d)),
               "Monthly saving against the API, by demand",
               "Per strategy: the median, 25-75% and 5-95% of scenarios. Above the zero line "
               "the strategy is cheaper than the API. Demands from a tenth to ten times "
               "yours, on a linear dollar axis ($k, $M; the whole grid is in "
               "saving_quantiles.csv)."),
        Figure("acceptability", F.png(F.acceptability_figure(pp, ci, demand=d, n=n,
                                                          level=ctx.level)),
               "How likely each strategy beats the API",
               f"P(strategy beats the API) by demand, with its {ctx.level} Monte Carlo "
               "interval (from the spread of the independent scrambles): the analogue of an "
               "acceptability curve. Right: the same on a log scale, where rare wins show; "
               "the dashed line is one scenario in the sample."),
    ]
    x = breakeven.cdf_demands(ds)
    cdf = breakeven.breakeven_cdf(ds, x, conf_level=ctx.conf)
    never = {s: float(ds["breakeven_demand_p_never"].sel(strategy=s)) for s in STRATEGIES}
    blocks.append(Figure(
        "breakeven_cdf", F.png(F.breakeven_cdf_figure(
            cdf, never, ARTICLE_BAND, level=ctx.level,
            grid=(float(ds["demand"].min()), float(ds["demand"].max())))),
        "Where each strategy breaks even",
        "Distribution of the break-even demand (exact per scenario): the share of scenarios "
        f"that have broken even by each demand, with its {ctx.level} Monte Carlo interval. The "
        "shaded band is the article's ~300-500B tokens/month. Drawn over the results' "
        "demand grid; a scenario that breaks even only beyond it is still below the curve "
        "at its end."
    ))
    bd = costs.cost_breakdown(ds)
    biggest, share = costs.largest_component(bd, d)
    blocks.append(Figure(
        "cost_breakdown", F.png(FD.cost_breakdown_figure(bd, demand=d)),
        "What buying costs, against the API bill",
        f"Buying's monthly cost by component (medians) against the API bill; tax is the "
        "extra tax buying pays against the API. Where its median is negative (the "
        "depreciation's shield: tax saved) the log axis on the left draws its size, "
        "dotted, and the shares on the right leave it out. At "
        f"{tokens(d)} the largest component is {biggest} ({share_of(share)} of the sum of the "
        f"component medians)."
    ))
    return Section("Saving and odds by demand", blocks, "outlook")


