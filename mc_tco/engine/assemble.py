"""Summarise a run: Sobol' indices, bands, probabilities and provenance as one Dataset."""

from __future__ import annotations

import json
import math
from collections.abc import Hashable
from datetime import UTC, datetime
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.engine.evaluate import _targets_array, sobol_cells
from mc_tco.engine.plan import Plan, RunSums
from mc_tco.engine.schedule import scheduler_text
from mc_tco.results import SCHEMA_VERSION  # also registers ds.mc_tco
from mc_tco.sensitivity.sobol import ci_method_text, indices_dataset
from mc_tco.uncertainty.statistics import (
    QUANTILES,
    quantiles_with_never,
    stack_targets,
    summarize_targets,
)

__all__ = ["ESTIMATOR_REFERENCES", "provenance", "run_options", "summarize", "with_extra"]

#: the papers behind each ``--estimator`` (the provenance names the one used)
ESTIMATOR_REFERENCES = {
    "saltelli": "S1: Saltelli et al. 2010; ST: Jansen 1999",
    "sobol2007": "S1: Saltelli et al. 2010 (Sobol' et al. 2007); ST: Sobol' et al. 2007",
    "janon": "S1 and ST: Janon et al. 2014",
    "martinez": "S1 and ST: Martinez 2011 (correlation coefficients)",
}


def with_extra(summary: xr.Dataset, extra: xr.Dataset | None) -> xr.Dataset:
    """The run's summary with the extra variables of another pass (e.g. Shapley) merged in."""
    if extra is None:
        return summary
    merged = summary.merge(extra.drop_attrs(deep=False), join="exact")
    merged.attrs.update(summary.attrs)
    merged.attrs.update(extra.attrs)
    return merged



#: bytes of the stacked targets (each target and its indicator) the summaries take at once:
#: a block's summaries hold about 4x this (the targets read, stacked, sorted for the
#: quantiles of each scramble). The article book at 2^18 samples: +991 MiB at 2.5e8, +339
#: MiB at 1e8, in the same 30 s; the default book at 2^16 peaked at 1,566 MiB with 2.5e8
#: (issue 26), at 963 MiB with 1e8 (benchmarks/memory.py)
SUMMARY_BLOCK_BYTES = 1e8


def _blocks(base: xr.Dataset, plan: Plan, cells: tuple[Hashable, ...],
            budget: float = SUMMARY_BLOCK_BYTES) -> tuple[Hashable | None, list[slice]]:
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


def summarize(plan: Plan, base: xr.Dataset, sums: RunSums | None,
              scheduler: Any = None) -> xr.Dataset:
    """The Sobol' indices, summaries and provenance of a run (everything but the base rows).

    Without ``sums`` (None: the base rows alone were evaluated, as the browser app's first
    answer does), everything but the Sobol' indices.

    ``base`` holds the base rows (in memory, or lazily from a file: it is read block by
    block along the first grid dim, so memory stays bounded).

    Dims: ``input``, ``target`` (each target ``t`` and its indicator ``t>0``),
    ``quantile``, ``ci_bound`` and the grid and model dims.
    """
    first = base.isel(sample=slice(0, 1)).load()
    stacked, cells = _targets_array(plan, first)
    t = stacked.sizes["target"]
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
    ci_text = ci_method_text(
        plan.ci, plan.conf_level, resamples=plan.resamples, replicates=plan.n_replicates,
        estimator=plan.estimator, seed=plan.seed,
    )
    if sums is not None:
        ds = ds.merge(_indices_at(plan, sums, first, ci_text, t))
    dim, blocks = _blocks(base, plan, cells)
    parts, constant = [], []
    unestimated = sums is not None and any(d in cells for d in plan.sobol_grid)
    for block in blocks:
        part = (base[plan.targets].isel({dim: block}) if dim else base[plan.targets]).load()
        parts.append(
            summarize_targets(
                part, plan.targets, quantiles=QUANTILES, conf_level=plan.conf_level,
                label=plan.spec.indicator_label, replicates=plan.n_replicates,
            )
        )
        if unestimated:
            constant.append(_constant(part, plan))
    summ = xr.concat(parts, dim=dim, coords="minimal", compat="override") if dim else parts[0]
    if unestimated:  # where the indices were not estimated: from the base rows
        const = xr.concat(constant, dim=dim) if dim else constant[0]
        const = const.assign_coords(target=ds["target"].values)
        flag = ds["constant_output"]
        ds["constant_output"] = flag.copy(data=np.where(
            ds["ST"].isnull().all("input").values & (flag.values == 0),
            const.transpose(*flag.dims).values, flag.values).astype(np.int8))
    ds = ds.merge(summ.assign_coords(target=ds["target"].values), join="exact")
    for name in plan.distributions:
        if name not in base:
            raise plan.book.error(
                "analysis.distributions", f"the model returned no output '{name}'",
                "distributions",
            )
        q = quantiles_with_never(base[name].load(), conf_level=plan.conf_level,
                                 replicates=plan.n_replicates)
        unit = base[name].attrs.get("units", "")
        ds[f"{name}_quantile"] = q["quantiles"].assign_attrs(
            units=unit, method="inverted_cdf (an order statistic; inf = never)"
        )
        ds[f"{name}_p_never"] = q["p_never"].assign_attrs(
            units="1", long_name=f"share of samples where {name} is infinite (never)"
        )
        ds[f"{name}_p_never_ci"] = q["p_never_ci"].assign_attrs(
            long_name=f"Monte Carlo interval of {name}_p_never"
        )
        if plan.n_replicates > 1:
            ds[f"{name}_p_never_fallback"] = q["p_never_fallback"].astype(np.int8).assign_attrs(
                long_name=f"1 where the interval of {name}_p_never is Wilson's on the pooled "
                          "count (some scramble had no 'never' or only 'never')")
    for dim_name, g in plan.grid.items():
        if dim_name in ds.coords:
            ds[dim_name].attrs.update(units=g.unit, long_name=g.description or dim_name)
    ds.attrs.update(provenance(plan))
    _label_indices(plan, ds)
    ds.attrs["scheduler"] = scheduler_text(scheduler)
    # the one attr that differs between two runs of the same book, seed and options
    ds.attrs["created"] = datetime.now(UTC).isoformat(timespec="seconds")
    return ds


