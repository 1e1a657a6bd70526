"""``mc-tco memo`` and ``mc-tco report``: parse, call :mod:`mc_tco.memo`, write, say where.

Registered on the ``mc-tco`` group at the end of :mod:`mc_tco.cli`.
"""

from __future__ import annotations

import os
import shlex
import time
from pathlib import Path

import click

from ..errors import OptionError
from ._common import DEFAULT_BOOK, Progress, friendly

ARTICLE_BOOK = "distributions/article.toml"
DEFAULT_DEMAND = 5e11  # == mc_tco.memo.DEFAULT_DEMAND (not imported: keeps startup light)


def check_out_dir(out_dir: Path) -> None:
    """Fail before any work if ``out_dir`` cannot be created or written (creates nothing)."""
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


def _summary(out_dir: Path, files: list[Path]) -> str:
    figs = sum(1 for f in files if f.suffix == ".png")
    csvs = sum(1 for f in files if f.suffix == ".csv")
    size = sum(f.stat().st_size for f in files)
    return (f"{out_dir / 'memo.md'} and memo.html, {figs} figures, {csvs} CSV tables "
            f"({size / 1e6:.1f} MB)")


_demand_option = click.option(
    "--demand", type=float, default=DEFAULT_DEMAND, show_default="5e11",
    help="Decision demand in tokens/month for the answer, the ranking and the tornado; "
         "a point of the results' demand grid.",
)


@click.command()
# plain paths: every check is ours, so a bad one is a one-line error (exit code 2)
@click.argument("results", type=click.Path(path_type=Path))
@click.option("--compare", type=click.Path(path_type=Path), default=None,
              help="Results of a second book to set beside the first (e.g. results/article.nc).")
@_demand_option
@click.option("-o", "--out-dir", type=click.Path(path_type=Path), default=None,
              help="Folder of the memo.  [default: RESULTS without .nc, e.g. "
                   "results/deepseek-v4.1-flash/]")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@friendly
def memo(results, compare, demand, out_dir, quiet):
    """Write the investment memo of RESULTS (a file written by mc-tco run).

    Writes memo.md, a self-contained memo.html (figures embedded), figures/*.png and the
    summary tables as CSV into the output folder. The memo reads the results only; it
    never re-runs the model. All files are written, or none.

    \b
    Examples:
      mc-tco memo results/deepseek-v4.1-flash.nc
      mc-tco memo results/deepseek-v4.1-flash.nc --compare results/article.nc
      mc-tco memo results/x.nc --demand 1e12 --out-dir memo_x
    """
    from ..io import open_results
    from ..memo import build_memo, default_out_dir, write_memo

    start = time.monotonic()
    target = out_dir or default_out_dir(results)
    check_out_dir(target)
    ds = open_results(results)
    other = open_results(compare) if compare is not None else None
    args = ["mc-tco", "memo", str(results)]
    if compare is not None:
        args += ["--compare", str(compare)]
    if demand != DEFAULT_DEMAND:
        args += ["--demand", f"{demand:g}"]
    if out_dir is not None:
        args += ["--out-dir", str(out_dir)]
    paths = {"results": str(results), "compare": str(compare) if compare else ""}
    m = build_memo(ds, compare=other, demand=demand, command=shlex.join(args), paths=paths)
    files = write_memo(m, target)
    if not quiet:
        click.echo(f"wrote {_summary(target, files)} in {time.monotonic() - start:.1f} s")


@click.command()
@click.option("-n", "--samples", type=int, default=8192, show_default=True,
              help="Base sample size of each book's run (a power of two).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of both runs.")
@_demand_option
@click.option("--results-dir", type=click.Path(path_type=Path),
              default=Path("results"), show_default=True,
              help="Where the .nc files and the memo folder go.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@friendly
def report(samples, seed, demand, results_dir, quiet):
    """Run both shipped books and write the memo of the default one compared with the
    article's.

    Runs distributions/deepseek-v4.1-flash.toml and distributions/article.toml (same
    samples and seed), writes results/<book>.nc for each, then the memo of the default book
    with the article's book beside it in results/deepseek-v4.1-flash/ (memo.md,
    memo.html, figures, CSV).
    """
    from ..book import load_book
    from ..decision.family import family_check
    from ..engine import execute, plan_run
    from ..io import check_writable, open_results
    from ..memo import build_memo, write_memo

    def say(text):
        if not quiet:
            click.echo(text)

    start = time.monotonic()
    plans = [plan_run(load_book(b), samples=samples, seed=seed)
             for b in (DEFAULT_BOOK, ARTICLE_BOOK)]  # check both books before running
    outs = [results_dir / f"{p.book.stem}.nc" for p in plans]
    memo_dir = results_dir / plans[0].book.stem
    for out in outs:
        check_writable(out)
    check_out_dir(memo_dir)
    steps = len(plans) + 1
    for i, (plan, out) in enumerate(zip(plans, outs, strict=True), 1):
        t = time.monotonic()
        label = f"[{i}/{steps}] {plan.book.stem}"
        # the family check (issue 7) reruns the base sample with other shapes: the memo
        # reports whether the answer depends on them
        extra = family_check(plan, progress=Progress(label + " family check",
                                                     enabled=not quiet))
        with execute(plan, progress=Progress(label, enabled=not quiet), out=out, extra=extra):
            pass
        say(f"[{i}/{steps}] ran {plan.book.path}: {plan.samples:,} samples, "
            f"{plan.model_runs:,} model runs and a family check, {time.monotonic() - t:.1f} s; "
            f"wrote {out}")
    t = time.monotonic()
    args = ["mc-tco", "report"]
    if samples != 8192:
        args += ["--samples", str(samples)]
    if seed != 0:
        args += ["--seed", str(seed)]
    if demand != DEFAULT_DEMAND:
        args += ["--demand", f"{demand:g}"]
    if results_dir != Path("results"):
        args += ["--results-dir", str(results_dir)]
    ds, other = (open_results(o) for o in outs)  # the memo reads the files just written
    m = build_memo(ds, compare=other, demand=demand, command=shlex.join(args),
                   paths={"results": str(outs[0]), "compare": str(outs[1])})
    files = write_memo(m, memo_dir)
    say(f"[{steps}/{steps}] wrote {_summary(memo_dir, files)} in {time.monotonic() - t:.1f} s")
    say(f"done in {time.monotonic() - start:.1f} s; open {memo_dir / 'memo.html'} in a browser")
