"""Value of information on a results file: EVPI and EVPPI at a grid point, and EVPI by demand.

The estimators are :mod:`mc_tco.decision.voi`'s (numpy, on net benefits of shape (n, D));
here they read the stored samples of a results file at one grid point
(:func:`mc_tco.decision.data.decision_data`) and label what they return. :func:`voi_summary`
is what the memo describes: the EVPI curve over demand and EVPI/EVPPI at the focus demand
(and, when nothing is worth learning there, at the reported demand where EVPI is largest).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from mc_tco.decision.data import DecisionData, decision_data
from mc_tco.decision.voi import DRAWS, ReplicateVoi, evpi, evpi_replicates, evppi, evppi_replicates
from mc_tco.uncertainty.scrambles import replicate_of, z_value

__all__ = [
    "VoiResult",
    "VoiSummary",
    "evpi_along",
    "evpi_by_demand",
    "evpi_half_width",
    "file_replicates",
    "value_of_information",
    "voi_summary",
]


def file_replicates(ds: xr.Dataset) -> int | None:
    """``R`` of a results file run with randomized-QMC intervals, else None."""
    return ds.mc_tco.run.replicates


@dataclass
class VoiResult:
    """EVPI and EVPPI at one decision point; values in ``unit``.

    ``evppi`` and ``evppi_groups`` map a name to ``(value, standard error)``; ``methods``
    maps the same names to the smoother used.
    """

    data: DecisionData
    evpi: float
    evpi_se: float
    expected: dict[str, float]
    best: str
    evppi: dict[str, tuple[float, float]] = field(default_factory=dict)
    evppi_groups: dict[str, tuple[float, float]] = field(default_factory=dict)
    group_members: dict[str, list[str]] = field(default_factory=dict)
    methods: dict[str, str] = field(default_factory=dict)
    #: randomized-QMC intervals (only with ``replicates=``): EVPI, and EVPPI by input / group
    evpi_rqmc: ReplicateVoi | None = None
    evppi_rqmc: dict[str, ReplicateVoi] = field(default_factory=dict)
    evppi_groups_rqmc: dict[str, ReplicateVoi] = field(default_factory=dict)
    #: level of the intervals printed with these numbers (value ± z(conf_level) se)
    conf_level: float = 0.95

    @property
    def unit(self) -> str:
        """The target's unit (that of every value of information)."""
        return self.data.unit

    def use_rqmc_errors(self, conf_level: float = 0.95) -> None:
        """Report the randomized-QMC half-widths as the errors (as ``half / z``, so that
        ``value ± z·se`` is the replicate interval); where one is undefined, keep the
        regression's standard error."""
        from mc_tco.uncertainty.scrambles import z_value

        z = z_value(conf_level)

        def swap(pair, rq):
            if rq is None or not np.isfinite(rq.half):
                return pair
            return (pair[0], float(rq.half) / z)

        if self.evpi_rqmc is not None and np.isfinite(self.evpi_rqmc.half):
            self.evpi_se = float(self.evpi_rqmc.half) / z
        self.evppi = {k: swap(v, self.evppi_rqmc.get(k)) for k, v in self.evppi.items()}
        self.evppi_groups = {k: swap(v, self.evppi_groups_rqmc.get(k))
                             for k, v in self.evppi_groups.items()}
        self.methods = {k: f"{m}; error from the spread of the scrambles"
                        for k, m in self.methods.items()}

    def ranked(self, groups: bool = False) -> list[tuple[str, float, float]]:
        """``(name, value, standard error)`` sorted by value, largest first."""
        table = self.evppi_groups if groups else self.evppi
        return sorted(((k, v, s) for k, (v, s) in table.items()), key=lambda r: -r[1])

    def to_dict(self) -> dict:
        """The JSON form: values, standard errors and 95% half-widths."""
        out = {
            "unit": self.unit,
            "options": list(self.data.options),
            "expected_net_benefit": self.expected,
            "best_option": self.best,
            "evpi": self.evpi,
            "evpi_se": self.evpi_se,
            "evppi": {k: v for k, (v, _) in self.evppi.items()},
            "evppi_se": {k: s for k, (_, s) in self.evppi.items()},
            "evppi_groups": {k: v for k, (v, _) in self.evppi_groups.items()},
            "evppi_groups_se": {k: s for k, (_, s) in self.evppi_groups.items()},
            "evppi_group_members": self.group_members,
            "evppi_methods": self.methods,
            "se_note": "standard errors; a 95% interval is value ± 1.96 se",
        }
        if self.evpi_rqmc is not None:
            out["evpi_rqmc"] = self.evpi_rqmc.to_dict()
            out["evppi_rqmc"] = {k: v.to_dict() for k, v in self.evppi_rqmc.items()}
            out["evppi_groups_rqmc"] = {k: v.to_dict() for k, v in self.evppi_groups_rqmc.items()}
        return out


