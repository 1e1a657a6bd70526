"""The ``mc-tco`` command: a thin layer that parses, calls the library and prints.

Every command is a call into :mod:`mc_tco` that a notebook can make too. Errors the user can
fix are one line on stderr with exit code 2, never a traceback.
"""

from __future__ import annotations

import functools
import sys
import time
from pathlib import Path

import click

from . import __version__
from .errors import McTcoError

DEFAULT_BOOK = "distributions/deepseek-v4.1-flash.toml"


def _friendly(func):
    """Turn :class:`McTcoError` (and Ctrl-C) into a one-line message and exit code."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except McTcoError as exc:
            click.echo(f"mc-tco: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("mc-tco: interrupted; nothing was written", err=True)
            sys.exit(130)

    return wrapper


class Progress:
    """A progress bar on stderr with the time left, shown once a run takes over 1.5 s."""

    def __init__(self, label: str, enabled: bool = True, delay: float = 1.5):
        self.label = label
        self.enabled = enabled
        self.delay = delay
        self.start = time.monotonic()
        self.shown = False
        self.tty = sys.stderr.isatty()
        self.last_line = 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        if elapsed < self.delay and done < total:
            return
        frac = done / total if total else 1.0
        left = elapsed * (1 - frac) / frac if frac > 0 else float("nan")
        width = 30
        bar = "#" * int(width * frac) + "-" * (width - int(width * frac))
        text = (
            f"{self.label} [{bar}] {100 * frac:5.1f}%  {elapsed:6.1f}s elapsed, "
            f"~{left:.1f}s left"
        )
        if self.tty:
            click.echo("\r" + text, nl=False, err=True)
            self.shown = True
            if done >= total:
                click.echo("", err=True)
        elif elapsed - self.last_line >= 10 or (done >= total and self.shown):
            click.echo(text, err=True)
            self.last_line = elapsed
            self.shown = True


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="mc-tco")
def main():
    """Monte Carlo uncertainty and Sobol' sensitivity for the self-hosting decision.

    Should a company buy GPU servers, rent them, or keep paying the API per token? mc-tco
    puts distributions on the inputs of the cost model (an "assumption book", a TOML file
    in distributions/), samples them with a scrambled Sobol' design, ranks the inputs by
    Sobol' indices and writes everything to one netCDF file.

    \b
    Start here:
      mc-tco inputs                      the default book as a table
      mc-tco run                         run it; print P(break-even) and the top inputs
      mc-tco run BOOK --samples 16384    a larger run of another book
      mc-tco rerun results/BOOK.nc       redo a run from its file; do the numbers match?
    """


_book_argument = click.argument(
    "book", required=False, default=DEFAULT_BOOK, metavar="[BOOK]",
    type=click.Path(dir_okay=True, path_type=str),
)


@main.command()
@_book_argument
@click.option("-n", "--samples", type=int, default=None, show_default="8192",
              help="Base sample size N, a power of two. The model runs N x (inputs + 2) times.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the Sobol' scrambling and the bootstrap: same seed, same numbers.")
@click.option("-o", "--out", type=click.Path(path_type=Path), default=None,
              help="Results file (netCDF). An existing file is kept as FILE.bak (one "
                   "generation), so reruns need no flag.  [default: results/<book name>.nc]")
@click.option("--bootstrap", "resamples", type=int, default=100, show_default=True,
              help="Bootstrap resamples for the Sobol' confidence half-widths (0: none).")
@click.option("--conf-level", type=float, default=0.95, show_default=True,
              help="Level of every interval printed and stored.")
@click.option("--chunk-size", type=int, default=None, show_default="256",
              help="Base samples evaluated at once (multiple of 256); bounds memory, "
                   "does not change the numbers.")
@click.option("--second-order", is_flag=True,
              help="Also estimate second-order indices S2 (more model runs).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@_friendly
def run(book, samples, seed, out, resamples, conf_level, chunk_size, second_order, quiet):
    """Sample BOOK, run its model, rank the inputs; write results/<book>.nc.

    BOOK is an assumption book (TOML); without it, the default
    distributions/deepseek-v4.1-flash.toml. The printed table answers: how likely is
    each strategy to beat the API at the reported demands (with a Monte Carlo interval),
    where does it break even, and which inputs dominate the decision.

    \b
    Examples:
      mc-tco run
      mc-tco run distributions/article.toml --samples 4096 --seed 7 --out results/article.nc
      mc-tco run my_model.toml            (a book with model = "my_module:my_function")
    """
    from .book import load_book
    from .engine import DEFAULT_SAMPLES, execute, plan_run
    from .io import check_writable, write_results
    from .text import run_summary

    b = load_book(book)
    plan = plan_run(
        b, samples=DEFAULT_SAMPLES if samples is None else samples, seed=seed, resamples=resamples,
        conf_level=conf_level, chunk_size=chunk_size, second_order=second_order,
    )
    out = out or Path("results") / f"{b.stem}.nc"
    check_writable(out)  # fail on an unwritable --out before computing
    start = time.monotonic()
    ds = execute(plan, progress=Progress("sampling", enabled=not quiet))
    write_results(ds, out)
    if not quiet:
        click.echo(run_summary(ds, path=str(out), elapsed=time.monotonic() - start))


@main.command()
@_book_argument
@_friendly
def inputs(book):
    """Show BOOK's inputs: family, 5/50/95% quantiles, unit, group and source."""
    from .book import load_book
    from .engine import plan_run
    from .text import inputs_table

    b = load_book(book)
    plan_run(b, samples=16, resamples=0)  # check the book against its model too
    click.echo(inputs_table(b))


from .cli_rerun import rerun  # noqa: E402  (the command imports _friendly from here)

main.add_command(rerun)
