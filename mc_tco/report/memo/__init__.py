"""The investment memo: results file(s) in, Markdown + self-contained HTML + PNG + CSV out.

The memo never reruns the book: it reads the Dataset written by ``mc-tco run`` (and,
with ``compare``, a second one) and computes its figures, tables and sentences from it.

>>> from mc_tco.results.io import open_results
>>> from mc_tco.report.memo import build_memo, write_memo
>>> memo = build_memo(open_results("results/deepseek-v4.1-flash.nc"))   # doctest: +SKIP
>>> write_memo(memo, "results/deepseek-v4.1-flash")                      # doctest: +SKIP

Layout: :mod:`.base` (a memo is a list of sections, functions of a context),
:mod:`.shared` (the sections every memo has, written once), :mod:`.sections` (the TCO
memo's list, its context in :mod:`.context`) and :mod:`.generic` (any other model's, its
context in :mod:`.generic_context`); :mod:`.analysis` (numbers from the results),
:mod:`.claims` (the article's five claims), :mod:`.figures` (one function per figure),
:mod:`.render` (Markdown and HTML), :mod:`.tables` (CSV).
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mc_tco.errors import OptionError

if TYPE_CHECKING:  # the CLI imports this package at start-up: keep it light
    from collections.abc import Callable

    import xarray as xr

    from mc_tco.report.memo.context import Later

__all__ = [
    "Memo",
    "build_memo",
    "check_out_dir",
    "default_out_dir",
    "write_memo",
]

TITLE = "Buy GPUs, rent them, or keep paying the API? — an investment memo"
SUMMARY_TITLE = "Buy GPUs, rent them, or keep paying the API? — the one-page summary"


@dataclass
class Memo:
    """A rendered memo, in memory: nothing is written until :func:`write_memo`."""

    markdown: str
    html: str
    figures: dict[str, bytes]
    tables: dict[str, str]
    sections: list[str] = field(default_factory=list)
    #: the one-page summary: ``{"summary.md": ..., "summary.html": ...}``
    summary: dict[str, str] = field(default_factory=dict)

    def files(self) -> dict[str, bytes]:
        """Relative path -> content of every file of the memo folder."""
        out = {f"figures/{name}.png": png for name, png in self.figures.items()}
        out.update({name: text.encode() for name, text in self.summary.items()})
        out.update({name: text.encode() for name, text in self.tables.items()})
        out["memo.md"] = self.markdown.encode()
        out["memo.html"] = self.html.encode()
        return out


def build_memo(
    ds: xr.Dataset,
    *,
    compare: xr.Dataset | Later | None = None,
    demand: float | None = None,
    command: str = "",
    paths: dict | None = None,
    created: str | None = None,
    at: dict | None = None,
    background_figures: bool | Callable[[], bool] = False,
) -> Memo:
    """Compute and render the memo of a results dataset.

    A results file of the TCO model gets the investment memo; any other model's gets the
    generic memo (:mod:`mc_tco.report.memo.generic`: the answer, bands, ranking, tornado, PRIM,
    value of information, the model's distributions).

    Parameters
    ----------
    ds : xr.Dataset
        Results of ``mc-tco run`` (:func:`mc_tco.results.io.open_results`).
    compare : xr.Dataset or Later, optional
        Results of a second book, set beside the first (TCO memo only); a
        :class:`~mc_tco.report.memo.context.Later` is made (and checked) only when the
        sections that read it are written, after the others (``mc-tco report`` runs the
        second book meanwhile).
    demand : float, optional
        Decision demand in tokens/month, any value inside the grid's range (default: the
        focus demand of the results' book, :func:`mc_tco.decision.tco_data.focus_demand`;
        for another model the focus point). A demand the grid lacks, and half and twice
        it, are evaluated on the file's stored scenarios
        (:func:`mc_tco.decision.at_demand.with_demands`); the Sobol' ranking is then the
        nearest grid point's, and the memo says so.
    at : dict, optional
        Grid values by dim for the generic memo (``{"volume": 2}``); default the file's
        focus point, else the middle of each grid.
    command : str
        The command line that regenerates the memo, shown under provenance.
    paths : dict, optional
        ``{"results": ..., "compare": ...}``: file names shown under provenance (and used
        in error messages).
    created : str, optional
        Date shown under provenance (default: now, UTC).
    background_figures : bool or callable
        Draw the figures in child processes on the other cores while the sections are
        written (:mod:`mc_tco.report.memo.background`; the same bytes). ``mc-tco memo`` and
        ``report`` do; the default draws them here, as a library caller or a server
        thread expects. A function: no child starts before it returns True (``report``:
        not while its compared run writes its results file in another thread).

    Raises
    ------
    OptionError
        If a dataset is not a results file of ``mc-tco run`` (or a TCO run that kept only
        its targets), or ``demand`` is outside its grid's range.
    """
    from mc_tco.report.memo.background import rendering

    with rendering(background_figures):
        return _build_memo(ds, compare=compare, demand=demand, command=command, paths=paths,
                           created=created, at=at)


def _build_memo(ds, *, compare, demand, command, paths, created, at) -> Memo:
    """:func:`build_memo` (its figures drawn where :mod:`.background` says)."""
    from mc_tco.decision.at_demand import decision_demand, memo_demands, with_demands
    from mc_tco.decision.tco_data import check_results, focus_demand, is_tco_model

    paths = dict(paths or {})
    if not is_tco_model(ds, paths.get("results", "results")):
        if compare is not None:
            raise OptionError(f"{paths.get('results', 'results')}: --compare sets two runs of "
                              "the TCO model side by side; this file is another model's: "
                              "drop --compare")
        return _generic_memo(ds, demand=demand, at=at, command=command, paths=paths,
                             created=created)
    ds = ds.mc_tco.at_input_grid(**(at or {}))  # one value of each [grid.<input>], said below
    at = {k: v for k, v in (at or {}).items() if k not in ds.mc_tco.input_grid_at}
    if at:
        raise OptionError(f"--at {next(iter(at))}: the TCO memo is at one demand; use "
                          "--demand")
    from mc_tco.report.memo.answer import decision_strategy
    from mc_tco.report.memo.context import Later, MemoContext
    from mc_tco.report.memo.fmt import tokens
    from mc_tco.report.memo.sections import tco_sections
    from mc_tco.report.memo.tables import csv_tables
    from mc_tco.report.words.input_grid import input_grid_note

    asked = demand is not None
    demand = focus_demand(ds) if demand is None else demand
    check_results(ds, paths.get("results", "results"))
    grid_at = ds.mc_tco.input_grid_at
    d = decision_demand(ds, demand)

    def prepared(other: xr.Dataset) -> xr.Dataset:
        """The compared results, checked, at the same values of the grid inputs they
        share, with the decision demand."""
        other = other.mc_tco.at_input_grid(**grid_at)
        check_results(other, paths.get("compare", "--compare results"))
        decision_demand(other, d, "--demand (in the --compare results)")
        return with_demands(other, [d])

    if isinstance(compare, Later):
        source = compare
        compare = Later(lambda: prepared(source.get()))
    elif compare is not None:  # checked before anything is written
        compare = prepared(compare)
    ds = with_demands(ds, memo_demands(ds, d))
    kw = {"created": created} if created else {}
    first = MemoContext(ds, d, compare=compare, command=command, paths=paths,
                        demand_asked=asked, **kw)
    ctx = replace(first, strategy=decision_strategy(first))
    sections = tco_sections(ctx)
    run, other = ds.mc_tco.run, ctx.compared
    subtitle = (f"Book: **{run.book_name}** "
                f"(`{run.book_path}`), {ctx.n:,} scenarios"
                + (f", compared with **{other.mc_tco.run.book_name}**"
                   if other is not None else "")
                + f". Decision demand {tokens(d)} tokens/month. Written {ctx.created}."
                + (" " + input_grid_note(ds, "mc-tco memo --at NAME=VALUE") + "."
                   if ds.mc_tco.input_grid_at else ""))
    return _memo(sections, TITLE, SUMMARY_TITLE, subtitle, lambda: csv_tables(ctx))


def _generic_memo(ds, *, demand, at, command, paths, created) -> Memo:
    """The memo of any model's results (:mod:`.generic`)."""
    from mc_tco.report.memo.generic import generic_context, generic_sections, generic_tables

    at = dict(at or {})
    if demand is not None:
        at["demand"] = demand
    ctx = generic_context(ds, at=at, command=command, paths=paths, created=created)
    run = ds.mc_tco.run
    subtitle = (f"Book: **{run.book_name}** (`{run.book_path}`), model "
                f"`{run.model or ''}`, {ctx.n:,} scenarios"
                + (f", at {ctx.where}" if ctx.where else "") + f". Written {ctx.created}.")
    name = run.book_name or "the results"
    return _memo(generic_sections(ctx), f"{name} — a decision memo", f"{name} — the answer",
                 subtitle, lambda: generic_tables(ctx))


