"""Models: plain functions ``model(inputs: xr.Dataset) -> xr.Dataset``.

``inputs`` holds one variable per book input along ``sample`` (constants included, as the
same value on every row) and the book's grid as coordinates (e.g. ``demand``). The model
returns a Dataset whose variables have a ``sample`` dim of the same length and any of the
grid and model dims. Nothing else is required: a user's own function named in a book as
``model = "my_module:my_function"`` runs the same way.

A model may carry a :class:`ModelSpec` as ``model.spec``: the inputs it needs with their
units and allowed ranges (a book is then checked against it), its default grid, targets
and report points. The TCO model of :mod:`mc_tco.models.tco` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import xarray as xr

from ..book import Book, Grid
from ..errors import BookError, ModelError
from .book_units import apply_units, percent_hint
from .loading import DEFAULT_MODEL, model_facts, model_file, model_source_hash, resolve_model

__all__ = [
    "DEFAULT_MODEL",
    "InputRule",
    "ModelSpec",
    "check_analysis",
    "check_book",
    "check_grid",
    "check_outputs",
    "check_samples",
    "check_targets",
    "model_facts",
    "model_file",
    "model_source_hash",
    "resolve_model",
]


@dataclass(frozen=True)
class InputRule:
    """What a model accepts for one input: the unit and the range from ``low`` to ``high``.

    A bound is closed unless ``low_open`` / ``high_open`` (then a continuous distribution may
    start at it, as a lognormal starts at 0, but a constant or a discrete value may not).
    """

    unit: str
    low: float = -math.inf
    high: float = math.inf
    description: str = ""
    low_open: bool = False
    high_open: bool = False

    def range_text(self) -> str:
        lo = f"> {self.low:g}" if self.low_open else f">= {self.low:g}"
        hi = f"< {self.high:g}" if self.high_open else f"<= {self.high:g}"
        if math.isinf(self.low) and math.isinf(self.high):
            return "any finite value"
        if math.isinf(self.high):
            return lo
        if math.isinf(self.low):
            return hi
        left = "(" if self.low_open else "["
        right = ")" if self.high_open else "]"
        return f"in {left}{self.low:g}, {self.high:g}{right}"

    def contains(self, values) -> np.ndarray:
        """Whether each sampled value is allowed: finite and within the bounds (an open
        bound excludes the bound itself), elementwise."""
        v = np.asarray(values, dtype=float)
        with np.errstate(invalid="ignore"):
            low_ok = v > self.low if self.low_open else v >= self.low
            high_ok = v < self.high if self.high_open else v <= self.high
        return np.isfinite(v) & low_ok & high_ok

    def admits(self, lo: float, hi: float, continuous: bool) -> bool:
        """Whether values from ``lo`` to ``hi`` are allowed (endpoints of a continuous
        distribution carry no mass, so they may touch an open bound)."""
        low_ok = lo > self.low or (lo == self.low and (not self.low_open or continuous))
        high_ok = hi < self.high or (hi == self.high and (not self.high_open or continuous))
        return low_ok and high_ok


#: tail probability below which an unbounded distribution's mass is ignored in range checks
TAIL = 1e-12


@dataclass(frozen=True)
class ModelSpec:
    """What a model declares about itself; every field is optional."""

    inputs: dict[str, InputRule] = field(default_factory=dict)
    grid: dict[str, Grid] = field(default_factory=dict)
    targets: tuple[str, ...] = ()
    #: points the printed table and the memo report, per dim (added to the grid)
    report: dict[str, list] = field(default_factory=dict)
    #: the grid point whose input ranking is printed, e.g. {"demand": 5e11, "strategy": "buy"}
    focus: dict[str, Any] = field(default_factory=dict)
    #: per-sample outputs summarised by quantiles (and their share of "never" = inf)
    distributions: tuple[str, ...] = ()
    #: labels of the indicator ``target > 0`` for people, e.g. "beats the API"
    indicator_label: str = "> 0"
    #: the values each grid dim may take, e.g. {"demand": InputRule("tokens/month", 0,
    #: low_open=True)}; a book's grid point outside is refused
    grid_rules: dict[str, InputRule] = field(default_factory=dict)
    #: outputs that are a benefit (higher is better, 0 at the baseline), e.g. ("saving",
    #: "npv"); only these may be targets. Empty: every output may be
    benefits: tuple[str, ...] = ()
    #: the dim whose labels are the alternatives decided among, e.g. "strategy"
    alternatives: str | None = None
    #: the alternative every benefit is measured against, e.g. "api"
    baseline: str | None = None
    #: inputs of an earlier version of the model -> what replaced them (refused in a book)
    retired: dict[str, str] = field(default_factory=dict)


def spec_of(model: Callable) -> ModelSpec:
    """The model's :class:`ModelSpec`, or an empty one."""
    spec = getattr(model, "spec", None)
    return spec if isinstance(spec, ModelSpec) else ModelSpec()


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
    notes: list[str] = []
    check_grid(book, spec)
    if not spec.inputs:
        return notes
    _check_retired(book, spec)
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
    for name, inp in book.inputs.items():
        if name not in spec.inputs:
            import difflib

            close = difflib.get_close_matches(name, list(spec.inputs), n=1)
            hint = f"did you mean '{close[0]}'? " if close else ""
            raise book.error(
                f"inputs.{name}",
                f"the model does not use an input '{name}'; {hint}remove it or rename it "
                f"(the model's inputs: {', '.join(spec.inputs)})",
            )
        rule = spec.inputs[name]
        lo, hi = inp.support()
        continuous = not inp.is_constant and inp.family != "discrete"
        if continuous and math.isinf(lo):
            lo = float(inp.dist.ppf(TAIL))
        if continuous and math.isinf(hi):
            hi = float(inp.dist.ppf(1 - TAIL))
        if not rule.admits(lo, hi, continuous):
            if inp.is_constant:
                what = f"the value {inp.value:g}"
                fix = "change the value"
            elif math.isinf(inp.support()[0]) or math.isinf(inp.support()[1]):
                what = f"a {inp.family} distribution with mass from {lo:g} to {hi:g}"
                fix = "use truncnormal with low/high, lognormal, pert or another bounded family"
            else:
                what = f"a {inp.family} distribution over [{lo:g}, {hi:g}]"
                fix = "narrow the range"
            raise book.error(
                f"inputs.{name}",
                f"{what} reaches outside what the model allows: {name} must be "
                f"{rule.range_text()} ({rule.unit}); {fix}{percent_hint(inp, rule, lo, hi)}",
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
            f"{rule.range_text()} ({rule.unit or grid.unit}); remove it or move the grid "
            "into that range",
            key,
        )


