"""The engine: book -> Saltelli design -> model -> Sobol' sums and summaries -> xr.Dataset.

:func:`plan_run` checks a book and the options without computing anything; :func:`run`
evaluates the model chunk by chunk (a chunk is a range of base samples with all their
design rows), keeps the base rows (``A``) of every output and streams the Sobol' sums of the
targets, then summarises. Nothing here prints or writes files.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import math
import operator
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from .book import Book, Grid
from .design import SaltelliDesign
from .errors import BookError, McTcoError, ModelError, OptionError
from .models import ModelSpec, check_analysis, check_book, resolve_model, spec_of
from .sobol import (
    BLOCK,
    CI_METHODS,
    ESTIMATORS,
    SobolSums,
    ci_method_text,
    poisson_weights,
    rqmc_result,
    rqmc_seeds,
)
from .summary import QUANTILES, quantiles_with_never, stack_targets, summarize_targets

__all__ = ["DEFAULT_SAMPLES", "Plan", "evaluate_base", "evaluate_chunk", "plan_run", "run"]

DEFAULT_SAMPLES = 8192
MIN_SAMPLES = 16
DEFAULT_RESAMPLES = 100
#: independent scrambles of the design behind the default (randomized-QMC) intervals
DEFAULT_REPLICATES = 8
#: largest magnitude of a target: the Sobol' sums of squares of 2**40 of them stay finite
TARGET_MAX = 1e140

Progress = Callable[[int, int], None]


@dataclass
class RunSums:
    """The Sobol' sums of a run: one :class:`SobolSums` per scramble, merged chunk by chunk."""

    reps: list[SobolSums]
    ci: str

    def __add__(self, other: RunSums) -> RunSums:
        return RunSums([a + b for a, b in zip(self.reps, other.reps, strict=True)], self.ci)

    def pooled(self) -> SobolSums:
        """All scrambles' sums merged (the pooled estimate's sums)."""
        return functools.reduce(operator.add, self.reps)

    def result(self, conf_level: float) -> dict:
        """Estimates and half-widths by the run's interval method (see :mod:`mc_tco.sobol`)."""
        if self.ci == "rqmc":
            return rqmc_result(self.reps, conf_level)
        return self.reps[0].result(conf_level, ci=self.ci)


