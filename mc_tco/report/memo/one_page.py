"""The one-page summary for a CFO (issue 15): the recommendation, the reason in one
sentence, a table in dollars a year at your demand and at half and twice it, what would
change the answer, what data sovereignty would have to be worth, and the risks the model
does not price.

Every number is computed by the analysis layer from the results file (medians over the
scenarios, the stored probabilities: :mod:`mc_tco.decision.one_page`,
:mod:`mc_tco.decision.triggers`, :mod:`mc_tco.decision.costs`) and rounded here by
:mod:`mc_tco.report.memo.fmt`'s rules; words that compare numbers are chosen by comparing
them. :func:`one_page_data` gathers the numbers and the sentences, :func:`one_page_markdown`
the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import xarray as xr

from mc_tco.decision.budget import cash_by_year, cash_gap
from mc_tco.decision.costs import median_of, node_hour, sovereignty, top_components
from mc_tco.decision.one_page import SELF, page_numbers, priced_risks, quantiles_of
from mc_tco.decision.rule import Decision
from mc_tco.decision.triggers import demand_trigger, input_trigger
from mc_tco.report.fmt import rounded
from mc_tco.report.memo.fmt import and_list, money, months, prob, prob_ci, share_of, tokens, users
from mc_tco.report.memo.labels import plain
from mc_tco.report.memo.one_page_budget import Budget, budget_lines, request_sentence
from mc_tco.report.memo.one_page_risks import RISKS, risks

__all__ = ["CHART", "RISKS", "Summary", "budget_numbers", "default_triggers", "one_page_data",
           "one_page_markdown"]

NAMES = {"api": "the API", "buy": "buying the servers", "rent": "renting the GPUs on demand",
         "reserved": "reserving the GPUs for 12 months at a time", "hybrid": "the hybrid"}
#: the first mention of a strategy on the page says what it is
FIRST = {**NAMES, "hybrid": "the hybrid (hold the servers that pay for themselves at the "
                            "margin, send the peaks to the API)"}
SHORT = {"api": "API", "buy": "buy", "rent": "rent", "reserved": "reserved",
         "hybrid": "hybrid"}
RECOMMEND = {"api": "Keep paying the API", "buy": "Buy the servers",
             "rent": "Rent the GPUs on demand",
             "reserved": "Reserve the GPUs on 12-month commitments",
             "hybrid": "Hold the servers that pay for themselves and send the peaks to the "
                       "API (hybrid)"}
#: the hybrid when it buys no server in most scenarios: the API, with a rule for servers
MOSTLY_API = ("Keep paying the API, and add a server only when it pays for itself (the "
              "hybrid)")


@dataclass
class Summary:
    """The numbers of the summary (raw, unrounded) and its sentences."""

    demand: float
    points: list[tuple[str, float]]
    #: (row label, strategy or "", quantity) -> per point value: (P10, P50, P90), or a share
    table: dict[tuple[str, str], list]
    choice: str
    #: the one decision rule at the demand (:func:`mc_tco.decision.rule.decide`)
    decision: Decision
    best_self: str
    reason: str
    triggers: list[str] = field(default_factory=list)
    sovereignty: str = ""
    risks: list[str] = field(default_factory=lambda: list(RISKS))
    #: the budget by year and the decision request (:mod:`.one_page_budget`)
    budget: Budget | None = None
    #: the first screen's words on the demand: an assumption to replace, and how
    demand_note: str = ""
    #: the multiples of the demand past the grid's end, left out of the table
    dropped: list[float] = field(default_factory=list)


#: the cost components (mc_tco.models.tco.COMPONENTS) as a sentence names them
COMPONENT_WORDS = {"hardware": "the servers (less their resale)", "network": "network gear",
                   "power": "power", "colocation": "colocation", "upkeep": "support and spares",
                   "storage": "KV-cache storage", "staff": "engineers",
                   "setup_api": "the API bill until set up or after a stop",
                   "tax": "extra tax"}
#: the table's rows (:data:`mc_tco.decision.one_page.QUANTITIES`) as the page names them
ROWS = {"api_bill_year": "API bill a year", "cost_year": "cost a year",
        "investment": "servers, network and SSDs bought over the horizon",
        "peak_cash_need_nominal": "peak funding need", "npv": "NPV against the API",
        "payback": "payback", "simple_payback": "simple payback",
        "mean_npv": "expected NPV against the API",
        "never_buys": "never buys a server",
        "p_beats_api": "chance of beating the API"}
#: the table's columns: a multiple of your demand
POINTS = {0.5: "½× your demand", 1.0: "your demand", 2.0: "2× your demand"}


def reason_sentence(ds: xr.Dataset, demand: float, choice: str, best: str) -> str:
    """Why the answer is what it is, in one sentence, from the medians."""
    api_year = 12 * median_of(ds["cost"].sel(demand=demand, strategy="api"))
    alt_year = 12 * median_of(ds["cost"].sel(demand=demand, strategy=best))
    value, own = node_hour(ds)
    if choice == "api":
        if value < own:
            return (f"In the median scenario a server costs more to own and run (about "
                    f"{money(own)} an hour) than the API bill for the tokens it can serve "
                    f"(about {money(value)} an hour), so self-hosting adds cost: at your "
                    f"demand the API costs about {money(api_year)} a year against "
                    f"{money(alt_year)} for {NAMES[best]}.")
        parts = [f"{COMPONENT_WORDS.get(c, c)} {money(12 * v)}"
                 for c, v in top_components(ds, demand)]
        buy_year = 12 * median_of(ds["cost"].sel(demand=demand, strategy="buy"))
        tail = ("" if best == "buy" else
                f" {NAMES[best][:1].upper() + NAMES[best][1:]}, the best alternative, costs "
                f"about {money(alt_year)} a year.")
        pays = "roughly pays" if value < 2 * own else "would more than pay"
        busy = median_of(ds["fleet_utilization"].sel(demand=demand)) if (
            "fleet_utilization" in ds) else float("nan")
        idle = ("" if not math.isfinite(busy) else
                f": at your demand its fleet is busy {share_of(busy)} of the time in the "
                "median scenario (served tokens over its full-load capacity; a fleet is "
                "sized for the busiest hour, in whole servers)")
        return (f"A busy server {pays} for itself (its tokens are worth about "
                f"{money(value)} an hour at API prices, against about {money(own)} an hour "
                f"to own and run), but buying costs about {money(buy_year)} a year in all, "
                f"against an API bill of about {money(api_year)} a year{idle}. Buying's "
                f"largest costs, in the median scenario, are {and_list(parts)} a year." + tail)
    return (f"At your demand the API bill, about {money(api_year)} a year, is larger than "
            f"what {NAMES[choice]} costs, about "
            f"{money(12 * median_of(ds['cost'].sel(demand=demand, strategy=choice)))} a year "
            "everything included: engineers, power, colocation, storage and tax.")


def demand_sentence(ds: xr.Dataset, demand: float) -> str:
    """The demand from which buying or the hybrid beats the API in most scenarios
    (:func:`mc_tco.decision.triggers.demand_trigger`)."""
    t = demand_trigger(ds, demand, SELF)
    if t is None:
        return ""
    if t.found:
        return (f"**Your volume grows past {tokens(t.demand)} tokens/month** (about "
                f"{users(t.demand, digits=2)}): there "
                f"{NAMES[t.strategy]} beats the "
                f"API in {prob(t.p)} of scenarios.")
    return (f"**No volume up to {tokens(t.demand)} tokens/month** makes self-hosting win in "
            f"most scenarios ({NAMES[t.strategy]} reaches {prob(t.p)} "
            "there): volume alone does not change the answer.")


def input_sentence(ds: xr.Dataset, demand: float, strategy: str, name: str,
                   rising: bool = True) -> str:
    """The value of one input beyond which ``strategy`` beats the API in most scenarios
    (:func:`mc_tco.decision.triggers.input_trigger`); "" when no such value exists."""
    t = input_trigger(ds, demand, strategy, name, rising)
    if t is None:
        return ""
    beyond = "above" if rising else "below"
    label = plain(name)
    return (f"**{label[:1].upper() + label[1:]} {beyond} {_bound(ds, name, t.value)}** (true "
            f"in {prob(t.share_beyond)} of the scenarios assumed): there {NAMES[strategy]} "
            "beats the API in at least half of them.")


def _bound(ds: xr.Dataset, name: str, v: float) -> str:
    unit = str(ds["input_unit"].sel(input=name).values) if "input_unit" in ds.coords else ""
    if unit == "1/year":
        return f"{v:+.0%} a year"
    if unit == "month":
        return f"month {v:.0f}"
    text = rounded(v, 2)
    return text + (f" {unit}" if unit not in ("1", "") else "")


def prim_trigger(ds: xr.Dataset, demand: float, strategy: str) -> str:
    """The first box of scenario discovery (PRIM) for ``strategy`` at ``demand``, in plain
    words: the combination of assumptions under which it wins most often. "" when there
    are too few winning scenarios to find one."""
    from mc_tco.decision.discovery import discover
    from mc_tco.errors import OptionError

    try:
        disc = discover(ds, strategy=strategy, at={"demand": demand})
    except OptionError:
        return ""
    if disc.status != "ok" or not disc.boxes:
        return ""
    box = disc.boxes[0]
    parts = []
    for name, (lo, hi) in box.rules().items():
        if lo is not None and hi is not None:
            parts.append(f"{plain(name)} between {_bound(ds, name, lo)} and "
                         f"{_bound(ds, name, hi)}")
        elif lo is not None:
            parts.append(f"{plain(name)} above {_bound(ds, name, lo)}")
        else:
            assert hi is not None  # a restricted input has a finite side (Box.rules)
            parts.append(f"{plain(name)} below {_bound(ds, name, hi)}")
    if not parts:
        return ""
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return (f"**All of these together: {listed}** (true in {prob(box.n_in / box.n)} of the "
            f"scenarios assumed; found by scenario discovery): there {NAMES[strategy]} beats "
            f"the API in {prob(box.wins_in / box.n_in)} of them, against "
            f"{prob(box.wins / box.n)} overall.")


def sovereignty_sentence(ds: xr.Dataset, demand: float, house: str, best: str = "") -> str:
    """What keeping data in house would have to be worth for ``house``, an option that
    keeps every token in house (:data:`mc_tco.decision.one_page.IN_HOUSE`), to match the
    API (:func:`mc_tco.decision.costs.sovereignty`). When the best alternative ``best`` is
    the hybrid, the sentence says first why it is not priced on it."""
    v = sovereignty(ds, demand, house)
    head = ("The hybrid sends its peaks to the API, so it cannot keep the data in house; of "
            f"the options that can, {NAMES[house]} has the largest expected NPV against the API. "
            if best == "hybrid" else "")
    worth = ("worth at least" if v.counted == 0 else
             "worth, beyond the book's own value of it, at least")
    counted = ("The model counts it as zero" if v.counted == 0 else
               f"The book counts it at {money(v.counted)} a year (median)")
    median = (f"would have to be {worth} {money(v.median)} a year in the median scenario"
              if money(v.median) != money(0) else
              "need be worth nothing in the median scenario, where it already pays")
    return (head + f"For {NAMES[house]} to cost no more than the API at your demand, keeping "
            f"the data in house {median}, and up to {money(v.q90)} a year to be sure in 9 "
            f"scenarios out of 10; in {prob(v.pays)} of scenarios it pays without any such "
            "value. "
            f"{counted}: if a regulator or a customer requires in-house data, compare these "
            "amounts with what that requirement is worth.")


def one_page_data(ds: xr.Dataset, demand: float, *, reason: str | None = None,
                  triggers: list[str] | None = None, demand_note: str = "") -> Summary:
    """The summary's numbers (:func:`mc_tco.decision.one_page.page_numbers`) and sentences
    at ``demand`` (a point of ``ds``'s grid,
    :func:`mc_tco.decision.at_demand.with_demands`).

    ``reason`` (one sentence) and ``triggers`` (bullets) replace the page's own wording
    (:func:`reason_sentence`, the triggers of :mod:`mc_tco.decision.triggers`) when given:
    the place where a derived reason and measurable triggers go. ``demand_note`` is the
    first screen's sentence on the demand.
    """
    nums = page_numbers(ds, demand)
    pts = [(POINTS[f], d) for f, d in nums.points]
    rows = {(ROWS[q], s): list(v) for (q, s), v in nums.table.items()}
    choice, best = nums.choice, nums.best_self
    out = Summary(demand, pts, rows, choice, nums.decision, best,
                  reason if reason is not None else reason_sentence(ds, demand, choice, best))
    out.dropped = [f for f in POINTS if f not in dict(nums.points)]
    out.demand_note = demand_note
    out.triggers = list(triggers) if triggers is not None else default_triggers(
        ds, demand, best)
    out.sovereignty = sovereignty_sentence(ds, demand, nums.best_in_house, best)
    out.risks = risks(priced_risks(ds))
    out.budget = budget_numbers(ds, demand, choice, best, nums.decision)
    return out


def default_triggers(ds: xr.Dataset, demand: float, best: str) -> list[str]:
    """The page's own triggers: the demand, four inputs and the first PRIM box at which
    ``best`` beats the API in most scenarios, and a rule requiring in-house data."""
    triggers = [demand_sentence(ds, demand)]
    for name, rising in (("api_price_level", True), ("api_price_annual_change", True),
                         ("reference_tokens_per_gpu_hour", True),
                         ("throughput_multiple", False)):
        triggers.append(input_sentence(ds, demand, best, name, rising))
    triggers.append(prim_trigger(ds, demand, best))
    triggers.append("**A rule or a customer requires the data to stay in house**: then "
                    "the question is no longer cost alone; see what sovereignty would have "
                    "to be worth, below.")
    return [t for t in triggers if t]


def budget_numbers(ds: xr.Dataset, demand: float, choice: str, best: str,
                   decision: Decision | None = None) -> Budget:
    """The summary's budget: cash by year of the recommended option first, then the
    others a company can choose; the gap over the horizon between the other side of the
    choice and the recommended one; the NPV band of the one that is not the API; the
    decision rule's numbers (``decision``) for the request's expected NPV and risk."""
    other = best if choice == "api" else "api"
    order = [choice, *(s for s in ("api", *SELF) if s != choice)]
    self_side = choice if choice != "api" else best
    return Budget(cash_by_year(ds, demand, order), cash_gap(ds, demand, other, choice),
                  quantiles_of(ds["npv"].sel(demand=demand, strategy=self_side)),
                  choice, best, decision)


def _months(x: float, strategy: str) -> str:
    """A payback month; the hybrid's 0 is a scenario where it buys no server."""
    return "no server" if strategy == "hybrid" and x == 0 else months(x)


