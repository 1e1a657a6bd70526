"""Where chunks run: dask threads, processes, synchronous, or a dask.distributed cluster.

The driver consumes chunks in chunk order, so the sums are added in the same order (and
give the same numbers) whatever the scheduler.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.engine.evaluate import evaluate_chunk
from mc_tco.engine.plan import Plan, RunSums
from mc_tco.errors import OptionError
from mc_tco.interrupt import check

__all__ = ["SCHEDULERS", "check_scheduler", "evaluate_all", "scheduler_text"]

Progress = Callable[[int, int], None]

SCHEDULERS = ("threads", "processes", "synchronous")


def scheduler_text(scheduler: Any) -> str:
    """The scheduler as the provenance names it (``threads``, ``processes``, dask.distributed)."""
    if scheduler is None or scheduler in SCHEDULERS:
        return scheduler or "threads"
    if isinstance(scheduler, str):
        return f"dask.distributed ({scheduler})"
    return f"dask.distributed ({getattr(scheduler, 'scheduler', None)})"


def check_scheduler(scheduler: Any) -> None:
    """Raise :class:`OptionError` for a scheduler name that is neither known nor an address."""
    if scheduler is None or not isinstance(scheduler, str) or scheduler in SCHEDULERS:
        return
    if "://" not in scheduler and ":" not in scheduler:
        raise OptionError(
            f"--scheduler {scheduler!r}: use threads, processes, synchronous or the "
            "address of a dask.distributed scheduler, e.g. tcp://host:8786"
        )


@contextlib.contextmanager
def _dask_scheduler(scheduler: Any) -> Iterator[tuple[Any, dict[str, Any], int]]:
    """Yield ``(scheduler for dask.compute, extra kwargs, chunks to keep in flight)``.

    ``scheduler`` is "threads" (default), "processes", "synchronous", the address of a
    dask.distributed scheduler (``tcp://host:8786``) or a ``distributed.Client``.
    """
    workers = os.cpu_count() or 1
    if scheduler is None or scheduler == "threads":
        yield "threads", {"num_workers": workers}, 2 * workers
    elif scheduler == "synchronous":
        yield "synchronous", {}, 1
    elif scheduler == "processes":
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            yield "processes", {"pool": pool}, 2 * workers
    elif isinstance(scheduler, str):
        check_scheduler(scheduler)
        try:
            from distributed import Client
        except ImportError:
            raise OptionError(
                f"--scheduler {scheduler}: needs dask.distributed; pip install 'mc_tco[cluster]'"
            ) from None
        try:
            # how long to keep trying (MC_TCO_SCHEDULER_TIMEOUT, e.g. "30s" on a slow network)
            timeout = os.environ.get("MC_TCO_SCHEDULER_TIMEOUT", "10s")
            client = Client(scheduler, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError) as exc:
            raise OptionError(
                f"--scheduler {scheduler}: cannot reach the scheduler ({exc}); is it running?"
            ) from None
        try:
            yield client, {}, 2 * max(1, sum(client.nthreads().values()))
        finally:
            client.close()
    else:  # a distributed.Client given from Python
        yield scheduler, {}, 2 * max(1, sum(scheduler.nthreads().values()))


def evaluate_all(
    plan: Plan, shift: np.ndarray, scheduler: Any, progress: Progress | None,
    start: int = 0, stop: int | None = None,
) -> Iterator[tuple[xr.Dataset, RunSums]]:
    """Evaluate the chunks from ``start`` to ``stop``; yield ``(base, sums)`` in chunk order.

    Chunks run on the dask scheduler in waves of a few per worker (threads: a sliding
    window of as many, :func:`_sliding`), so memory holds only the chunks in flight; the
    driver consumes them in chunk order, so the sums are added in the same order (and give
    the same numbers) whatever the scheduler and the number of workers.
    """
    stop = plan.samples if stop is None else stop
    chunks = plan.chunks(start, stop)
    done = start
    with _dask_scheduler(scheduler) as (sched, kwargs, width):
        if sched == "threads" and len(chunks) > 1:
            yield from _sliding(plan, shift, chunks, kwargs["num_workers"], width, progress,
                                done, stop)
            return
        if sched == "synchronous" or len(chunks) == 1:
            width = 1
        for i in range(0, len(chunks), width):
            wave = chunks[i : i + width]
            if width == 1:
                results = [evaluate_chunk(plan, s, e, shift) for s, e in wave]
            else:
                import dask  # (only here: 0.1-0.2 s of imports a threads run never needs)

                task = dask.delayed(evaluate_chunk, pure=False)
                tasks = [task(plan, s, e, shift) for s, e in wave]
                results = dask.compute(*tasks, scheduler=sched, **kwargs)
            check()  # a Ctrl-C swallowed inside the wave stops the run here
            for (s, e), (base, sums, _) in zip(wave, results, strict=True):
                done += e - s
                yield base, sums
                if progress is not None:
                    progress(done, stop)



def _sliding(plan: Plan, shift: np.ndarray, chunks: list[tuple[int, int]],
             workers: int, width: int, progress: Progress | None, done: int, stop: int,
             ) -> Iterator[tuple[xr.Dataset, RunSums]]:
    """Threads: ``width`` chunks in flight, the next one started as each is consumed.

    The driver's own work on a chunk (writing its base rows, adding its sums) overlaps
    the evaluation of the following ones instead of waiting for a whole wave; chunks are
    still consumed in chunk order (the same numbers).
    """
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    todo = iter(chunks)
    pending: deque = deque()
    with ThreadPoolExecutor(workers) as pool:

        def submit() -> None:
            for s, e in todo:
                pending.append((e - s, pool.submit(evaluate_chunk, plan, s, e, shift)))
                return

        try:
            for _ in range(width):
                submit()
            while pending:
                size, future = pending.popleft()
                base, sums, _ = future.result()
                check()  # a Ctrl-C swallowed in a worker stops the run here
                submit()
                done += size
                yield base, sums
                if progress is not None:
                    progress(done, stop)
        finally:  # stopped early (an error, Ctrl-C): drop what has not started
            for _, future in pending:
                future.cancel()
