"""Cumulative curves and scatter data of a target at one grid point, from the stored base
rows (issue 25, items 2 and 3; @RISK's ascending and descending cumulative graphs and its
scatter of an input against the output).

:func:`cdf` gives P(target <= x) and P(target > x) on a grid of thresholds ``x``, per
strategy, each with a pointwise band from the run's scrambles: at every ``x`` the
randomized-QMC t interval of the ``R`` per-scramble shares, Wilson's on the pooled count
where that cannot work (the one rule of :func:`mc_tco.uncertainty.scrambles.proportion`);
``band="dkw"`` gives instead the simultaneous Dvoretzky-Kiefer-Wolfowitz band (Massart
1990), which holds for every ``x`` at once on independent rows and is wider.
:func:`scatter` gives the sampled values of the top inputs (by the ranking the run
prints) beside the target, each scenario marked a winner (target > threshold) or a loser.

Nothing is rerun. Like :mod:`mc_tco.results.targets` these live in :mod:`mc_tco.results`
because the accessor (``ds.mc_tco.cdf``, ``ds.mc_tco.scatter``) calls them;
:mod:`mc_tco.decision.curves` re-exports them for the readers.

References
----------
Massart, P. (1990). The tight constant in the Dvoretzky-Kiefer-Wolfowitz inequality.
Ann. Probab. 18(3), 1269-1283.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.results.held import no_server
from mc_tco.results.points import parse_amount
from mc_tco.results.targets import _per_sample
from mc_tco.uncertainty.scrambles import (
    proportion_from_counts,
    replicate_of,
    wilson_interval,
)

__all__ = ["cdf", "dkw_halfwidth", "scatter", "target_at"]

#: thresholds of a default curve: this many, evenly spaced between the pooled 0.5% and
#: 99.5% points of the target (every strategy's)
POINTS = 201


def target_at(ds: xr.Dataset, target: str, strategy=None, at: dict | None = None
              ) -> tuple[xr.DataArray, dict[str, Any]]:
    """The per-sample ``target`` at one grid point: dims ``sample`` and, when the file has
    alternatives, the alternatives dim (``strategy``), always kept as a dim.

    Parameters
    ----------
    strategy : str or list of str, optional
        The alternatives to keep (default: all but the baseline, whose benefit is 0).
    at : dict
        Grid values by dim (``{"demand": "500B"}``); a dim not given takes the file's focus
        (or its only value), else an OptionError asks for it.

    Returns
    -------
    (xr.DataArray, dict)
        The values and the grid point read (``ds.mc_tco.point``), alternatives left out.
    """
    y = _per_sample(ds, target)
    acc = ds.mc_tco
    alt = acc.alternatives
    at = {k: v for k, v in (at or {}).items() if v is not None}
    focus = acc.focus
    for dim in y.dims:
        if dim in ("sample", alt) or dim in at:
            continue
        if dim in focus:
            at[dim] = focus[dim]
        elif ds.sizes[dim] == 1:
            at[dim] = ds[dim].values[0].item()
        else:
            raise OptionError(f"target {target} varies along {dim}; choose a point, e.g. "
                              f"{dim}=...")
    unknown = [d for d in at if d not in y.dims]
    if unknown:
        raise OptionError(f"target {target} has no dim '{unknown[0]}'; its dims are "
                          + ", ".join(str(d) for d in y.dims if d != "sample"))
    point = acc.point(**at)
    y = y.sel(point)
    if alt and alt in y.dims:
        labels = [str(s) for s in ds[alt].values]
        if strategy is None:
            keep = [s for s in labels if s != acc.baseline] or labels
        else:
            keep = [strategy] if isinstance(strategy, str) else list(strategy)
            for s in keep:
                acc.point(**{alt: s})  # refuses an unknown label in one line
        y = y.sel({alt: keep})
    elif strategy is not None:
        raise OptionError(f"target {target} has no strategy dim; leave the strategy out")
    return y.transpose("sample", ...), point


def dkw_halfwidth(n, conf_level: float = 0.95):
    """The DKW band's half-width ``sqrt(ln(2 / a) / (2 n))``, ``a = 1 - conf_level``: with
    probability at least ``conf_level`` the empirical CDF of ``n`` independent rows lies
    within it of the true CDF at every ``x`` at once (Massart's constant)."""
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore"):
        return np.where(n > 0, np.sqrt(np.log(2 / (1 - conf_level)) / (2 * n)), np.nan)


def _thresholds(values: np.ndarray, x, points: int) -> np.ndarray:
    if x is not None:
        xs = np.array([parse_amount(v, flag="x") for v in np.atleast_1d(x)], dtype=float)
        if not np.isfinite(xs).all() or xs.size == 0:
            raise OptionError(f"x {x}: give finite thresholds in the target's unit")
        return np.unique(xs)
    if points < 2:
        raise OptionError(f"points {points}: a curve needs at least 2 thresholds")
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        raise OptionError("the target has no finite value at this point: no curve")
    lo, hi = (float(v) for v in np.quantile(finite, [0.005, 0.995]))
    if hi <= lo:  # a (nearly) constant target: a step in the middle of the window
        span = max(abs(lo), 1.0) * 0.01
        lo, hi = lo - span, hi + span
    return np.linspace(lo, hi, points)


def cdf(ds: xr.Dataset, target: str, x=None, *, strategy=None, points: int = POINTS,
        band: str = "scrambles", where_held: bool = True, **at: Any) -> xr.Dataset:
    """P(target <= x) and P(target > x) along thresholds ``x``, per strategy, with a band.

    Parameters
    ----------
    ds : xr.Dataset
        A results file that kept the target's samples.
    target : str
        A per-sample output (``saving`` USD/month, ``npv`` USD, a user model's output).
    x : sequence of float or str, optional
        The thresholds (``[-1e4, 0, "5k"]``); default :data:`POINTS` of them between the
        pooled 0.5% and 99.5% points of the target.
    strategy : str or list of str, optional
        The alternatives (default all but the baseline).
    band : {"scrambles", "dkw"}
        Pointwise interval from the run's scrambles (Wilson's where flagged), or the
        simultaneous DKW band (:func:`dkw_halfwidth`) around the pooled curve.
    where_held : bool
        Leave out an investment output's scenarios that buy no server (the hybrid's
        where its rule buys none: payback 0 months, nothing invested), as
        :func:`mc_tco.results.targets.p_exceeds` does; ``no_server`` counts them.
    **at
        Grid points (``demand="500B"``); a dim not given takes the file's focus.

    Returns
    -------
    xr.Dataset
        Over (strategy, x): ``cdf`` = P(target <= x) and ``ccdf`` = P(target > x) (unit 1,
        ``ccdf = 1 - cdf``), ``cdf_ci`` and ``ccdf_ci`` (ci_bound), ``fallback`` (bool:
        Wilson's interval at that point of the curve); ``rows`` (strategy: non-NaN rows
        it rests on), ``no_server`` (strategy: the scenarios left out by ``where_held``).
        ``x`` carries the target's unit; attrs ``target``, ``units``,
        ``band``, ``ci_prob``, ``method``, ``point`` and ``option_dim`` (the name of
        the strategy dim, ``""`` for a model without one).
    """
    if band not in ("scrambles", "dkw"):
        raise OptionError(f"band {band}: choose 'scrambles' (pointwise) or 'dkw' "
                          "(simultaneous)")
    y, point = target_at(ds, target, strategy, at)
    # (the hybrid's payback where it buys no server is no payback: left out, as NaN)
    left = no_server(ds, target, y, point) if where_held else None
    if left is not None:
        y = y.where(~left)
    values = y.values.astype(float).reshape(y.sizes["sample"], -1)  # (n, S)
    xs = _thresholds(values, x, points)
    run = ds.mc_tco.run
    conf, reps = run.conf_level, int(run.replicates or 1)
    rep = replicate_of(y["sample"].values, reps)
    k_r = np.zeros((reps, xs.size, values.shape[1]))
    n_r = np.zeros((reps, 1, values.shape[1]))
    for r in range(reps):
        part = values[rep == r]
        for s in range(values.shape[1]):
            col = np.sort(part[:, s][~np.isnan(part[:, s])])
            k_r[r, :, s] = np.searchsorted(col, xs, side="right")
            n_r[r, 0, s] = col.size
    k, n = k_r.sum(axis=0), n_r.sum(axis=0)
    if band == "dkw":
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(n > 0, k / n, np.nan)
        eps = dkw_halfwidth(n, conf)
        lo, hi = np.clip(p - eps, 0, 1), np.clip(p + eps, 0, 1)
        fallback = np.zeros(p.shape, dtype=bool)
        method = (f"{conf:.0%} simultaneous Dvoretzky-Kiefer-Wolfowitz band (Massart's "
                  "constant), exact for independent rows")
    elif reps > 1:
        res = proportion_from_counts(k_r, np.broadcast_to(n_r, k_r.shape), conf)
        p, lo, hi, fallback = res
        method = (f"{conf:.0%} pointwise randomized-QMC t interval over {reps} scrambles; "
                  "Wilson score on the pooled count where flagged")
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(n > 0, k / n, np.nan)
        lo, hi = wilson_interval(k, np.broadcast_to(n, k.shape), conf)
        fallback = np.ones(p.shape, dtype=bool)
        method = f"{conf:.0%} pointwise Wilson score interval on the pooled count"
    extra = [d for d in y.dims if d != "sample"]
    coords: dict[str, Any] = {"x": ("x", xs, {"units": str(ds[target].attrs.get("units",
                                                                              ""))}),
                              "ci_bound": ["lower", "upper"]}
    coords.update({str(d): y[d].values for d in extra})
    dims = (*extra, "x")

    def cell(a):  # (x, S) -> (S..., x)
        a = np.moveaxis(np.asarray(a), 0, -1)
        return a.reshape((*(y.sizes[d] for d in extra), xs.size))

    up, dn = cell(p), np.stack([cell(lo), cell(hi)], axis=-1)
    out = xr.Dataset({
        "cdf": (dims, up, {"units": "1", "long_name": f"P({target} <= x)"}),
        "cdf_ci": ((*dims, "ci_bound"), dn, {"units": "1"}),
        "ccdf": (dims, 1 - up, {"units": "1", "long_name": f"P({target} > x)"}),
        "ccdf_ci": ((*dims, "ci_bound"), 1 - dn[..., ::-1], {"units": "1"}),
        "fallback": (dims, cell(fallback)),
        "rows": (tuple(extra), n[0].reshape(tuple(y.sizes[d] for d in extra)).astype(int),
                 {"units": "scenarios"}),
        "no_server": (tuple(extra), (np.zeros(tuple(y.sizes[d] for d in extra), dtype=int)
                                     if left is None else
                                     left.sum("sample").transpose(*extra).values.astype(int)),
                      {"units": "scenarios"}),
    }, coords=coords)
    out.attrs.update(target=target, units=str(ds[target].attrs.get("units", "")),
                     band=band, ci_prob=conf, method=method,
                     option_dim=str(extra[0]) if extra else "",
                     point={k: (float(v) if isinstance(v, float) else v)
                            for k, v in point.items()})
    return out


def _ranked_by(ds: xr.Dataset, target: str, point: dict[str, Any]
               ) -> tuple[xr.Dataset, str, str]:
    """The ranking the run prints at ``point`` (``mc-tco run``): of the indicator
    ``TARGET>0`` where enough scenarios win and lose, else of the target itself; by Shapley
    effect (at the nearest point that has them) when the inputs are correlated, else ST."""
    acc = ds.mc_tco
    analysed = [str(t) for t in ds["target"].values] if "target" in ds.coords else []
    base = target if target in analysed else next(
        (t for t in analysed if not t.endswith(">0")), None)
    if base is None:
        raise OptionError("the file ranks no target (no Sobol' indices stored); give the "
                          "inputs to plot")
    index = "shapley" if "shapley" in ds and acc.correlations else "ST"
    where = acc.shapley_point(**point) if index == "shapley" else dict(point)
    for name in (f"{base}>0", base):
        if name not in analysed:
            continue
        rk = acc.ranking(name, index=index, **where)
        if not rk.attrs.get("too_few_events") and np.isfinite(rk[index].values).any():
            return rk, name, index
    return acc.ranking(base, index=index, **where), base, index


def scatter(ds: xr.Dataset, target: str, *, strategy: str | None = None,
            inputs=None, top: int = 4, threshold: float | str = 0.0,
            **at: Any) -> xr.Dataset:
    """Each top input's sampled values beside the target's, winners and losers marked.

    Parameters
    ----------
    target : str
        A per-sample output (``saving``, ``npv``).
    strategy : str, optional
        One alternative (default the file's focus, e.g. ``buy``).
    inputs : list of str, optional
        The inputs to show; default the ``top`` first of the ranking the run prints at
        this point (the indicator ``TARGET>0``'s where enough scenarios win and lose, else
        the target's; Shapley effects when the inputs are correlated, else ST).
    threshold : float or str
        A scenario wins where the target exceeds it (default 0: beats the baseline).
    **at
        Grid points (``demand="500B"``); a dim not given takes the file's focus.

    Returns
    -------
    xr.Dataset
        ``x`` (sample, input; each input's unit in the coord ``input_unit``), ``y``
        (sample; the target's unit), ``wins`` (sample, bool); ``score`` and ``score_conf``
        (input: the ranking's index and half-width, NaN for an input not ranked);
        ``p_win`` with ``p_win_ci`` (the share of winners and its interval, as
        :func:`mc_tco.results.targets.p_exceeds`) and ``rows``; attrs ``target``,
        ``units``, ``threshold``, ``strategy``, ``ranked_by`` (``shapley`` or ``ST``),
        ``ranking_target``, ``ranking_point``, ``ci_prob``, ``point``.
    """
    from mc_tco.results.targets import p_exceeds

    acc = ds.mc_tco
    alt = acc.alternatives
    if alt and strategy is None:
        strategy = acc.focus.get(alt) or next(
            s for s in map(str, ds[alt].values) if s != acc.baseline)
    y, point = target_at(ds, target, strategy, at)
    y = y.squeeze([d for d in y.dims if d != "sample"], drop=True)
    full = {**point, **({alt: strategy} if alt and strategy is not None else {})}
    # an investment output's scenarios that buy no server (the hybrid's): not drawn, not
    # winners, as p_exceeds leaves them out of p_win
    left = no_server(ds, target, y, full)
    if left is not None:
        y = y.where(~left)
    x_thr = parse_amount(threshold, flag="threshold")
    names = [str(v) for v in ds["input"].values]
    score = conf = None
    ranked_by = ranking_target = ""
    ranking_point: dict[str, Any] = {}
    if inputs is None:
        if top < 1:
            raise OptionError(f"top {top}: show at least one input")
        rk, ranking_target, ranked_by = _ranked_by(ds, target, full)
        chosen = [str(v) for v in rk["input"].values[:top]]
        score = rk[ranked_by].values[:top]
        conf = rk[f"{ranked_by}_conf"].values[:top]
        ranking_point = acc.shapley_point(**full) if ranked_by == "shapley" else full
    else:
        chosen = [inputs] if isinstance(inputs, str) else list(inputs)
        for name in chosen:
            if name not in names:
                import difflib

                close = difflib.get_close_matches(name, names, n=1)
                raise OptionError(f"input {name}: not an uncertain input of the file"
                                  + (f"; did you mean '{close[0]}'?" if close else ""))
    xv = ds["input_value"].sel(input=chosen).transpose("sample", "input")
    p = p_exceeds(ds, target, x_thr, **full)
    out = xr.Dataset({
        "x": xv.drop_vars([c for c in xv.coords if c not in ("sample", "input",
                                                               "input_unit")]),
        "y": y.assign_attrs(units=str(ds[target].attrs.get("units", ""))),
        "wins": y > x_thr,
        "score": ("input", np.asarray(score if score is not None else [math.nan] *
                                      len(chosen), dtype=float), {"units": "1"}),
        "score_conf": ("input", np.asarray(conf if conf is not None else [math.nan] *
                                           len(chosen), dtype=float), {"units": "1"}),
        "p_win": p["p"], "p_win_ci": p["p_ci"], "rows": p["rows"],
    })
    out = out.drop_vars([c for c in out.coords if c not in out.dims and c not in (
        "input_unit", "ci_bound")])
    out.attrs.update(target=target, units=str(ds[target].attrs.get("units", "")),
                     threshold=x_thr, strategy=strategy or "", ranked_by=ranked_by,
                     ranking_target=ranking_target,
                     ranking_point={k: (float(v) if isinstance(v, float) else v)
                                    for k, v in ranking_point.items()},
                     ci_prob=float(p.attrs["ci_prob"]), method=p.attrs["method"],
                     point={k: (float(v) if isinstance(v, float) else v)
                            for k, v in point.items()})
    return out