def _cell(quantity: str, v, strategy: str = "") -> str:
    if quantity in ("chance of beating the API", "never buys a server"):
        p, lo, hi = v  # its Monte Carlo interval where it changes the rounded reading
        return prob_ci(p, lo, hi, short=True)
    if quantity == "expected NPV against the API":  # the mean ± its Monte Carlo half-width
        mean, lo, hi = v
        half = max(mean - lo, hi - mean)
        return money(mean) + (f" ± {money(half)}" if half == half else "")
    if quantity in ("payback", "simple payback"):
        lo, mid, hi = (_months(x, strategy) for x in v)
    else:
        lo, mid, hi = (money(x) for x in v)
    return mid if lo == mid == hi else f"{mid} ({lo} to {hi})"


#: where the summary's chart goes: :func:`mc_tco.report.memo.sections.section_summary`
#: splits the page here
CHART = "[[the summary's chart]]"


def _outcome_words(o, same_means: str) -> str:
    """"it saves in ..% of the scenarios (..), spends the same in ..%, costs more in ..%"."""
    def share(sh) -> str:  # with its interval where that changes the rounded figure
        return prob_ci(sh.p, sh.lower, sh.upper)

    parts = [f"saves money in {share(o.saves)} of the scenarios assumed"
             + (f" ({money(o.mean_gain)} on average there)" if o.saves.k else "")]
    if o.same.k:  # (one pair of brackets: "58% (95% MC interval 57-59%; it buys ...)")
        same = share(o.same)
        same = f"{same[:-1]}; {same_means})" if same.endswith(")") else f"{same} ({same_means})"
        parts.append(f"spends exactly what the API does in {same}")
    parts.append(f"costs more in {share(o.loses)}"
                 + (f" ({money(-o.mean_loss)} more on average there)" if o.loses.k else ""))
    return and_list(parts)