@dataclass
class Plan:
    """Everything a run needs, checked; built by :func:`plan_run`."""

    book: Book
    model: Callable
    spec: ModelSpec
    grid: dict[str, Grid]
    targets: list[str]
    report: dict[str, list]
    focus: dict[str, Any]
    distributions: list[str]
    samples: int
    seed: int
    resamples: int
    conf_level: float
    chunk_size: int
    second_order: bool
    keep_samples: str = "all"
    by_group: bool = False
    ci: str = "rqmc"
    replicates: int = DEFAULT_REPLICATES
    estimator: str = "saltelli"
    design: SaltelliDesign = field(init=False)
    designs: list[SaltelliDesign] = field(init=False)

    def __getstate__(self):
        # the model is re-imported where the plan is unpickled (a dask worker), from the
        # book's folder too, so a user's own model module need not be importable by name
        state = self.__dict__.copy()
        state["model"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        if self.model is None:
            self.model = resolve_model(self.book)

    def __post_init__(self):
        members = tuple(self.group_members.values()) if self.by_group else ()
        # one scramble seeded by --seed (SALib's design), or R independent scrambles
        seeds = rqmc_seeds(self.seed, self.replicates) if self.ci == "rqmc" else [self.seed]
        self.designs = [
            SaltelliDesign(
                len(self.book.uncertain), s, second_order=self.second_order,
                extra_factors=members,
            )
            for s in seeds
        ]
        self.design = self.designs[0]

    @property
    def n_replicates(self) -> int:
        """Independent scrambles of the design (1 unless ``ci == "rqmc"``)."""
        return len(self.designs)

    def base_points(self, start: int, stop: int) -> np.ndarray:
        """Unit-cube points (A | B) of base samples ``start .. stop-1``, shape (n, 2D).

        With R scrambles, base sample ``g`` is point ``g // R`` of scramble ``g % R``
        (interleaved), so any prefix of the samples holds every scramble equally and a run
        grown by doubling equals a run made at the final size. ``start`` and ``stop`` must
        then be multiples of R.
        """
        r = self.n_replicates
        if r == 1:
            return self.design.base(start, stop)
        if start % r or stop % r:
            raise ValueError(f"chunk [{start}, {stop}) must align with {r} replicates")
        parts = [d.base(start // r, stop // r) for d in self.designs]
        return np.stack(parts, axis=1).reshape(stop - start, -1)

    def new_sums(self, shift: np.ndarray) -> RunSums:
        """Empty Sobol' sums (one per scramble) for this plan's estimator and interval."""
        resamples = self.resamples if self.ci == "bootstrap" else 0
        return RunSums([
            SobolSums(self.design.num_factors, self.second_order, shift, resamples,
                      estimator=self.estimator, moments=self.ci == "asymptotic")
            for _ in range(self.n_replicates)
        ], self.ci)

    @property
    def factors(self) -> list[str]:
        """The uncertain inputs, in the order of the design's columns."""
        return [i.name for i in self.book.uncertain]

    @property
    def group_members(self) -> dict[str, tuple[int, ...]]:
        """The book's groups of uncertain inputs (column indices), in book order."""
        groups: dict[str, list[int]] = {}
        for j, inp in enumerate(self.book.uncertain):
            if inp.group:
                groups.setdefault(inp.group, []).append(j)
        return {g: tuple(cols) for g, cols in groups.items()}

    @property
    def groups(self) -> list[str]:
        """The groups ranked as blocks (``by_group``), else none."""
        return list(self.group_members) if self.by_group else []

    @property
    def model_runs(self) -> int:
        return self.samples * self.design.rows_per_sample

    @property
    def first(self) -> tuple[int, int]:
        """The smallest chunk that starts the run (one sample of each scramble)."""
        return 0, self.n_replicates

    def chunks(self, start: int = 0, stop: int | None = None) -> list[tuple[int, int]]:
        """Ranges of base samples evaluated at once, from ``start`` to ``stop`` (or N)."""
        stop = self.samples if stop is None else stop
        return [(s, min(stop, s + self.chunk_size)) for s in range(start, stop, self.chunk_size)]


def plan_run(
    book: Book,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    conf_level: float = 0.95,
    chunk_size: int | None = None,
    second_order: bool = False,
    keep_samples: str = "all",
    by_group: bool = False,
    ci: str = "rqmc",
    replicates: int = DEFAULT_REPLICATES,
    estimator: str = "saltelli",
) -> Plan:
    """Check ``book`` against its model and the options; return the :class:`Plan`.

    Raises
    ------
    BookError, ModelError, OptionError
        With a one-line message that says what to fix.
    """
    _check_samples(samples)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise OptionError(f"--seed must be a whole number >= 0, got {seed!r}")
    if not 0 <= resamples <= 100_000 or resamples == 1:
        raise OptionError(f"--bootstrap must be 0 (none) or 2..100000 resamples, got {resamples}")
    if not 0 < conf_level < 1:
        raise OptionError(f"--conf-level must lie strictly between 0 and 1, got {conf_level}")
    if chunk_size is None:
        chunk_size = BLOCK
    if chunk_size < 1 or (chunk_size % BLOCK and chunk_size < samples):
        raise OptionError(
            f"--chunk-size must be a multiple of {BLOCK} base samples, got {chunk_size}"
        )
    if ci not in CI_METHODS:
        raise OptionError(f"--ci must be one of {', '.join(CI_METHODS)}, got {ci!r}")
    if estimator not in ESTIMATORS:
        raise OptionError(
            f"--estimator must be one of {', '.join(ESTIMATORS)}, got {estimator!r}"
        )
    if ci == "rqmc":
        if not 2 <= replicates <= 64 or replicates & (replicates - 1):
            raise OptionError(
                f"--replicates must be a power of two from 2 to 64, got {replicates}"
            )
        if samples < 2 * replicates:
            raise OptionError(
                f"--samples ({samples}) must be at least 2 x --replicates ({replicates}): "
                "each scramble needs two base samples, and hundreds for useful intervals"
            )
    else:
        replicates = 1
    if keep_samples not in KEEP_SAMPLES:
        raise OptionError(
            f"--keep-samples must be one of {', '.join(KEEP_SAMPLES)}, got {keep_samples!r}"
        )
    if not book.uncertain:
        raise BookError(
            book.path, None, "every input is a constant; give at least one a distribution"
        )
    model = resolve_model(book)
    spec = spec_of(model)
    check_book(book, spec)
    if by_group and not any(i.group for i in book.uncertain):
        raise book.error(
            "inputs", "--by group needs groups: give inputs a group = \"...\" field"
        )
    analysis = book.analysis
    targets = list(analysis.get("targets") or spec.targets)
    if not targets:
        raise book.error(
            "analysis",
            "no targets: add [analysis] targets = [\"<output name>\"] naming the model "
            "output(s) to summarise and rank",
        )
    grid = dict(book.grid) if book.grid else dict(spec.grid)
    report = dict(analysis.get("report") or spec.report)
    for dim, points in report.items():
        if dim in grid and points and not isinstance(points[0], str):
            grid[dim] = grid[dim].with_points(points)
    focus = dict(analysis.get("focus") or spec.focus)
    for dim, value in focus.items():
        if dim in grid and not isinstance(value, str):
            grid[dim] = grid[dim].with_points([value])
    distributions = list(analysis.get("distributions", spec.distributions))
    return Plan(
        book=book,
        model=model,
        spec=spec,
        grid=grid,
        targets=targets,
        report=report,
        focus=focus,
        distributions=distributions,
        samples=int(samples),
        seed=int(seed),
        resamples=int(resamples),
        conf_level=float(conf_level),
        chunk_size=int(chunk_size),
        second_order=second_order,
        keep_samples=keep_samples,
        by_group=by_group,
        ci=ci,
        replicates=int(replicates),
        estimator=estimator,
    )


#: which per-sample outputs a run keeps: every output, or only what the summaries need
KEEP_SAMPLES = ("all", "targets")


def _check_samples(samples, flag: str = "--samples") -> None:
    from .options import check_power_of_two

    check_power_of_two(samples, flag)


# ----------------------------------------------------------------------------- chunks


def design_values(plan: Plan, start: int, stop: int) -> np.ndarray:
    """Input values of the design rows of base samples ``start .. stop-1``, (n, R, D).

    The ``ppf`` of each input is evaluated on the ``A`` and ``B`` rows only (2 n points per
    column); the design rows mix those values.
    """
    d = plan.design.num_inputs
    base = plan.base_points(start, stop)
    values = np.empty_like(base)
    for j, inp in enumerate(plan.book.uncertain):
        values[:, [j, j + d]] = inp.ppf(base[:, [j, j + d]])
    return plan.design.mix(values[:, :d], values[:, d:])


def _input_dataset(plan: Plan, rows: np.ndarray) -> xr.Dataset:
    """The model's input Dataset for design rows of input values, shape (rows, D)."""
    n = rows.shape[0]
    data = {}
    col = {inp.name: j for j, inp in enumerate(plan.book.uncertain)}
    for name, inp in plan.book.inputs.items():
        values = rows[:, col[name]] if name in col else np.full(n, inp.value)
        data[name] = xr.Variable("sample", values, {"units": inp.unit})
    coords = {dim: xr.Variable(dim, g.values, {"units": g.unit}) for dim, g in plan.grid.items()}
    return xr.Dataset(data, coords=coords)


def _call_model(plan: Plan, inputs: xr.Dataset) -> xr.Dataset:
    try:
        # floating-point trouble is caught below, with the inputs that caused it
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = plan.model(inputs)
    except McTcoError as exc:  # the model's own check of its inputs or outputs
        raise ModelError(f"{plan.book.path}: {exc}") from exc
    except Exception as exc:
        raise ModelError(
            f"{plan.book.path}: model '{plan.book.model or 'mc_tco.models.tco:model'}' raised "
            f"{type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(out, xr.Dataset):
        raise ModelError(
            f"{plan.book.path}: model '{plan.book.model}' returned a {type(out).__name__}; "
            "it must return an xr.Dataset with a 'sample' dim"
        )
    n = inputs.sizes["sample"]
    for t in plan.targets:
        if t not in out:
            raise plan.book.error(
                "analysis.targets",
                f"the model returned no output '{t}'; its outputs are "
                f"{', '.join(map(str, out.data_vars)) or 'none'}",
                "targets",
            )
        da = out[t]
        if da.sizes.get("sample") != n:
            raise ModelError(
                f"{plan.book.path}: model output '{t}' must have dim 'sample' of length {n} "
                f"(one value per input row), got dims {dict(da.sizes)}"
            )
        with np.errstate(invalid="ignore"):
            # beyond TARGET_MAX the Sobol' sums of squares would overflow
            bad = ~(np.abs(da.values) <= TARGET_MAX)
        if bad.any():
            first = tuple(np.argwhere(bad)[0])
            row = int(first[da.dims.index("sample")])
            values = ", ".join(
                f"{k}={float(inputs[k].values[row]):.6g}" for k in plan.factors
            )
            raise ModelError(
                f"{plan.book.path}: model output '{t}' is {da.values[first]} "
                f"for the inputs {values}; the model must return finite targets "
                f"(of magnitude below {TARGET_MAX:g}: rescale the output otherwise)"
            )
    check_analysis(plan.book, out, plan.targets, plan.report, plan.focus, plan.distributions,
                   spec=plan.spec)
    return out


def _targets_array(plan: Plan, out: xr.Dataset, cells: tuple[str, ...] | None = None):
    """Targets and indicators as (rows, T, *cells) numpy plus the cell dims and coords."""
    stacked = stack_targets(out, plan.targets)
    dims = tuple(d for d in stacked.dims if d not in ("sample", "target"))
    if cells is not None and set(cells) != set(dims):
        raise ModelError(f"{plan.book.path}: the targets' dims changed between chunks")
    dims = cells or dims
    return stacked.transpose("sample", "target", *dims), dims


def evaluate_chunk(plan: Plan, start: int, stop: int, shift: np.ndarray | None = None):
    """Evaluate base samples ``start .. stop-1`` with all their design rows.

    Returns
    -------
    base : xr.Dataset
        The model outputs with a ``sample`` dim at the base rows (``A``) of the chunk, and
        ``input_value`` (sample, input).
    sums : RunSums or None
        The chunk's Sobol' sums of the targets, one per scramble (None when ``shift`` is
        None).
    y_first : ndarray
        The target values of the chunk's first base row (used as the shift).
    """
    rows = design_values(plan, start, stop)  # (n, R, D)
    n, per, d = rows.shape
    flat = rows.reshape(n * per, d)
    inputs = _input_dataset(plan, flat)
    out = _call_model(plan, inputs)
    stacked, _ = _targets_array(plan, out)
    y = stacked.values.reshape(n, per, -1)
    sums = None
    if shift is not None:
        sums = plan.new_sums(shift)
        r = plan.n_replicates
        if r == 1:
            resamples = sums.reps[0].resamples
            weights = poisson_weights(plan.seed, start, stop, resamples) if resamples else None
            sums.reps[0].add(y, weights)
        else:  # sample g belongs to scramble g % R
            for i, rep in enumerate(sums.reps):
                rep.add(y[i::r])
    a_rows = slice(0, None, per)
    keep = set(plan.targets) | set(plan.distributions)
    base_vars = {
        k: v.isel(sample=a_rows)
        for k, v in out.data_vars.items()
        if "sample" in v.dims and (plan.keep_samples == "all" or k in keep)
    }
    base = xr.Dataset(base_vars).copy(deep=True)  # a copy, not a view holding the chunk
    values = np.stack([inputs[f].values[a_rows] for f in plan.factors], axis=1)
    base["input_value"] = (
        ("sample", "input"), values,
        {"long_name": "sampled value of each uncertain input (base rows)"},
    )
    base = base.assign_coords(sample=np.arange(start, stop))
    return base, sums, y[0, 0].copy()


def estimate_base_bytes(plan: Plan, samples: int | None = None) -> int:
    """Bytes the base rows of a run will take uncompressed (an upper bound on the file)."""
    base, _, _ = evaluate_chunk(plan, *plan.first)
    return int(base.nbytes / plan.first[1] * (samples or plan.samples))


def evaluate_base(plan: Plan, start: int = 0, stop: int | None = None) -> xr.Dataset:
    """Model outputs on the base rows (``A``) of samples ``start .. stop-1`` only.

    The same rows as the ``sample`` dim of :func:`run`'s results, without the Saltelli
    rows: for analyses that need independent samples but no Sobol' indices (e.g. re-running
    the base sample of a modified book). Includes ``input_value`` (sample, input).
    """
    stop = plan.samples if stop is None else stop
    d = plan.design.num_inputs
    parts = []
    for s, e in plan.chunks():
        s, e = max(s, start), min(e, stop)
        if s >= e:
            continue
        base = plan.base_points(s, e)[:, :d]
        values = np.empty_like(base)
        for j, inp in enumerate(plan.book.uncertain):
            values[:, j] = inp.ppf(base[:, j])
        out = _call_model(plan, _input_dataset(plan, values))
        part = xr.Dataset({k: v for k, v in out.data_vars.items() if "sample" in v.dims})
        part["input_value"] = (("sample", "input"), values)
        parts.append(part.assign_coords(sample=np.arange(s, e)))
    return xr.concat(parts, dim="sample", data_vars="all", coords="minimal", compat="override")


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

SCHEDULERS = ("threads", "processes", "synchronous")


def _scheduler_text(scheduler) -> str:
    if scheduler is None or scheduler in SCHEDULERS:
        return scheduler or "threads"
    if isinstance(scheduler, str):
        return f"dask.distributed ({scheduler})"
    return f"dask.distributed ({getattr(scheduler, 'scheduler', None)})"


def check_scheduler(scheduler) -> None:
    """Raise :class:`OptionError` for a scheduler name that is neither known nor an address."""
    if scheduler is None or not isinstance(scheduler, str) or scheduler in SCHEDULERS:
        return
    if "://" not in scheduler and ":" not in scheduler:
        raise OptionError(
            f"--scheduler {scheduler!r}: use threads, processes, synchronous or the "
            "address of a dask.distributed scheduler, e.g. tcp://host:8786"
        )


@contextlib.contextmanager
def _dask_scheduler(scheduler):
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
            client = Client(scheduler, timeout="10s", set_as_default=False)
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


def _evaluate_all(
    plan: Plan, shift: np.ndarray, scheduler, progress: Progress | None,
    start: int = 0, stop: int | None = None,
):
    """Evaluate the chunks from ``start`` to ``stop``; yield ``(base, sums)`` in chunk order.

    Chunks run on the dask scheduler in waves of a few per worker, so memory holds only the
    chunks in flight; the driver consumes them in chunk order, so the sums are added in the
    same order (and give the same numbers) whatever the scheduler and the number of workers.
    """
    import dask

    stop = plan.samples if stop is None else stop
    chunks = plan.chunks(start, stop)
    done = start
    with _dask_scheduler(scheduler) as (sched, kwargs, width):
        if sched == "synchronous" or len(chunks) == 1:
            width = 1
        for i in range(0, len(chunks), width):
            wave = chunks[i : i + width]
            if width == 1:
                results = [evaluate_chunk(plan, s, e, shift) for s, e in wave]
            else:
                task = dask.delayed(evaluate_chunk, pure=False)
                tasks = [task(plan, s, e, shift) for s, e in wave]
                results = dask.compute(*tasks, scheduler=sched, **kwargs)
            for (s, e), (base, sums, _) in zip(wave, results, strict=True):
                done += e - s
                yield base, sums
                if progress is not None:
                    progress(done, stop)


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
        _check_samples(max_samples, "--max-samples")
        if max_samples < plan.samples:
            raise OptionError(
                f"--max-samples ({max_samples}) must be at least --samples ({plan.samples})"
            )
        while stages[-1] < max_samples:
            stages.append(stages[-1] * 2)
    first, _, shift = evaluate_chunk(plan, *plan.first)
    layout = _layout(plan, first) if target_halfwidth is not None else None
    from .io import atomic_path
    from .store import BaseStore

    with contextlib.ExitStack() as stack:
        # an existing results file is kept as <out>.bak (one generation), as write_results
        tmp = stack.enter_context(atomic_path(out, backup=True)) if out is not None else None
        store, bases, total, path, done = None, [], None, [], 0
        for stage in stages:
            for base, sums in _evaluate_all(plan, shift, scheduler, progress, done, stage):
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
            summary = _with_path(summarize(plan, base, total, scheduler), path, target_halfwidth)
            summary = _with_extra(summary, extra)
            return base.merge(summary, join="exact", compat="override").assign_attrs(
                summary.attrs
            )
        store.close()
        with store.open() as lazy:
            summary = _with_path(summarize(plan, lazy, total, scheduler), path, target_halfwidth)
        store.add(_with_extra(summary, extra))
    return xr.open_dataset(out, engine="h5netcdf")


#: report cells where P(indicator) is below this (or above 1 minus it) are "settled": the
#: decision is clear there and their ranking is not held to --target-halfwidth
SETTLED = 0.01


def convergence_step(
    plan: Plan, sums: RunSums, target: float, previous: dict | None,
    layout: dict | None = None,
) -> dict:
    """One doubling's record: is every decision indicator ranked to ``target``?

    The decision indicators are ``t>0`` for each target ``t``, at the report points (every
    combination of ``report`` values, e.g. demand x strategy). A cell where the indicator is
    constant, or where P(t > 0) is below 1% or above 99% (:data:`SETTLED`), is settled
    and not held to the target. Converged when the largest ST half-width over the other
    cells is at most ``target`` and each cell's top five inputs are the same as at the
    previous doubling.

    Returns
    -------
    dict
        ``samples``, ``worst_halfwidth``, ``worst_cell``, ``cells`` (held to the target),
        ``settled``, ``rankings`` ({cell: [top five]}), ``converged``, ``why``.
    """
    res = sums.result(plan.conf_level)
    pooled = sums.pooled()
    k, n = plan.design.num_factors, pooled.n
    d = len(plan.factors)
    mean_a = pooled.mean_a()  # P(indicator > 0) on the A rows
    layout = layout or _layout(plan)
    t = len(layout["target"])
    shape = (t, *(len(v) for v in layout["values"]))
    st = res["ST"].reshape((k, *shape))[:d]
    st_conf = res["ST_conf"].reshape((k, *shape))[:d]
    p = mean_a.reshape(shape)
    worst, worst_cell, rankings, held, settled = 0.0, None, {}, 0, 0
    for ti, tname in enumerate(layout["target"]):
        if not tname.endswith(">0"):
            continue
        for idx in _report_cells(plan, layout):
            cell = (ti, *idx)
            label = tname + " @ " + ", ".join(
                f"{dim}={_show_point(layout['values'][i][j])}"
                for i, (dim, j) in enumerate(zip(layout["dims"], idx, strict=True))
            )
            column = st[(slice(None), *cell)]
            if not np.isfinite(column).any() or min(p[cell], 1 - p[cell]) < SETTLED:
                settled += 1
                continue
            held += 1
            half = float(np.nanmax(st_conf[(slice(None), *cell)]))
            if half > worst:
                worst, worst_cell = half, label
            order = np.argsort(-np.nan_to_num(st[(slice(None), *cell)], nan=-np.inf))[:5]
            rankings[label] = [plan.factors[j] for j in order]
    stable = previous is not None and previous["rankings"] == rankings
    converged = worst <= target and (stable or held == 0)
    if converged:
        why = f"every ST half-width <= {target:g} and the top five stable"
    elif worst > target:
        why = f"worst half-width {worst:.3g} > {target:g} ({worst_cell})"
    else:
        why = "half-widths met, ranking changed since the last doubling"
    return {
        "samples": int(n), "worst_halfwidth": worst, "worst_cell": worst_cell, "cells": held,
        "settled": settled, "rankings": rankings, "converged": bool(converged), "why": why,
    }


def _show_point(v) -> str:
    return v if isinstance(v, str) else f"{v:.4g}"


def _layout(plan: Plan, base: xr.Dataset | None = None) -> dict:
    """Target names and cell dims/values of the flattened Sobol' cells.

    Read from ``base``, the base rows of the run's first chunk (evaluated here if absent).
    """
    if base is None:
        base, _, _ = evaluate_chunk(plan, *plan.first)
    stacked, cells = _targets_array(plan, base)
    return {
        "target": [str(v) for v in stacked["target"].values],
        "dims": list(cells),
        "values": [list(stacked[c].values) if c in stacked.coords else
                   list(range(stacked.sizes[c])) for c in cells],
    }


def _report_cells(plan: Plan, layout: dict) -> list[tuple[int, ...]]:
    """Index tuples (over the cell dims) of every combination of report points."""
    from itertools import product

    axes = []
    for dim, values in zip(layout["dims"], layout["values"], strict=True):
        wanted = plan.report.get(dim)
        if wanted is None:
            axes.append(range(len(values)))
            continue
        idx = []
        for w in wanted:
            if isinstance(w, str):
                idx += [i for i, v in enumerate(values) if v == w]
            else:
                idx.append(int(np.argmin(np.abs(np.asarray(values, dtype=float) - w))))
        axes.append(idx)
    return list(product(*axes))


def _with_extra(summary: xr.Dataset, extra: xr.Dataset | None) -> xr.Dataset:
    if extra is None:
        return summary
    merged = summary.merge(extra.drop_attrs(deep=False), join="exact")
    merged.attrs.update(summary.attrs)
    merged.attrs.update(extra.attrs)
    return merged


def _with_path(summary: xr.Dataset, path: list[dict], target: float | None) -> xr.Dataset:
    """Record a --target-halfwidth run's doublings in the summary."""
    if not path:
        return summary
    summary = summary.assign_coords(step=np.arange(len(path)), rank=np.arange(1, 6))
    summary["convergence_samples"] = ("step", [p["samples"] for p in path])
    summary["convergence_worst_halfwidth"] = (
        "step", [p["worst_halfwidth"] for p in path],
        {"long_name": "largest ST half-width of the decision indicators at the report "
                      "points that are not settled", "target": target},
    )
    summary.attrs["convergence_path"] = json.dumps(path)
    summary.attrs["convergence_target_halfwidth"] = target
    summary.attrs["converged"] = int(path[-1]["converged"])
    return summary


def _blocks(base: xr.Dataset, plan: Plan, cells: tuple[str, ...], budget: float = 2.5e8):
    """Slices of the first grid dim of the targets that keep a block under ``budget`` bytes."""
    dim = next((d for d in cells if d in plan.grid), None)
    if dim is None:
        return None, [slice(None)]
    others = math.prod(base.sizes[d] for d in cells if d != dim)
    per_point = base.sizes["sample"] * others * 2 * len(plan.targets) * 8
    step = max(1, int(budget // max(per_point, 1)))
    chunks = base.chunks or {}
    if dim in chunks:  # read whole stored chunks: a multiple of the file's chunk size
        stored = chunks[dim][0]
        step = max(stored, step // stored * stored)
    n = base.sizes[dim]
    return dim, [slice(i, min(n, i + step)) for i in range(0, n, step)]


def summarize(plan: Plan, base: xr.Dataset, sums: RunSums, scheduler: Any = None) -> xr.Dataset:
    """The Sobol' indices, summaries and provenance of a run (everything but the base rows).

    ``base`` holds the base rows (in memory, or lazily from a file: it is read block by
    block along the first grid dim, so memory stays bounded).

    Dims: ``input``, ``target`` (each target ``t`` and its indicator ``t>0``),
    ``quantile``, ``ci_bound`` and the grid and model dims.
    """
    first = base.isel(sample=slice(0, 1)).load()
    stacked, cells = _targets_array(plan, first)
    cell_shape = tuple(stacked.sizes[c] for c in cells)
    k = plan.design.num_factors
    t = stacked.sizes["target"]
    res = sums.result(plan.conf_level)
    book = plan.book
    ds = xr.Dataset(
        coords={
            "input": plan.factors,
            "input_unit": ("input", [i.unit for i in book.uncertain]),
            "input_group": ("input", [i.group for i in book.uncertain]),
            "input_family": ("input", [i.family for i in book.uncertain]),
            "target": stacked["target"].values,
            **{c: stacked.coords[c].values for c in cells if c in stacked.coords},
        }
    )
    d = len(plan.factors)
    sdims = ("target", "input", *cells)
    gdims = ("target", "group", *cells)
    if plan.groups:
        ds = ds.assign_coords(group=plan.groups)
    for name, long in [
        ("S1", "first-order Sobol' index"),
        ("ST", "total-order Sobol' index"),
        ("S1_conf", "half-width of the confidence interval of S1"),
        ("ST_conf", "half-width of the confidence interval of ST"),
    ]:
        arr = res[name].reshape((k, t, *cell_shape)).swapaxes(0, 1)
        ds[name] = (sdims, arr[:, :d], {"long_name": long, "units": "1"})
        if plan.groups:
            ds[f"{name.replace('_conf', '')}_group{'_conf' if 'conf' in name else ''}"] = (
                gdims, arr[:, d:], {"long_name": long + " of a group of inputs", "units": "1"}
            )
    if plan.second_order:
        ds = ds.assign_coords(input_2=("input_2", plan.factors))
        for name in ("S2", "S2_conf"):
            arr = np.moveaxis(res[name].reshape((k, k, t, *cell_shape)), 2, 0)[:, :d, :d]
            ds[name] = (("target", "input", "input_2", *cells), arr, {"units": "1"})
    for name in ["S1", "S1_group", "S2"]:
        if name in ds:
            below = ds[name] < -ds[f"{name}_conf"]
            ds[f"{name}_negative"] = below.astype(np.int8).assign_attrs(
                long_name=f"1 where {name} is below minus its half-width: a negative "
                "estimate larger than its error (kept as estimated; a sign of too few samples "
                "or of an estimator's bias at small indices)"
            )
    ds["constant_output"] = (
        ("target", *cells),
        res["constant"].reshape((t, *cell_shape)).astype(np.int8),
        {"long_name": "1 where the target does not vary: its Sobol' indices are NaN"},
    )
    ci_text = ci_method_text(
        plan.ci, plan.conf_level, resamples=plan.resamples, replicates=plan.n_replicates,
        estimator=plan.estimator, seed=plan.seed,
    )
    for name in ("S1_conf", "ST_conf", "S1_group_conf", "ST_group_conf", "S2_conf"):
        if name in ds:
            ds[name].attrs.update(ci_prob=plan.conf_level, method=ci_text)
    for name in ("S1", "ST", "S1_group", "ST_group", "S2"):
        if name in ds:
            ds[name].attrs["note"] = "NaN where constant_output = 1 (no variance to apportion)"
    dim, blocks = _blocks(base, plan, cells)
    parts = []
    for block in blocks:
        part = base[plan.targets].isel({dim: block}) if dim else base[plan.targets]
        parts.append(
            summarize_targets(
                part.load(), plan.targets, quantiles=QUANTILES, conf_level=plan.conf_level,
                label=plan.spec.indicator_label,
            )
        )
    summ = xr.concat(parts, dim=dim, coords="minimal", compat="override") if dim else parts[0]
    ds = ds.merge(summ.assign_coords(target=ds["target"].values), join="exact")
    for name in plan.distributions:
        if name not in base:
            raise plan.book.error(
                "analysis.distributions", f"the model returned no output '{name}'",
                "distributions",
            )
        q = quantiles_with_never(base[name].load(), conf_level=plan.conf_level)
        unit = base[name].attrs.get("units", "")
        ds[f"{name}_quantile"] = q["quantiles"].assign_attrs(
            units=unit, method="inverted_cdf (an order statistic; inf = never)"
        )
        ds[f"{name}_p_never"] = q["p_never"].assign_attrs(
            units="1", long_name=f"share of samples where {name} is infinite (never)"
        )
        ds[f"{name}_p_never_ci"] = q["p_never_ci"].assign_attrs(
            units="1", ci_prob=plan.conf_level, method="Wilson score"
        )
    for dim_name, g in plan.grid.items():
        if dim_name in ds.coords:
            ds[dim_name].attrs.update(units=g.unit, long_name=g.description or dim_name)
    ds.attrs.update(provenance(plan))
    ds.attrs["scheduler"] = _scheduler_text(scheduler)
    # the one attr that differs between two runs of the same book, seed and options
    ds.attrs["created"] = datetime.now(UTC).isoformat(timespec="seconds")
    return ds


def run_options(plan: Plan) -> dict[str, Any]:
    """The :func:`plan_run` options that reproduce ``plan`` (stored with the results)."""
    return {
        "samples": plan.samples, "seed": plan.seed, "ci": plan.ci,
        "replicates": plan.replicates, "resamples": plan.resamples,
        "estimator": plan.estimator, "conf_level": plan.conf_level,
        "chunk_size": plan.chunk_size, "second_order": plan.second_order,
        "by_group": plan.by_group, "keep_samples": plan.keep_samples,
    }


def provenance(plan: Plan) -> dict[str, Any]:
    """The file attrs that make a run reproducible (everything but the creation time)."""
    from importlib.metadata import version

    import scipy

    from . import __version__

    book = plan.book
    return {
        "title": f"mc_tco run of {book.name}",
        "book_name": book.name,
        "book_path": str(book.path),
        "book_sha256": book.sha256,
        "book_text": book.text,
        "model": book.model or "mc_tco.models.tco:model",
        "seed": plan.seed,
        "samples": plan.samples,
        "rows_per_sample": plan.design.rows_per_sample,
        "model_runs": plan.model_runs,
        "bootstrap_resamples": plan.resamples,
        "conf_level": plan.conf_level,
        "second_order": int(plan.second_order),
        "chunk_size": plan.chunk_size,
        "keep_samples": plan.keep_samples,
        "by_group": int(plan.by_group),
        "run_options": json.dumps(run_options(plan), default=str),
        "targets": json.dumps(plan.targets),
        "report": json.dumps(plan.report),
        "focus": json.dumps(plan.focus),
        "distributions": json.dumps(plan.distributions),
        "indicator_label": plan.spec.indicator_label,
        "benefits": json.dumps(list(plan.spec.benefits)),
        "alternatives": plan.spec.alternatives or "",
        "baseline": plan.spec.baseline or "",
        "sobol_estimators": "S1: Saltelli et al. 2010; ST: Jansen 1999; S2: Saltelli 2002",
        "ci": plan.ci,
        "replicates": plan.n_replicates,
        "estimator": plan.estimator,
        "ci_method": ci_method_text(
            plan.ci, plan.conf_level, resamples=plan.resamples, replicates=plan.n_replicates,
            estimator=plan.estimator, seed=plan.seed,
        ) + " (Sobol' indices); Wilson score (probabilities)",
        "design": "Saltelli design on a scrambled Sobol' sequence (scipy.stats.qmc.Sobol)",
        "summaries_from": "the N independent base rows (A) of the design",
        "constants": json.dumps({i.name: i.value for i in book.constants}),
        "mc_tco_version": __version__,
        "numpy_version": np.__version__,
        "scipy_version": scipy.__version__,
        "SALib_version": version("SALib"),
        "xarray_version": xr.__version__,
    }
