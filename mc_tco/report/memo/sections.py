"""The TCO memo's sections: each a function ``section(ctx) -> Section | None``.

:data:`SECTIONS` is the memo, in order: the sections every memo has
(:mod:`mc_tco.report.memo.shared`: the answer, the scenarios, the family check, the
provenance; here with the TCO memo's words for them) and the TCO memo's own (the one-page
summary, the budget, the outlook by demand, the time axis, the drivers, the article's claims, the
assumptions, the comparison, the Sobol' indices, the value of information, the glossary).
:data:`APPENDIX` gives the appendix sections their letters. Adding a section is one line
in that list: a function that takes the :class:`MemoContext` and returns a
:class:`~mc_tco.report.memo.render.Section` (or None to skip).

Every sentence is computed from the results in ``ctx``: numbers come from the stored
summaries or from :mod:`mc_tco.decision`, and words that compare numbers ("ahead of",
"tied", "never") are chosen by comparing them, so no part of the memo can contradict
another.
"""


from __future__ import annotations

import xarray as xr

from mc_tco.decision.tco_data import CHOICES, STRATEGIES
from mc_tco.decision.voi import curve_extremes
from mc_tco.report.memo import figures as F
from mc_tco.report.memo import shared
from mc_tco.report.memo.answer import (
    answer_blocks,
    section_outlook,
)
from mc_tco.report.memo.base import SectionFn, run_sections
from mc_tco.report.memo.context import (
    VERB,
    MemoContext,
)
from mc_tco.report.memo.drivers import (
    section_drivers,
    section_sobol,
)
from mc_tco.report.memo.evidence import (
    section_assumptions,
    section_claims,
    section_compare,
)
from mc_tco.report.memo.fmt import tokens
from mc_tco.report.memo.one_page import CHART
from mc_tco.report.memo.render import Bullets, Figure, Paragraph, Section, markdown_section
from mc_tco.report.memo.sections_curves import section_curves
from mc_tco.report.memo.sections_why import section_why
from mc_tco.report.memo.shared import section_scenarios

__all__ = ["APPENDIX", "SECTIONS", "MemoContext", "evpi_peak_words", "tco_sections"]


def section_answer(ctx: MemoContext) -> Section:
    """The recommendation at the decision demand, and its reasons."""
    return shared.section_answer(ctx, answer_blocks(ctx))


def section_value_of_information(ctx: MemoContext) -> Section | None:
    """What is it worth to know more before deciding? (EVPI, EVPPI, issue 7)"""
    from mc_tco.decision.information import evpi_by_demand
    from mc_tco.report.decision_figures import evpi_figure
    from mc_tco.report.words.voi import voi_section

    curves = [evpi_by_demand(ctx.ds, among=among) for among in (None, ["api", *STRATEGIES])]
    among = [VERB[s] for s in CHOICES]
    figure = Figure(
        "evpi", F.png(evpi_figure(ctx.ds, evpi=curves)),
        "What perfect information is worth, by demand",
        f"Expected value of perfect information (EVPI) in USD/month, with its {ctx.level} "
        f"Monte Carlo band, for the choice among {', '.join(among[:-1])} and {among[-1]}, "
        f"and with already-owned GPUs as option {len(among) + 1}. "
        + evpi_peak_words(curves[0]),
    )
    return markdown_section(voi_section(ctx.ds, demand=ctx.demand), "value-of-information",
                            [figure])


def evpi_peak_words(evpi: xr.DataArray) -> str:
    """Where the EVPI curve is highest, in words that match the curve: at the end of the
    grid ("grows to the end of the grid") or inside it ("peaks at ...")."""
    d = evpi["demand"].values
    ext = curve_extremes(evpi.values)
    j = ext.highest
    if j is None:
        return "It cannot be estimated at any demand."
    if j == ext.size - 1:
        return (f"It is highest at the end of the grid, {tokens(d[j])} tokens/month: the "
                "stakes of a wrong choice grow with the volume.")
    if j == 0:
        return f"It is highest at the start of the grid, {tokens(d[j])} tokens/month."
    return (f"It peaks at {tokens(d[j])} tokens/month, where the choice is closest: where a "
            "memo should say 'measure this first'.")


def section_summary(ctx: MemoContext) -> Section:
    """The one-page summary for decision-makers (issue 15), the memo's first section, with
    the chart of the yearly cash where the page marks it (:data:`CHART`)."""
    from mc_tco.report.memo.figures_budget import NAMES, cash_by_year_figure

    md = ctx.one_page_markdown
    if CHART not in md:
        return markdown_section(md, "summary")
    before, after = md.split(CHART, 1)
    sec = markdown_section(before, "summary")
    table = ctx.summary_cash
    names = [NAMES.get(str(s), str(s)) for s in table["strategy"].values]
    sec.blocks.append(Figure(
        "budget", F.png(cash_by_year_figure(table)),
        "What each option puts in the budget, year by year",
        f"Nominal cash a year at {tokens(float(table.attrs['demand']))} tokens/month of "
        f"{', '.join(names[:-1])} and {names[-1]}: the median scenario (line) and P10 to "
        "P90 of the scenarios (band); the dashed line is the API's median. A negative year "
        "is the resale of the servers coming in."))
    sec.blocks += markdown_section("## x\n" + after, "summary").blocks
    return sec


