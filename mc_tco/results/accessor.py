"""``ds.mc_tco``: what every reader of a results file does, in one place.

Registered as an xarray Dataset accessor when :mod:`mc_tco` is imported::

    import mc_tco
    ds = mc_tco.open_results("results/deepseek-v4.1-flash.nc")
    ds.mc_tco.p_beats("buy")                              # by demand, with its interval
    ds.mc_tco.ranking("saving", demand="500B", strategy="buy")
    ds.mc_tco.bands("saving", strategy="buy")
    ds.mc_tco.p_exceeds("npv", 1e6, strategy="buy", demand="500B")  # P(npv > 1M USD)
    ds.mc_tco.cdf("saving", demand="500B")                # P(saving <= x), P(saving > x)
    ds.mc_tco.scatter("saving", strategy="buy")           # top inputs against the saving
    ds.mc_tco.given("api_price_annual_change>-0.05")      # P(beats the API) given that
    ds.mc_tco.options                                     # the run's run_options
    ds.mc_tco.run.conf_level                              # how the run was made (RunInfo)

The file's attributes are read here and nowhere else: the scalar ones as one typed
record, :class:`~mc_tco.results.run_info.RunInfo` (``ds.mc_tco.run``), the JSON ones
(``run_options``, ``targets``, ``report``, ``focus``, ...) by the properties below, each
with the schema's default for a file that lacks it; grid points are matched by
:func:`mc_tco.results.points.match_point` (one tolerance everywhere).
"""

from __future__ import annotations

import json
from typing import Any, cast

import numpy as np
import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.results.points import match_point, nearest_point, point_index, scale_of
from mc_tco.results.ranking import rank_order, ranking_rule
from mc_tco.results.run_info import RunInfo, json_attr
from mc_tco.results.schema import SCHEMA_VERSION

__all__ = ["ResultsAccessor", "RunInfo"]


