"""``mc-tco memo`` and ``mc-tco report``: parse, call :mod:`mc_tco.report.memo`, write, say where.

Registered on the ``mc-tco`` group at the end of :mod:`mc_tco.cli`.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import click

from mc_tco.cli._common import Progress, friendly, note, parse_at


def _demand(text: str) -> float:
    from mc_tco.errors import OptionError
    from mc_tco.results.points import parse_amount

    value = parse_amount(text, "--demand")
    if not value > 0:
        raise OptionError(f"--demand must be a positive number of tokens/month, got {text}")
    return value


def _shipped_focus_demand() -> float:
    """The TCO model's default focus demand (imported here, not at startup: it loads the
    model)."""
    from mc_tco.models.tco import SPEC

    return SPEC.focus["demand"]


def _summary(out_dir: Path, files: list[Path]) -> str:
    figs = sum(1 for f in files if f.suffix == ".png")
    csvs = sum(1 for f in files if f.suffix == ".csv")
    size = sum(f.stat().st_size for f in files)
    return (f"{out_dir / 'memo.md'} and memo.html, {figs} figures, {csvs} CSV tables "
            f"({size / 1e6:.1f} MB)")


_demand_option = click.option(
    "--demand", default=None, show_default="the book's focus demand",
    help="Your demand in tokens/month (5e11, 500B, 800B, 1.26T): every number of the memo "
         "is computed there. Any value inside the results' demand grid; one the grid lacks "
         "is computed from the stored scenarios (the model evaluated on each of them there; "
         "the Sobol' ranking is then the nearest grid point's, and the memo says so).",
)


@click.command()
# plain paths: every check is ours, so a bad one is a one-line error (exit code 2)
@click.argument("results", type=click.Path(path_type=Path))
@click.option("--compare", type=click.Path(path_type=Path), default=None,
              help="Results of a second book to set beside the first (e.g. results/article.nc).")
@_demand_option
@click.option("--at", "at_items", multiple=True, metavar="DIM=VALUE",
              help="The point of another grid dim (a user's model), e.g. --at volume=100; "
                   "repeatable.  [default: the file's focus, else the middle of the grid]")
@click.option("-o", "--out-dir", type=click.Path(path_type=Path), default=None,
              help="Folder of the memo.  [default: RESULTS without .nc, e.g. "
                   "results/deepseek-v4.1-flash/]")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@friendly
def memo(results: Path, compare: Path | None, demand: str | None, at_items: tuple[str, ...],
         out_dir: Path | None, quiet: bool) -> None:
    """Write the memo of RESULTS (a file written by mc-tco run).

    A run of the TCO model gets the investment memo; any other model's gets a decision
    memo: P(target > 0) for each alternative, the bands, the inputs' ranking and tornado,
    scenario discovery and the value of information. Writes memo.md, a self-contained
    memo.html (figures embedded), figures/*.png and the tables as CSV into the output
    folder. The memo reads the results; it never reruns the book. All files are
    written, or none. At a --demand the grid lacks, the memo evaluates the model on the
    stored scenarios there (about a second); it never reruns the book.

    \b
    Examples:
      mc-tco memo results/deepseek-v4.1-flash.nc
      mc-tco memo results/deepseek-v4.1-flash.nc --compare results/article.nc
      mc-tco memo results/x.nc --demand 1e12 --out-dir memo_x
      mc-tco memo my_model.nc --at volume=100
    """
    from mc_tco.report.memo import build_memo, check_out_dir, default_out_dir, write_memo
    from mc_tco.results.io import open_results

    tokens = _demand(demand) if demand is not None else None
    at = parse_at(at_items)

    start = time.monotonic()
    target = out_dir or default_out_dir(results)
    check_out_dir(target)
    said = None if quiet else note
    ds = open_results(results, note=said)
    other = open_results(compare, note=said) if compare is not None else None
    args = ["mc-tco", "memo", str(results)]
    if compare is not None:
        args += ["--compare", str(compare)]
    if tokens is not None and tokens != ds.mc_tco.focus.get("demand"):
        args += ["--demand", f"{tokens:g}"]
    args += [f"--at={item}" for item in at_items]
    if out_dir is not None:
        args += ["--out-dir", str(out_dir)]
    paths = {"results": str(results), "compare": str(compare) if compare else ""}
    m = build_memo(ds, compare=other, demand=tokens, command=shlex.join(args), paths=paths,
                   at=at, background_figures=True)
    files = write_memo(m, target)
    if not quiet:
        click.echo(f"wrote {_summary(target, files)} in {time.monotonic() - start:.1f} s")


@click.command()
@click.argument("book", required=False, type=click.Path(path_type=Path), default=None)
@click.option("-n", "--samples", type=int, default=8192, show_default=True,
              help="Base sample size of each book's run (a power of two >= 64, as "
                   "for mc-tco run).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of both runs.")
@_demand_option
@click.option("--results-dir", type=click.Path(path_type=Path),
              default=Path("results"), show_default=True,
              help="Where the .nc files and the memo folder go.")
@click.option("--no-wait", is_flag=True,
              help="If another run is writing one of the same files, stop at once (exit 2) "
                   "instead of waiting for it to finish.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@friendly
def report(book: Path | None, samples: int, seed: int, demand: str | None, results_dir: Path,
           no_wait: bool, quiet: bool) -> None:
    """Run both shipped books and write the memo of the default one compared with the
    article's; or, given BOOK, run it and write its memo.

    Runs distributions/deepseek-v4.1-flash.toml and distributions/article.toml (same
    samples and seed), writes results/<book>.nc for each, then the memo of the default book
    with the article's book beside it in results/deepseek-v4.1-flash/ (memo.md,
    memo.html, figures, CSV). With BOOK (e.g. one of your own model), runs that book
    alone and writes results/<book>.nc and results/<book>/.
    """
    from mc_tco.engine.options import check_seed
    from mc_tco.report.memo.report import make_report
    from mc_tco.results.io import waiting

    check_seed(seed)
    tokens = _demand(demand) if demand is not None else None

    args = ["mc-tco", "report"] + ([str(book)] if book is not None else [])
    if samples != 8192:
        args += ["--samples", str(samples)]
    if seed != 0:
        args += ["--seed", str(seed)]
    if tokens is not None and tokens != _shipped_focus_demand():
        args += ["--demand", f"{tokens:g}"]
    if results_dir != Path("results"):
        args += ["--results-dir", str(results_dir)]
    start = time.monotonic()

    def say(text: str) -> None:  # each stage's line, as it ends (the last: the memo)
        if not quiet:
            click.echo(text)

    with waiting(not no_wait):  # each results file: wait for (or refuse) another writer
        rep = make_report(samples=samples, seed=seed, demand=tokens, results_dir=results_dir,
                          books=(book,) if book is not None else None,
                          command=shlex.join(args), say=say,
                          progress=lambda label: Progress(label, enabled=not quiet))
    steps = len(rep.results) + 1
    beside = " (the article's book ran meanwhile)" if len(rep.results) > 1 else ""
    say(f"[{steps}/{steps}] wrote {_summary(rep.memo_dir, rep.files)} in "
        f"{rep.memo_seconds:.1f} s{beside}")
    say(f"done in {time.monotonic() - start:.1f} s; open {rep.memo_dir / 'memo.html'} "
        "in a browser")
