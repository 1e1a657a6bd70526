"""Run a plan: evaluate every chunk, stream the sums and base rows, summarise."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import xarray as xr

from mc_tco.book import Book
from mc_tco.engine.adaptive import cell_layout, convergence_step, with_path
from mc_tco.engine.assemble import summarize, with_extra
from mc_tco.engine.evaluate import evaluate_chunk, fit_chunk
from mc_tco.engine.plan import Plan, RunSums, plan_run
from mc_tco.engine.schedule import Progress, check_scheduler, evaluate_all
from mc_tco.interrupt import check, stop_on_signals
from mc_tco.results.h5file import ResultsBackend

__all__ = ["execute", "run"]


def run(
    book: Book | str | Path,
    *,
    progress: Progress | None = None,
    scheduler: Any = None,
    out: str | Path | None = None,
    on_step: Callable[[dict], None] | None = None,
    family_progress: Progress | None = None,
    shapley_progress: Progress | None = None,
    independence_check: bool = True,
    **options: Any,
) -> xr.Dataset:
    """Run the Monte Carlo and Sobol' analysis of ``book``.

    Parameters
    ----------
    book : Book or path
        A loaded book (:func:`mc_tco.book.load_book`) or the path of one.
    progress : callable, optional
        Called as ``progress(0, total)`` as the sampling starts (after the family check;
        the Shapley effects come after the samples, beside the summaries, or before them
        in an adaptive or a ``synchronous`` run), then ``progress(done, total)`` in base
        samples after every chunk.
    scheduler : str or distributed.Client, optional
        Where the chunks run (see :func:`execute`); the numbers do not depend on it.
    out : path, optional
        Stream the results into this netCDF file (bounded memory at any ``N``) and return
        it opened lazily; without it everything stays in memory.
    on_step : callable, optional
        Called with each doubling's record of a ``target_halfwidth`` run.
    family_progress : callable, optional
        ``progress(done, total)`` in variants of the family check (``progress(0, total)``
        as it starts).
    shapley_progress : callable, optional
        ``progress(done, total)`` in model rows of the Shapley effects (``progress(0,
        total)`` as they start).
    independence_check : bool
        With a book's correlations, also rerun the base sample with the inputs independent
        (``independent_p_positive``: does the answer depend on the correlations?). Previews
        that do not show it (the browser app) skip it; a results file should keep it.
    **options
        The options of :func:`plan_run`, each the keyword of a ``mc-tco run`` option:
        ``samples`` (base sample size N, a power of two; the model runs N (K + 2) rows),
        ``seed``, ``ci`` ("rqmc", "asymptotic" or "bootstrap"), ``replicates``,
        ``resamples``, ``estimator``, ``conf_level``, ``chunk_size`` (never changes the
        numbers), ``second_order``, ``by_group``, ``keep_samples``, ``target_halfwidth``,
        ``max_samples``, ``family_check``, ``shapley`` (None: when the book has
        correlations), ``shapley_permutations``, ``shapley_at``, ``sobol_at``. All of them
        are stored in the results (``run_options``), so ``mc-tco rerun`` reproduces the
        file.

    Returns
    -------
    xr.Dataset
        Model outputs over the base rows (dim ``sample``), Sobol' indices (``S1``,
        ``ST``, ``S1_conf``, ``ST_conf``), summaries and provenance (see
        :func:`summarize` and ``docs/results.md``).

    Examples
    --------
    >>> import mc_tco
    >>> ds = mc_tco.run("distributions/article.toml", samples=1024)  # doctest: +SKIP
    >>> ds.mc_tco.p_beats("buy")  # doctest: +SKIP
    """
    from mc_tco.engine.options import check_run_options
    from mc_tco.engine.plan import DEFAULT_SAMPLES

    if "samples" not in options:
        options["samples"] = 1024 if options.get("target_halfwidth") else DEFAULT_SAMPLES
    check_run_options(**{k: options[k] for k in ("samples", "ci", "replicates", "resamples",
                                                  "target_halfwidth", "max_samples")
                         if k in options})
    if isinstance(book, str | Path):
        from mc_tco.book import load_book

        book = load_book(book)
    return execute(plan_run(book, **options), progress=progress, scheduler=scheduler, out=out,
                   on_step=on_step, family_progress=family_progress,
                   shapley_progress=shapley_progress, independence_check=independence_check)


def execute(
    plan: Plan,
    progress: Progress | None = None,
    scheduler: Any = None,
    out: str | Path | None = None,
    on_step: Callable[[dict], None] | None = None,
    extra: xr.Dataset | None = None,
    family_progress: Progress | None = None,
    shapley_progress: Progress | None = None,
    independence_check: bool = True,
    on_stage: Callable[[str, float], None] | None = None,
) -> xr.Dataset:
    """Evaluate a checked :class:`Plan` chunk by chunk and summarise.

    Parameters
    ----------
    plan : Plan
        From :func:`plan_run`; its ``target_halfwidth`` makes the run double the base
        sample, from ``plan.samples``, re-using every row already evaluated, until the
        decision indicators are ranked to that precision (see
        :func:`~.adaptive.convergence_step`), stopping at ``plan.max_samples``; its
        ``family_check`` adds the family check (:mod:`.family`).
    progress : callable, optional
        ``progress(0, total)`` as the sampling starts, then ``progress(done, total)`` in
        base samples.
    scheduler : str or distributed.Client, optional
        "threads" (default), "processes", "synchronous", a dask.distributed address
        (``tcp://host:8786``) or a ``distributed.Client``.
    out : path, optional
        Stream the base rows into this netCDF file (written atomically: a temporary file
        renamed when complete) and return the file opened lazily.
    on_step : callable, optional
        Called with each doubling's record (a dict) of a ``target_halfwidth`` run.
    extra : xr.Dataset, optional
        Further results computed beside the run, stored with it.
    family_progress : callable, optional
        ``progress(done, total)`` in variants of the family check (``progress(0, total)``
        as it starts).
    shapley_progress : callable, optional
        ``progress(done, total)`` in model rows of the Shapley effects (``plan.shapley``;
        ``progress(0, total)`` as they start). The pass runs on a thread of its own beside
        the run's tail (the last rows written, the summaries, the independence check: one
        core's work), or before the sampling where a step reads it (``target_halfwidth``)
        or one thread is asked for (``scheduler="synchronous"``); the same numbers either
        way.
    independence_check : bool
        As for :func:`run`.
    on_stage : callable, optional
        Called as ``on_stage(name, seconds)`` as each stage of the run ends: "family
        check", "sampling" (the model on the design rows, the base rows written),
        "independence check", "Shapley effects" (its own seconds, said once the run has
        waited for it: it overlaps the stages before; first where it runs before the
        sampling), "summaries" (indices, bands, the file completed); only the stages the
        plan has.

    Ctrl-C and SIGTERM stop the run at any moment (:mod:`.interrupt`): the temporary
    file is removed, a previous results file stays as it was, and
    :class:`~.interrupt.Interrupted` is raised.
    """
    check_scheduler(scheduler)
    plan = fit_chunk(plan)  # a huge grid: smaller chunks, or a one-line refusal
    with stop_on_signals():
        return _execute(plan, progress, scheduler, out, on_step, extra, family_progress,
                        shapley_progress, independence_check, _Stages(on_stage))


class _Stages:
    """Times the stages of a run and says each one's seconds as it ends (``on_stage``)."""

    def __init__(self, on_stage: Callable[[str, float], None] | None):
        self.on_stage = on_stage
        self.spent: dict[str, float] = {}  # stages done in parts: their seconds so far

    @contextlib.contextmanager
    def __call__(self, name: str, last: bool = True) -> Iterator[None]:
        """Time the block as (a part of) stage ``name``; its last part (``last``) says the
        stage's seconds, if it ends without an error."""
        start = time.monotonic()
        yield
        self.spent[name] = self.spent.get(name, 0.0) + time.monotonic() - start
        if last and self.on_stage is not None:
            self.on_stage(name, self.spent.pop(name))


def _execute(plan: Plan, progress: Progress | None, scheduler: Any, out: str | Path | None,
             on_step: Callable[[dict], None] | None, extra: xr.Dataset | None,
             family_progress: Progress | None, shapley_progress: Progress | None = None,
             independence_check: bool = True, clock: _Stages | None = None) -> xr.Dataset:
    from mc_tco.results.io import atomic_path
    from mc_tco.results.store import BaseStore

    clock = clock or _Stages(None)

    target_halfwidth = plan.target_halfwidth
    stages = [plan.samples]
    if target_halfwidth is not None:
        assert plan.max_samples is not None  # (plan_run sets it with target_halfwidth)
        while stages[-1] < plan.max_samples:
            stages.append(stages[-1] * 2)
    if plan.family_check:
        from mc_tco.engine.family import family_check

        with clock("family check"):
            family = family_check(plan, progress=family_progress)
        extra = family if extra is None else with_extra(family, extra)
    with clock("sampling", last=False):  # (its first chunk: the shift, the Shapley cells)
        first, _, shift = evaluate_chunk(plan, *plan.first)
    # the Shapley pass: beside the run's tail (below) where no step of the run reads it
    # before its summaries are written, else (an adaptive run's steps rank by it; one
    # thread asked for) before the sampling
    late = plan.shapley and target_halfwidth is None and scheduler != "synchronous"
    # the independence check reads the run's base rows once they are written (below)
    with clock("Shapley effects") if plan.shapley and not late else contextlib.nullcontext():
        extra = _dependence(plan, first, extra, shapley_progress, progress, scheduler,
                            shapley=plan.shapley and not late)
    # (skipped by previews that do not show it: the browser app)
    independence = independence_check and plan.book.correlation is not None
    layout = cell_layout(plan, first) if target_halfwidth is not None else None
    with contextlib.ExitStack() as stack:
        # an existing results file is kept as <out>.bak (one generation), as write_results
        tmp = (stack.enter_context(atomic_path(out, backup=True, what="--out"))
               if out is not None else None)
        store: BaseStore | None = None
        # the base rows, in memory without a file; with one, their targets and
        # distributions alone (what the summaries and the independence check read), kept
        # while they are small (then those need not open the file: :data:`KEEP`)
        bases: list[xr.Dataset] | None = []
        kept = 0
        total: RunSums | None = None
        path: list[dict[str, Any]] = []
        done = 0
        with clock("sampling"):  # (the model on the design rows; the base rows written)
            if progress is not None:  # the samples start now (after the family check and
                progress(0, plan.samples)  # the Shapley effects): a time left counts from here
            for stage in stages:
                for base, sums in evaluate_all(plan, shift, scheduler, progress, done, stage):
                    total = sums if total is None else total + sums
                    if bases is not None:
                        part = base if tmp is None else base[  # (the chunk's own arrays)
                            [n for n in (*plan.targets, *plan.distributions)
                             if n in base.data_vars]]
                        kept += part.nbytes
                        if tmp is None or kept <= KEEP:
                            bases.append(part)
                        else:
                            bases = None  # too large to keep: the summaries read the file
                    if tmp is None:
                        continue
                    if store is None:
                        store = BaseStore.create(tmp, base, plan.chunk_size, list(plan.grid),
                                                 samples=plan.samples)
                        stack.callback(store.discard)  # stopped: drop the rows not yet written
                    else:
                        store.append(base)
                done = stage
                if target_halfwidth is None:
                    break
                assert total is not None  # (every stage evaluates a chunk at least)
                step = convergence_step(plan, total, target_halfwidth, path[-1] if path else None,
                                        layout=layout, shapley=extra)
                path.append(step)
                if on_step is not None:
                    on_step(step)
                if step["converged"] or step["futile"]:  # futile: doubling cannot meet it
                    break
            shapley = (stack.enter_context(_shapley_beside(plan, first, shapley_progress,
                                                           progress, scheduler))
                       if late else None)
            if store is not None:
                store.close()
        plan = dataclasses.replace(plan, samples=done, requested_samples=plan.samples)
        assert total is not None  # (as above)
        # the independence check's own rows (no copula) on a thread beside the summaries
        # (single-threaded numpy and xarray; the kernels release the GIL)
        without = stack.enter_context(_beside(plan)) if independence else None
        if tmp is None:
            assert bases is not None  # (kept whole without a file)
            base = _concat(bases)
            with clock("summaries"):
                summary = with_path(summarize(plan, base, total, scheduler), path,
                                    target_halfwidth)
            if independence:
                with clock("independence check"):
                    extra = _independence(plan, base, extra, without)
            extra = _joined(shapley, extra, clock)
            summary = with_extra(summary, extra)
            check()
            return base.merge(summary, join="exact", compat="override").assign_attrs(
                summary.attrs
            )
        assert store is not None and out is not None  # (created at the first chunk)
        with (contextlib.nullcontext(_concat(bases)) if bases is not None
              else store.open()) as rows:
            with clock("summaries", last=False):
                summary = with_path(summarize(plan, rows, total, scheduler), path,
                                    target_halfwidth)
            if independence:
                with clock("independence check"):
                    extra = _independence(plan, rows, extra, without)
        if shapley is not None:  # the summaries written while the Shapley pass ends (the
            # main thread waits for it there), then its effects: 0.1-0.15 s less after it
            with clock("summaries", last=False):
                store.add(with_extra(summary, extra))
            effects = _joined(shapley, None, clock)
            assert effects is not None  # (the pass's Dataset)
            summary, extra = effects, None
        with clock("summaries", last=False):  # (and the file completed)
            store.add(with_extra(summary, extra))
            check()  # a signal swallowed on the way is raised here, before the rename
    with clock("summaries"):
        written = xr.open_dataset(out, engine=ResultsBackend)  # dims sized once
    return written


#: bytes of the base rows' targets and distributions a run writing a file also keeps in
#: memory for its summaries and independence check (the default run's 19 MB of 290:
#: opening the file and reading them back took 0.15-0.2 s of its tail; a small run's
#: 0.03-0.1 s of 1-2 s); beyond, those read the file block by block (bounded memory)
KEEP = 64 * 2**20


def _concat(bases: list[xr.Dataset]) -> xr.Dataset:
    """The chunks' base rows as one Dataset along ``sample``."""
    return xr.concat(bases, dim="sample", data_vars="all", coords="minimal", compat="override")


def _independence(plan: Plan, base: xr.Dataset, extra: xr.Dataset | None,
                  without: Future | None = None) -> xr.Dataset:
    """The independence check on the run's base rows (``base``), added to ``extra``;
    ``without``: its rows without the correlations, being evaluated (:func:`_beside`).

    (Evaluating those rows on a thread beside the sampling gained nothing measurable: the
    sampling keeps both cores busy. Beside the summaries, which run on one thread, they
    take 0.2-0.3 s off the default run.)"""
    from mc_tco.engine.dependence import independence_check

    part = independence_check(plan, base, None if without is None else without.result())
    return part if extra is None else with_extra(part, extra)


@contextlib.contextmanager
def _beside(plan: Plan) -> Iterator[Future]:
    """:func:`.dependence.independent_rows` of ``plan`` evaluated on a thread of its own
    (the future of its rows); on leaving, waited for (an error of the run first)."""
    from concurrent.futures import ThreadPoolExecutor

    from mc_tco.engine.dependence import independent_rows

    with ThreadPoolExecutor(1, thread_name_prefix="independence") as pool:
        future = pool.submit(independent_rows, plan)
        try:
            yield future
        finally:
            future.cancel()


def _dependence(plan: Plan, first: xr.Dataset, extra: xr.Dataset | None,
                progress: Progress | None, sampling_progress: Progress | None = None,
                scheduler: Any = None, shapley: bool = True) -> xr.Dataset | None:
    """The book's correlation matrices and (``shapley``) the Shapley effects (the
    independence check follows the sampling: :func:`_independence`; the Shapley effects may
    too: :func:`_shapley_beside`)."""
    # (imported only when used: a book without correlations needs neither)
    parts = []
    if plan.book.correlation is not None:
        from mc_tco.engine.dependence import correlation_dataset

        parts.append(correlation_dataset(plan))
    if plan.shapley and shapley:
        parts.append(_shapley(plan, first, progress, sampling_progress, scheduler, 0))
    for part in parts:
        extra = part if extra is None else with_extra(part, extra)
    return extra


def _shapley(plan: Plan, first: xr.Dataset, progress: Progress | None,
             sampling_progress: Progress | None, scheduler: Any, samples_done: int,
             cancel: threading.Event | None = None) -> xr.Dataset:
    """The Shapley effects of ``plan`` (:func:`.shapley.shapley_dataset`), the targets'
    cells read off the run's first chunk ``first``.

    Without a Shapley progress callback, the run's own ``progress`` is called with the
    base samples done so far (``samples_done``) at each block of Shapley rows, so a caller
    that cancels by raising from it (the browser app) can stop the Shapley pass too.
    ``cancel``: once set, the pass stops at its next block (:class:`_Cancelled`).
    """
    from mc_tco.engine.evaluate import _targets_array
    from mc_tco.engine.shapley import shapley_dataset

    said = progress if progress is not None else (
        None if sampling_progress is None
        else lambda done, total: sampling_progress(samples_done, plan.samples))

    def told(done: int, total: int) -> None:
        if cancel is not None and cancel.is_set():
            raise _Cancelled
        if said is not None:
            said(done, total)

    _, cells = _targets_array(plan, first)
    # the Shapley rows run on the driver's threads (one with --scheduler synchronous)
    workers = 1 if scheduler == "synchronous" else max(1, os.cpu_count() or 1)
    return shapley_dataset(plan, cells, told, workers=workers)


class _Cancelled(Exception):
    """The run stopped: the Shapley pass beside it stops too."""


@contextlib.contextmanager
def _shapley_beside(plan: Plan, first: xr.Dataset, progress: Progress | None,
                    sampling_progress: Progress | None, scheduler: Any,
                    ) -> Iterator[tuple[Future, list[float]]]:
    """The Shapley effects of ``plan`` (:func:`_shapley`) evaluated on a thread of their
    own, beside the run's tail: the future of their Dataset and, once it is done, its
    seconds (:func:`_joined`).

    The tail (the last rows written, the summaries, the independence check, the file
    completed) runs mostly on one core; the Shapley pass keeps the other busy meanwhile.
    (Before the sampling it ran on both cores, and the tail left one idle: about 1 s of
    the default run's 10.) On leaving with an error of the run (or a signal), the pass
    stops at its next block and is waited for; its own error is then dropped.
    """
    from concurrent.futures import ThreadPoolExecutor

    cancel = threading.Event()
    spent: list[float] = []

    def timed() -> xr.Dataset:
        start = time.monotonic()
        ds = _shapley(plan, first, progress, sampling_progress, scheduler, plan.samples,
                      cancel)
        spent.append(time.monotonic() - start)
        return ds

    with ThreadPoolExecutor(1, thread_name_prefix="shapley") as pool:
        future = pool.submit(timed)
        try:
            yield future, spent
        except BaseException:
            cancel.set()
            raise


def _joined(shapley: tuple[Future, list[float]] | None, extra: xr.Dataset | None,
            clock: _Stages) -> xr.Dataset | None:
    """``extra`` with the Shapley effects computed beside the run (:func:`_shapley_beside`),
    waited for; their stage said with the pass's own seconds. ``None``: ``extra``."""
    if shapley is None:
        return extra
    future, spent = shapley
    part = future.result()
    if clock.on_stage is not None:
        clock.on_stage("Shapley effects", spent[0])
    return part if extra is None else with_extra(part, extra)
