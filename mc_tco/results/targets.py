"""Target probabilities: P(target > x) or P(target < x) for any threshold ``x``, with the
run's Monte Carlo interval (@RISK's ``RiskTarget``, Crystal Ball's certainty).

Read from the stored base rows of the per-sample target (``saving``, ``npv``, a user
model's output: a variable over ``sample``); nothing is rerun. The interval is the run's:
with ``R`` independent scrambles (``ds.mc_tco.run.replicates``) the randomized-QMC t
interval of the ``R`` per-scramble shares, with Wilson's on the pooled count where that
cannot work (``fallback``; :func:`mc_tco.uncertainty.scrambles.probability_with_interval`);
without scrambles, Wilson's. NaN rows (not applicable) are left out of numerator and
denominator; ``rows`` says how many rows each probability rests on.

It lives in :mod:`mc_tco.results` because the accessor (``ds.mc_tco.p_exceeds``) calls it
and results may not import :mod:`mc_tco.decision` (the layers point down);
:mod:`mc_tco.decision.targets` re-exports it for the readers.

Also here: where a ranking of the decision indicator (``saving>0``) rests on too few
winning (or losing) scenarios, and the nearest demand with enough (:func:`rare_ranking`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.results.held import no_server
from mc_tco.results.points import nearest_index, parse_amount, point_index
from mc_tco.uncertainty.scrambles import (
    MIN_EVENTS,
    indicator,
    probability_with_interval,
    wilson_interval,
)

__all__ = ["p_exceeds", "parse_condition", "rare_ranking"]


def _per_sample(ds: xr.Dataset, target: str) -> xr.DataArray:
    if target not in ds.data_vars or "sample" not in ds[target].dims:
        have = [str(n) for n, v in ds.data_vars.items()
                if "sample" in v.dims and n != "input_value"
                and np.issubdtype(v.dtype, np.number)]
        if target in ds.data_vars:
            raise OptionError(
                f"target {target}: the file stores no per-sample values of it (run kept "
                f"samples: {ds.mc_tco.run.keep_samples}); rerun with "
                "--keep-samples all")
        raise OptionError(f"target {target}: not an output of the file; choose one of "
                          + (", ".join(have) if have else "(none: rerun keeping samples)"))
    return ds[target]


def p_exceeds(ds: xr.Dataset, target: str, x: float | str, *, below: bool = False,
              where_held: bool = True, **at: Any) -> xr.Dataset:
    """P(target > x) (or P(target < x), ``below=True``) from the stored base rows.

    Parameters
    ----------
    ds : xr.Dataset
        A results file (``mc_tco.open_results``) that kept the target's samples.
    target : str
        An output stored per sample, e.g. ``npv`` (USD) or ``saving`` (USD/month).
    x : float or str
        The threshold in the target's unit (``1e6``, ``"1M"``, ``-5e4``).
    below : bool
        P(target < x) instead of P(target > x).
    where_held : bool
        For an investment output (payback, peak cash need, IRR:
        :data:`mc_tco.results.held.INVESTMENT_OUTPUTS`), leave out the scenarios that buy
        no server (the hybrid's where its rule buys none: it is then the API, payback 0
        months, peak cash need 0; the API's, all of them), as NaN rows are;
        ``no_server`` counts them. False: every scenario, those with their 0.
    **at
        Grid points (``demand="500B"``, ``strategy="buy"``), matched by
        :meth:`ResultsAccessor.point` (one tolerance; a value off the grid is refused).
        Dims not given stay as dims of the result.

    Returns
    -------
    xr.Dataset
        Over the target's dims without ``sample`` (and those selected): ``p`` (unit 1),
        ``p_ci`` (..., ci_bound; unit 1), ``fallback`` (bool: Wilson's interval),
        ``events``, ``rows`` (scenarios where the condition holds, and the rows counted:
        not NaN, and with ``where_held`` not a scenario without a server), ``no_server``
        (the scenarios left out because they buy no server; 0 where none is);
        attrs ``target``, ``threshold``, ``side`` (``">"`` or ``"<"``), ``units`` (the
        target's), ``ci_prob`` (the interval's level, as ``p_beats``), ``method`` and
        the selected ``point``; ``samples``, the stored scenarios, NaN ones included (a
        target undefined in some, as the IRR where the flows never change sign, has
        ``rows < samples``).
    """
    y = _per_sample(ds, target)
    threshold = parse_amount(x, flag="threshold")
    if not np.isfinite(threshold):
        raise OptionError(f"threshold {x}: not a finite number; write e.g. 1e6 or 1M")
    point = ds.mc_tco.point(**at)
    point = {d: v for d, v in point.items() if d in y.dims}
    y = y.sel(point)
    left = no_server(ds, target, y, point) if where_held else None
    if left is not None:
        y = y.where(~left)
    event = indicator(y < threshold if below else y > threshold, y)
    run = ds.mc_tco.run
    conf, reps = run.conf_level, run.replicates
    valid = event.notnull()
    rows = valid.sum("sample")
    events = event.fillna(0).sum("sample")
    if reps and reps > 1:
        res = probability_with_interval(event, replicates=int(reps), conf_level=conf)
        p, ci, fallback = res["estimate"], res["ci"], res["fallback"]
        method = str(res.attrs.get("method", ""))
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            p = events / rows.where(rows > 0)
        lo, hi = wilson_interval(events.values, rows.values, conf)
        ci = xr.concat([p.copy(data=np.asarray(lo, dtype=float)),
                        p.copy(data=np.asarray(hi, dtype=float))], dim="ci_bound")
        ci = ci.assign_coords(ci_bound=["lower", "upper"]).transpose(*p.dims, "ci_bound")
        fallback = xr.ones_like(p, dtype=bool)
        method = f"Wilson score interval ({conf:.0%}) on the pooled count"
    out = xr.Dataset({"p": p, "p_ci": ci, "fallback": fallback,
                      "events": events.astype(int), "rows": rows.astype(int),
                      "samples": xr.full_like(rows, y.sizes["sample"], dtype=int),
                      "no_server": (left.sum("sample").astype(int) if left is not None
                                    else xr.zeros_like(rows, dtype=int))})
    out["p"].attrs.update(units="1", long_name=f"P({target} {'<' if below else '>'} "
                                               f"{threshold:g})")
    out["p_ci"].attrs["units"] = "1"
    for name in ("events", "rows", "samples", "no_server"):
        out[name].attrs["units"] = "scenarios"
    out.attrs.update(target=target, threshold=threshold, side="<" if below else ">",
                     units=str(ds[target].attrs.get("units", "")), ci_prob=conf,
                     method=method, point={k: (float(v) if isinstance(v, float) else v)
                                           for k, v in point.items()})
    return out


def parse_condition(text: str) -> tuple[str, str, float]:
    """``"npv>1e6"``, ``"saving < -5k"`` -> ``(target, side, threshold)``.

    Raises
    ------
    OptionError
        Without exactly one ``>`` or ``<`` between a name and a number.
    """
    s = str(text).replace(" ", "")
    sides = [c for c in s if c in "<>"]
    if len(sides) != 1 or "=" in s:
        raise OptionError(f"{text}: write the condition as TARGET>X or TARGET<X, e.g. "
                          "npv>1e6 or saving<-5k (quote it in the shell)")
    name, _, value = s.partition(sides[0])
    if not name:
        raise OptionError(f"{text}: no target before '{sides[0]}'; e.g. npv>1e6")
    return name, sides[0], parse_amount(value, flag=f"{text}:")


def rare_ranking(ds: xr.Dataset, target: str, point: dict[str, Any],
                 min_events: int = MIN_EVENTS) -> dict[str, Any] | None:
    """Whether a ranking of the indicator ``target`` (``"X>0"``) at ``point`` rests on too
    few winning (or losing) scenarios, and the nearest demand that has enough (among those
    with Sobol' indices: ``--sobol-at report`` estimates them at the report points only).

    Returns
    -------
    dict or None
        None when ``target`` is not an indicator (its base stored per sample, or its
        ``p_positive``) or has enough events;
        else ``events`` (the rarer side's count), ``rows``, ``min_events``,
        ``nearest_demand`` (float, or None when no demand has enough) and ``note`` (one
        line saying so).
    """
    base = target[:-2] if target.endswith(">0") else None
    if base is None:
        return None
    if base in ds.data_vars and "sample" in ds[base].dims:
        y = ds[base].sel({d: v for d, v in point.items()
                          if d in ds[base].dims and d != "demand"})
        wins = (y > 0).sum("sample")
        rows = y.notnull().sum("sample")
    elif "p_positive" in ds and target in ds["target"].values:  # samples not kept
        p = ds["p_positive"].sel(target=target, drop=True)
        p = p.sel({d: v for d, v in point.items() if d in p.dims and d != "demand"})
        rows = xr.full_like(p, ds.sizes["sample"], dtype=int)
        wins = (p * rows).round().astype(int)
    else:
        return None
    if [d for d in wins.dims if d not in ("sample", "demand")]:
        return None
    rarer = xr.where(wins < rows - wins, wins, rows - wins)
    if "demand" in wins.dims:
        here = rarer.sel(demand=point["demand"]) if "demand" in point else None
        if here is None:
            return None
        k, n = int(here), int(rows.sel(demand=point["demand"]))
    else:
        k, n = int(rarer), int(rows)
    if k >= min_events:
        return None
    nearest = None
    if "demand" in wins.dims:
        ok = (rarer >= min_events).values
        grid = ds["demand"].values
        have = ds.mc_tco.sobol_points().get("demand")  # (--sobol-at report: those only)
        if have is not None:
            ok &= np.array([point_index(have, v) is not None for v in grid])
        if ok.any():
            nearest = float(grid[ok][nearest_index(grid[ok], float(point["demand"]))])
    where = ", ".join(f"{d} = {v:.4g}" if isinstance(v, float) else f"{d} = {v}"
                      for d, v in point.items())
    fix = (f"the nearest demand with enough is {nearest:.4g}" if nearest is not None
           else "no demand of the grid has enough; rerun with more samples")
    note = (f"{target} at {where}: only {k} of {n} scenarios on its rarer side, fewer than "
            f"{min_events}, so its indices cannot be told from noise and are not ranked; "
            f"{fix}")
    return {"events": k, "rows": n, "min_events": int(min_events),
            "nearest_demand": nearest, "note": note}
