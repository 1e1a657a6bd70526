"""The sections every memo has, written once: the answer, the scenario discovery, the
family check and the provenance.

Each reads a :class:`~mc_tco.report.memo.base.PointMemo` (its ``target``, ``option`` and
``point``: what the model declares and where the memo stands) and takes, as arguments, what
a memo says in its own words: the TCO memo (:mod:`mc_tco.report.memo.sections`) and the
generic one (:mod:`mc_tco.report.memo.generic`) pass their answer and family-check bodies
and their provenance notes.
"""

from __future__ import annotations

from collections.abc import Callable

from mc_tco.errors import OptionError
from mc_tco.report.memo.base import PointMemo
from mc_tco.report.memo.provenance import provenance_rows
from mc_tco.report.memo.render import Paragraph, Section, Table, markdown_section

__all__ = ["FAMILY_TITLE", "decision_section", "section_answer", "section_family",
           "section_provenance", "section_scenarios"]

FAMILY_TITLE = "Does the answer depend on the shape of the distributions?"


def section_answer(ctx: PointMemo, blocks: list) -> Section:
    """The section "The answer": ``blocks`` are the memo's own (the TCO memo's
    recommendation, :func:`mc_tco.report.memo.answer.answer_blocks`; any model's P(target >
    0) per alternative, :func:`mc_tco.report.memo.generic_answer.answer_blocks`)."""
    return Section("The answer", blocks, "answer")


def decision_section(what: str, anchor: str, make: Callable[[], str]) -> Section:
    """The section of one of :mod:`mc_tco.decision`'s analyses: ``make()``'s Markdown (see
    :func:`mc_tco.report.memo.render.markdown_section`), or, when the analysis cannot be
    made for these results (an :class:`OptionError`), ``what`` and why not."""
    try:
        return markdown_section(make(), anchor)
    except OptionError as exc:
        return Section(what, [Paragraph(f"Not computed: {exc}")], anchor)


def section_scenarios(ctx: PointMemo) -> Section:
    """Under which conditions does the option win? Scenario discovery (PRIM) of
    ``ctx.target > 0`` for ``ctx.option`` at ``ctx.point``
    (:func:`mc_tco.decision.discovery.discover`) and, when too few scenarios win or lose
    there, at the nearest grid value with enough of both."""
    from mc_tco.decision.discovery import Scenarios, discover
    from mc_tco.report.words.prim import scenario_markdown

    def make() -> str:
        first = discover(ctx.ds, strategy=ctx.option, at=ctx.point, target=ctx.target,
                         path=ctx.paths.get("results"))
        s, nearest = first.suggestion, None
        if first.status.startswith("too few") and s:
            nearest = discover(ctx.ds, strategy=ctx.option, target=ctx.target,
                               at={**ctx.point, s["dim"]: s["value"]})
        return scenario_markdown(Scenarios(first, nearest), ctx.ds)

    return decision_section("Under which conditions?", "scenarios", make)


def section_family(ctx: PointMemo, blocks: list | None) -> Section | None:
    """The section "Does the answer depend on the shape of the distributions?" (the family
    check): ``blocks`` are the memo's own (None: the section is left out)."""
    return None if blocks is None else Section(FAMILY_TITLE, blocks, "family-check")


def section_provenance(ctx: PointMemo, notes: list, *, model: bool = False,
                       design: str = "", compared_with: str | None = None) -> Section:
    """The section "Provenance": the table of :func:`provenance_rows` (book, results,
    samples, seed, intervals, versions, date), the command that regenerates the memo, then
    ``notes`` (the memo's own blocks: what its numbers are)."""
    rows = provenance_rows(ctx.ds.mc_tco.run, results=ctx.paths.get("results", ""),
                           level=ctx.level, created=ctx.created, model=model, design=design,
                           compared_with=compared_with)
    return Section("Provenance", [
        Table(["", ""], rows, "ll"),
        Paragraph(f"Regenerate this memo with: `{ctx.command}`" if ctx.command else
                  "Regenerate the results with `mc-tco run` and the memo with `mc-tco memo`."),
        *notes,
    ], "provenance")
