"""The ``mc-tco`` command: a thin layer that parses, calls the library and prints.

Every command is a call into :mod:`mc_tco` that a notebook can make too. Errors the user can
fix are one line on stderr with exit code 2, never a traceback.
"""

from __future__ import annotations

import functools
import json
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
@click.option("--ci", type=click.Choice(["rqmc", "asymptotic", "bootstrap"]), default="rqmc",
              show_default=True,
              help="How the Sobol' half-widths are made. rqmc: the spread of R independent "
                   "scrambles of the design (sound on a Sobol' design; covers at its nominal "
                   "rate). asymptotic, bootstrap: assume independent rows and overstate the "
                   "error 3-200x on a Sobol' design (docs/estimators.md); bootstrap gives "
                   "SALib's design and intervals.")
@click.option("--replicates", type=int, default=8, show_default=True,
              help="Scrambles for --ci rqmc (a power of two); each has N / R base samples.")
@click.option("--bootstrap", "resamples", type=int, default=100, show_default=True,
              help="Resamples for --ci bootstrap.")
@click.option("--estimator", type=click.Choice(["saltelli", "janon", "sobol2007", "martinez"]),
              default="saltelli", show_default=True,
              help="Sobol' estimators: saltelli = Saltelli 2010 S1 and Jansen ST, as SALib "
                   "(the most accurate overall: docs/estimators.md).")
@click.option("--conf-level", type=float, default=0.95, show_default=True,
              help="Level of every interval printed and stored.")
@click.option("--chunk-size", type=int, default=None, show_default="256",
              help="Base samples evaluated at once (multiple of 256); bounds memory, "
                   "does not change the numbers.")
@click.option("--second-order", is_flag=True,
              help="Also estimate second-order indices S2 (N x (2 inputs + 2) model runs); "
                   "the table shows the largest pairs.")
@click.option("--by", "by", type=click.Choice(["input", "group"]), default="input",
              show_default=True,
              help="group: also rank the book's groups of inputs (api price, throughput, ...) "
                   "as blocks, from one more design row per group.")
@click.option("--target-halfwidth", type=float, default=None, metavar="H",
              help="Start small (--samples, default 1024) and double, re-using every row, "
                   "until each decision indicator at the report points has every ST "
                   "half-width <= H and a stable top five; settled cells (P < 1% or > 99%) "
                   "are exempt.")
@click.option("--max-samples", type=int, default=None, show_default="64 x start",
              help="Stop a --target-halfwidth run here at the latest.")
@click.option("--scheduler", default="threads", show_default=True, metavar="WHERE",
              help="Where chunks run: threads, processes, synchronous, or the address of a "
                   "dask.distributed scheduler (tcp://host:8786). Same numbers everywhere.")
@click.option("--keep-samples", type=click.Choice(["all", "targets"]), default="all",
              show_default=True,
              help="Per-sample outputs kept in the file: all (what the memo needs), or only "
                   "the targets and break-even (about 4.5x smaller; for very large --samples).")
@click.option("--family-check", is_flag=True,
              help="Also rerun the base sample with each bounded input's family swapped "
                   "(uniform, triangular, PERT over the same range); store and print how far "
                   "P(beats the API) and the break-even move.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@_friendly
def run(book, samples, seed, out, ci, replicates, resamples, estimator, conf_level, chunk_size,
        second_order, by, target_halfwidth, max_samples, scheduler, keep_samples, family_check,
        quiet):
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
    from .engine import DEFAULT_SAMPLES, check_scheduler, execute, plan_run
    from .options import check_out, check_run_options
    from .text import run_summary

    if samples is None:
        samples = 1024 if target_halfwidth is not None else DEFAULT_SAMPLES
    check_run_options(samples=samples, ci=ci, replicates=replicates, resamples=resamples,
                      target_halfwidth=target_halfwidth, max_samples=max_samples)
    b = load_book(book)
    start_samples = samples
    plan = plan_run(
        b, samples=start_samples, seed=seed, resamples=resamples,
        conf_level=conf_level, chunk_size=chunk_size, second_order=second_order,
        keep_samples=keep_samples, by_group=by == "group", ci=ci, replicates=replicates,
        estimator=estimator,
    )
    if not quiet:
        _unit_notes(b)
    out = out or Path("results") / f"{b.stem}.nc"
    check_scheduler(scheduler)
    check_out(out, book)  # fail on an unwritable --out, or one that is not results, first
    _check_disk(plan, out, max_samples if target_halfwidth is not None else None)
    start = time.monotonic()
    progress = Progress("sampling", enabled=not quiet)
    extra = None
    if family_check:
        from .decision.family import family_check as run_family_check

        extra = run_family_check(plan, progress=Progress("family check", enabled=not quiet))

    def on_step(step):
        if not quiet:
            top = next(iter(step["rankings"].values()), [])
            click.echo(
                f"  N = {step['samples']:>8,}: worst ST half-width {step['worst_halfwidth']:.4f} "
                f"over {step['cells']} cells ({step['settled']} settled)"
                + (f"; top five at {next(iter(step['rankings']))}: {', '.join(top)}" if top else "")
                + ("  -> converged" if step["converged"] else ""),
                err=True,
            )

    with execute(plan, progress=progress, scheduler=scheduler, out=out,
                 target_halfwidth=target_halfwidth, max_samples=max_samples,
                 on_step=on_step, extra=extra) as ds:
        if not quiet:
            click.echo(run_summary(ds, path=str(out), elapsed=time.monotonic() - start))
            if ds.attrs.get("converged") == 0:
                last = json.loads(ds.attrs["convergence_path"])[-1]
                click.echo(f"\nNot converged: stopped at --max-samples {last['samples']:,} "
                           f"({last['why']}).")
            if family_check:
                from .decision.text import family_text

                click.echo(family_text(ds))


def _unit_notes(book) -> None:
    """Say on stderr which inputs were converted to the model's units (issue 11 item 2)."""
    for inp in book.inputs.values():
        if inp.unit_note:
            click.echo(f"mc-tco: note: {book.path}: inputs.{inp.name}: {inp.unit_note}",
                       err=True)


def _check_disk(plan, out: Path, max_samples: int | None) -> None:
    """Refuse a run whose base rows cannot fit on the disk of --out, before computing."""
    import shutil

    from .engine import estimate_base_bytes
    from .errors import OptionError

    need = estimate_base_bytes(plan, max_samples or plan.samples)
    folder = out.resolve().parent
    while not folder.exists() and folder != folder.parent:  # created at write time
        folder = folder.parent
    free = shutil.disk_usage(folder).free
    if need > 0.9 * free:
        raise OptionError(
            f"--out {out}: the base rows need up to {need / 1e9:.1f} GB and "
            f"{free / 1e9:.1f} GB are free; use --keep-samples targets, fewer --samples "
            "or an --out on a larger disk"
        )


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
    _unit_notes(b)
    click.echo(inputs_table(b))


# commands in their own modules, registered here (imported last: they use _friendly)
from .cli_rerun import rerun  # noqa: E402
from .decision.cli import explain  # noqa: E402
from .memo import commands as _memo_commands  # noqa: E402

main.add_command(_memo_commands.memo)
main.add_command(_memo_commands.report)
main.add_command(explain)
main.add_command(rerun)