@xr.register_dataset_accessor("mc_tco")
class ResultsAccessor:
    """Reads a results Dataset by the contract of :mod:`mc_tco.results.schema`."""

    def __init__(self, ds: xr.Dataset):
        self._ds = ds

    # ------------------------------------------------------------------ what the run was
    @property
    def run(self) -> RunInfo:
        """How the run was made (book, model, seed, samples, interval method and level,
        scrambles, versions, ...): read from the attrs on each call, so it follows them."""
        return RunInfo.from_attrs(self._ds.attrs, self._ds.sizes, self._ds.variables)

    @property
    def is_results_file(self) -> bool:
        """Whether the dataset is an mc_tco results file (it has ``book_sha256``)."""
        return "book_sha256" in self._ds.attrs

    @property
    def declares_decision(self) -> bool:
        """Whether the file stores its model's benefits, alternatives and baseline (files
        written before issue 11 do not)."""
        return "benefits" in self._ds.attrs

    @property
    def baseline(self) -> str | None:
        """The alternative every benefit is measured against (None if none)."""
        return self._ds.attrs.get("baseline") or None

    @property
    def declared_alternatives(self) -> str | None:
        """The alternatives dim as the file declares it (None if it declares none)."""
        return self._ds.attrs.get("alternatives") or None

    @property
    def schema_version(self) -> int:
        """The file's schema version (1: written before the schema was declared)."""
        return self.run.schema_version

    @property
    def is_current(self) -> bool:
        """Whether the file was written with this version's results schema."""
        return self.schema_version == SCHEMA_VERSION

    @property
    def options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`mc_tco.run` that made the file."""
        return self.run.options

    @property
    def targets(self) -> list[str]:
        """The targets the run analysed (the model's outputs with indices)."""
        return list(json_attr(self._ds.attrs, "targets"))

    @property
    def report(self) -> dict[str, list]:
        """Report points per dim, e.g. ``{"demand": [1e11, ...], "strategy": [...]}``."""
        return dict(json_attr(self._ds.attrs, "report"))

    @property
    def focus(self) -> dict[str, Any]:
        """The point whose ranking is printed, e.g. ``{"demand": 5e11, "strategy": "buy"}``."""
        return dict(json_attr(self._ds.attrs, "focus"))

    @property
    def distributions(self) -> list[str]:
        """Each input's distribution as the book wrote it, in input order."""
        return list(json_attr(self._ds.attrs, "distributions"))

    @property
    def constants(self) -> dict[str, float]:
        """The book's constant inputs and their values; on a view of one value of each grid
        input (:meth:`at_input_grid`) those inputs too, fixed there."""
        return {**json_attr(self._ds.attrs, "constants"), **self.input_grid_at}

    @property
    def input_grid(self) -> dict[str, dict]:
        """The inputs that are grid dims of these results (``[grid.<input>]``): name ->
        ``{"values": [...], "unit": ..., "focus": value}``; each input was fixed at every
        value in turn, on the same samples of the others. ``{}`` when none (or when
        :meth:`at_input_grid` selected one value of each: see :attr:`input_grid_at`)."""
        return {k: v for k, v in self.input_grid_declared.items() if k in self._ds.dims}

    @property
    def input_grid_declared(self) -> dict[str, dict]:
        """:attr:`input_grid` as the run wrote it, also on a view that
        :meth:`at_input_grid` selected (where the dims are gone)."""
        return dict(json_attr(self._ds.attrs, "input_grid"))

    @property
    def input_grid_at(self) -> dict[str, float]:
        """The value of each grid input that :meth:`at_input_grid` selected (``{}`` when
        these results were not selected so)."""
        return {str(k): float(v) for k, v in json_attr(self._ds.attrs, "input_grid_at").items()}

    def input_grid_point(self, **at) -> dict[str, float]:
        """The value of each grid input: the one in ``at`` (matched as :meth:`point`
        does), else the file's focus (the middle value unless the book named one);
        ``{}`` when the results have no grid input. Other keys of ``at`` are ignored."""
        grids = self.input_grid
        point = self.point(**{k: v for k, v in at.items() if k in grids})
        for name, grid in grids.items():
            if name not in point:
                focus = grid.get("focus")
                values = self._ds[name].values
                point[name] = float(values[(values.size - 1) // 2] if focus is None
                                    else match_point(values, focus, dim=name))
        return point

    def at_input_grid(self, **at) -> xr.Dataset:
        """The results at one value of each grid input (:meth:`input_grid_point`: ``at``'s,
        else the focus), for a reader that shows one point; the dim becomes a scalar
        coordinate, and attr ``input_grid_at`` records the values (a reader says so in one
        line). The results themselves when they have no grid input."""
        point = self.input_grid_point(**at)
        if not point:
            return self._ds
        return self._ds.sel(point).assign_attrs(input_grid_at=json.dumps(point))

    @property
    def convergence_path(self) -> list[dict]:
        """The adaptive run's path: samples and widest half-width at each step."""
        return list(json_attr(self._ds.attrs, "convergence_path"))

    @property
    def benefits(self) -> list[str]:
        """Outputs the model declares as benefits (higher is better), e.g. saving, npv."""
        return list(json_attr(self._ds.attrs, "benefits"))

    @property
    def family_swapped(self) -> list[str]:
        """Inputs whose family the family check swapped."""
        return list(json_attr(self._ds.attrs, "family_check_swapped"))

    @property
    def family_unchanged(self) -> list[str]:
        """Inputs the family check left as written (unbounded families)."""
        return list(json_attr(self._ds.attrs, "family_check_unchanged"))

    @property
    def conf_level(self) -> float:
        """The confidence level of every interval in the file (the run's ``conf_level``)."""
        return self.run.conf_level

    @property
    def indicator_label(self) -> str:
        """How the decision indicator reads (e.g. ``saving > 0``)."""
        return self.run.indicator_label

    @property
    def alternatives(self) -> str | None:
        """The dim holding the alternatives compared with a baseline (``strategy``)."""
        name = self._ds.attrs.get("alternatives") or "strategy"
        return name if name in self._ds.dims else None

    # ------------------------------------------------------------------ where
    def point(self, **at) -> dict[str, Any]:
        """Grid values for ``at`` (``demand="500B"``, ``strategy="buy"``), matched with one
        tolerance (:data:`~mc_tco.results.points.GRID_RTOL`); a label must be exact."""
        out: dict[str, Any] = {}
        for dim, value in at.items():
            if value is None:
                continue
            if dim not in self._ds.coords:
                raise OptionError(f"the results have no dim '{dim}'; they have "
                                  f"{', '.join(map(str, self._ds.dims))}")
            coord = self._ds[dim].values
            if np.issubdtype(coord.dtype, np.number):
                out[dim] = match_point(coord, value, dim=dim, flag=f"--{dim}",
                                       unit=self._ds[dim].attrs.get("units", ""))
            else:
                labels = [str(c) for c in coord]
                if str(value) not in labels:
                    raise OptionError(f"--{dim} {value}: not one of {', '.join(labels)}")
                out[dim] = str(value)
        return out

    def _sel(self, da: xr.DataArray, at: dict) -> xr.DataArray:
        return da.sel(self.point(**at))

    # ------------------------------------------------------------------ the three answers
    def p_beats(self, strategy: str | None = None, target: str | None = None,
                **at) -> xr.Dataset:
        """P(target > 0) — for ``saving``, P(the strategy beats the API) — with its interval.

        Returns
        -------
        xr.Dataset
            ``p``, ``lower``, ``upper`` over the dims not selected (e.g. ``demand``);
            attrs ``ci_prob`` and ``method``.
        """
        target = target or (self.targets[0] if self.targets else None)
        if target is None:
            raise OptionError("the results name no target")
        alt = self.alternatives
        if strategy is not None and alt:
            at[alt] = strategy
        name = f"{target}>0"
        p = self._sel(self._ds["p_positive"].sel(target=name), at)
        ci = self._sel(self._ds["p_positive_ci"].sel(target=name), at)
        out = xr.Dataset({"p": p.drop_vars("target"),
                          "lower": ci.sel(ci_bound="lower", drop=True).drop_vars("target"),
                          "upper": ci.sel(ci_bound="upper", drop=True).drop_vars("target")})
        out.attrs.update(ci_prob=ci.attrs.get("ci_prob", self.conf_level),
                         method=ci.attrs.get("method", ""), target=name)
        return out

    def p_exceeds(self, target: str, x: float | str, strategy: str | None = None,
                  demand: float | str | None = None, below: bool = False,
                  where_held: bool = True, **at) -> xr.Dataset:
        """P(target > x) (P(target < x) with ``below=True``) for any threshold ``x``, from
        the stored base rows, with the run's interval and the rows it rests on
        (:func:`mc_tco.results.targets.p_exceeds`): ``p``, ``p_ci``, ``fallback``,
        ``events``, ``rows``, ``no_server`` over the dims not selected. An investment
        output (payback, peak cash need, IRR) leaves out the scenarios that buy no server
        (the hybrid's where its rule buys none; the API's) unless ``where_held=False``."""
        from mc_tco.results.targets import p_exceeds

        alt = self.alternatives
        if strategy is not None:
            at[alt or "strategy"] = strategy
        if demand is not None:
            at["demand"] = demand
        return p_exceeds(self._ds, target, x, below=below, where_held=where_held, **at)

    def p_below(self, target: str, x: float | str, strategy: str | None = None,
                demand: float | str | None = None, **at) -> xr.Dataset:
        """P(target < x): :meth:`p_exceeds` with ``below=True``."""
        return self.p_exceeds(target, x, strategy=strategy, demand=demand, below=True, **at)

    def cdf(self, target: str, x=None, strategy=None, demand: float | str | None = None,
            points: int = 201, band: str = "scrambles", where_held: bool = True,
            **at) -> xr.Dataset:
        """P(target <= x) and P(target > x) per strategy at one point, with the scrambles'
        pointwise band or the DKW band (:func:`mc_tco.results.curves.cdf`); an investment
        output's scenarios that buy no server (the hybrid's) left out unless
        ``where_held=False``."""
        from mc_tco.results.curves import cdf

        if demand is not None:
            at["demand"] = demand
        return cdf(self._ds, target, x, strategy=strategy, points=points, band=band,
                   where_held=where_held, **at)

    def scatter(self, target: str, strategy: str | None = None,
                demand: float | str | None = None, inputs=None, top: int = 4,
                threshold: float | str = 0.0, **at) -> xr.Dataset:
        """The top inputs' values beside the target's, winners (target > threshold) and
        losers marked, with scores and P(win) (:func:`mc_tco.results.curves.scatter`)."""
        from mc_tco.results.curves import scatter

        if demand is not None:
            at["demand"] = demand
        return scatter(self._ds, target, strategy=strategy, inputs=inputs, top=top,
                       threshold=threshold, **at)

    def given(self, conditions, target: str | None = None, strategy=None,
              demand: float | str | None = None, threshold: float | str = 0.0,
              min_rows: int | None = None, **at) -> xr.Dataset:
        """P(target > threshold) and the bands on the rows where ``conditions`` hold
        (``"api_price_annual_change>-0.05"``, ``"x in p10..p50"``; all hold), beside all
        rows; refused below ``min_rows`` rows (:func:`mc_tco.results.given.given`)."""
        from mc_tco.results.given import MIN_ROWS, given

        target = target or (self.targets[0] if self.targets else None)
        if target is None:
            raise OptionError("the results name no target; pass target='NAME'")
        if demand is not None:
            at["demand"] = demand
        return given(self._ds, conditions, target, strategy=strategy, threshold=threshold,
                     min_rows=MIN_ROWS if min_rows is None else min_rows, **at)

    @property
    def correlations(self) -> list[dict]:
        """The book's correlated pairs (between, kind, value, source); [] when independent."""
        return json_attr(self._ds.attrs, "correlations")

    def shapley_points(self) -> dict[str, np.ndarray]:
        """Per grid dim the run estimated its Shapley effects at part of (``--shapley-at
        report``, the default), the points it did; ``{}`` when they are everywhere or
        absent."""
        return self._points("shapley")

    def sobol_points(self) -> dict[str, np.ndarray]:
        """Per grid dim the run estimated its Sobol' indices (``S1``, ``ST``) at part of
        (``--sobol-at report``, the default), the points it did; ``{}`` when they are
        everywhere or absent."""
        return self._points("ST")

    def sobol_where(self) -> str:
        """:meth:`sobol_points` in words, e.g. ``"demand = 1e+11, 5e+11"``."""
        return "; ".join(f"{d} = " + ", ".join(f"{v:.4g}" for v in vals)
                         for d, vals in self.sobol_points().items())

    def _points(self, name: str) -> dict[str, np.ndarray]:
        if name not in self._ds:
            return {}
        ok = cast(xr.DataArray, np.isfinite(self._ds[name]))  # a DataArray's ufunc
        flat = self._ds["constant_output"] == 1 if "constant_output" in self._ds else None
        out: dict[str, np.ndarray] = {}
        for dim in ok.dims:
            if dim in ("target", "input") or not np.issubdtype(self._ds[dim].dtype,
                                                               np.number):
                continue
            has = ok.any([d for d in ok.dims if d != dim]).values
            if flat is not None and dim in flat.dims:  # NaN there: nothing varies at all
                has |= flat.all([d for d in flat.dims if d != dim]).values
            if has.any() and not has.all():
                out[str(dim)] = self._ds[dim].values[has]
        return out

    def shapley_where(self) -> str:
        """:meth:`shapley_points` in words, e.g. ``"demand = 1e+11, 5e+11"`` (for messages)."""
        return "; ".join(f"{d} = " + ", ".join(f"{v:.4g}" for v in vals)
                         for d, vals in self.shapley_points().items())

    def shapley_point(self, **at) -> dict[str, Any]:
        """``point(**at)`` moved, along each dim where the Shapley effects were estimated at
        some points only, to the nearest such point (on the dim's scale,
        :func:`~mc_tco.results.points.scale_of`: by ratio for demand): where a reader
        shows Shapley effects for a point the run did not estimate them at.
        Compare with ``point(**at)`` to say so."""
        point = self.point(**at)
        for dim, have in self.shapley_points().items():
            if dim not in point:
                continue
            point[dim] = nearest_point(have, float(point[dim]), scale_of(dim))
        return point

    @property
    def ranking_index(self) -> str:
        """The index that ranks the inputs: ``ST``, ``shapley`` (correlations), ``ST_group``
        (correlations within exact groups, no Shapley effects) or ``none``.

        The file's ``ranking_index`` (:func:`mc_tco.results.ranking.ranking_rule`, which
        every reader follows); for a file written before it, the same rule applied to the
        file's contents."""
        stored = self._ds.attrs.get("ranking_index")
        if stored:
            return str(stored)
        correlated = bool(self.correlations) or "correlation_used" in self._ds
        exact = bool(self._ds.attrs.get("by_group", 0)) and self.run.groups_independent
        return ranking_rule(correlated, "shapley" in self._ds, exact and "ST_group" in self._ds)

    def ranking(self, target: str | None = None, index: str | None = None,
                **at) -> xr.Dataset:
        """Inputs ranked by ``index`` at a point, with half-widths.

        ``index`` defaults to :attr:`ranking_index`, the file's rule: ``ST`` with
        independent inputs, ``shapley`` when the inputs are correlated (per-input Sobol'
        indices are not shares of the variance then: the ``ST``/``S1`` beside are "moved
        one at a time", their attr ``index_meaning`` says so), ``ST_group`` (the groups,
        along ``group``) when only exact grouped indices rank.

        Returns
        -------
        xr.Dataset
            ``S1``, ``S1_conf``, ``ST``, ``ST_conf`` (and ``shapley``, ``shapley_conf``
            when the run has them) along ``input`` (the ``*_group`` ones along ``group``
            for ``ST_group``), sorted by ``index`` (largest first; NaN last). attrs
            ``index`` (what it is sorted by), ``ranking_index`` (the file's rule),
            ``too_few_events`` (bool): True where ``target`` is an
            indicator (``saving>0``) with fewer than ``MIN_EVENTS`` winning (or losing)
            scenarios at the point, its indices noise; then ``note`` says so in one line
            and ``rare_nearest_demand`` is the nearest demand with enough (NaN if none),
            ``rare_events``, ``rare_rows``, ``rare_min_events`` the counts.

        Raises
        ------
        OptionError
            With correlations and nothing that ranks (``ranking_index = none``) unless
            ``index`` is given; at a point the run has no Shapley effects for.
        """
        target = target or (self.targets[0] if self.targets else None)
        rule = self.ranking_index
        if index is None:
            if rule == "none":
                raise OptionError(
                    "the inputs are correlated and the run has no Shapley effects, so no "
                    "index ranks single inputs (ST here is 'moved one at a time'): rerun "
                    "with --shapley, or pass index='ST' for the moved-one-at-a-time indices")
            index = rule
        dim = "group" if index.endswith("_group") else "input"
        suffix = "_group" if dim == "group" else ""
        names = [n for n in (f"S1{suffix}", f"S1{suffix}_conf", f"ST{suffix}",
                             f"ST{suffix}_conf")
                 + (("shapley", "shapley_conf") if dim == "input" else ()) if n in self._ds]
        if index not in names:
            raise OptionError(f"index {index!r}: the file has no such index (it has "
                              f"{', '.join(n for n in names if not n.endswith('_conf'))})")
        sub = self._ds[names].sel(target=target)
        sub = self._sel_ds(sub, at)
        if index == "shapley" and "input" in sub[index].dims and not np.isfinite(
                sub[index].values).any() and self.shapley_points():
            st_here = "ST" in sub and np.isfinite(sub["ST"].values).any()
            raise OptionError(
                f"the run estimated its Shapley effects at {self.shapley_where()} only "
                "(--shapley-at report); rank at one of these, rerun with --shapley-at grid"
                + (", or pass index='ST'" if st_here else ""))
        if index != "shapley" and not np.isfinite(sub[index].values).any() and any(
                dim in sub.coords and sub[dim].size == 1
                and point_index(have, float(sub[dim])) is None
                for dim, have in self.sobol_points().items()):
            raise OptionError(
                f"the run estimated its Sobol' indices at {self.sobol_where()} only "
                "(--sobol-at report); rank at one of these, or rerun with --sobol-at grid")
        extra = [str(d) for d in sub[index].dims if d != dim]
        if extra:
            raise OptionError(f"the ranking varies along {', '.join(extra)}; choose a point, "
                              f"e.g. {extra[0]}=...")
        out = sub.isel({dim: rank_order(sub[index].values)})
        out.attrs.update(index=index, ranking_index=rule)
        from mc_tco.results.targets import rare_ranking

        rare = rare_ranking(self._ds, str(target), self.point(**at))
        out.attrs["too_few_events"] = rare is not None
        if rare is not None:
            out.attrs.update({f"rare_{k}": (v if v is not None else np.nan)
                              for k, v in rare.items() if k != "note"})
            out.attrs["note"] = rare["note"]
        return out

    def moment_independent(self, target: str | None = None, strategy: str | None = None,
                           slices: int = 10, **at) -> xr.Dataset:
        """Borgonovo's delta, PAWN and S1 of ``target`` on the stored base rows at a point.

        ``target`` is a per-sample output (``saving``) or its indicator (``saving>0``);
        a grid dim not given in ``at`` (``demand="500B"``) and ``strategy`` take the
        file's focus. Valid under correlated inputs; interval from the run's scrambles.
        :func:`mc_tco.decision.moment_independent.moment_independent` is the same with
        the decision checks and the stored Shapley effects beside.

        Returns
        -------
        xr.Dataset
            See :func:`mc_tco.sensitivity.moment_dataset.moment_independent_dataset`.
        """
        from mc_tco.sensitivity.moment_dataset import moment_independent_dataset

        target = target or (self.targets[0] if self.targets else None)
        if target is None:
            raise OptionError("the results name no target; pass target='NAME'")
        base = target[:-2] if target.endswith(">0") else target
        if base not in self._ds or "sample" not in self._ds[base].dims:
            raise OptionError(f"target {target}: no such per-sample output")
        alt = self.alternatives
        if alt and alt in self._ds[base].dims:
            at[alt] = strategy or self.focus.get(alt)
        for dim in self._ds[base].dims:
            if dim not in at and dim != "sample" and dim in self.focus:
                at[dim] = self.focus[dim]
        da = self._sel(self._ds[base], at)
        if da.dims != ("sample",):
            extra = [str(d) for d in da.dims if d != "sample"]
            raise OptionError(f"target {target} varies along {', '.join(extra)}; choose a "
                              f"point, e.g. {extra[0]}=...")
        y = da.values.astype(float)
        if target.endswith(">0"):
            y = (y > 0).astype(float)
        x = self._ds["input_value"].transpose("sample", "input").values.astype(float)
        out = moment_independent_dataset(
            x, y, [str(v) for v in self._ds["input"].values],
            sample=self._ds["sample"].values, replicates=self.run.replicates,
            conf_level=self.run.conf_level, slices=slices)
        out.attrs.update(target=target, point=self.point(**at))
        return out

    def bands(self, target: str | None = None, **at) -> xr.DataArray:
        """Quantiles of a target (dim ``quantile``) over the dims not selected."""
        target = target or (self.targets[0] if self.targets else None)
        return self._sel(self._ds["target_quantile"].sel(target=target), at)

    def _sel_ds(self, ds: xr.Dataset, at: dict) -> xr.Dataset:
        alt = self.alternatives
        if "strategy" in at and alt and alt != "strategy":
            at[alt] = at.pop("strategy")
        return ds.sel(self.point(**at))