def _indices_at(plan: Plan, sums: RunSums, first: xr.Dataset, ci_text: str,
                t: int) -> xr.Dataset:
    """The Sobol' indices from ``sums``, on the whole grid: NaN (``*_negative`` 0) at the
    points they were not estimated at (``--sobol-at report``; :func:`summarize` sets
    ``constant_output`` there from the base rows), each index's ``computed_at`` saying
    where they were."""
    sub = plan.sobol_grid
    stacked, cells = _targets_array(plan, sobol_cells(plan, first, sub))
    cell_shape = tuple(stacked.sizes[c] for c in cells)
    idx = indices_dataset(
        # (xarray's dims are Hashable; indices_dataset is annotated with str dims)
        sums.result(plan.conf_level), plan.factors, (t, *cell_shape),
        ("target", *cells),  # type: ignore[arg-type]
        groups=plan.groups,
        second_order=plan.second_order, conf_level=plan.conf_level, method=ci_text,
    )
    sub = {dim: v for dim, v in sub.items() if dim in cells}
    if not sub:
        return idx
    idx = idx.assign_coords(sub)
    full = {dim: plan.grid[dim].values for dim in sub}
    flags = [k for k in idx.data_vars if idx[k].dtype == np.int8]
    out = idx.drop_vars(flags).reindex(full)  # NaN elsewhere
    for k in flags:
        out[k] = idx[k].reindex(full, fill_value=0).assign_attrs(idx[k].attrs)
    where = "; ".join(f"{dim} = " + ", ".join(f"{v:.6g}" for v in vals)
                      for dim, vals in sub.items())
    for k in out.data_vars:
        if k == "constant_output":  # (known everywhere: summarize fills in the base rows')
            continue
        out[k].attrs["computed_at"] = (
            f"{where} only (the report points, claim points and focus; NaN elsewhere: "
            "rerun with --sobol-at grid for every point)")
    return out


def _constant(part: xr.Dataset, plan: Plan) -> xr.DataArray:
    """1 where a target (or its indicator) takes one value over the base rows ``part``
    (each target's minimum and maximum over the samples; no stacked copy of the rows)."""
    first = part[plan.targets[0]]
    if any(part[t].dims != first.dims for t in plan.targets):
        stacked = stack_targets(part, plan.targets)
        return (stacked.max("sample") == stacked.min("sample")).astype(np.int8)
    axis = first.dims.index("sample")
    flags = []
    for t in plan.targets:
        y = part[t].values
        above = y > 0  # the indicator, as stack_targets makes it (NaN > 0 is 0)
        flags += [y.min(axis=axis) == y.max(axis=axis),
                  above.all(axis=axis) | ~above.any(axis=axis)]
    dims = tuple(d for d in first.dims if d != "sample")
    return xr.DataArray(np.stack(flags).astype(np.int8), dims=("target", *dims),
                        coords={d: first[d].values for d in dims if d in first.coords})


