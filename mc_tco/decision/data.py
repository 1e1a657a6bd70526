"""What the decision analyses read from a results file, checked once.

A results file (``mc-tco run``) stores, on the ``N`` independent base rows, the sampled
inputs ``input_value`` (sample, input) and every model output. The decision analyses need
one grid point (e.g. ``demand = 5e11``), a target whose value is the *incremental net
benefit* of each option against a common baseline (``saving`` = cost of the API minus cost
of the strategy, so the API is 0; or ``npv``), and the options to compare (``strategy``
labels). :func:`decision_data` selects them and raises a one-line
:class:`~mc_tco.errors.OptionError` naming the file, the option and the fix otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from ..errors import OptionError

__all__ = ["DecisionData", "decision_data", "point_text", "select_point"]

#: a requested grid value matches a grid point within this relative distance
GRID_TOLERANCE = 5e-3
#: options left out of the decision unless asked for: "owned" is another company's
#: situation (GPUs already bought), not an option next to buying
NOT_BY_DEFAULT = ("owned",)
#: labels of the two options of a model without a strategy dim
ACT_OPTIONS = ("don't act", "act")


@dataclass
class DecisionData:
    """Samples of the inputs and of each option's net benefit at one grid point.

    Attributes
    ----------
    x : ndarray, (n, p)
        Sampled values of the ``p`` uncertain inputs.
    inputs, units, input_groups : list of str
        Name, unit and group of each input (group ``""``: none).
    net_benefit : ndarray, (n, D)
        Incremental net benefit of each option (against the file's common baseline).
    options : list of str
        The ``D`` options, e.g. ``["api", "buy", "rent"]``.
    target, unit : str
        The output read and its unit (e.g. ``saving``, ``USD/month``).
    point : dict
        The grid point, e.g. ``{"demand": 5e11}``.
    has_strategy : bool
        Whether the options are strategies of the model (else "act" vs "don't act").
    path : str
        The results file, for messages.
    """

    x: np.ndarray
    inputs: list[str]
    units: list[str]
    input_groups: list[str]
    net_benefit: np.ndarray
    options: list[str]
    target: str
    unit: str
    point: dict
    has_strategy: bool
    path: str
    label: str = "> 0"
    extra: dict = field(default_factory=dict)

    @property
    def n(self) -> int:
        return self.x.shape[0]

    def check_inputs(self, names) -> list[str]:
        """``names`` if every one is an uncertain input of the file, else an OptionError."""
        out = []
        for name in names:
            if name not in self.inputs:
                import difflib

                close = difflib.get_close_matches(name, self.inputs, n=1)
                hint = f"did you mean '{close[0]}'? " if close else ""
                raise OptionError(
                    f"{self.path}: unknown input '{name}'; {hint}the uncertain inputs are "
                    + ", ".join(self.inputs)
                )
            out.append(name)
        return out

    def groups(self) -> dict[str, list[str]]:
        """The book's groups (``input_group``), each with its inputs, in book order."""
        groups: dict[str, list[str]] = {}
        for name, group in zip(self.inputs, self.input_groups, strict=True):
            if group:
                groups.setdefault(group, []).append(name)
        return groups

    def option_values(self, option: str) -> np.ndarray:
        """The net benefit of one option at every sample, (n,)."""
        return self.net_benefit[:, self.options.index(option)]


def _where(path: str | None) -> str:
    return path or "the results"


def decision_data(
    ds: xr.Dataset,
    *,
    at: dict | None = None,
    among: list[str] | None = None,
    target: str | None = None,
    path: str | None = None,
) -> DecisionData:
    """Select the inputs and the options' net benefits at one grid point.

    Parameters
    ----------
    ds : xr.Dataset
        A results file.
    at : dict, optional
        Grid values by dim, e.g. ``{"demand": 5e11}``; a dim not given takes the file's
        focus point (or its only value).
    among : list of str, optional
        Strategies to compare; default every strategy but ``owned``.
    target : str, optional
        The output to read (default: the file's first target, e.g. ``saving``).
    path : str, optional
        The file name for messages.

    Returns
    -------
    DecisionData
    """
    where = _where(path)
    if "input_value" not in ds or "input" not in ds.dims:
        raise OptionError(
            f"{where}: no 'input_value' (the sampled inputs); it is not a results file of "
            "'mc-tco run' or was written without them; rerun 'mc-tco run BOOK'"
        )
    targets = ds.mc_tco.targets
    if target is None:
        if not targets:
            raise OptionError(f"{where}: the file names no target; pass --target NAME")
        target = targets[0]
    per_sample = [str(k) for k, v in ds.data_vars.items() if "sample" in v.dims
                  and k != "input_value" and np.issubdtype(v.dtype, np.number)]
    if target not in ds or target not in per_sample:
        raise OptionError(
            f"{where}: --target {target}: no such per-sample output; choose one of "
            + ", ".join(per_sample)
        )
    da = ds[target]
    point = select_point(ds, da, at or {}, where)
    da = da.sel({k: v for k, v in point.items()})
    unit = str(da.attrs.get("units", ds[target].attrs.get("units", "")))
    if "strategy" in da.dims:
        labels = [str(s) for s in ds["strategy"].values]
        options = list(among) if among else [s for s in labels if s not in NOT_BY_DEFAULT]
        for s in options:
            if s not in labels:
                raise OptionError(
                    f"{where}: unknown strategy '{s}'; the results have " + ", ".join(labels)
                )
        if len(set(options)) != len(options):
            raise OptionError(f"{where}: --among lists a strategy twice: {', '.join(options)}")
        nb = da.sel(strategy=options).transpose("sample", "strategy").values
        has_strategy = True
    else:
        if among:
            raise OptionError(
                f"{where}: '{target}' has no strategy dim, so there is nothing to choose "
                "among; the decision is 'act if its expected value is positive'; drop --among"
            )
        options = list(ACT_OPTIONS)
        values = da.transpose("sample").values
        nb = np.column_stack([np.zeros_like(values), values])
        has_strategy = False
    nb = np.asarray(nb, dtype=float)
    if not np.isfinite(nb).all():
        raise OptionError(f"{where}: '{target}' has non-finite values at {point}; "
                          "the decision analyses need finite net benefits")
    x = ds["input_value"].transpose("sample", "input").values.astype(float)
    inputs = [str(v) for v in ds["input"].values]
    units = _coord(ds, "input_unit", len(inputs))
    groups = _coord(ds, "input_group", len(inputs))
    return DecisionData(
        x=x,
        inputs=inputs,
        units=units,
        input_groups=groups,
        net_benefit=nb,
        options=options,
        target=target,
        unit=unit,
        point=point,
        has_strategy=has_strategy,
        path=where,
        label=str(ds.attrs.get("indicator_label", "> 0")),
    )


def _coord(ds: xr.Dataset, name: str, n: int) -> list[str]:
    if name in ds.coords:
        return [str(v) for v in ds[name].values]
    return [""] * n


def select_point(ds: xr.Dataset, da: xr.DataArray, at: dict, where: str) -> dict:
    """The grid value of every dim of ``da`` other than ``sample`` and ``strategy``.

    A numeric value matches the nearest grid point within 0.5% (so the printed '1.26T'
    finds 1.2589e12); outside the grid, or between points, is an OptionError that names
    the nearest points.
    """
    focus = ds.mc_tco.focus
    unknown = [k for k in at if k not in da.dims]
    if unknown:
        dims = [d for d in da.dims if d not in ("sample", "strategy")]
        raise OptionError(
            f"{where}: --at {unknown[0]}: '{da.name}' has no dim '{unknown[0]}'"
            + (f"; its grid dims are {', '.join(dims)}" if dims else "; it has no grid dims")
        )
    point = {}
    for dim in da.dims:
        if dim in ("sample", "strategy"):
            continue
        coord = ds[dim].values
        flag = "--demand" if dim == "demand" else f"--at {dim}=VALUE"
        if dim in at:
            value = at[dim]
        elif dim in focus and not isinstance(focus[dim], str) and np.issubdtype(
            coord.dtype, np.number
        ):
            value = focus[dim]
        elif coord.size == 1:
            point[dim] = coord[0].item()
            continue
        else:
            raise OptionError(
                f"{where}: '{da.name}' varies along '{dim}'; choose a point with {flag}"
            )
        if np.issubdtype(coord.dtype, np.number):
            point[dim] = _nearest(coord, value, dim, flag, ds, where)
        else:
            labels = [str(c) for c in coord]
            if str(value) not in labels:
                raise OptionError(f"{where}: {flag}: '{value}' is not one of {', '.join(labels)}")
            point[dim] = str(value)
    return point


def _nearest(coord: np.ndarray, value, dim: str, flag: str, ds, where: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise OptionError(f"{where}: {flag.split('=')[0]} {dim}: '{value}' is not a number") \
            from None
    unit = ds[dim].attrs.get("units", "")
    lo, hi = float(coord.min()), float(coord.max())
    shown = flag.replace("=VALUE", "=")
    if not math.isfinite(v) or v < lo * (1 - GRID_TOLERANCE) or v > hi * (1 + GRID_TOLERANCE):
        raise OptionError(
            f"{where}: {shown} {v:g} is outside the grid ({lo:g} to {hi:g} {unit}); choose a "
            "value in it, or rerun with a book whose grid covers it"
        )
    rel = np.abs(coord - v) / np.maximum(np.abs(coord), 1e-300)
    i = int(np.argmin(rel))
    if rel[i] > GRID_TOLERANCE:
        below = coord[coord < v].max()
        above = coord[coord > v].min()
        raise OptionError(
            f"{where}: {shown} {v:g} is not a grid point; the nearest are {below:.4g} and "
            f"{above:.4g} {unit} (or add {v:g} to the book's [grid.{dim}] include and rerun)"
        )
    return float(coord[i])


def point_text(point: dict, ds: xr.Dataset | None = None, skip=()) -> str:
    """``demand 500B tokens/month`` for a grid point."""
    from ..fmt import fmt_value

    parts = []
    for k, v in point.items():
        if k in skip:
            continue
        unit = ds[k].attrs.get("units", "") if ds is not None and k in ds else ""
        if isinstance(v, str):
            parts.append(f"{k} {v}")
        else:
            parts.append(f"{k} {fmt_value(v, unit)}" + (f" {unit}" if unit else ""))
    return ", ".join(parts)