def value_of_information(
    ds: xr.Dataset,
    *,
    at: dict | None = None,
    among: list[str] | None = None,
    target: str | None = None,
    inputs: list[str] | None = None,
    groups: dict[str, list[str]] | None = None,
    draws: int = DRAWS,
    seed: int = 0,
    path: str | None = None,
    replicates: int | str | None = "auto",
    conf_level: float | None = None,
) -> VoiResult:
    """EVPI and per-input and per-group EVPPI at one point of a results file.

    Parameters
    ----------
    ds : xr.Dataset
        A results file (``mc_tco.results.io.open_results``): needs ``input_value`` (sample, input)
        and the target (sample, ...).
    at : dict, optional
        The grid point, e.g. ``{"demand": 5e11}`` (default: the file's focus point).
    among : list of str, optional
        Options (strategies) to decide among; default every strategy but ``owned``.
    target : str, optional
        The incremental net benefit, e.g. ``saving`` (USD/month, the default) or ``npv``
        (USD). For a model without a ``strategy`` dim the decision is "act if the expected
        target is positive".
    inputs : list of str, optional
        Inputs whose EVPPI is estimated (default all).
    groups : dict, optional
        Groups of inputs (default: the book's groups, the ``input_group`` coordinate).
    draws, seed : int
        Posterior draws for the EVPPI error and their seed.
    path : str, optional
        The file name, for error messages.
    replicates : int, "auto" or None
        ``R`` of the run's interleaved scrambles ("auto": the file's, :func:`file_replicates`):
        adds the randomized-QMC intervals (``evpi_rqmc``, ``evppi_rqmc``,
        ``evppi_groups_rqmc``), at the cost of ``R`` more regression fits (on ``n / R`` rows
        each) per EVPPI, and reports them as the errors (``evpi_se``, the ``evppi`` pairs:
        half-width / z), since the regression's own standard error assumes independent rows
        and overstates the error 10-40x on a scrambled Sobol' design (docs/estimators.md).
    conf_level : float, optional
        Level of those intervals (default: the run's, ``--conf-level``).

    Returns
    -------
    VoiResult
    """
    data = decision_data(ds, at=at, among=among, target=target, path=path)
    nb = data.net_benefit
    value, se = evpi(nb)
    expected = dict(zip(data.options, map(float, nb.mean(axis=0)), strict=True))
    best = max(expected, key=expected.__getitem__)
    if conf_level is None:
        conf_level = ds.mc_tco.run.conf_level
    out = VoiResult(data, value, se, expected, best, conf_level=conf_level)
    rep = None
    if isinstance(replicates, str):
        if replicates != "auto":
            raise ValueError(f"replicates: {replicates!r}: expected an int, 'auto' or None")
        replicates = file_replicates(ds)
    if replicates:
        sample = ds["sample"].values if "sample" in ds.coords else np.arange(data.n)
        rep = replicate_of(sample, replicates)
        out.evpi_rqmc = evpi_replicates(nb, rep, replicates, conf_level)
    names = data.check_inputs(inputs) if inputs else list(data.inputs)
    rng = np.random.default_rng(seed)
    for name in names:
        j = data.inputs.index(name)
        v, s, method = evppi(data.x[:, j], nb, draws=draws, rng=rng)
        out.evppi[name] = (v, s)
        out.methods[name] = method
        if rep is not None and replicates:  # rep is set only with replicates
            out.evppi_rqmc[name] = evppi_replicates(data.x[:, j], nb, rep, replicates,
                                                    conf_level, value=v)
    if groups is None:
        groups = data.groups()
    for gname, members in groups.items():
        members = data.check_inputs(members)
        if len(members) == 1 and members[0] in out.evppi:  # the same estimate, not a redraw
            out.evppi_groups[gname] = out.evppi[members[0]]
            out.group_members[gname] = members
            out.methods[f"group:{gname}"] = out.methods[members[0]]
            if rep is not None:
                out.evppi_groups_rqmc[gname] = out.evppi_rqmc[members[0]]
            continue
        cols = [data.inputs.index(m) for m in members]
        v, s, method = evppi(data.x[:, cols], nb, draws=draws, rng=rng)
        out.evppi_groups[gname] = (v, s)
        out.group_members[gname] = members
        out.methods[f"group:{gname}"] = method
        if rep is not None and replicates:
            out.evppi_groups_rqmc[gname] = evppi_replicates(data.x[:, cols], nb, rep,
                                                            replicates, conf_level, value=v)
    if rep is not None:
        out.use_rqmc_errors(conf_level)
    return out