def _memo(sections: list, title: str, page_title: str, subtitle: str, tables) -> Memo:
    """The memo of ``sections`` and its one-page summary (the first section); ``tables()``
    gives the CSV files (called after the sections: a section may keep a table's numbers
    in the context)."""
    from mc_tco.report.memo.render import Document, to_html, to_markdown

    doc = Document(title, subtitle, sections)
    page = Document(page_title, subtitle + " The full memo: memo.html.", [sections[0]])
    csv = tables()  # (before the HTML reads the figures: children may still be drawing them)
    return Memo(to_markdown(doc), to_html(doc), doc.figures, csv,
                [s.title for s in sections],
                {"summary.md": to_markdown(page), "summary.html": to_html(page)})


def default_out_dir(results: str | Path) -> Path:
    """``results/<stem>.nc`` -> ``results/<stem>/``."""
    p = Path(results)
    return p.with_suffix("") if p.suffix else p.with_name(p.name + "_memo")


def check_out_dir(out_dir: str | Path) -> None:
    """Fail before any work if ``out_dir`` cannot be created or written (creates nothing)."""
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise OptionError(f"--out-dir {out_dir}: is a file; give a folder")
    probe = out_dir
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if probe.exists() and (not probe.is_dir() or not os.access(probe, os.W_OK)):
        raise OptionError(f"--out-dir {out_dir}: {probe} is not a writable folder; "
                          "choose another --out-dir")