def section_budget(ctx: MemoContext) -> Section:
    """The cash each option spends a year and its cost per million tokens (version 3)."""
    from mc_tco.report.memo.sections_budget import budget_section

    return budget_section(ctx)


def section_time(ctx: MemoContext) -> Section:
    """When does self-hosting pay back, how deep is the hole, what return (version 3)."""
    from mc_tco.report.memo.sections_time import time_section

    return time_section(ctx)


def section_family(ctx: MemoContext) -> Section | None:
    """Does the answer depend on the shape of the distributions? (issue 7) The family
    check over the whole grid, its flips said of the decision's point only."""
    from mc_tco.report.memo.answer import decision_strategy
    from mc_tco.report.words.family import family_section

    focus = {"strategy": decision_strategy(ctx), "demand": ctx.demand}
    md = family_section(ctx.ds, focus=focus)
    return shared.section_family(ctx, markdown_section(md, "family-check").blocks)


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
    ("Sobol' index ST / S1", "how much of the outcome's variance an assumption explains, "
                             "with (ST) or without (S1) its interactions with the others: a "
                             "share of the variance only when the inputs are independent; "
                             "with correlated inputs it describes the response to each input "
                             "moved on its own, and the ranking is by Shapley effects"),
    ("Shapley effect", "an assumption's share of the outcome's variance when inputs are "
                       "correlated (Owen 2014): the effects sum to 1"),
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
    ("nominal cash", "dollars as they are paid, neither discounted nor after tax: what a "
                     "budget holds"),
    ("cost per million tokens", "an option's level cost over the horizon divided by the "
                                "tokens demanded, both discounted: the unit price it must "
                                "beat"),
    ("P10 / P50 / P90", "the values that 10%, 50% (the median) and 90% of the scenarios "
                        "stay below"),
    ("reserved", "GPUs rented on 12-month commitments at a discount, paid whether used or "
                 "not"),
]


def section_glossary(ctx: MemoContext) -> Section:
    return Section("Glossary",
                   [Bullets([f"**{term}**: {text}." for term, text in GLOSSARY])], "glossary")


def _ci_words(ds: xr.Dataset) -> str:
    """How the Sobol' half-widths were made, in a few words."""
    run = ds.mc_tco.run
    ci = run.ci
    if ci == "rqmc":
        return f"randomized-QMC ({run.scrambles} independent scrambles)"
    return {"asymptotic": "asymptotic (delta-method)"}.get(ci, "bootstrap")


def section_provenance(ctx: MemoContext) -> Section:
    """How the results (and the compared ones) were made, and what the numbers are."""
    compared = None
    if ctx.compared is not None:
        c = ctx.compared.mc_tco.run
        compared = (f"{c.book_name} (`{c.book_path}`, SHA-256 `{c.book_sha256[:16]}…`, "
                    f"seed {c.seed}, {c.samples:,} samples; "
                    f"`{ctx.paths.get('compare', '')}`)")
    notes = Paragraph(
        "Every number above is read from the results file(s), or computed from the "
        "scenarios they store: the memo never reruns the book. Probabilities come with "
        + ("intervals from the spread of the independent scrambles (Wilson score where "
           "a scramble has no or only events)" if ctx.ds.mc_tco.run.ci == "rqmc"
           else "Wilson score intervals")
        + f", Sobol' indices with {_ci_words(ctx.ds)} half-widths; quantile bands are the "
        "spread of the assumptions. The tables are also in the CSV files next to this memo.")
    extra = [notes]
    if ctx.added:
        extra.append(Paragraph(
            f"Your demand, {tokens(ctx.demand)} tokens/month, is not a point of the run's "
            "demand grid. Its numbers (and those at half and twice it, where the grid lacks "
            "them) were computed by evaluating the model on each of the run's "
            f"{ctx.n:,} stored scenarios (the base rows, whose inputs the results file keeps) "
            "at exactly that demand, and summarised as the run summarises its grid points "
            "(P(beats the API) with its Monte Carlo interval, quantiles, the cash by year): "
            "they equal those of a run whose grid holds it. The book was not rerun. The "
            "Sobol' indices and Shapley effects need the design's other rows, which the file "
            f"does not keep: they are those of the nearest demand where the run estimated "
            f"them, "
            f"{tokens(ctx.rank_demand)}, as the ranking says."))
    return shared.section_provenance(ctx, extra, design=" (Saltelli design)",
                                     compared_with=compared)


#: The TCO memo, in order.
SECTIONS: list[SectionFn] = [
    section_summary,
    section_answer,
    section_why,
    section_budget,
    section_outlook,
    section_time,
    section_drivers,
    section_assumptions,
    section_compare,
    section_sobol,
    section_scenarios,
    section_value_of_information,
    section_family,
    section_claims,
    section_curves,
    section_glossary,
    section_provenance,
]

#: the appendix letter of each appendix section, by anchor
APPENDIX = {"sobol": "A", "scenarios": "B", "value-of-information": "C",
            "family-check": "D", "claims": "E", "curves": "F", "glossary": "G"}


#: the sections that read the compared results, written after the others (in their place):
#: ``mc-tco report`` runs the compared book while the others are written
LAST = (section_compare, section_provenance)


def tco_sections(ctx: MemoContext) -> list[Section]:
    """The memo's sections, in order (:data:`SECTIONS` without those left out), the
    appendix titled with their letters (:data:`APPENDIX`)."""
    return run_sections(ctx, SECTIONS, APPENDIX, last=LAST)