def _check_retired(book: Book, spec: ModelSpec) -> None:
    """Refuse a book written for an earlier version of the model: one clause per retired
    input it uses, with what replaced it."""
    old = [n for n in book.inputs if n in spec.retired]
    if old:
        what = "; ".join(f"[inputs.{n}] is {spec.retired[n]}" for n in old)
        raise book.error(
            f"inputs.{old[0]}",
            f"the book is written for an earlier version of the model: {what}; rewrite it "
            "for the current one (see distributions/ for the shipped books)",
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
        da = inputs[name]
        ok = rule.contains(da.values)
        if not ok.all():
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
    nan_allowed: dict[str, dict[str, Any]] | None = None,
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
    for name, da in out.data_vars.items():
        if da.dtype.kind not in "fc":
            continue
        if da.size == 0 or not np.isnan(np.max(np.ravel(da.values, order="K"))):
            continue  # the fast test: a NaN anywhere makes the max NaN
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
    points are matched to the nearest grid point, text labels exactly).

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
    dims: dict[str, Any] = {}
    for t in targets:
        for d in out[t].dims:
            if d != "sample":
                dims[d] = out[t][d].values if d in out[t].coords else None
    for key, table in (("report", report), ("focus", focus)):
        for dim, points in table.items():
            if dim not in dims:
                raise book.error(
                    f"analysis.{key}",
                    f"{key} names '{dim}', which is not a dimension of the targets "
                    f"({', '.join(targets)}); their dimensions: {', '.join(dims) or 'none'}",
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