def evpi_by_demand(
    ds: xr.Dataset,
    *,
    among: list[str] | None = None,
    target: str | None = None,
    path: str | None = None,
    replicates: int | None = None,
    conf_level: float = 0.95,
) -> xr.DataArray:
    """EVPI at every demand of a results file (:func:`evpi_along` along ``demand``).

    With ``replicates`` (:func:`file_replicates`) the coordinates ``evpi_lower`` and
    ``evpi_upper`` (demand) hold the randomized-QMC interval of :func:`evpi_replicates`
    (a DataArray's coordinate cannot add the ``ci_bound`` dim).

    Returns
    -------
    xr.DataArray
        EVPI over ``demand`` in the target's unit (USD/month for ``saving``), with the
        coordinate ``evpi_se`` (its standard error) and ``best_option`` (the option with
        the highest expected net benefit at that demand). It peaks where the decision is
        hardest: where two options are close on average and the uncertainty can reverse
        their order.
    """
    if "demand" not in ds.dims:
        from mc_tco.errors import OptionError

        raise OptionError(f"{path or 'the results'}: no 'demand' dim; EVPI vs demand needs one")
    return evpi_along(ds, "demand", among=among, target=target, path=path,
                      replicates=replicates, conf_level=conf_level)


#: read a lazily opened file's target and inputs into memory once, below this size, before
#: an analysis that selects one grid point after another (else every point re-reads and
#: decompresses the whole variable: its HDF5 chunks span several points)
LOAD_BELOW_BYTES = 512 * 2**20


def _loaded(ds: xr.Dataset, target: str | None) -> xr.Dataset:
    """``ds`` with its target and ``input_value`` in memory when they are small enough
    together, else with ``input_value`` alone when it is (a new dataset; the caller's is
    not changed): every point reads the inputs whole, the target at the point only."""
    names = [v for v in (target or (ds.mc_tco.targets or [None])[0], "input_value")
             if v is not None and v in ds]
    if sum(ds[v].nbytes for v in names) > LOAD_BELOW_BYTES:
        names = [v for v in names if v == "input_value" and ds[v].nbytes <= LOAD_BELOW_BYTES]
        if not names:
            return ds
    return ds.assign({v: ds[v].compute() for v in names})


#: EVPI curves computed once per live dataset and arguments (the memo reads the same
#: curve in three sections): id(ds) -> {key: curve}, dropped when the dataset is collected
_CURVES: dict[int, dict[tuple, xr.DataArray]] = {}


def evpi_along(
    ds: xr.Dataset,
    dim: str,
    *,
    at: dict | None = None,
    among: list[str] | None = None,
    target: str | None = None,
    path: str | None = None,
    replicates: int | None = None,
    conf_level: float = 0.95,
) -> xr.DataArray:
    """EVPI at every value of the grid dim ``dim`` of a results file, any model.

    Parameters
    ----------
    dim : str
        A grid dim of the target (``demand`` for the TCO model, ``volume``, ...).
    at : dict, optional
        The other grid dims' values (default: the file's focus, or their only value);
        ``at[dim]`` is ignored.
    among, target, path, replicates, conf_level
        As for :func:`value_of_information`; ``replicates`` adds the coordinates
        ``evpi_lower`` and ``evpi_upper`` (randomized-QMC interval).

    Returns
    -------
    xr.DataArray
        EVPI over ``dim`` in the target's unit, with the coordinates ``evpi_se`` (its
        standard error) and ``best_option`` (the option best on average there).
    """
    if dim not in ds.dims:
        from mc_tco.errors import OptionError

        raise OptionError(f"{path or 'the results'}: no '{dim}' dim; EVPI along {dim} "
                          "needs one")
    rest = {k: v for k, v in (at or {}).items() if k != dim}
    key = (dim, repr(sorted(rest.items())), None if among is None else tuple(among), target,
           path, replicates, conf_level)
    slot = _CURVES.get(id(ds))
    if slot is None:
        slot = _CURVES[id(ds)] = {}
        weakref.finalize(ds, _CURVES.pop, id(ds), None)
    if key not in slot:
        slot[key] = _evpi_along(ds, dim, rest, among, target, path, replicates, conf_level)
    return slot[key].copy(deep=True)


