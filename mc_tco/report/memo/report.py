"""The report: run both shipped books (with their family checks) and write the memo.

:func:`make_report` is what ``mc-tco report`` does, callable from Python. The books are
checked before anything runs; every results file is written atomically; the memo reads the
files just written. The article's book runs while the memo's own sections are written (on
the core the memo leaves idle; :func:`_memo_beside`): the memo is the same, byte for byte.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mc_tco.book import load_book
from mc_tco.book.shipped import ARTICLE, DEFAULT, shipped_book
from mc_tco.engine import execute, plan_run
from mc_tco.report.memo import Memo, build_memo, check_out_dir, write_memo
from mc_tco.results.io import check_writable, open_results

if TYPE_CHECKING:
    import xarray as xr

__all__ = ["Report", "make_report"]



@dataclass
class Report:
    """What :func:`make_report` wrote."""

    results: list[Path]
    memo_dir: Path
    files: list[Path]
    #: the memo's seconds, from its start to its files written (the compared book's run
    #: goes on in the first part of them)
    memo_seconds: float = 0.0


def make_report(
    *,
    samples: int = 8192,
    seed: int = 0,
    demand: float | None = None,
    results_dir: str | Path = "results",
    books: tuple[str | Path, ...] | None = None,
    command: str = "",
    progress: Callable[[str], Callable[[int, int], None] | None] = lambda label: None,
    say: Callable[[str], None] = lambda text: None,
) -> Report:
    """Run ``books`` (the default and the article's) and write the memo of the first.

    Parameters
    ----------
    books : (path, path) or (path,), optional
        The default book and the article's (:func:`mc_tco.book.shipped.shipped_book`); one book
        (e.g. a user's own model) gets its memo alone, without a comparison.
    samples, seed : int
        Base sample size and seed of both runs; each run includes its family check, and
        its ``run_options`` record it, so ``mc-tco rerun`` reproduces the files.
    demand : float, optional
        The decision demand of the memo (tokens/month; default
        :func:`mc_tco.decision.tco_data.focus_demand` for the TCO model, the focus point
        otherwise).
    results_dir : path
        Where ``<book>.nc`` and the memo folder ``<first book>/`` go.
    command : str
        The command line, printed in the memo's provenance.
    progress : callable
        ``progress(label)`` returns a ``progress(done, total)`` callback (or None).
    say : callable
        Receives one line per finished step.
    """
    results_dir = Path(results_dir)
    books = books or (shipped_book(DEFAULT), shipped_book(ARTICLE))
    plans = [plan_run(load_book(b), samples=samples, seed=seed, family_check=True)
             for b in books]  # check both books before running
    outs = [results_dir / f"{p.book.stem}.nc" for p in plans]
    memo_dir = results_dir / plans[0].book.stem
    for out in outs:
        check_writable(out)
    check_out_dir(memo_dir)
    steps = len(plans) + 1

    def run(i: int) -> xr.Dataset:
        plan, out = plans[i], outs[i]
        t = time.monotonic()
        label = f"[{i + 1}/{steps}] {plan.book.stem}"
        with execute(plan, progress=progress(label), out=out,
                     family_progress=progress(label + " family check"),
                     shapley_progress=progress(label + " Shapley effects"),
                     on_stage=_stage_line(label, say)):
            pass
        say(f"[{i + 1}/{steps}] ran {_shown(plan.book.path)}: {plan.samples:,} samples, "
            f"{plan.model_runs:,} model runs and a family check, {time.monotonic() - t:.1f} s; "
            f"wrote {out}")
        return open_results(out)  # the memo reads the files just written

    ds = run(0)
    t = time.monotonic()
    paths = {"results": str(outs[0]), "compare": str(outs[1]) if len(outs) > 1 else ""}
    if len(plans) == 1:
        memo = build_memo(ds, demand=demand, command=command, paths=paths,
                          background_figures=True)
    else:
        memo = _memo_beside(ds, lambda: run(1), demand=demand, command=command, paths=paths)
    files = write_memo(memo, memo_dir)
    return Report(outs, memo_dir, files, time.monotonic() - t)


def _memo_beside(ds: xr.Dataset, run_other: Callable[[], xr.Dataset], **kw) -> Memo:
    """The memo of ``ds`` compared with the results of ``run_other()``, run meanwhile.

    The memo's sections are mostly Python on one core and a run's kernels release the
    GIL on both: the compared book runs in a thread while the memo's own sections are
    written, and the sections that read it wait for it
    (:class:`~mc_tco.report.memo.context.Later`). Ctrl-C or SIGTERM stop both: the run
    sees the signal at its next check and removes its temporary file, and the memo
    returns only once the run has ended. An error of either is raised.
    """
    from concurrent.futures import ThreadPoolExecutor

    from mc_tco.interrupt import stop_on_signals
    from mc_tco.report.memo.context import Later

    with stop_on_signals(), ThreadPoolExecutor(1, thread_name_prefix="compared") as pool:
        other = pool.submit(run_other)
        try:
            # (its figures drawn by child processes once the compared run, which writes
            # its results file in this process, has ended: :mod:`.background`)
            return build_memo(ds, compare=Later(other.result), background_figures=other.done,
                              **kw)
        except BaseException:
            _stop(other)  # (a signal has stopped the run too; another error waits for it)
            raise


def _stop(other: Future) -> None:
    """Wait for the compared run to end, its error dropped: the memo's is raised."""
    with contextlib.suppress(BaseException):
        other.result()


def _stage_line(label: str, say: Callable[[str], None]) -> Callable[[str, float], None]:
    """Says each stage of a run as it ends: ``[1/3] deepseek-v4.1-flash family check: 41.0 s``."""
    def on_stage(name: str, seconds: float) -> None:
        say(f"{label} {name}: {seconds:.1f} s")

    return on_stage


def _shown(path) -> str:
    """A path relative to the working directory when it lies below it."""
    p = Path(path).resolve()
    try:
        return str(p.relative_to(Path.cwd()))
    except ValueError:
        return str(p)
