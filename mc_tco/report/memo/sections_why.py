"""The TCO memo's section "Why, what to watch, and what a pilot is worth" (issue 24,
points 3, 6 and 7): the derived reason, the triggers a person can watch and the pilot's
EVSI at the decision demand, numbers from :func:`mc_tco.decision.why.why_numbers`, words
from :mod:`mc_tco.report.words.why` (whose sentence functions the summary may call on the
same :class:`~mc_tco.decision.why.Why`: :func:`why_at`)."""

from __future__ import annotations

from mc_tco.decision.why import Why, why_numbers
from mc_tco.report.memo.context import MemoContext
from mc_tco.report.memo.render import Section, markdown_section
from mc_tco.report.words.why import why_markdown

__all__ = ["section_why", "why_at"]


def why_at(ctx: MemoContext) -> Why:
    """The numbers of the section at the memo's decision demand."""
    return why_numbers(ctx.ds, ctx.demand)


def section_why(ctx: MemoContext) -> Section:
    """Why the answer is what it is, when to revisit it, and whether to run a pilot."""
    return markdown_section(why_markdown(why_at(ctx)), "why")