def _label_indices(plan: Plan, ds: xr.Dataset) -> None:
    """The rule for correlated inputs, declared: the file's ``ranking_index`` and each
    Sobol' variable's ``index_meaning`` (:mod:`mc_tco.results.ranking`)."""
    from mc_tco.results.ranking import INDEX_MEANING, MOVED_ONE_AT_A_TIME, VARIANCE_SHARE

    index = plan.ranking_index
    ds.attrs["ranking_index"] = index
    correlated = plan.book.correlation is not None
    for name in ("S1", "ST", "S1_conf", "ST_conf", "S1_negative", "S2", "S2_conf"):
        if name in ds:
            ds[name].attrs[INDEX_MEANING] = MOVED_ONE_AT_A_TIME if correlated else VARIANCE_SHARE
    for name in ("S1_group", "ST_group", "S1_group_conf", "ST_group_conf"):
        if name in ds:
            ds[name].attrs[INDEX_MEANING] = (VARIANCE_SHARE if not correlated
                                             or plan.groups_within else MOVED_ONE_AT_A_TIME)


def run_options(plan: Plan) -> dict[str, Any]:
    """The :func:`plan_run` options that reproduce ``plan`` (stored with the results).

    Every product of a run is here (the family check, the adaptive size, groups, second
    order, estimator, interval method), so ``mc-tco rerun`` redoes any file.
    """
    return {
        "samples": plan.requested_samples or plan.samples, "seed": plan.seed, "ci": plan.ci,
        "replicates": plan.replicates, "resamples": plan.resamples,
        "estimator": plan.estimator, "conf_level": plan.conf_level,
        "chunk_size": plan.chunk_size, "second_order": plan.second_order,
        "by_group": plan.by_group, "keep_samples": plan.keep_samples,
        "target_halfwidth": plan.target_halfwidth, "max_samples": plan.max_samples,
        "family_check": plan.family_check, "shapley": plan.shapley,
        "shapley_permutations": plan.shapley_permutations,
        "shapley_at": plan.shapley_at, "sobol_at": plan.sobol_at,
    }


def _summary_ci_text(plan: Plan) -> str:
    """How the intervals of the probabilities, means and quantiles were made."""
    if plan.n_replicates > 1:
        return (f"randomized-QMC t interval over the {plan.n_replicates} scrambles "
                "(probabilities, means, quantiles; Wilson / order-statistic fallback in the "
                "cells flagged *_fallback)")
    return "Wilson score (probabilities)"


def provenance(plan: Plan) -> dict[str, Any]:
    """The file attrs that make a run reproducible (everything but the creation time)."""
    from importlib.metadata import version

    import scipy

    from mc_tco._version import __version__
    from mc_tco.models import model_facts

    book = plan.book
    facts = model_facts(book)  # the file the run executed, and its SHA-256
    return {
        "schema_version": SCHEMA_VERSION,
        "title": f"mc_tco run of {book.name}",
        "book_name": book.name,
        "book_path": str(book.path),
        "book_sha256": book.sha256,
        "book_text": book.text,
        "model": book.model or "mc_tco.models.tco:model",
        "model_file": facts["model_file"],
        "model_sha256": facts["model_sha256"],
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
        "sobol_estimators": ESTIMATOR_REFERENCES[plan.estimator]
        + ("; S2: Saltelli 2002" if plan.second_order else ""),
        "ci": plan.ci,
        "replicates": plan.n_replicates,
        "estimator": plan.estimator,
        "ci_method": ci_method_text(
            plan.ci, plan.conf_level, resamples=plan.resamples, replicates=plan.n_replicates,
            estimator=plan.estimator, seed=plan.seed,
        ) + " (Sobol' indices); " + _summary_ci_text(plan),
        "design": "Saltelli design on a scrambled Sobol' sequence (scipy.stats.qmc.Sobol)",
        "summaries_from": "the N independent base rows (A) of the design",
        "constants": json.dumps({i.name: i.value for i in book.constants}),
        "input_grid": json.dumps({name: {"values": [float(v) for v in inp.grid_values],
                                         "unit": inp.unit, "focus": plan.focus.get(name)}
                                  for name, inp in book.input_grid.items()}),
        "mc_tco_version": __version__,
        "numpy_version": np.__version__,
        "scipy_version": scipy.__version__,
        "SALib_version": version("SALib"),
        "xarray_version": xr.__version__,
    }