def mc_interval(lo: float, hi: float, label: str = "Monte Carlo interval") -> str:
    """"Monte Carlo interval $a to $b", or what a run without scrambles has instead."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return "no Monte Carlo interval: the run has one scramble"
    return f"{label} {money(lo)} to {money(hi)}"


def recommendation_sentence(dec: Decision, best: str, horizon_years: float = 4) -> str:
    """The recommendation by the one rule (:mod:`mc_tco.decision.rule`): the option with
    the largest expected NPV against the API, that NPV with its Monte Carlo interval, the
    runner-up's, and how often it saves, ties and loses."""
    d, h = dec.demand, f"{horizon_years:g}"
    where = (f"at your demand of {tokens(d)} tokens/month (about {users(d)} at 100M tokens "
             "a month each)")
    same_means = "it buys no server: it is the API"
    if dec.choice == "api":
        o = dec.outcomes[best]
        head = (f"**Recommendation: {RECOMMEND['api']}** {where}: no alternative is expected "
                f"to save. The best of them, {FIRST[best]}, has an expected {h}-year NPV "
                f"against the API of {money(o.mean)} "
                f"({mc_interval(o.mean_lower, o.mean_upper)}); it "
                f"{_outcome_words(o, same_means)}.")
    else:
        o = dec.outcomes[dec.choice]
        runner = ("the API (NPV $0)" if dec.runner_up == "api" else
                  f"{NAMES[dec.runner_up]} ({money(dec.expected(dec.runner_up))})")
        mostly_api = dec.choice == "hybrid" and o.same.p >= 0.5
        name = MOSTLY_API if mostly_api else RECOMMEND[dec.choice]
        head = (f"**Recommendation: {name}** {where}: of the options, the hybrid "
                if mostly_api else f"**Recommendation: {name}** {where}: of the options, it ")
        head += (f"has the largest expected {h}-year NPV against the API, {money(o.mean)} "
                 f"({mc_interval(o.mean_lower, o.mean_upper)}; the "
                 f"next best is {runner}). It {_outcome_words(o, same_means)}.")
        if mostly_api:
            head += (" Its rule buys a server only when one pays for itself at the margin "
                     "(this month's volume and measured throughput, the price trend): the "
                     "thresholds are under \"What would change this\", below.")
    if math.isfinite(dec.lead_lower) and not dec.margin:
        head += (f" The lead over the next best, {money(dec.lead)}, is within its Monte "
                 "Carlo interval: a tie of the estimates, not a finding.")
    return head