def _check_dir(out_dir: Path) -> None:
    if out_dir.exists() and not out_dir.is_dir():
        raise OptionError(f"--out-dir {out_dir}: is a file; give a folder")
    try:
        (out_dir / "figures").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OptionError(
            f"--out-dir {out_dir}: cannot create it ({exc.strerror}); choose another --out-dir"
        ) from None
    for folder in (out_dir, out_dir / "figures"):
        if not os.access(folder, os.W_OK):
            raise OptionError(f"--out-dir {folder}: not writable; choose another --out-dir")


def write_memo(memo: Memo, out_dir: str | Path) -> list[Path]:
    """Write the memo's files into ``out_dir``; all of them or none.

    Every file is first written to a temporary file next to its target
    (:func:`mc_tco.results.io.atomic_path`); only when all are written are they renamed into
    place, memo.md and memo.html last. On any error every temporary file is removed and
    the folder keeps its previous memo. Figures and tables of an earlier memo that this
    one no longer has (e.g. the comparison) are then removed.

    Returns
    -------
    list of Path
        The files written.
    """
    from mc_tco.report.memo.tables import TABLES
    from mc_tco.results.io import atomic_path

    out_dir = Path(out_dir)
    _check_dir(out_dir)
    files = memo.files()
    # atomic_path renames on exit, and an ExitStack exits last-in first-out: enter the
    # memo itself first so that it is renamed after every file it refers to.
    order = sorted(files, key=lambda k: (k not in ("memo.md", "memo.html"), k))
    written = []
    with contextlib.ExitStack() as stack:
        for rel in order:
            tmp = stack.enter_context(atomic_path(out_dir / rel))
            tmp.write_bytes(files[rel])
            written.append(out_dir / rel)
    keep = set(files)
    for png in (out_dir / "figures").glob("*.png"):
        if f"figures/{png.name}" not in keep:
            png.unlink()
    from mc_tco.report.memo.generic import GENERIC_TABLES

    for stem in (*TABLES, *GENERIC_TABLES):
        stale = out_dir / f"{stem}.csv"
        if stale.name not in keep and stale.exists():
            stale.unlink()
    return sorted(written)
