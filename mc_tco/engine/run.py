"""Run a plan: evaluate every chunk, stream the sums and base rows, summarise."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from pathlib import Path
from typing import Any

import xarray as xr

from ..book import Book
from ..errors import OptionError
from .adaptive import cell_layout, convergence_step, with_path
from .evaluate import evaluate_chunk
from .plan import Plan, check_samples, plan_run
from .schedule import Progress, check_scheduler, evaluate_all
from .summarize import summarize, with_extra

__all__ = ["execute", "run"]


def run(
    book: Book,
    *,
    progress: Progress | None = None,
    scheduler: Any = None,
    out: str | Path | None = None,
    **options: Any,
) -> xr.Dataset:
    """Run the Monte Carlo and Sobol' analysis of ``book``.

    Parameters
    ----------
    book : Book
        A loaded book (:func:`mc_tco.book.load_book`).
    progress : callable, optional
        Called as ``progress(done, total)`` in base samples after every chunk.
    scheduler : str or distributed.Client, optional
        Where the chunks run (see :func:`execute`); the numbers do not depend on it.
    out : path, optional
        Stream the results into this netCDF file (bounded memory at any ``N``) and return
        it opened lazily; without it everything stays in memory.
    **options
        The options of :func:`plan_run`: ``samples`` (base sample size N, a power of
        two; the model runs N (K + 2) rows), ``seed``, ``ci`` ("rqmc", "asymptotic" or
        "bootstrap"), ``replicates``, ``resamples``, ``estimator``, ``conf_level``,
        ``chunk_size`` (never changes the numbers), ``second_order``, ``by_group``,
        ``keep_samples``.

    Returns
    -------
    xr.Dataset
        Model outputs over the base rows (dim ``sample``), Sobol' indices (``S1``,
        ``ST``, ``S1_conf``, ``ST_conf``), summaries and provenance (see
        :func:`summarize`).

    Examples
    --------
    >>> from mc_tco.book import load_book
    >>> ds = run(load_book("distributions/article.toml"), samples=1024)  # doctest: +SKIP
    >>> ds.p_positive.sel(target="saving>0", strategy="buy").to_series()  # doctest: +SKIP
    """
    return execute(plan_run(book, **options), progress=progress, scheduler=scheduler, out=out)


# ----------------------------------------------------------------------------- scheduling

def execute(
    plan: Plan,
    progress: Progress | None = None,
    scheduler: Any = None,
    out: str | Path | None = None,
    target_halfwidth: float | None = None,
    max_samples: int | None = None,
    on_step: Callable[[dict], None] | None = None,
    extra: xr.Dataset | None = None,
) -> xr.Dataset:
    """Evaluate a checked :class:`Plan` chunk by chunk and summarise.

    Parameters
    ----------
    plan : Plan
    progress : callable, optional
        ``progress(done, total)`` in base samples.
    scheduler : str or distributed.Client, optional
        "threads" (default), "processes", "synchronous", a dask.distributed address
        (``tcp://host:8786``) or a ``distributed.Client``.
    out : path, optional
        Stream the base rows into this netCDF file (written atomically: a temporary file
        renamed when complete) and return the file opened lazily.
    target_halfwidth : float, optional
        Double the base sample, from ``plan.samples``, re-using every row already
        evaluated, until the decision indicators are ranked to this precision (see
        :func:`convergence_step`); stop at ``max_samples`` at the latest.
    max_samples : int, optional
        The largest base sample of a ``target_halfwidth`` run (default 64 x the start).
    on_step : callable, optional
        Called with each doubling's record (a dict) of a ``target_halfwidth`` run.
    extra : xr.Dataset, optional
        Further results computed beside the run (e.g. the family check), stored with it.
    """
    check_scheduler(scheduler)
    stages = [plan.samples]
    if target_halfwidth is not None:
        if not 0 < target_halfwidth < 1:
            raise OptionError(
                f"--target-halfwidth must lie between 0 and 1, got {target_halfwidth}"
            )
        max_samples = max_samples or plan.samples * 64
        check_samples(max_samples)
        if max_samples < plan.samples:
            raise OptionError(
                f"--max-samples ({max_samples}) must be at least --samples ({plan.samples})"
            )
        while stages[-1] < max_samples:
            stages.append(stages[-1] * 2)
    first, _, shift = evaluate_chunk(plan, *plan.first)
    layout = cell_layout(plan, first) if target_halfwidth is not None else None
    from ..io import atomic_path
    from ..store import BaseStore

    with contextlib.ExitStack() as stack:
        # an existing results file is kept as <out>.bak (one generation), as write_results
        tmp = stack.enter_context(atomic_path(out, backup=True)) if out is not None else None
        store, bases, total, path, done = None, [], None, [], 0
        for stage in stages:
            for base, sums in evaluate_all(plan, shift, scheduler, progress, done, stage):
                total = sums if total is None else total + sums
                if tmp is None:
                    bases.append(base)
                elif store is None:
                    store = BaseStore.create(tmp, base, plan.chunk_size, list(plan.grid))
                else:
                    store.append(base)
            done = stage
            if target_halfwidth is None:
                break
            step = convergence_step(plan, total, target_halfwidth, path[-1] if path else None,
                                    layout=layout)
            path.append(step)
            if on_step is not None:
                on_step(step)
            if step["converged"]:
                break
        plan = dataclasses.replace(plan, samples=done)
        if tmp is None:
            base = xr.concat(
                bases, dim="sample", data_vars="all", coords="minimal", compat="override"
            )
            summary = with_path(summarize(plan, base, total, scheduler), path, target_halfwidth)
            summary = with_extra(summary, extra)
            return base.merge(summary, join="exact", compat="override").assign_attrs(
                summary.attrs
            )
        store.close()
        with store.open() as lazy:
            summary = with_path(summarize(plan, lazy, total, scheduler), path, target_halfwidth)
        store.add(with_extra(summary, extra))
    return xr.open_dataset(out, engine="h5netcdf")