def one_page_markdown(s: Summary, horizon_years: float = 4, heading: str = "##") -> str:
    """The summary page as Markdown (a ``##`` section, or a page with ``#``); the line
    :data:`CHART` marks where the budget chart goes."""
    d = s.demand
    head = recommendation_sentence(s.decision, s.best_self, horizon_years)
    lines = [f"{heading} Summary", ""]
    if s.demand_note:
        lines += [s.demand_note, ""]
    lines += [head, "", f"**Why:** {s.reason}", ""]
    if s.budget is not None:
        lines += [request_sentence(s.budget), "", *budget_lines(s.budget), "",
                  "Nominal cash: dollars as they are paid each year (purchases, running "
                  "costs, the API bill of the traffic not served in house, less resale), "
                  "neither discounted nor after tax: what a budget holds. P10 to P90: 8 "
                  "scenarios in 10 lie between.", "", CHART, ""]
    header = ["P50 (P10 to P90) of the scenarios"] + [
        f"{tokens(x)} ({label})" for label, x in s.points]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" + "---:|" * len(s.points))
    labels = {"API bill a year": "API bill a year (level, discounted)",
              "cost a year": "cost a year (level, discounted): {s}",
              "servers, network and SSDs bought over the horizon":
                  f"servers, network and SSDs bought over {horizon_years:g} years "
                  "(buy; nominal)",
              "peak funding need": "peak funding need (nominal cash): {s}",
              "NPV against the API": f"{horizon_years:g}-year NPV against the API "
                                     "(discounted): {s}",
              "expected NPV against the API": f"expected {horizon_years:g}-year NPV against "
                                              "the API (mean; the decision rule): {s}",
              "payback": "payback (discounted): {s}",
              "simple payback": "simple payback (nominal): {s}",
              "never buys a server": "share of scenarios where it never buys a server: {s}",
              "chance of beating the API": "chance of beating the API: {s}"}
    for (quantity, strat), values in s.table.items():
        label = labels[quantity].format(s=SHORT.get(strat, strat))
        lines.append(f"| {label} | " + " | ".join(_cell(quantity, v, strat) for v in values) + " |")
    dropped = "".join(
        f" The column {POINTS[f]} ({tokens(f * d)}) is left out: it lies past the end of the "
        "results' demand grid." for f in s.dropped)
    lines += ["", "Costs a year are the level yearly equivalent of each option's discounted "
              f"after-tax cash flows over {horizon_years:g} years (hardware bought when needed "
              "and sold at the end, or when the project ends); the NPV is what self-hosting "
              "saves against the API, today's money (negative: it costs more); payback is the "
              "month the running total turns positive (discounted; simple: undiscounted), "
              "\"never\" when it does not within the horizon; a hybrid that never buys a "
              "server is the API itself (\"no server\", NPV $0). A share or a chance is "
              "given with its Monte Carlo interval in brackets where that interval changes "
              "the rounded figure." + dropped, ""]
    lines += ["**What would change this**", ""]
    lines += [f"- {t}" for t in s.triggers]
    lines += ["", "**What data sovereignty would have to be worth**", "", s.sovereignty, "",
              "**Risks the model does not price**", ""]
    lines += [f"- {r}" for r in s.risks]
    return "\n".join(lines) + "\n"
