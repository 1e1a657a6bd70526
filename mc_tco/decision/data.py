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

from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.results.points import match_point

DEFAULT_MODEL = "mc_tco.models.tco:model"

__all__ = ["DecisionData", "DecisionSpec", "decision_data", "decision_spec",
           "select_point"]

#: a requested grid value matches a grid point within this relative distance
#: options left out of the decision unless asked for: "owned" is another company's
#: situation (GPUs already bought), not an option next to buying
NOT_BY_DEFAULT = ("owned",)
#: labels of the two options of a model without a strategy dim
ACT_OPTIONS = ("don't act", "act")


@dataclass(frozen=True)
class DecisionSpec:
    """What the model of a results file declares for decisions (its ``ModelSpec``).

    Attributes
    ----------
    benefits : tuple of str
        Outputs that are a benefit (higher is better, 0 at the baseline); empty: any output.
    alternatives : str or None
        The dim of the alternatives decided among (e.g. ``strategy``), or None.
    baseline : str or None
        The alternative the benefits are measured against (e.g. ``api``), or None.
    """

    benefits: tuple[str, ...] = ()
    alternatives: str | None = None
    baseline: str | None = None


def decision_spec(ds: xr.Dataset) -> DecisionSpec:
    """The decision declarations stored in ``ds.attrs`` by ``mc-tco run``.

    A file written before they were stored, by the TCO model, takes them from the TCO
    model's spec; another file without them has no baseline, allows every output and
    takes ``strategy`` as the alternatives dim when it has one.
    """
    if ds.mc_tco.declares_decision:
        benefits = tuple(ds.mc_tco.benefits)
        alternatives = ds.mc_tco.declared_alternatives
        baseline = ds.mc_tco.baseline
    elif ds.mc_tco.run.is_tco_model:
        from mc_tco.models.tco import SPEC

        benefits = tuple(getattr(SPEC, "benefits", ()))
        alternatives = getattr(SPEC, "alternatives", None)
        baseline = getattr(SPEC, "baseline", None)
    else:
        benefits, alternatives, baseline = (), None, None
    if alternatives is None and "strategy" in ds.dims:
        alternatives = "strategy"
    return DecisionSpec(benefits, alternatives, baseline)


def check_target(ds: xr.Dataset, target: str, where: str, flag: str = "--target") -> None:
    """Refuse a target that is not a benefit the file's model declares (OptionError)."""
    spec = decision_spec(ds)
    if spec.benefits and target not in spec.benefits:
        against = f" against {spec.baseline}" if spec.baseline else ""
        raise OptionError(
            f"{where}: {flag} {target}: not a benefit of the model (higher is better, "
            f"measured{against}), so 'act if it is positive' means nothing; choose one of "
            + ", ".join(spec.benefits)
        )


def check_option(ds: xr.Dataset, option: str, where: str, flag: str = "--strategy") -> None:
    """Refuse explaining the baseline itself (its benefit is 0 by definition)."""
    spec = decision_spec(ds)
    if spec.baseline is not None and option == spec.baseline:
        labels = [str(v) for v in ds[spec.alternatives].values] if (
            spec.alternatives in ds.coords) else []
        others = [v for v in labels if v != spec.baseline]
        name = "the API" if spec.baseline == "api" else f"'{spec.baseline}'"
        raise OptionError(
            f"{where}: {flag} {option}: {name} is the baseline, every benefit is measured "
            "against it (its own is 0)"
            + (f"; choose one of {', '.join(others)}" if others else "")
        )


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
    #: the dim of the options in the results file (e.g. ``strategy``), or None
    alternatives: str | None = None

    @property
    def n(self) -> int:
        """The number of scenarios (rows)."""
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
        focus point (or its only value; else the middle of its grid).
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
    # Variables, not data_vars' DataArrays: this runs once per grid point of a curve
    per_sample = [str(k) for k, v in ds.variables.items() if "sample" in v.dims
                  and k not in ds.coords and k != "input_value"
                  and np.issubdtype(v.dtype, np.number)]
    if target not in ds or target not in per_sample:
        raise OptionError(
            f"{where}: --target {target}: no such per-sample output; choose one of "
            + ", ".join(per_sample)
        )
    check_target(ds, target, where)
    alt = decision_spec(ds).alternatives
    da = ds[target]
    point = select_point(ds, da, at or {}, where, alternatives=alt)
    da = da.sel({k: v for k, v in point.items()})
    unit = str(da.attrs.get("units", ds[target].attrs.get("units", "")))
    if alt is not None and alt in da.dims:
        labels = [str(s) for s in ds[alt].values]
        options = list(among) if among else [s for s in labels if s not in NOT_BY_DEFAULT]
        for s in options:
            if s not in labels:
                raise OptionError(
                    f"{where}: unknown {alt} '{s}'; the results have " + ", ".join(labels)
                )
        if len(set(options)) != len(options):
            raise OptionError(f"{where}: --among lists a {alt} twice: {', '.join(options)}")
        nb = da.sel({alt: options}).transpose("sample", alt).values
        has_strategy = True
    else:
        if among:
            raise OptionError(
                f"{where}: '{target}' has no {alt or 'strategy'} dim, so there is nothing to "
                "choose among; the decision is 'act if its expected value is positive'; "
                "drop --among"
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
        label=ds.mc_tco.run.indicator_label,
        alternatives=alt if has_strategy else None,
    )


def _coord(ds: xr.Dataset, name: str, n: int) -> list[str]:
    if name in ds.coords:
        return [str(v) for v in ds[name].values]
    return [""] * n


def select_point(ds: xr.Dataset, da: xr.DataArray, at: dict, where: str,
                 alternatives: str | None = "strategy") -> dict:
    """The grid value of every dim of ``da`` other than ``sample`` and the alternatives'.

    A numeric value matches the nearest grid point within 0.5% (so the printed '1.26T'
    finds 1.2589e12); outside the grid, or between points, is an OptionError that names
    the nearest points. A dim neither ``at`` nor the file's focus names takes the middle
    point of its grid, as the generic memo does
    (:func:`mc_tco.report.memo.generic_context.generic_context`).
    """
    focus = ds.mc_tco.focus
    unknown = [k for k in at if k not in da.dims]
    if unknown:
        dims = [str(d) for d in da.dims if d not in ("sample", alternatives)]
        raise OptionError(
            f"{where}: --at {unknown[0]}: '{da.name}' has no dim '{unknown[0]}'"
            + (f"; its grid dims are {', '.join(dims)}" if dims else "; it has no grid dims")
        )
    point = {}
    for dim in da.dims:
        if dim in ("sample", alternatives):
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
        else:  # the middle of the grid, as the memo takes it (one default for both)
            point[dim] = coord[(coord.size - 1) // 2].item()
            continue
        if np.issubdtype(coord.dtype, np.number):
            point[dim] = _nearest(coord, value, str(dim), flag, ds, where)
        else:
            labels = [str(c) for c in coord]
            if str(value) not in labels:
                raise OptionError(f"{where}: {flag}: '{value}' is not one of {', '.join(labels)}")
            point[dim] = str(value)
    return point


def _nearest(coord: np.ndarray, value, dim: str, flag: str, ds, where: str) -> float:
    return match_point(coord, value, dim=dim, flag=flag.replace("=VALUE", "="),
                       unit=ds[dim].attrs.get("units", ""), where=where)
