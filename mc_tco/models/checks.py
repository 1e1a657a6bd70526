"""A book and a model's outputs checked against the model's :class:`~.spec.ModelSpec`:
inputs present, in range and in the model's units; targets that are benefits; grid points
in range; outputs of the right shape; finite samples."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.book import Book
from mc_tco.book.units import unit_suffix
from mc_tco.errors import BookError, ModelError, a_or_an
from mc_tco.models.book_units import apply_grid_units, apply_units, bound_text, percent_hint
from mc_tco.models.spec import TAIL, ModelSpec
from mc_tco.models.versions import check_version

__all__ = ["check_analysis", "check_book", "check_grid", "check_outputs", "check_samples",
           "check_targets"]


#: unknown inputs named in the message (the rest are counted)
_SHOWN = 5


def check_book(book: Book, spec: ModelSpec) -> list[str]:
    """Check that ``book`` gives the model every input it needs, no other, within range.

    Inputs are first expressed in the model's units (:func:`.book_units.apply_units`:
    months -> years, kUSD -> USD, % -> fraction, a missing unit takes the model's); the
    book is changed in place and the notes of the conversions are returned.

    Raises
    ------
    BookError
        Naming the missing or unknown input, or the input whose distribution reaches
        outside what the model accepts, with the fix.
    """
    notes: list[str] = apply_grid_units(book, spec)
    check_grid(book, spec)
    if not spec.inputs:
        return notes
    check_version(book, spec)
    notes += apply_units(book, spec.inputs)
    missing = [n for n in spec.inputs if n not in book.inputs]
    if missing:
        rule = spec.inputs[missing[0]]
        more = f" (and {len(missing) - 1} more: {', '.join(missing[1:])})" if missing[1:] else ""
        import difflib

        unknown = [n for n in book.inputs if n not in spec.inputs]
        close = difflib.get_close_matches(missing[0], unknown, n=1)
        if close:  # a typo: point at the misspelt table, whose line is known
            raise book.error(
                f"inputs.{close[0]}",
                f"the model needs input '{missing[0]}' and the book has '{close[0]}' instead; "
                f"rename [inputs.{close[0]}] to [inputs.{missing[0]}]{more}",
            )
        raise BookError(
            book.path,
            f"inputs.{missing[0]}",
            f"the model needs input '{missing[0]}' ({rule.description or rule.unit}) and the "
            f"book lacks it{more}; add [inputs.{missing[0]}] with a dist, e.g. "
            f'dist = "constant", value = ...',
        )
    unused = [n for n in book.inputs if n not in spec.inputs]
    if len(unused) == 1:
        import difflib

        name = unused[0]
        close = difflib.get_close_matches(name, list(spec.inputs), n=1)
        hint = f"did you mean '{close[0]}'? " if close else ""
        raise book.error(
            f"inputs.{name}",
            f"the model does not use an input '{name}'; {hint}remove it or rename it "
            f"(the model's inputs: {', '.join(spec.inputs)})",
        )
    if unused:  # all of them at once, the first few by name
        shown = ", ".join(f"'{n}'" for n in unused[:_SHOWN])
        more = f" and {len(unused) - _SHOWN:,} more" if len(unused) > _SHOWN else ""
        raise book.error(
            f"inputs.{unused[0]}",
            f"the model does not use {len(unused):,} of the book's inputs: {shown}{more}; "
            f"remove them or rename them (the model's inputs: {', '.join(spec.inputs)})",
        )
    for name, inp in book.inputs.items():
        rule = spec.inputs[name]
        lo, hi = inp.support()
        continuous = inp.is_sampled and inp.family != "discrete"
        if continuous and math.isinf(lo):
            lo = float(inp.dist.ppf(TAIL))
        if continuous and math.isinf(hi):
            hi = float(inp.dist.ppf(1 - TAIL))
        if not rule.admits(lo, hi, continuous):
            if inp.is_constant:
                what = f"the value {inp.value:g}"
                fix = "change the value"
            elif inp.is_grid:
                bad = [v for v in inp.grid_values if not rule.admits(v, v, False)]
                what = f"the grid value {bad[0]:g} ([grid.{name}])"
                fix = "change or remove that value"
            elif math.isinf(inp.support()[0]) or math.isinf(inp.support()[1]):
                what = f"{a_or_an(inp.family)} distribution with mass from {lo:g} to {hi:g}"
                fix = "use truncnormal with low/high, lognormal, pert or another bounded family"
            else:
                what = f"{a_or_an(inp.family)} distribution over [{lo:g}, {hi:g}]"
                fix = "narrow the range"
            crossed = "" if not inp.is_sampled else bound_text(rule, lo, hi)
            raise book.error(
                f"grid.{name}" if inp.is_grid else f"inputs.{name}",
                f"{what} reaches outside what the model allows: {name} must be "
                f"{rule.range_text()}{unit_suffix(rule.unit)}{crossed}; {fix}"
                f"{percent_hint(inp, rule, lo, hi)}",
            )
    return notes


def check_targets(book: Book, spec: ModelSpec) -> None:
    """Refuse ``[analysis] targets`` that are not a benefit the model declares.

    A target is read as "higher is better, 0 at the baseline" (P(target > 0) = "beats the
    API"); a cost or a node count read that way gives wrong answers. A model that declares
    no ``benefits`` allows every output.
    """
    if not spec.benefits:
        return
    for name in book.analysis.get("targets", []):
        if name not in spec.benefits:
            against = f" against '{spec.baseline}'" if spec.baseline else ""
            raise book.error(
                "analysis.targets",
                f"'{name}' is not a benefit of the model (higher is better, measured{against}), "
                f"so 'P({name} > 0)' means nothing; targets can be "
                f"{', '.join(spec.benefits)}",
                "targets",
            )


def check_grid(book: Book, spec: ModelSpec) -> None:
    """Refuse a grid point of ``book`` outside the range its model declares for that dim.

    Raises
    ------
    BookError
        Naming the file, the line, the grid dim, the point and the allowed range.
    """
    for dim, grid in book.grid.items():
        rule = spec.grid_rules.get(dim)
        if rule is None:
            continue
        ok = rule.contains(grid.values)
        if ok.all():
            continue
        value = float(np.asarray(grid.values)[~ok][0])
        if grid.spacing == "values":
            key = "values"
        else:
            key = "start" if value <= float(np.min(grid.values)) else "stop"
        raise book.error(
            f"grid.{dim}",
            f"the point {value:g} is outside what the model allows: {dim} must be "
            f"{rule.range_text()}{unit_suffix(rule.unit or grid.unit)}; remove it or move the grid "
            "into that range",
            key,
        )


def _sample_label(da: xr.DataArray, index: tuple) -> str:
    """``sample 3`` (the sample coordinate when there is one) and the other coordinates."""
    parts = []
    for dim, i in zip(da.dims, index, strict=True):
        label = da[dim].values[i] if dim in da.coords else i
        if isinstance(label, np.generic):
            label = label.item()
        parts.append(f"{dim} {label:g}" if isinstance(label, float) else f"{dim} {label}")
    return ", ".join(parts) or "the only sample"


def _row_values(inputs: xr.Dataset, da: xr.DataArray, index: tuple) -> str:
    """``name=value`` of every input at the sample of ``index`` in ``da``."""
    row = dict(zip(da.dims, index, strict=True)).get("sample")
    out = []
    for name, var in inputs.data_vars.items():
        v = var.isel(sample=row) if row is not None and "sample" in var.dims else var
        if v.size == 1:
            out.append(f"{name}={float(v.values.reshape(-1)[0]):.6g}")
    return ", ".join(out)


def check_samples(inputs: xr.Dataset, spec: ModelSpec, model_name: str = "the model") -> None:
    """Reject sampled input values that the model's :class:`InputRule` s forbid.

    The check of a book (:func:`check_book`) already keeps the distributions within the
    rules; this one guards direct calls of a model (a notebook passing its own Dataset),
    with the same rules.

    Parameters
    ----------
    inputs : xr.Dataset
        The model's inputs, one variable per input, along ``sample``.
    spec : ModelSpec
        The model's rules.
    model_name : str
        Shown in the message.

    Raises
    ------
    ModelError
        Naming the first missing input, or the first input with an impossible value, the
        sample and the value, and the allowed range.
    """
    missing = [n for n in spec.inputs if n not in inputs]
    if missing:
        rule = spec.inputs[missing[0]]
        raise ModelError(
            f"{model_name}: the inputs lack '{missing[0]}' ({rule.description}, {rule.unit})"
            + (f" and {len(missing) - 1} more ({', '.join(missing[1:])})" if missing[1:] else "")
            + "; give one variable per model input"
        )
    for name, rule in spec.inputs.items():
        # (the Variable's values: a DataArray a name, 60 names a model call, took 75% of
        # this check, 0.12 CPU s of the default run)
        ok = rule.contains(inputs.variables[name].values)
        if not ok.all():
            da = inputs[name]
            index = tuple(int(i) for i in np.argwhere(~ok)[0])
            value = float(da.values[index])
            raise ModelError(
                f"{model_name}: input '{name}' is {value:g} at {_sample_label(da, index)}; "
                f"{name} must be {rule.range_text()} ({rule.unit}, {rule.description}): "
                "fix the value or the distribution it was drawn from"
            )


def check_outputs(
    out: xr.Dataset,
    inputs: xr.Dataset,
    model_name: str = "the model",
    nan_allowed: Mapping[Hashable, Mapping[Hashable, Any]] | None = None,
) -> None:
    """Reject a NaN in any output, naming the output, the sample and its input values.

    Parameters
    ----------
    out, inputs : xr.Dataset
        What the model returned, and its inputs (along ``sample``).
    model_name : str
        Shown in the message.
    nan_allowed : dict, optional
        Output name -> coordinates where NaN is meaningful, e.g.
        ``{"breakeven_demand": {"strategy": "api"}}``.

    Raises
    ------
    ModelError
    """
    nan_allowed = nan_allowed or {}
    for name in out.data_vars:
        var = out.variables[name]  # a Variable: no DataArray built for the common case
        if var.dtype.kind not in "fc":
            continue
        if var.size == 0 or not np.isnan(np.max(np.ravel(var.values, order="K"))):
            continue  # the fast test: a NaN anywhere makes the max NaN
        da = out[name]
        bad = np.isnan(da.values)
        for dim, label in nan_allowed.get(name, {}).items():
            shape = [1] * da.ndim
            shape[da.dims.index(dim)] = -1
            bad &= np.asarray(da[dim].values != label).reshape(shape)
        if bad.any():
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ModelError(
                f"{model_name}: output '{name}' is NaN at {_sample_label(da, index)} for the "
                f"inputs {_row_values(inputs, da, index)}; these inputs are outside what the "
                "model can compute: narrow their distributions"
            )


def check_analysis(
    book: Book,
    out: xr.Dataset,
    targets: list[str],
    report: dict[str, list],
    focus: dict[str, Any],
    distributions: list[str],
    spec: ModelSpec | None = None,
) -> None:
    """Check the book's ``[analysis]`` against what the model returned (before the run).

    Every target and distribution must be an output, every target of the book a benefit
    when ``spec`` declares them (:func:`check_targets`); every dim of ``report`` and
    ``focus`` a dim of the targets, with labels of the right kind that exist (numeric
    points are matched to the nearest grid point, text labels exactly); ``focus.target``
    may name one of the targets (the one the memo explains first).

    Raises
    ------
    BookError
        Naming the ``[analysis]`` field, the name or label, and what exists.
    """
    outputs = ", ".join(map(str, out.data_vars)) or "none"
    for key, names in (("targets", targets), ("distributions", distributions)):
        for name in names:
            if name not in out.data_vars:
                raise book.error(
                    f"analysis.{key}",
                    f"the model returned no output '{name}'; its outputs are {outputs}",
                    key,
                )
    if spec is not None:
        check_targets(book, spec)
    dims: dict[Hashable, Any] = {}
    for t in targets:
        for d in out[t].dims:
            if d != "sample":
                dims[d] = out[t][d].values if d in out[t].coords else None
    for key, table in (("report", report), ("focus", focus)):
        for dim, points in table.items():
            if key == "focus" and dim == "target":  # the target the memo puts first
                if points not in targets:
                    raise book.error(
                        "analysis.focus",
                        f"focus.target = {points!r} is not one of the targets "
                        f"({', '.join(targets)}): name one of them",
                        "focus",
                    )
                continue
            if dim not in dims:
                raise book.error(
                    f"analysis.{key}",
                    f"{key} names '{dim}', which is not a dimension of the targets "
                    f"({', '.join(targets)}); their dimensions: "
                    f"{', '.join(map(str, dims)) or 'none'}",
                    key,
                )
            coords = dims[dim]
            if coords is None:
                continue
            textual = coords.dtype.kind in "USO"
            for p in points if isinstance(points, list) else [points]:
                if isinstance(p, str) != textual:
                    kind = "names (in quotes)" if textual else "numbers"
                    raise book.error(
                        f"analysis.{key}",
                        f"{key}.{dim} = {p!r}: the points of '{dim}' are {kind}, e.g. "
                        + (f"'{coords[0]}'" if textual else f"{float(coords[0]):g}"),
                        key,
                    )
                if textual and p not in coords:
                    raise book.error(
                        f"analysis.{key}",
                        f"{key}.{dim} = '{p}' is not one of {', '.join(map(str, coords))}",
                        key,
                    )
