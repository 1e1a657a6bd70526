"""The one-page summary for a CFO (issue 15): the recommendation, the reason in one
sentence, a table in dollars a year at your demand and at half and twice it, what would
change the answer, what data sovereignty would have to be worth, and the risks the model
does not price.

Every number is computed here from the results file (medians over the scenarios, the
stored probabilities) and rounded by :mod:`mc_tco.report.memo.fmt`'s rules; words that compare
numbers are chosen by comparing them. :func:`one_page_data` returns the raw numbers (tested
against the dataset), :func:`one_page_markdown` the page.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from mc_tco.report.fmt import rounded
from mc_tco.report.memo.analysis import CHOICES, nearest_point
from mc_tco.report.memo.fmt import money, months, prob, tokens, users
from mc_tco.report.memo.labels import plain
from mc_tco.uncertainty.scrambles import MIN_EVENTS

__all__ = ["RISKS", "Summary", "one_page_data", "one_page_markdown"]

NAMES = {"api": "the API", "buy": "buying the servers", "rent": "renting the GPUs",
         "hybrid": "the hybrid"}
#: the first mention of a strategy on the page says what it is
FIRST = {**NAMES, "hybrid": "the hybrid (buy the servers demand keeps busy, send the peaks "
                            "to the API)"}
SHORT = {"api": "API", "buy": "buy", "rent": "rent", "hybrid": "hybrid"}
RECOMMEND = {"api": "Keep paying the API", "buy": "Buy the servers",
             "rent": "Rent the GPUs",
             "hybrid": "Buy a base-load fleet and send the peaks to the API (hybrid)"}
SELF = ("buy", "rent", "hybrid")

#: what the model leaves out, said plainly (each a real way the answer could be wrong)
RISKS = [
    "Lock-in: a self-built stack serves one model; a successor model may need new "
    "hardware or new engineering before the servers are paid off.",
    "People: the one or two engineers who build the KV-cache management and load "
    "balancing may leave; the model prices their salary, not their replacement.",
    "Hardware: failures, spare parts and delivery delays beyond the setup months assumed.",
    "Regulation: a rule that stops or restricts use is priced only as a higher discount "
    "rate, not as a sudden stop.",
    "The API side: rate limits, outages, changed terms, or a price move outside the range "
    "assumed.",
    "Demand: the model assumes the planned volume arrives (after a ramp); a project that "
    "is cancelled leaves the servers idle.",
    "Security and compliance: incidents, audits and certifications of an in-house stack.",
]


@dataclass
class Summary:
    """The numbers of the summary (raw, unrounded) and its sentences."""

    demand: float
    points: list[tuple[str, float]]
    #: (row label, strategy or "", quantity) -> per point value
    table: dict[tuple[str, str], list[float]]
    choice: str
    choice_share: float
    best_self: str
    reason: str
    triggers: list[str] = field(default_factory=list)
    sovereignty: str = ""


def _input(ds: xr.Dataset, name: str) -> xr.DataArray | float:
    """An input per sample (from ``input_value``) or its constant."""
    if name in map(str, ds["input"].values):
        return ds["input_value"].sel(input=name, drop=True)
    constants = ds.mc_tco.constants
    if name in constants:
        return float(constants[name])
    raise KeyError(name)


def _median(da: xr.DataArray) -> float:
    v = np.asarray(da.values, dtype=float)
    v = v[~np.isnan(v)]
    return float(np.quantile(v, 0.5, method="inverted_cdf")) if v.size else math.nan


def cheapest(ds: xr.Dataset, demand: float) -> dict[str, float]:
    """Share of scenarios where each of api, buy, rent, hybrid costs least (ties: API)."""
    cost = ds["cost"].sel(demand=demand, strategy=list(CHOICES)).transpose("sample", ...)
    best = np.argmin(cost.values, axis=1)
    return {s: float(np.mean(best == i)) for i, s in enumerate(CHOICES)}


def p_beats(ds: xr.Dataset, strategy: str, demand: float) -> float:
    """The stored P(strategy beats the API) at a grid demand."""
    return float(ds["p_positive"].sel(target="saving>0", strategy=strategy, demand=demand))


def node_hour(ds: xr.Dataset) -> tuple[float, float]:
    """Medians of (API value of a busy node's tokens, cost of owning and running it), USD
    an hour, at the start of the horizon.

    The API value is ``node_api_revenue_per_hour * utilization``; the cost is the yearly
    capital cost of the server (its loss of resale value, the cost of capital and upkeep,
    as shares of its price) over 8,760 hours, plus its power.
    """
    value = ds["node_api_revenue_per_hour"] * _input(ds, "utilization")
    own = (_input(ds, "node_price") * (_input(ds, "node_annual_depreciation")
                                       + _input(ds, "discount_rate")
                                       + _input(ds, "maintenance_fraction")) / 8760
           + _input(ds, "node_power_kw") * _input(ds, "pue") * _input(ds, "electricity_price"))
    own = own if isinstance(own, xr.DataArray) else xr.DataArray(np.full(value.shape, own))
    return _median(value), _median(own)


def reason_sentence(ds: xr.Dataset, demand: float, choice: str, best: str) -> str:
    """Why the answer is what it is, in one sentence, from the medians."""
    api_year = 12 * _median(ds["cost"].sel(demand=demand, strategy="api"))
    alt_year = 12 * _median(ds["cost"].sel(demand=demand, strategy=best))
    value, own = node_hour(ds)
    comp = ds["cost_component"].sel(demand=demand)
    staff = 12 * _median(comp.sel(component="staff"))
    storage = 12 * _median(comp.sel(component="storage"))
    if choice == "api":
        if value < own:
            return (f"Every extra server costs more to own and run (about {money(own)} an "
                    f"hour) than the API bill for the tokens it can serve (about "
                    f"{money(value)} an hour), so self-hosting only adds cost: at your "
                    f"demand the API costs about {money(api_year)} a year against "
                    f"{money(alt_year)} for {NAMES[best]}.")
        return (f"A busy server roughly pays for itself (its tokens are worth about "
                f"{money(value)} an hour at API prices, against about {money(own)} an hour "
                f"to own and run), but the fixed costs of self-hosting, about "
                f"{money(staff)} a year of engineers and {money(storage)} a year of "
                f"KV-cache storage, are too large for an API bill of about "
                f"{money(api_year)} a year: {NAMES[best]} costs about {money(alt_year)} a "
                "year.")
    return (f"At your demand the API bill, about {money(api_year)} a year, is larger than "
            f"what {NAMES[choice]} costs, about "
            f"{money(12 * _median(ds['cost'].sel(demand=demand, strategy=choice)))} a year "
            "including engineers, power and storage.")


def demand_trigger(ds: xr.Dataset, demand: float, best: str) -> str:
    """The demand from which buying or the hybrid beats the API in most scenarios."""
    grid = ds["demand"].values
    for d in grid[grid > demand]:
        winners = [s for s in ("buy", "hybrid") if p_beats(ds, s, d) >= 0.5]
        if winners:
            s = max(winners, key=lambda s: p_beats(ds, s, d))
            return (f"**Your volume grows past {tokens(d)} tokens/month** (about "
                    f"{users(d, digits=2)}): there "
                    f"{NAMES[s]} beats the "
                    f"API in {prob(p_beats(ds, s, d))} of scenarios.")
    if demand >= grid[-1]:
        return ""
    top = max(("buy", "hybrid"), key=lambda s: p_beats(ds, s, grid[-1]))
    return (f"**No volume up to {tokens(grid[-1])} tokens/month** makes self-hosting win in "
            f"most scenarios ({NAMES[top]} reaches {prob(p_beats(ds, top, grid[-1]))} "
            "there): volume alone does not change the answer.")


def input_trigger(ds: xr.Dataset, demand: float, strategy: str, name: str,
                  rising: bool = True) -> str:
    """The value of one input beyond which ``strategy`` beats the API in most scenarios.

    Scenarios are sorted by the input; the trigger is the least extreme value ``x`` such
    that among the scenarios with the input beyond ``x`` (at least ``MIN_EVENTS`` of
    them) the strategy beats the API in at least half. "" when no such value exists.
    """
    try:
        x = _input(ds, name)
    except KeyError:
        return ""
    if not isinstance(x, xr.DataArray):
        return ""
    win = (ds["saving"].sel(demand=demand, strategy=strategy) > 0).values
    order = np.argsort(-x.values if rising else x.values, kind="stable")
    xs, ws = x.values[order], win[order]
    share = np.cumsum(ws) / np.arange(1, ws.size + 1)  # win rate among the most extreme k
    ok = np.flatnonzero((share >= 0.5) & (np.arange(1, ws.size + 1) >= MIN_EVENTS))
    if ok.size == 0:
        return ""
    k = int(ok[-1])
    value = xs[k]
    beyond = "above" if rising else "below"
    unit = str(ds["input_unit"].sel(input=name).values) if "input_unit" in ds.coords else ""
    if unit == "1/year":
        shown = f"{value:+.0%} a year"
    else:
        shown = rounded(value, 2) + (f" {unit}" if unit not in ("1", "") else "")
    label = plain(name)
    return (f"**{label[:1].upper() + label[1:]} {beyond} {shown}** (true in "
            f"{prob((k + 1) / ws.size)} of the scenarios assumed): there {NAMES[strategy]} "
            "beats the API in at least half of them.")


def _bound(ds: xr.Dataset, name: str, v: float) -> str:
    unit = str(ds["input_unit"].sel(input=name).values) if "input_unit" in ds.coords else ""
    if unit == "1/year":
        return f"{v:+.0%} a year"
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
            parts.append(f"{plain(name)} below {_bound(ds, name, hi)}")
    if not parts:
        return ""
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return (f"**All of these together: {listed}** (true in {prob(box.n_in / box.n)} of the "
            f"scenarios assumed; found by scenario discovery): there {NAMES[strategy]} beats "
            f"the API in {prob(box.wins_in / box.n_in)} of them, against "
            f"{prob(box.wins / box.n)} overall.")


def sovereignty_sentence(ds: xr.Dataset, demand: float, best: str) -> str:
    """What keeping data in house would have to be worth for ``best`` to match the API."""
    need = -12 * ds["saving"].sel(demand=demand, strategy=best)  # USD/year
    pays = float((need < 0).mean())
    v = np.sort(np.maximum(need.values, 0))
    med = float(np.quantile(v, 0.5, method="inverted_cdf"))
    hi = float(np.quantile(v, 0.9, method="inverted_cdf"))
    return (f"For {NAMES[best]} to cost no more than the API at your demand, keeping the "
            f"data in house would have to be worth at least {money(med)} a year in the "
            f"median scenario, and up to {money(hi)} a year to be sure in 9 scenarios out of "
            f"10; in {prob(pays)} of scenarios it pays without any such value. The model "
            "counts it as zero: if a regulator or a customer requires in-house data, "
            "compare these amounts with what that requirement is worth.")


def one_page_data(ds: xr.Dataset, demand: float) -> Summary:
    """The summary's numbers and sentences at ``demand`` (a grid point)."""
    pts = [("½× your demand", nearest_point(ds, demand / 2)), ("your demand", demand),
           ("2× your demand", nearest_point(ds, demand * 2))]
    rows: dict[tuple[str, str], list[float]] = {}

    def put(label: str, s: str, f):
        rows[(label, s)] = [f(d) for _, d in pts]

    cost = ds["cost"]
    put("API bill a year", "api", lambda d: 12 * _median(cost.sel(demand=d, strategy="api")))
    for s in SELF:
        put("cost a year", s, lambda d, s=s: 12 * _median(cost.sel(demand=d, strategy=s)))
    put("servers and SSDs bought over the horizon", "buy",
        lambda d: _median(ds["investment"].sel(demand=d)))
    for s in ("buy", "hybrid"):
        put("peak funding need", s,
            lambda d, s=s: _median(ds["peak_cash_need"].sel(demand=d, strategy=s)))
    for s in ("buy", "hybrid"):
        put("NPV against the API", s,
            lambda d, s=s: _median(ds["npv"].sel(demand=d, strategy=s)))
    for s in ("buy", "hybrid"):
        put("payback", s,
            lambda d, s=s: _median(ds["payback_months"].sel(demand=d, strategy=s)))
    for s in SELF:
        put("chance of beating the API", s, lambda d, s=s: p_beats(ds, s, d))
    shares = cheapest(ds, demand)
    choice = max(shares, key=shares.get)
    best = max(SELF, key=lambda s: p_beats(ds, s, demand))
    out = Summary(demand, pts, rows, choice, shares[choice], best,
                  reason_sentence(ds, demand, choice, best))
    triggers = [demand_trigger(ds, demand, best)]
    for name, rising in (("api_price_level", True), ("api_price_annual_change", True),
                         ("reference_tokens_per_gpu_hour", True),
                         ("throughput_multiple", False)):
        triggers.append(input_trigger(ds, demand, best, name, rising))
    triggers.append(prim_trigger(ds, demand, best))
    triggers.append("**A rule or a customer requires the data to stay in house**: then "
                    "the question is no longer cost alone; see what sovereignty would have "
                    "to be worth, below.")
    out.triggers = [t for t in triggers if t]
    out.sovereignty = sovereignty_sentence(ds, demand, best)
    return out


def _cell(quantity: str, v: float) -> str:
    if quantity == "payback":
        return months(v)
    if quantity == "chance of beating the API":
        return prob(v)
    return money(v)


def one_page_markdown(s: Summary, horizon_years: float = 4, heading: str = "##") -> str:
    """The summary page as Markdown (a ``##`` section, or a page with ``#``)."""
    d = s.demand
    head = (f"**Recommendation: {RECOMMEND[s.choice]}** at your demand of {tokens(d)} "
            f"tokens/month (about "
            f"{users(d)} at 100M tokens a month each): it is the cheapest "
            f"option in {prob(s.choice_share)} of the scenarios assumed.")
    if s.choice == "api":
        p = s.table[("chance of beating the API", s.best_self)][1]
        head += (f" The best alternative, {FIRST[s.best_self]}, beats the API in "
                 f"{prob(p)} of them.")
    lines = [f"{heading} Summary", "", head, "", f"**Why:** {s.reason}", "",
             "Your demand is the volume you plan for at the end of the ramp; set it to your "
             "measured volume with `mc-tco memo RESULTS --demand 800B` and this page is "
             "recomputed.", ""]
    header = ["in dollars a year, median scenario"] + [
        f"{tokens(x)} ({label})" for label, x in s.points]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" + "---:|" * len(s.points))
    labels = {"API bill a year": "API bill a year",
              "cost a year": "cost a year: {s}",
              "servers and SSDs bought over the horizon":
                  f"servers and SSDs bought over {horizon_years:g} years (buy)",
              "peak funding need": "peak funding need: {s}",
              "NPV against the API": f"{horizon_years:g}-year NPV against the API: {{s}}",
              "payback": "payback: {s}",
              "chance of beating the API": "chance of beating the API: {s}"}
    for (quantity, strat), values in s.table.items():
        label = labels[quantity].format(s=SHORT.get(strat, strat))
        lines.append(f"| {label} | " + " | ".join(_cell(quantity, v) for v in values) + " |")
    lines += ["", "Costs a year are the level yearly equivalent of each option's discounted "
              f"cash flows over {horizon_years:g} years (hardware bought when needed and sold "
              "at the end); the NPV is what self-hosting saves against the API, today's "
              "money (negative: it costs more); payback is the month the running total "
              "turns positive, \"never\" when it does not within the horizon.", ""]
    lines += ["**What would change this**", ""]
    lines += [f"- {t}" for t in s.triggers]
    lines += ["", "**What data sovereignty would have to be worth**", "", s.sovereignty, "",
              "**Risks the model does not price**", ""]
    lines += [f"- {r}" for r in RISKS]
    return "\n".join(lines) + "\n"
