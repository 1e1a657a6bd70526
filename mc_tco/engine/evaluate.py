"""Evaluate the model on chunks of the design: input values, model call, checks, targets.

A chunk is a range of base samples with all their design rows; it makes its own design
points from the Sobol' sequence by index, so any chunk stands alone (a dask worker needs
nothing shipped).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, overload

import numpy as np
import xarray as xr

from mc_tco.engine.plan import TARGET_MAX, Plan, RunSums
from mc_tco.errors import McTcoError, ModelError, OptionError
from mc_tco.models import check_analysis
from mc_tco.results import store  # noqa: F401  (installs xarray's lazy dask check before any Variable)
from mc_tco.sensitivity.sobol import poisson_weights
from mc_tco.sensitivity.sobol.fused import add_outputs, fused_applies, indicator_row
from mc_tco.uncertainty.statistics import stack_targets

__all__ = ["design_values", "estimate_base_bytes", "evaluate_base", "evaluate_chunk", "fit_chunk",
           "row_bytes", "sample_bytes", "sobol_cells"]


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


def _input_dataset(plan: Plan, rows: np.ndarray, outputs: Iterable[str] | None = None,
                   grid: Mapping[str, Any] | None = None) -> xr.Dataset:
    """The model's input Dataset for design rows of input values, shape (rows, D).

    Its attrs tell a model what the run needs, so it may skip the rest (a model is free to
    ignore them): ``outputs``, the names needed from these rows (absent: every output), and
    ``report``, the book's report points per dim (e.g. where to keep a cash path).
    ``grid`` ({dim: values}) replaces some grid dims' points (the Shapley pass's).
    """
    n = rows.shape[0]
    data = {}
    col = {inp.name: j for j, inp in enumerate(plan.book.uncertain)}
    # each input's values contiguous (one copy of the rows; none when they come by column,
    # as the Shapley pass's do): the model and its checks read whole columns
    columns = np.ascontiguousarray(rows.T)
    for name, inp in plan.book.inputs.items():
        if inp.is_grid:  # set per grid value by _call_model (the NaN holds its place)
            values = np.full(n, np.nan)
        else:
            values = columns[col[name]] if name in col else np.full(n, inp.value)
        data[name] = xr.Variable("sample", values, {"units": inp.unit})
    grid = grid or {}
    coords = {dim: xr.Variable(dim, grid.get(dim, g.values), {"units": g.unit})
              for dim, g in plan.grid.items()}
    attrs: dict[str, Any] = {"report": {k: list(v) for k, v in plan.report.items()}}
    if outputs is not None:
        attrs["outputs"] = sorted(outputs)
    return xr.Dataset(data, coords=coords, attrs=attrs)


def _call_model(plan: Plan, inputs: xr.Dataset, check: bool = True) -> xr.Dataset:
    out = _over_input_grid(plan, inputs, list(plan.book.input_grid))
    return _checked(plan, inputs, out, check)


def _over_input_grid(plan: Plan, inputs: xr.Dataset, names: list[str]) -> xr.Dataset:
    """The model's outputs on ``inputs`` at every value of the grid inputs ``names``
    (``[grid.<input>]``), one model call per value on the same rows (common random
    numbers), each grid input a dim after ``sample`` with its unit; the model itself when
    ``names`` is empty."""
    if not names:
        return _model_output(plan, inputs)
    name, rest = names[0], names[1:]
    inp = plan.book.inputs[name]
    n = inputs.sizes["sample"]
    parts = [_over_input_grid(plan, inputs.assign(
        {name: xr.Variable("sample", np.full(n, v), {"units": inp.unit})}), rest)
        for v in inp.grid_values]
    out = xr.concat(parts, dim=name, data_vars="all", coords="minimal", compat="override",
                    join="exact")
    out = out.assign_coords({name: xr.Variable(name, inp.grid_values, {
        "units": inp.unit, "long_name": f"{name}, fixed at each value ([grid.{name}])"})})
    return out.transpose(*(["sample"] if "sample" in out.dims else []), *names, ...)


def _model_output(plan: Plan, inputs: xr.Dataset) -> xr.Dataset:
    """The model called on ``inputs``; its exceptions and a non-Dataset as ModelError."""
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
    return out


def _checked(plan: Plan, inputs: xr.Dataset, out: xr.Dataset, check: bool) -> xr.Dataset:
    """``out`` checked: every target present, one value per row, finite (and the book's
    ``[analysis]`` against the outputs when ``check``)."""
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
        v = da.values
        # beyond TARGET_MAX the Sobol' sums of squares would overflow (NaN: min is NaN)
        if v.size and not (v.min() >= -TARGET_MAX and v.max() <= TARGET_MAX):
            with np.errstate(invalid="ignore"):
                bad = ~(np.abs(v) <= TARGET_MAX)
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
    if check:  # rows asked for the targets only need not carry the other outputs
        check_analysis(plan.book, out, plan.targets, plan.report, plan.focus,
                       plan.distributions, spec=plan.spec)
    return out


def _targets_array(plan: Plan, out: xr.Dataset, cells: tuple[Hashable, ...] | None = None,
                   ) -> tuple[xr.DataArray, tuple[Hashable, ...]]:
    """Targets and indicators as (rows, T, *cells) numpy plus the cell dims and coords."""
    stacked = stack_targets(out, plan.targets)
    dims = tuple(d for d in stacked.dims if d not in ("sample", "target"))
    if cells is not None and set(cells) != set(dims):
        raise ModelError(f"{plan.book.path}: the targets' dims changed between chunks")
    dims = cells or dims
    return stacked.transpose("sample", "target", *dims), dims


def _targets_into(plan: Plan, out: xr.Dataset, cells: tuple[Hashable, ...],
                  dest: np.ndarray) -> None:
    """``_targets_array(plan, out, cells).values`` written into ``dest``, a view (n, m,
    2 x targets, cells) of the model rows ``out`` (n m of them, sample-major): in one copy
    when every target has the dims ``("sample", *cells)`` (the usual case: xarray's
    broadcast, concat and transpose cost three copies of the chunk's outputs), else
    through :func:`_targets_array`."""
    dims = ("sample", *cells)
    shape = (*dest.shape[:2], -1)
    if all(out[t].dims == dims for t in plan.targets):
        for i, t in enumerate(plan.targets):
            values = out[t].values.reshape(shape)
            dest[:, :, 2 * i] = values
            np.greater(values, 0, out=dest[:, :, 2 * i + 1])
    else:
        stacked, _ = _targets_array(plan, out, cells)
        dest[...] = stacked.values.reshape(dest.shape)


def _targets_y(plan: Plan, out: xr.Dataset, mixed: xr.Dataset | None, n: int, per: int,
               usual: bool, size: int) -> tuple[np.ndarray, tuple[Hashable, ...]]:
    """The chunk's targets and indicators ``y`` (n, per, cells) from the base rows' outputs
    ``out`` and the other design rows' ``mixed``, and the cell dims."""
    if usual:  # every target on the same cells
        cells = out.variables[plan.targets[0]].dims[1:]
        y = np.empty((n, per, 2 * len(plan.targets) * size))
        _targets_into(plan, out, cells, y.reshape(n, per, 2 * len(plan.targets), -1)[:, :1])
    else:
        stacked, cells = _targets_array(plan, out)
        y = np.empty((n, per, stacked[0].size))
        y[:, 0] = stacked.values.reshape(n, -1)
    if mixed is not None:
        _targets_into(plan, mixed, cells, y.reshape(n, per, 2 * len(plan.targets), -1)[:, 1:])
    return y, cells


def sobol_cells(plan: Plan, out: xr.Dataset, sub: Mapping[str, np.ndarray] | None = None,
                ) -> xr.Dataset:
    """The model outputs ``out`` at the grid points of the Sobol' indices (``sub``, default
    :attr:`~.plan.Plan.sobol_grid`; ``out`` itself when they are every point)."""
    sub = plan.sobol_grid if sub is None else sub
    sel = {dim: values for dim, values in sub.items() if dim in out.dims}
    if not sel:
        return out
    return out.sel(sel)


@overload
def evaluate_chunk(plan: Plan, start: int, stop: int, shift: np.ndarray,
                   ) -> tuple[xr.Dataset, RunSums, np.ndarray]: ...
@overload
def evaluate_chunk(plan: Plan, start: int, stop: int, shift: None = None,
                   ) -> tuple[xr.Dataset, None, np.ndarray]: ...
def evaluate_chunk(plan: Plan, start: int, stop: int, shift: np.ndarray | None = None,
                   ) -> tuple[xr.Dataset, RunSums | None, np.ndarray]:
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
    # the base rows (A) with every output the run keeps; the other design rows with the
    # targets only (a model may skip the rest: break-even searches, cash paths, ...)
    keep = set(plan.targets) | set(plan.distributions)
    inputs = _input_dataset(plan, rows[:, 0], None if plan.keep_samples == "all" else keep)
    out = _call_model(plan, inputs)
    # the other design rows at the points the Sobol' indices are estimated at (--sobol-at
    # report: the report points alone, and the base rows again there, in the same model
    # call: a model may compute a cell's last bits differently on another grid, the TCO
    # model's kernels do, and a Sobol' sum of differences must see an input that changes
    # nothing give exactly 0, not 1e-31 that a replicate interval blows up)
    sub = {dim: v for dim, v in plan.sobol_grid.items() if dim in out.dims}
    mixed = None
    at = out
    if per > 1 and sub:
        both = _call_model(plan, _input_dataset(plan, rows.reshape(n * per, d), plan.targets,
                                                sub), check=False)
        for dim, values in sub.items():  # (a model that makes its own grid, not the inputs')
            got = both[dim].values if dim in both.coords else None
            if got is None or got.shape != values.shape or not np.array_equal(got, values):
                raise ModelError(
                    f"{plan.book.path}: the model's outputs are not on the {dim} points of "
                    f"its inputs (asked for {values.size}, it returned "
                    f"{'none' if got is None else got.size}): read the grid from the inputs' "
                    f"{dim!r} coordinate, or run with --sobol-at grid")
        at = both.isel(sample=slice(0, None, per))
        mixed = both.isel(sample=np.arange(n * per).reshape(n, per)[:, 1:].ravel())
    elif per > 1:
        mixed = _call_model(plan, _input_dataset(
            plan, rows[:, 1:].reshape(n * (per - 1), d), plan.targets), check=False)
    elif sub:
        at = sobol_cells(plan, out[plan.targets], sub)
    dims = at.variables[plan.targets[0]].dims
    usual = dims[:1] == ("sample",) and all(at.variables[t].dims == dims
                                             for t in plan.targets)
    cells = dims[1:]
    size = int(np.prod([at.sizes[c] for c in cells], dtype=np.int64)) if usual else 0
    sums = None if shift is None else plan.new_sums(shift)
    if (usual and sums is not None and mixed is not None
            and all(mixed.variables[t].dims == dims for t in plan.targets)
            and fused_applies(sums.reps[0], n * per * 2 * len(plan.targets) * size)):
        # the usual case: the sums straight from the model's outputs (one pass, the same
        # bits as SobolSums.add), without copying them into an (n, per, cells) array
        base_t = [at.variables[t].values.reshape(n, size) for t in plan.targets]
        add_outputs(sums.reps, base_t, [mixed.variables[t].values.reshape(n, per - 1, size)
                                        for t in plan.targets])
        y_first = indicator_row([v[0] for v in base_t])
    else:
        y, cells = _targets_y(plan, at, mixed, n, per, usual, size)
        if sums is not None:
            r = plan.n_replicates
            if r == 1:
                resamples = sums.reps[0].resamples
                weights = (poisson_weights(plan.seed, start, stop, resamples) if resamples
                           else None)
                sums.reps[0].add(y, weights)
            else:  # sample g belongs to scramble g % R
                for i, rep in enumerate(sums.reps):
                    rep.add(y[i::r])
        y_first = y[0, 0].copy()
    names = [k for k in out.data_vars
             if "sample" in out.variables[k].dims and (plan.keep_samples == "all" or k in keep)]
    base = out[names]
    # a view (of the chunk's rows, of a larger buffer) would hold more than these rows:
    # copied; an array the model made for these rows (the usual case) is kept as it is
    views = [k for k in names if np.asarray(base.variables[k].values).base is not None]
    if views:
        base = base.assign({k: base[k].copy(deep=True) for k in views})
    values = np.stack([inputs.variables[f].values for f in plan.factors], axis=1)
    base["input_value"] = (
        ("sample", "input"), values,
        {"long_name": "sampled value of each uncertain input (base rows)"},
    )
    base = base.assign_coords(sample=np.arange(start, stop))
    return base, sums, y_first


#: memory a chunk may take (all workers' chunks in flight together stay below ~2x this)
CHUNK_MEMORY = 1.5e9
#: a chunk's peak memory per byte of its model outputs (inputs, stacking, Sobol' sums)
CHUNK_OVERHEAD = 4
#: a chunk not asked for (no --chunk-size) grows, by doubling, while its memory stays
#: below this and the run keeps :data:`MIN_CHUNKS` chunks: a model with small outputs (a
#: user's 3-input function) then makes a few large calls instead of many small ones
#: (each costs ~5-13 ms of xarray and design work; at N = 8192 the 32 chunks of 256 were
#: 0.4 s of a 2 s run). The TCO model's chunk of 256 takes 60-150 MB: it never grows.
GROW_MEMORY = 16 * 2**20
#: the fewest chunks a grown chunk leaves the run (work for 2-4 workers). A fixed
#: number, not the machine's cores: the chunking sets the order of the Sobol' sums,
#: hence their last bits, which must not depend on the machine
MIN_CHUNKS = 4


def row_bytes(plan: Plan, outputs: Iterable[str] | None = None) -> int:
    """Bytes of the model's outputs ``outputs`` (all: None) for one design row (measured on
    one base row)."""
    values = design_values(plan, 0, plan.n_replicates)[:1, 0]  # one row, (1, D)
    out = _call_model(plan, _input_dataset(plan, values, outputs), check=False)
    return int(sum(v.nbytes for v in out.data_vars.values())) or 8


def sample_bytes(plan: Plan) -> int:
    """Bytes of the model's outputs for one base sample with its design rows, as
    :func:`evaluate_chunk` asks for them: the base row's kept outputs and the targets of
    the other rows (a model skips what a row does not ask for)."""
    keep = set(plan.targets) | set(plan.distributions)
    base = row_bytes(plan, None if plan.keep_samples == "all" else keep)
    mixed = row_bytes(plan, plan.targets) if plan.design.rows_per_sample > 1 else 0
    return base + mixed * (plan.design.rows_per_sample - 1)


def fit_chunk(plan: Plan, budget: float = CHUNK_MEMORY) -> Plan:
    """``plan`` with a chunk small enough that one chunk's outputs fit in ``budget`` bytes.

    A huge grid (``num = 100000``) makes every design row's outputs large; the chunk
    (256 base samples by default) is then halved, down to one sample per scramble, and a
    grid too large even for that is refused in one line before any work. A chunk the
    run did not ask for (``plan.chunk_auto``) is doubled instead while it stays below
    :data:`GROW_MEMORY` and leaves :data:`MIN_CHUNKS` chunks (a model with small
    outputs); the plan returned has ``chunk_auto`` False (fitted once).
    """
    import dataclasses

    per_sample = sample_bytes(plan) * CHUNK_OVERHEAD
    chunk = plan.chunk_size
    smallest = plan.n_replicates
    while chunk * per_sample > budget and chunk > smallest:
        chunk //= 2
    chunk = max(chunk, smallest)
    if plan.chunk_auto:
        while (2 * chunk * per_sample <= min(budget, GROW_MEMORY)
               and 2 * chunk * MIN_CHUNKS <= plan.samples):
            chunk *= 2
        plan = dataclasses.replace(plan, chunk_auto=False)
    if chunk * per_sample > budget:
        cells = ", ".join(f"{d} {len(g.values):,}" for d, g in plan.grid.items())
        raise OptionError(
            f"{plan.book.path}: the grid ({cells} points) is too large: the smallest chunk "
            f"({chunk} base samples, one per scramble, with their design rows) would take "
            f"{chunk * per_sample / 1e9:.1f} GB of memory; use fewer grid points "
            "(e.g. [grid.demand] num = 41)"
        )
    return plan if chunk == plan.chunk_size else dataclasses.replace(plan, chunk_size=chunk)


def estimate_base_bytes(plan: Plan, samples: int | None = None) -> int:
    """Bytes the base rows of a run will take uncompressed (an upper bound on the file),
    from one base row's kept outputs (cheap even for a huge grid)."""
    keep = set(plan.targets) | set(plan.distributions)
    values = design_values(plan, 0, plan.n_replicates)[:1, 0]
    out = _call_model(plan, _input_dataset(plan, values, None if plan.keep_samples == "all"
                                           else keep), check=False)
    per_row = sum(v.nbytes for k, v in out.data_vars.items()
                  if "sample" in v.dims and (plan.keep_samples == "all" or k in keep))
    return int((per_row + 8 * len(plan.factors) + 8) * (samples or plan.samples))


def evaluate_base(plan: Plan, start: int = 0, stop: int | None = None,
                  outputs: Iterable[str] | None = None,
                  ppf: Callable[[Any, np.ndarray], np.ndarray] | None = None) -> xr.Dataset:
    """Model outputs on the base rows (``A``) of samples ``start .. stop-1`` only.

    The same rows as the ``sample`` dim of :func:`run`'s results, without the Saltelli
    rows: for analyses that need independent samples but no Sobol' indices (e.g. re-running
    the base sample of a modified book). Includes ``input_value`` (sample, input).
    ``outputs`` (names) asks the model for these only (default: the targets and the
    distributions the run reports); the model may then skip the rest (break-even, paths).
    ``ppf(input, u)``: the input's values at ``u`` instead of ``input.ppf(u)`` (the same
    values: the explorer keeps those of the inputs a change did not touch).
    """
    stop = plan.samples if stop is None else stop
    d = plan.design.num_inputs
    parts = []
    # base rows only: a chunk's memory holds rows_per_sample times as many of them (at
    # most 16 chunks at once: fewer, larger model calls; 32 small ones cost 0.5 s of
    # xarray for the default run's independence check)
    width = plan.chunk_size * max(1, min(16, plan.design.rows_per_sample))
    for s in range(0, plan.samples, width):
        s, e = max(s, start), min(s + width, stop, plan.samples)
        if s >= e:
            continue
        base = plan.base_points(s, e)[:, :d]
        values = np.empty_like(base)
        for j, inp in enumerate(plan.book.uncertain):
            values[:, j] = inp.ppf(base[:, j]) if ppf is None else ppf(inp, base[:, j])
        wanted = set(plan.targets) | set(plan.distributions) if outputs is None else outputs
        out = _call_model(plan, _input_dataset(plan, values, wanted), check=outputs is None)
        part = out[[k for k in out.data_vars if "sample" in out.variables[k].dims]]
        part["input_value"] = (("sample", "input"), values)
        parts.append(part.assign_coords(sample=np.arange(s, e)))
    return xr.concat(parts, dim="sample", data_vars="all", coords="minimal", compat="override")