def _evpi_along(ds: xr.Dataset, dim: str, rest: dict, among: list[str] | None,
                target: str | None, path: str | None, replicates: int | None,
                conf_level: float) -> xr.DataArray:
    """:func:`evpi_along`, computed."""
    ds = _loaded(ds, target)
    values, ses, bests, cis = [], [], [], []
    for d in ds[dim].values:
        value = d.item() if hasattr(d, "item") else d
        data = decision_data(ds, at={**rest, dim: value}, among=among, target=target,
                             path=path)
        nb = data.net_benefit
        v, s = evpi(nb)
        if replicates:
            sample = ds["sample"].values if "sample" in ds.coords else np.arange(data.n)
            r = evpi_replicates(nb, replicate_of(sample, replicates), replicates, conf_level)
            cis.append([r.lower, r.upper])
        values.append(v)
        ses.append(s)
        bests.append(data.options[int(np.argmax(nb.mean(axis=0)))])
    ci = np.array(cis)
    extra = ({"evpi_lower": (dim, ci[:, 0]), "evpi_upper": (dim, ci[:, 1])}
             if ci.size else {})
    return xr.DataArray(
        np.array(values),
        dims=dim,
        coords={
            dim: ds[dim],
            "evpi_se": (dim, np.array(ses)),
            "best_option": (dim, np.array(bests, dtype=object).astype(str)),
            **extra,
        },
        name="evpi",
        attrs={
            "units": data.unit,
            "long_name": "expected value of perfect information",
            "options": ", ".join(data.options),
            "target": data.target,
            "point": {k: v for k, v in data.point.items() if k != dim},
        },
    )


def evpi_half_width(curve: xr.DataArray, conf_level: float = 0.95) -> xr.DataArray:
    """The half-width of the Monte Carlo interval of an EVPI curve (:func:`evpi_along`), as
    the value-of-information section prints it: half the randomized-QMC interval where the
    curve has one and it is finite, else ``z * evpi_se`` (normal, at ``conf_level``).

    Returns
    -------
    xr.DataArray
        Over the curve's dim, in its unit.
    """
    half = z_value(conf_level) * curve["evpi_se"].values
    if "evpi_lower" in curve.coords:
        rq = (curve["evpi_upper"].values - curve["evpi_lower"].values) / 2
        half = np.where(np.isfinite(rq), rq, half)
    dim = curve.dims[0]
    return xr.DataArray(half, dims=(dim,), coords={dim: curve[dim].values}, name="evpi_half",
                        attrs={"units": curve.attrs.get("units", "")})


@dataclass(frozen=True)
class VoiSummary:
    """What the memo says about the value of information: the EVPI curve over ``demand``
    (:func:`evpi_by_demand`) and EVPI/EVPPI at one or two demands (``points``, the first the
    requested one)."""

    curve: xr.DataArray
    points: tuple[VoiResult, ...]


def voi_summary(ds: xr.Dataset, *, demand: float | None = None,
                among: list[str] | None = None) -> VoiSummary:
    """EVPI by demand, and EVPI and EVPPI at ``demand`` (default: the focus demand, else the
    demand where EVPI peaks) and, when no input or group is worth anything there, at the
    reported demand where EVPI is largest (if it is positive there).

    Returns
    -------
    VoiSummary
        Values in the target's unit (USD/month for ``saving``).
    """
    curve = evpi_by_demand(ds, among=among)
    peak = float(curve["demand"].values[int(np.argmax(curve.values))])
    d0 = demand if demand is not None else ds.mc_tco.focus.get("demand", peak)
    first = value_of_information(ds, at={"demand": d0}, among=among)
    points = [first]
    if all(v <= 0 for _, v, _ in first.ranked() + first.ranked(True)):
        cands = [d for d in ds.mc_tco.report.get("demand", []) if d != d0]
        if cands:
            best = max(cands, key=lambda d: float(curve.sel(demand=d, method="nearest")))
            if float(curve.sel(demand=best, method="nearest")) > 0:
                points.append(value_of_information(ds, at={"demand": best}, among=among))
    return VoiSummary(curve, tuple(points))
