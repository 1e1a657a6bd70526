"""Plan a run: check a book and the options against its model, before computing anything.

:func:`plan_run` returns a :class:`Plan` (book, model, grid, targets, design, options) or
raises a one-line :class:`~mc_tco.errors.McTcoError`. :class:`RunSums` holds the streaming
Sobol' sums of a run, one per scramble.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mc_tco.book import Book, Grid
from mc_tco.design import SaltelliDesign
from mc_tco.distributions.copula import to_correlated_unit
from mc_tco.engine.options import check_adaptive, check_power_of_two
from mc_tco.errors import BookError, OptionError
from mc_tco.models import ModelSpec, check_book, resolve_model, spec_of
from mc_tco.models.loading import loaded_sha256
from mc_tco.sensitivity.sobol import (
    BLOCK,
    CI_METHODS,
    ESTIMATORS,
    SobolSums,
    rqmc_result,
    rqmc_seeds,
)

__all__ = ["DEFAULT_SAMPLES", "KEEP_SAMPLES", "Plan", "RunSums", "check_samples", "plan_run",
           "shapley_permutations_for"]

DEFAULT_SAMPLES = 8192
#: random permutations of the Shapley effects at the default sample size and above; see
#: :mod:`mc_tco.engine.shapley` for the cost and the half-widths they give
DEFAULT_SHAPLEY_PERMUTATIONS = 4096


def shapley_permutations_for(samples: int, max_samples: int | None = None) -> int:
    """The default permutations of the Shapley effects for a run of ``samples``.

    ``--samples`` is the run's precision knob: half the (largest) base sample, from 64 up
    to :data:`DEFAULT_SHAPLEY_PERMUTATIONS` (4096 at the default 8192), so a quick run
    (``-n 64``) gets a quick, rough ranking and the default run half-widths of ~0.01-0.02.
    """
    return int(min(DEFAULT_SHAPLEY_PERMUTATIONS, max(64, (max_samples or samples) // 2)))
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
    #: --target-halfwidth: double the base sample until the ranking is this precise
    target_halfwidth: float | None = None
    #: the largest base sample of a target_halfwidth run
    max_samples: int | None = None
    #: also rerun the base sample with each bounded input's family swapped
    family_check: bool = False
    #: the base sample the run was asked for (``samples`` may have grown by doubling)
    requested_samples: int | None = None
    #: also estimate Shapley effects (the ranking of a book with correlations)
    shapley: bool = False
    #: random permutations of the Shapley estimator (``shapley_permutations_for``)
    shapley_permutations: int = DEFAULT_SHAPLEY_PERMUTATIONS
    #: where the Shapley effects are estimated: "report" (the report points, the model's
    #: claim points and the focus, along each grid dim that has report points) or "grid"
    shapley_at: str = "report"
    #: where the Sobol' indices are estimated, as ``shapley_at``: "report" (the design rows
    #: beyond the base rows run at those points only) or "grid"
    sobol_at: str = "report"
    #: the chunk was not asked for (no --chunk-size): :func:`~.evaluate.fit_chunk` may
    #: enlarge it for a model with small outputs (fewer, larger model calls)
    chunk_auto: bool = False
    design: SaltelliDesign = field(init=False)
    designs: list[SaltelliDesign] = field(init=False)

    def __getstate__(self) -> dict[str, Any]:
        # the model is re-imported where the plan is unpickled (a dask worker), from the
        # book's folder too, so a user's own model module need not be importable by name
        # (the process that made the plan has said which model file it runs, and with
        # which SHA-256: a worker refuses the file if its bytes changed since)
        state = self.__dict__.copy()
        state["model"] = None
        state["_model_sha256"] = loaded_sha256(self.book)
        return state

    def __setstate__(self, state: Mapping[str, Any]) -> None:
        state = dict(state)
        expect = state.pop("_model_sha256", None)
        self.__dict__.update(state)
        if self.model is None:
            self.model = resolve_model(self.book, announce=False, expect_sha256=expect)

    def __post_init__(self) -> None:
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
    def ranking_index(self) -> str:
        """The index that ranks the inputs (:func:`mc_tco.results.ranking.ranking_rule`):
        ``ST``; with correlations ``shapley``, else ``ST_group`` (exact groups ranked) or
        ``none``. Stored as the file's ``ranking_index``; ``--target-halfwidth`` holds its
        half-widths to the target."""
        from mc_tco.results.ranking import ranking_rule

        return ranking_rule(self.book.correlation is not None, self.shapley,
                            self.by_group and self.groups_within)

    @property
    def groups_within(self) -> bool:
        """Whether the book has groups and every correlation stays within one of them."""
        from mc_tco.sensitivity.grouped import groups_independent

        groups = {i.name: i.group for i in self.book.uncertain if i.group}
        return bool(groups) and groups_independent(groups, self.book.correlations)

    @property
    def sobol_grid(self) -> dict[str, np.ndarray]:
        """The grid points the Saltelli design rows run at, for the grid dims they
        restrict (:func:`report_grid`; ``{}`` with ``sobol_at == "grid"``: every point)."""
        return {} if self.sobol_at == "grid" else report_grid(self)

    @property
    def n_replicates(self) -> int:
        """Independent scrambles of the design (1 unless ``ci == "rqmc"``)."""
        return len(self.designs)

    def base_points(self, start: int, stop: int) -> np.ndarray:
        """Unit-cube points (A | B) of base samples ``start .. stop-1``, shape (n, 2D).

        With correlations in the book, the ``A`` and ``B`` halves each go through the
        Gaussian copula (:func:`mc_tco.distributions.copula.to_correlated_unit`, row by row, so a
        chunk
        gives the same points as the whole run): every ``A`` and ``B`` row is a draw from
        the joint distribution, with the margins unchanged.

        With R scrambles, base sample ``g`` is point ``g // R`` of scramble ``g % R``
        (interleaved), so any prefix of the samples holds every scramble equally and a run
        grown by doubling equals a run made at the final size. ``start`` and ``stop`` must
        then be multiples of R.
        """
        r = self.n_replicates
        if r == 1:
            points = self.design.base(start, stop)
        else:
            if start % r or stop % r:
                raise ValueError(f"chunk [{start}, {stop}) must align with {r} replicates")
            parts = [d.base(start // r, stop // r) for d in self.designs]
            points = np.stack(parts, axis=1).reshape(stop - start, -1)
        corr = self.book.correlation
        if corr is not None:
            d = self.design.num_inputs
            points[:, :d] = to_correlated_unit(points[:, :d], corr.used)
            points[:, d:] = to_correlated_unit(points[:, d:], corr.used)
        return points

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
    def grid_points(self) -> int:
        """The model evaluations per design row: the product of the grid inputs' value
        counts (``[grid.<input>]``; 1 without any)."""
        return math.prod(i.grid_values.size for i in self.book.input_grid.values())

    @property
    def model_runs(self) -> int:
        """The number of model evaluations: samples times the design's rows per sample
        (times the values of the grid inputs: :attr:`grid_points`)."""
        return self.samples * self.design.rows_per_sample * self.grid_points

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
    target_halfwidth: float | None = None,
    max_samples: int | None = None,
    family_check: bool = False,
    shapley: bool | None = None,
    shapley_permutations: int | None = None,
    shapley_at: str = "report",
    sobol_at: str = "report",
) -> Plan:
    """Check ``book`` against its model and the options; return the :class:`Plan`.

    ``shapley`` None (the default) estimates Shapley effects when the book has
    correlations; True for any book, False never. ``shapley_permutations`` sets their cost
    (None: :func:`shapley_permutations_for` the sample size). ``shapley_at`` is where they
    are estimated: "report" (the default: the report points, the model's claim points and
    the focus; NaN at the other grid points) or "grid" (every grid point, about 8x the
    model work for the TCO model's 46 demands). ``sobol_at`` is where the Sobol' indices
    are estimated, the same two choices: "report" runs the Saltelli design rows (all but
    the base rows, which every summary uses at every grid point) at those points only.

    Raises
    ------
    BookError, ModelError, OptionError
        With a one-line message that says what to fix.
    """
    check_samples(samples)
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise OptionError(f"--seed must be a whole number >= 0, got {seed!r}")
    if not 0 <= resamples <= 100_000 or resamples == 1:
        raise OptionError(f"--bootstrap must be 0 (none) or 2..100000 resamples, got {resamples}")
    if not 0 < conf_level < 1:
        raise OptionError(f"--conf-level must lie strictly between 0 and 1, got {conf_level}")
    check_adaptive(samples, target_halfwidth, max_samples)
    if target_halfwidth is not None and max_samples is None:
        max_samples = samples * 64
    largest = max_samples or samples
    chunk_auto = chunk_size is None
    if chunk_size is None:
        chunk_size = BLOCK
    aligned = replicates if ci == "rqmc" else 1  # a chunk holds whole sets of scrambles
    if isinstance(chunk_size, bool) or chunk_size < 1 or (
        chunk_size % BLOCK and chunk_size < largest
        and (BLOCK % chunk_size or chunk_size % aligned)  # (the halving of a huge grid's)
    ):
        raise OptionError(
            f"--chunk-size must be a multiple of {BLOCK} base samples, a power-of-two part of "
            f"it holding whole scrambles ({aligned}), or at least the largest --samples of "
            f"the run, {largest}; got {chunk_size}"
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
    if shapley_permutations is None:
        shapley_permutations = shapley_permutations_for(samples, max_samples)
    if (isinstance(shapley_permutations, bool) or not isinstance(shapley_permutations, int)
            or not 16 <= shapley_permutations <= 1_000_000):
        raise OptionError("--shapley-permutations must be a whole number from 16 to "
                          f"1000000, got {shapley_permutations!r}")
    if shapley not in (None, True, False):
        raise OptionError(f"shapley must be True, False or None (auto), got {shapley!r}")
    if shapley_at not in SHAPLEY_AT:
        raise OptionError(
            f"--shapley-at must be one of {', '.join(SHAPLEY_AT)}, got {shapley_at!r}"
        )
    if sobol_at not in SHAPLEY_AT:
        raise OptionError(
            f"--sobol-at must be one of {', '.join(SHAPLEY_AT)}, got {sobol_at!r}"
        )
    if keep_samples not in KEEP_SAMPLES:
        raise OptionError(
            f"--keep-samples must be one of {', '.join(KEEP_SAMPLES)}, got {keep_samples!r}"
        )
    if not book.uncertain:
        grids = ", ".join(f"[grid.{n}]" for n in book.input_grid)
        raise BookError(
            book.path, None, "every input is a constant"
            + (f" or fixed by a grid ({grids}); give another input" if grids else
               "; give at least one") + " a distribution"
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
    for dim, points in spec.points.items():  # always, whatever the book's grid and report
        if dim in grid:
            grid[dim] = grid[dim].with_points(points)
    focus = dict(analysis.get("focus") or spec.focus)
    for dim, value in focus.items():
        if dim in grid and not isinstance(value, str):
            grid[dim] = grid[dim].with_points([value])
    focus.update(input_grid_focus(book, report, focus))
    distributions = list(analysis.get("distributions", spec.distributions))
    plan = Plan(
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
        target_halfwidth=None if target_halfwidth is None else float(target_halfwidth),
        max_samples=None if max_samples is None else int(max_samples),
        family_check=bool(family_check),
        shapley=book.correlation is not None if shapley is None else bool(shapley),
        shapley_permutations=int(shapley_permutations),
        shapley_at=shapley_at,
        sobol_at=sobol_at,
        chunk_auto=chunk_auto,
    )
    if plan.target_halfwidth is not None and plan.ranking_index == "none":
        raise OptionError(
            "--target-halfwidth: the book's inputs are correlated, so the ranking it holds "
            "to the target is the Shapley effects'; drop --no-shapley"
            + (" (or rank the groups with --by group: every correlation stays within a "
               "group)" if plan.groups_within else ""))
    return plan


def input_grid_focus(book: Book, report: Mapping[str, Any], focus: Mapping[str, Any],
                     ) -> dict[str, float]:
    """The focus value of each grid input (``[grid.<input>]``): the book's ``[analysis]
    focus`` if it names one of the grid's values, else the middle value (the lower of the
    two middle ones for an even count); where every reader that shows one point shows it.

    Raises
    ------
    BookError
        When ``[analysis]`` report or focus gives a grid input a value not on its grid.
    """
    from mc_tco.results.points import point_index

    out = {}
    for name, inp in book.input_grid.items():
        values = inp.grid_values
        for key, table in (("report", report), ("focus", focus)):
            given = table.get(name)
            if given is None:
                continue
            for v in given if isinstance(given, list) else [given]:
                if isinstance(v, str) or point_index(values, float(v)) is None:
                    raise book.error(
                        f"analysis.{key}",
                        f"{key}.{name} = {v if isinstance(v, str) else format(v, 'g')} "
                        f"is not a value of [grid.{name}] "
                        f"({', '.join(f'{x:g}' for x in values)}); name one of them",
                        key,
                    )
        if name in focus:
            out[name] = float(values[point_index(values, float(focus[name]))])
        else:
            out[name] = float(values[(values.size - 1) // 2])
    return out


def report_grid(plan: Plan) -> dict[str, np.ndarray]:
    """The grid points an index is estimated at with ``--shapley-at`` / ``--sobol-at
    report``, for the grid dims it restricts.

    Along each grid dim with numeric report points: those points, the model's claim points
    (``spec.points``) and the focus, as they appear in the grid (the planner adds them all
    to it); other dims keep every point (absent from the dict). The model's work is
    proportional to the grid points: the TCO model's 47 demands become 6.
    """
    from mc_tco.results.points import point_index

    sub = {}
    for dim, grid in plan.grid.items():
        wanted = [v for v in plan.report.get(dim) or [] if not isinstance(v, str)]
        if not wanted:
            continue
        wanted += list(plan.spec.points.get(dim, []))
        focus = plan.focus.get(dim)
        if focus is not None and not isinstance(focus, str):
            wanted.append(focus)
        values = np.asarray(grid.values, dtype=float)
        keep = np.array([point_index(wanted, v) is not None for v in values])
        if keep.any() and not keep.all():
            sub[dim] = values[keep]
    return sub


#: where a run estimates the Shapley effects (Plan.shapley_at) and the Sobol' indices
#: (Plan.sobol_at)
SHAPLEY_AT = ("report", "grid")

#: which per-sample outputs a run keeps: every output, or only what the summaries need
KEEP_SAMPLES = ("all", "targets")


def check_samples(samples: object, flag: str = "--samples") -> None:
    """Raise :class:`OptionError` unless ``samples`` is a power of two >= 16."""
    check_power_of_two(samples, flag)
