"""What every memo is made of: a context, a list of sections, and their document.

A memo is a list of sections, each a function ``section(ctx) -> Section | None`` (None:
the section is left out) of one context. :class:`MemoBase` is what every context holds
(the results, how the memo was asked for) and what the sections written once for every
memo (:mod:`mc_tco.report.memo.shared`) read from it; the TCO memo's context
(:class:`mc_tco.report.memo.context.MemoContext`) and the generic memo's
(:class:`mc_tco.report.memo.generic_context.GenericContext`) add what their own sections
need. The two memos are the lists :data:`mc_tco.report.memo.sections.SECTIONS` and
:data:`mc_tco.report.memo.generic.SECTIONS`.

Layers, bottom up (no module imports one above it): this module and
:mod:`~mc_tco.report.memo.render`; the contexts; the sections; the memos' section lists;
:mod:`mc_tco.report.memo` (``build_memo``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import xarray as xr

    from mc_tco.report.memo.render import Section

__all__ = ["MemoBase", "PointMemo", "SectionFn", "run_sections"]

#: a section of a memo: the context in, the section (or None to leave it out) out
SectionFn = Callable[[Any], "Section | None"]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass
class MemoBase:
    """The context every memo's sections read.

    A subclass names the point the memo explains, as attributes or properties:
    ``target`` (the output explained, e.g. ``saving``), ``option`` (the alternative
    explained, or None for a model without alternatives) and ``point`` (the grid point,
    ``{dim: value}``, without the alternatives' dim).

    Parameters
    ----------
    ds : xr.Dataset
        Results of ``mc-tco run``, loaded.
    command : str
        The command line that regenerates the memo (printed under provenance).
    paths : dict
        ``{"results": ..., "compare": ...}``: the files the memo was made from.
    created : str
        When the memo was written (default: now, UTC).
    """

    ds: xr.Dataset
    command: str = field(default="", kw_only=True)
    paths: dict = field(default_factory=dict, kw_only=True)
    created: str = field(default_factory=_now, kw_only=True)

    @property
    def n(self) -> int:
        """The number of scenarios (base samples)."""
        return int(self.ds.sizes["sample"])

    @property
    def conf(self) -> float:
        """The run's interval level (``--conf-level``), e.g. 0.95."""
        return self.ds.mc_tco.run.conf_level

    @property
    def level(self) -> str:
        """The run's interval level as people read it, e.g. '95%'."""
        return f"{self.ds.mc_tco.conf_level:.0%}"


class PointMemo(Protocol):
    """What the sections written once for every memo read (:mod:`mc_tco.report.memo.shared`):
    a :class:`MemoBase` whose subclass names ``target``, ``option`` and ``point`` (the
    static type of what this module's docstring describes)."""

    @property
    def ds(self) -> xr.Dataset: ...  # noqa: D102
    @property
    def command(self) -> str: ...  # noqa: D102
    @property
    def paths(self) -> dict: ...  # noqa: D102
    @property
    def created(self) -> str: ...  # noqa: D102
    @property
    def level(self) -> str: ...  # noqa: D102
    @property
    def target(self) -> str: ...  # noqa: D102
    @property
    def option(self) -> str | None: ...  # noqa: D102
    @property
    def point(self) -> dict: ...  # noqa: D102


def run_sections(ctx: MemoBase, sections: Sequence[SectionFn],
                 appendix: dict[str, str] | None = None,
                 last: Sequence[SectionFn] = ()) -> list[Section]:
    """The sections of ``ctx``, in order, without the ones that return None.

    ``appendix`` maps a section's anchor to its appendix letter: its title becomes
    "Appendix B. <title>". The sections of ``last`` are written after all the others
    (and still placed in order): those that wait for something still being made.
    """
    made: dict[int, Section | None] = {}
    for i, f in enumerate(sections):
        if f not in last:
            made[i] = f(ctx)
    for i, f in enumerate(sections):
        if f in last:
            made[i] = f(ctx)
    out = []
    for i in range(len(sections)):
        sec = made[i]
        if sec is None:
            continue
        letter = (appendix or {}).get(sec.anchor)
        if letter:
            sec.title = f"Appendix {letter}. {sec.title}"
        out.append(sec)
    return out
