"""The engine: book -> Saltelli design -> model -> Sobol' sums and summaries -> xr.Dataset.

:func:`plan_run` checks a book and the options without computing anything; :func:`run`
evaluates the model chunk by chunk (a chunk is a range of base samples with all their
design rows), keeps the base rows (``A``) of every output and streams the Sobol' sums of the
targets, then summarises. Nothing here prints or writes files.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import xarray as xr

from .book import Book, Grid
from .design import SaltelliDesign
from .errors import BookError, McTcoError, ModelError, OptionError
from .models import ModelSpec, check_analysis, check_book, resolve_model, spec_of
from .sobol import BLOCK, SobolSums, poisson_weights
from .summary import QUANTILES, quantiles_with_never, stack_targets, summarize_targets

__all__ = ["DEFAULT_SAMPLES", "Plan", "evaluate_base", "evaluate_chunk", "plan_run", "run"]

DEFAULT_SAMPLES = 8192
MIN_SAMPLES = 16
DEFAULT_RESAMPLES = 100
#: largest magnitude of a target: the Sobol' sums of squares of 2**40 of them stay finite
TARGET_MAX = 1e140

Progress = Callable[[int, int], None]


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
    design: SaltelliDesign = field(init=False)

    def __post_init__(self):
        self.design = SaltelliDesign(
            len(self.book.uncertain), self.seed, second_order=self.second_order
        )

    @property
    def factors(self) -> list[str]:
        return [i.name for i in self.book.uncertain]

    @property
    def model_runs(self) -> int:
        return self.samples * self.design.rows_per_sample

    def chunks(self) -> list[tuple[int, int]]:
        return [
            (s, min(self.samples, s + self.chunk_size))
            for s in range(0, self.samples, self.chunk_size)
        ]


def plan_run(
    book: Book,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    conf_level: float = 0.95,
    chunk_size: int | None = None,
    second_order: bool = False,
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
    if not book.uncertain:
        raise BookError(
            book.path, None, "every input is a constant; give at least one a distribution"
        )
    model = resolve_model(book)
    spec = spec_of(model)
    check_book(book, spec)
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
    )


def _check_samples(samples) -> None:
    if isinstance(samples, bool) or not isinstance(samples, int | np.integer):
        raise OptionError(f"--samples must be a whole number, got {samples!r}")
    if samples < MIN_SAMPLES or samples & (samples - 1):
        lower = 1 << max(int(math.log2(max(samples, 1))), 4)
        suggestion = f"{lower} or {lower * 2}" if samples > MIN_SAMPLES else str(MIN_SAMPLES)
        raise OptionError(
            f"--samples must be a power of two >= {MIN_SAMPLES} (the Sobol' design keeps its "
            f"balance only then), got {samples}; try {suggestion}"
        )


# ----------------------------------------------------------------------------- chunks


def design_values(plan: Plan, start: int, stop: int) -> np.ndarray:
    """Input values of the design rows of base samples ``start .. stop-1``, (n, R, D).

    The ``ppf`` of each input is evaluated on the ``A`` and ``B`` rows only (2 n points per
    column); the design rows mix those values.
    """
    d = plan.design.num_inputs
    base = plan.design.base(start, stop)
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
    check_analysis(plan.book, out, plan.targets, plan.report, plan.focus, plan.distributions)
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
    sums : SobolSums or None
        The chunk's Sobol' sums of the targets (None when ``shift`` is None).
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
        sums = SobolSums(plan.design.num_factors, plan.second_order, shift, plan.resamples)
        sums.add(y, poisson_weights(plan.seed, start, stop, plan.resamples))
    a_rows = slice(0, None, per)
    base_vars = {k: v.isel(sample=a_rows) for k, v in out.data_vars.items() if "sample" in v.dims}
    base = xr.Dataset(base_vars).copy(deep=True)  # a copy, not a view holding the chunk
    values = np.stack([inputs[f].values[a_rows] for f in plan.factors], axis=1)
    base["input_value"] = (("sample", "input"), values)
    base = base.assign_coords(sample=np.arange(start, stop))
    return base, sums, y[0, 0].copy()


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
        base = plan.design.base(s, e)[:, :d]
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
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    resamples: int = DEFAULT_RESAMPLES,
    conf_level: float = 0.95,
    chunk_size: int | None = None,
    second_order: bool = False,
    progress: Progress | None = None,
) -> xr.Dataset:
    """Run the Monte Carlo and Sobol' analysis of ``book``.

    Parameters
    ----------
    book : Book
        A loaded book (:func:`mc_tco.book.load_book`).
    samples : int
        Base sample size ``N``, a power of two; the model runs ``N (D + 2)`` rows.
    seed : int
        Seed of the design's scrambling and of the bootstrap weights.
    resamples : int
        Poisson bootstrap resamples for the confidence half-widths (0: none).
    conf_level : float
        Level of every interval (Sobol' half-widths and Monte Carlo intervals).
    chunk_size : int, optional
        Base samples evaluated at once (a multiple of 256); the numbers do not depend on it.
    second_order : bool
        Also estimate S2 (doubles the model runs).
    progress : callable, optional
        Called as ``progress(done, total)`` in base samples after every chunk.

    Returns
    -------
    xr.Dataset
        See :func:`assemble`: model outputs over the base rows (dim ``sample``), Sobol'
        indices (``S1``, ``ST``, ``S1_conf``, ``ST_conf``), summaries and provenance.
    """
    plan = plan_run(
        book,
        samples=samples,
        seed=seed,
        resamples=resamples,
        conf_level=conf_level,
        chunk_size=chunk_size,
        second_order=second_order,
    )
    return execute(plan, progress=progress)


def execute(plan: Plan, progress: Progress | None = None) -> xr.Dataset:
    """Evaluate a checked :class:`Plan` chunk by chunk and assemble the results."""
    _, _, shift = evaluate_chunk(plan, 0, 1)
    total: SobolSums | None = None
    bases = []
    done = 0
    for start, stop in plan.chunks():
        base, sums, _ = evaluate_chunk(plan, start, stop, shift)
        bases.append(base)
        total = sums if total is None else total + sums
        done += stop - start
        if progress is not None:
            progress(done, plan.samples)
    base = xr.concat(bases, dim="sample", data_vars="all", coords="minimal", compat="override")
    return assemble(plan, base, total)


def assemble(plan: Plan, base: xr.Dataset, sums: SobolSums) -> xr.Dataset:
    """The results Dataset from the base rows and the Sobol' sums of a run.

    Dims: ``sample``, ``input``, ``target`` (each target ``t`` and its indicator ``t>0``),
    ``quantile``, ``ci_bound`` and the grid and model dims.
    """
    stacked, cells = _targets_array(plan, base)
    cell_shape = tuple(stacked.sizes[c] for c in cells)
    k = plan.design.num_factors
    t = stacked.sizes["target"]
    res = sums.result(plan.conf_level)
    ds = base.copy()
    book = plan.book
    ds = ds.assign_coords(
        input=plan.factors,
        input_unit=("input", [i.unit for i in book.uncertain]),
        input_group=("input", [i.group for i in book.uncertain]),
        input_family=("input", [i.family for i in book.uncertain]),
        target=stacked["target"].values,
    )
    for c in cells:
        if c in stacked.coords:
            ds = ds.assign_coords({c: stacked.coords[c].values})
    sdims = ("target", "input", *cells)
    for name, long in [
        ("S1", "first-order Sobol' index"),
        ("ST", "total-order Sobol' index"),
        ("S1_conf", "half-width of the confidence interval of S1"),
        ("ST_conf", "half-width of the confidence interval of ST"),
    ]:
        arr = res[name].reshape((k, t, *cell_shape)).swapaxes(0, 1)
        ds[name] = (sdims, arr, {"long_name": long, "units": "1"})
    if plan.second_order:
        ds = ds.assign_coords(input_2=("input_2", plan.factors))
        for name in ("S2", "S2_conf"):
            arr = np.moveaxis(res[name].reshape((k, k, t, *cell_shape)), 2, 0)
            ds[name] = (("target", "input", "input_2", *cells), arr, {"units": "1"})
    ds["constant_output"] = (
        ("target", *cells),
        res["constant"].reshape((t, *cell_shape)).astype(np.int8),
        {"long_name": "1 where the target does not vary: its Sobol' indices are NaN"},
    )
    ci_text = f"{plan.conf_level:.0%} Poisson bootstrap, {plan.resamples} resamples"
    for name in ("S1_conf", "ST_conf"):
        ds[name].attrs.update(ci_prob=plan.conf_level, method=ci_text)
    for name in ("S1", "ST"):
        ds[name].attrs["note"] = "NaN where constant_output = 1 (no variance to apportion)"
    summ = summarize_targets(
        base, plan.targets, quantiles=QUANTILES, conf_level=plan.conf_level,
        label=plan.spec.indicator_label,
    )
    ds = ds.merge(summ.assign_coords(target=ds["target"].values), join="exact")
    for name in plan.distributions:
        if name not in base:
            raise plan.book.error(
                "analysis.distributions", f"the model returned no output '{name}'",
                "distributions",
            )
        q = quantiles_with_never(base[name], conf_level=plan.conf_level)
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
    ds["input_value"].attrs["long_name"] = "sampled value of each uncertain input (base rows)"
    for dim, g in plan.grid.items():
        if dim in ds.coords:
            ds[dim].attrs.update(units=g.unit, long_name=g.description or dim)
    ds.attrs.update(provenance(plan))
    return ds


def run_options(plan: Plan) -> dict[str, Any]:
    """The keyword arguments of :func:`run` behind ``plan``: ``run(book, **options)`` redoes it.

    Every parameter of :func:`run` but ``book`` and ``progress`` that the plan carries
    under the same name (so a new option of ``run`` is stored once ``Plan`` keeps it).
    """
    import inspect

    names = [n for n in inspect.signature(run).parameters if n not in ("book", "progress")]
    return {n: getattr(plan, n) for n in names if hasattr(plan, n)}


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
        "run_options": json.dumps(run_options(plan), default=str),
        "targets": json.dumps(plan.targets),
        "report": json.dumps(plan.report),
        "focus": json.dumps(plan.focus),
        "distributions": json.dumps(plan.distributions),
        "indicator_label": plan.spec.indicator_label,
        "sobol_estimators": "S1: Saltelli et al. 2010; ST: Jansen 1999; S2: Saltelli 2002",
        "ci_method": "Poisson bootstrap (Sobol' indices); Wilson score (probabilities)",
        "design": "Saltelli design on a scrambled Sobol' sequence (scipy.stats.qmc.Sobol)",
        "summaries_from": "the N independent base rows (A) of the design",
        "constants": json.dumps({i.name: i.value for i in book.constants}),
        "mc_tco_version": __version__,
        "numpy_version": np.__version__,
        "scipy_version": scipy.__version__,
        "SALib_version": version("SALib"),
        "xarray_version": xr.__version__,
    }
