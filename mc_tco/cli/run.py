"""``mc-tco run``: sample a book, run its model, rank the inputs; write the results file."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from mc_tco.cli._common import Progress, book_argument, friendly, unit_notes

if TYPE_CHECKING:
    from mc_tco.engine import Plan


@click.command()
@book_argument
@click.option("-n", "--samples", type=int, default=None, show_default="8192",
              help="Base sample size N, a power of two >= 64 with --ci rqmc (8 base samples "
                   "for each of the 8 --replicates; 8 x R for R), >= 16 with --ci bootstrap or "
                   "asymptotic. The model runs N x (inputs + 2) times.")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the Sobol' scrambling and the bootstrap: same seed, same numbers "
                   "(a whole number from 0 to 2^63 - 1).")
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
@click.option("--shapley/--no-shapley", default=None,
              help="Also estimate Shapley effects (share of the variance per input, valid "
                   "when inputs are correlated) for every target (where: --shapley-at). "
                   "[default: on when the book has [[correlation]] pairs, which then rank "
                   "the inputs]")
@click.option("--shapley-permutations", type=int, default=None,
              show_default="N / 2, from 64 to 4096",
              help="Random permutations of the Shapley estimator: it costs permutations x "
                   "(4 + 3 x (inputs - 1)) model runs; half-widths shrink as 1/sqrt.")
@click.option("--shapley-at", type=click.Choice(["report", "grid"]), default="report",
              show_default=True,
              help="Where the Shapley effects are estimated: the report points, the claim "
                   "points and the focus (report; add points with [analysis] report), or "
                   "every grid point (grid: about 3x the Shapley time on the default book: "
                   "20 s against 7 s at 2,048 samples).")
@click.option("--sobol-at", type=click.Choice(["report", "grid"]), default="report",
              show_default=True,
              help="Where the Sobol' indices (S1, ST) are estimated: at the points of "
                   "--shapley-at report (the Saltelli design rows run there only; every "
                   "other summary covers the whole grid), or every grid point (grid: the "
                   "default book's run takes about 2 s more).")
@click.option("--no-wait", is_flag=True,
              help="If another run is writing the same --out, stop at once (exit 2) instead "
                   "of waiting for it to finish.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@friendly
def run(book: str, samples: int | None, seed: int, out: Path | None, ci: str, replicates: int,
        resamples: int, estimator: str, conf_level: float, chunk_size: int | None,
        second_order: bool, by: str, target_halfwidth: float | None, max_samples: int | None,
        scheduler: str, keep_samples: str, family_check: bool, shapley: bool | None,
        shapley_permutations: int | None, shapley_at: str, sobol_at: str, no_wait: bool,
        quiet: bool) -> None:
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
    from mc_tco.book import load_book
    from mc_tco.engine import DEFAULT_SAMPLES, check_scheduler, plan_run
    from mc_tco.engine.evaluate import fit_chunk
    from mc_tco.engine.options import check_out, check_run_options, check_seed
    from mc_tco.results.io import hold_output

    check_seed(seed)
    if samples is None:
        samples = 1024 if target_halfwidth is not None else DEFAULT_SAMPLES
    check_run_options(samples=samples, ci=ci, replicates=replicates, resamples=resamples,
                      target_halfwidth=target_halfwidth, max_samples=max_samples)
    b = load_book(book)
    plan = plan_run(
        b, samples=samples, seed=seed, resamples=resamples,
        conf_level=conf_level, chunk_size=chunk_size, second_order=second_order,
        keep_samples=keep_samples, by_group=by == "group", ci=ci, replicates=replicates,
        estimator=estimator, target_halfwidth=target_halfwidth, max_samples=max_samples,
        family_check=family_check, shapley=shapley,
        shapley_permutations=shapley_permutations, shapley_at=shapley_at, sobol_at=sobol_at,
    )
    plan = fit_chunk(plan)  # a huge grid: smaller chunks, or a one-line refusal
    if not quiet:
        unit_notes(b)
    out = out or Path("results") / f"{b.stem}.nc"
    check_scheduler(scheduler)
    check_out(out, book)  # fail on an unwritable --out, or one that is not results, first
    # one run at a time writes --out: a second one waits here (or, --no-wait, stops)
    with hold_output(out, wait=not no_wait):
        _run(plan, out, scheduler, quiet, family_check)


#: the ranking index (ds.mc_tco.ranking_index) an adaptive run converges on, in words
_INDEX_WORDS = {"ST": "ST", "shapley": "Shapley", "ST_group": "grouped ST"}


def _run(plan: Plan, out: Path, scheduler: str | None, quiet: bool, family_check: bool,
         ) -> None:
    from mc_tco.engine import execute
    from mc_tco.report.terminal import run_table

    _check_disk(plan, out)
    start = time.monotonic()

    def on_step(step: dict[str, Any]) -> None:
        if not quiet:
            top: list[str] = next(iter(step["rankings"].values()), [])
            click.echo(
                f"  N = {step['samples']:>8,}: worst "
                f"{_INDEX_WORDS.get(step.get('index', 'ST'), 'ST')} half-width "
                f"{step['worst_halfwidth']:.4f} "
                f"over {step['cells']} cells ({step['settled']} settled"
                + (f", {step['rare']} too rare to rank" if step.get("rare") else "") + ")"
                + (f"; top five at {next(iter(step['rankings']))}: {', '.join(top)}" if top else "")
                + ("  -> converged" if step["converged"] else ""),
                err=True,
            )

    with execute(plan, progress=Progress("sampling", enabled=not quiet), scheduler=scheduler,
                 out=out, on_step=on_step,
                 family_progress=Progress("family check", enabled=not quiet),
                 shapley_progress=Progress("Shapley effects", enabled=not quiet)) as ds:
        if not quiet:
            click.echo(run_table(ds, path=str(out), elapsed=time.monotonic() - start))
            if ds.mc_tco.run.converged is False:
                last = ds.mc_tco.convergence_path[-1]
                capped = plan.max_samples is None or last["samples"] >= plan.max_samples
                where = (f"--max-samples {last['samples']:,}" if capped
                         else f"{last['samples']:,} base samples, before --max-samples")
                click.echo(f"\nNot converged: stopped at {where} ({last['why']}).")
            if family_check:
                from mc_tco.decision.family_findings import family_findings
                from mc_tco.report.words.family import family_text

                click.echo(family_text(family_findings(ds)))


def _check_disk(plan: Plan, out: Path) -> None:
    """Refuse a run whose base rows cannot fit on the disk of --out, before computing."""
    import shutil

    from mc_tco.engine import estimate_base_bytes
    from mc_tco.errors import OptionError
    from mc_tco.results.io import format_bytes

    need = estimate_base_bytes(plan, plan.max_samples or plan.samples)
    folder = out.resolve().parent
    while not folder.exists() and folder != folder.parent:  # created at write time
        folder = folder.parent
    free = shutil.disk_usage(folder).free
    if need > 0.9 * free:
        raise OptionError(
            f"--out {out}: the base rows need up to {format_bytes(need)} and "
            f"{format_bytes(free)} are free in {folder}; use --keep-samples targets, fewer "
            "--samples or an --out on a larger disk"
        )
