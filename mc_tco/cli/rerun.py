"""``mc-tco rerun RESULTS``: redo a run from its results file and say if the numbers match.

Registered on :data:`mc_tco.cli.main`. Exit codes: 0 when every variable of the rerun
equals the file's exactly, 1 when something differs, 2 on an error (a file that is not a
results file, a stored book that no longer loads, a model file whose SHA-256 differs from
the recorded one without ``--accept-model-change``, ...).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import click

from mc_tco.cli._common import P, Progress, R, friendly, note
from mc_tco.errors import McTcoError


def _failure_is_an_error(func: Callable[P, R]) -> Callable[P, R]:
    """Any failure of the rerun, not only a :class:`McTcoError` (which :func:`friendly`
    turns into one line), is an error: one line and exit code 2, never a traceback with
    exit code 1, which says that the numbers differ."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            # an error with a list below its message (a book of an earlier model version)
            # keeps the list on lines of their own
            error = McTcoError(f"{kwargs.get('results')}: the rerun failed: "
                               f"{type(exc).__name__}: {getattr(exc, 'headline', exc)}",
                               getattr(exc, "details", ()))
            click.echo(f"mc-tco: error: {error}", err=True)
            sys.exit(error.exit_code)

    return wrapper


@click.command()
@click.argument("results", metavar="RESULTS", type=click.Path(path_type=Path))
@click.option("-o", "--out", type=click.Path(path_type=Path), default=None,
              help="Also keep the rerun's results in this file (an existing file is kept "
                   "as FILE.bak). Without it nothing is written.")
@click.option("--accept-model-change", is_flag=True,
              help="Run the model even though its file's SHA-256 differs from the one the "
                   "results file records (by default rerun refuses, exit code 2).")
@click.option("--no-wait", is_flag=True,
              help="If another run is writing the same -o file, stop at once (exit 2) "
                   "instead of waiting for it to finish.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing; the exit code says it.")
@_failure_is_an_error
@friendly
def rerun(results: Path, out: Path | None, accept_model_change: bool, no_wait: bool,
          quiet: bool) -> None:
    """Rerun RESULTS (a file of 'mc-tco run') from the book and options stored in it.

    Rebuilds the book from the file's book_text, runs it with the stored seed and
    options (run_options), and compares every variable with the file's, bit for bit.
    Exit code 0: every variable matches; 1: some differ (the largest difference is
    printed, and any package versions that changed); 2: an error, or a model file whose
    SHA-256 differs from the recorded one (--accept-model-change runs it anyway).

    \b
    Example:
      mc-tco rerun results/deepseek-v4.1-flash.nc
    """
    from mc_tco.engine.reproduce import compare_results
    from mc_tco.engine.reproduce import rerun as rerun_results
    from mc_tco.results.io import check_writable, hold_output, open_results, write_results

    original = open_results(results, note=None if quiet else note)
    with contextlib.ExitStack() as lock:
        if out is not None:
            check_writable(out)
            # one writer of -o at a time: wait for another (or, --no-wait, stop) before rerunning
            lock.enter_context(hold_output(out, wait=not no_wait))
        run = original.mc_tco.run
        if not quiet:
            click.echo(f"rerunning {results}: book {run.book_path} (sha256 "
                       f"{run.book_sha256[:12]}), seed {run.seed}, "
                       f"{run.samples:,} samples")
        if not quiet and hashlib.sha256((run.book_text or "").encode()).hexdigest() != (
            run.book_sha256
        ):
            click.echo("note: the stored book_text does not match its book_sha256: the file's "
                       "book was edited after the run", err=True)
        new = rerun_results(original, str(results),
                            progress=Progress("rerun", enabled=not quiet),
                            accept_model_change=accept_model_change)
        # compare file with file: both through the same netCDF round trip
        if out is not None:
            comparison = compare_results(original, open_results(write_results(new, out)))
        else:
            with tempfile.TemporaryDirectory(prefix="mc-tco-rerun.") as tmp:
                written = write_results(new, Path(tmp) / "rerun.nc")
                comparison = compare_results(original, open_results(written))
    if not quiet:
        click.echo(comparison.summary(first=str(results), second="rerun"))
        if out is not None:
            click.echo(f"wrote {out}")
    sys.exit(0 if comparison.equal else 1)
