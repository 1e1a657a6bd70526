"""Both memos are lists of sections over one context type, and the sections every memo
has are written once (issue 22, item 5)."""

from __future__ import annotations

import ast
from pathlib import Path

import xarray as xr

from mc_tco.report.memo import generic, sections, shared
from mc_tco.report.memo.base import MemoBase, run_sections
from mc_tco.report.memo.context import MemoContext
from mc_tco.report.memo.generic_context import GenericContext
from mc_tco.report.memo.render import Paragraph, Section

MEMO = Path(shared.__file__).parent


def test_run_sections_keeps_the_order_drops_none_and_letters_the_appendix():
    ctx = MemoBase(xr.Dataset())
    calls = []

    def make(title, anchor):
        def section(c):
            calls.append(title)
            assert c is ctx
            return None if title is None else Section(title, [Paragraph(title)], anchor)
        return section

    out = run_sections(ctx, [make("one", "a"), make(None, "b"), make("three", "c"),
                             make("four", "d")], {"c": "B", "x": "Z"})
    assert [s.title for s in out] == ["one", "Appendix B. three", "four"]
    assert calls == ["one", None, "three", "four"]
    assert run_sections(ctx, [make("one", "a")])[0].title == "one"


def test_both_contexts_are_memo_contexts_and_the_tco_one_names_its_point():
    ctx = MemoContext(xr.Dataset(), 5e11, command="mc-tco memo x.nc", created="today")
    assert isinstance(ctx, MemoBase) and issubclass(GenericContext, MemoBase)
    assert (ctx.target, ctx.option, ctx.point) == ("saving", "buy", {"demand": 5e11})
    assert (ctx.command, ctx.created, ctx.paths) == ("mc-tco memo x.nc", "today", {})
    assert MemoContext(xr.Dataset(), 1e12, strategy="hybrid").option == "hybrid"


def test_the_scenario_discovery_is_one_function_in_both_memos():
    assert shared.section_scenarios in sections.SECTIONS
    assert shared.section_scenarios in generic.SECTIONS


def _strings(path: Path) -> set[str]:
    return {n.value for n in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_the_shared_sections_titles_are_written_in_shared_only():
    """A memo module that titles its own "The answer", "Provenance" or family check
    writes a shared section a second time."""
    titles = {"The answer", "Provenance", shared.FAMILY_TITLE}
    assert titles <= _strings(MEMO / "shared.py")
    again = {p.name: sorted(titles & _strings(p)) for p in MEMO.glob("*.py")
             if p.name != "shared.py" and titles & _strings(p)}
    assert not again, again
