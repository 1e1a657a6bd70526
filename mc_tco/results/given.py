"""Stress and conditional analysis: P(beats the API) and the bands of a target when inputs
are confined to a range or a percentile band, from the stored base rows (issue 25, item
4; @RISK's stress analysis, "what if API prices stop falling").

A condition confines one input; several (a list, or one text with commas) must all hold::

    api_price_annual_change>-0.05          above a value (>= too)
    node_price<400k                        below a value (<= too; k, M, B, T suffixes)
    -0.2<api_price_annual_change<-0.05     between two values
    utilization in 0.5..0.7                between two values, both included
    node_price in p10..p50                 between two percentiles of the stored rows
    node_price>p90                         above the input's 90th percentile

A percentile ``pNN`` (0 to 100) is the input's ``NN``-th percentile over the stored base
rows (its marginal as sampled). The rows where every condition holds are the conditional
sample; each share and quantile is computed on them with the run's interval (the
randomized-QMC t interval of the ``R`` per-scramble estimates on the rows of each
scramble that meet the condition, with the fallbacks of
:mod:`mc_tco.uncertainty.scrambles`), beside the same number on all rows. Fewer than
``min_rows`` rows (:data:`MIN_ROWS`) is refused in one line: the shares would rest on too
few scenarios.

Nothing is rerun: conditioning on stored rows keeps the other inputs' joint distribution
given the condition (their correlations with the confined inputs included), which is what
"what if" means for an uncertain world; fixing an input and rerunning would not.
:mod:`mc_tco.decision.curves` re-exports these for the readers.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.results.curves import target_at
from mc_tco.results.points import parse_amount
from mc_tco.uncertainty.scrambles import (
    indicator,
    probability_with_interval,
    quantiles_with_interval,
)

__all__ = ["MIN_ROWS", "Condition", "given", "parse_given"]

#: fewest scenarios a conditional share rests on (about 12 in each of 8 scrambles)
MIN_ROWS = 100
#: the bands reported, as in the results file's ``target_quantile``
QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_VALUE = r"[^<>=]+?"
_RANGE = re.compile(rf"^({_VALUE})(<=?)({_NAME})(<=?)({_VALUE})$")
_ONE = re.compile(rf"^({_NAME})(<=?|>=?)({_VALUE})$")
_IN = re.compile(rf"^\s*({_NAME})\s+in\s+({_VALUE})\.\.({_VALUE})\s*$")
_PCT = re.compile(r"^[pP]([0-9]*\.?[0-9]+)$")
SYNTAX = ("write NAME>X, NAME<X, A<NAME<B, NAME in A..B or NAME in p10..p50 (X a number "
          "with k/M/B/T, or pNN: the input's NN-th percentile), e.g. "
          "'api_price_annual_change>-0.05'")


@dataclass(frozen=True)
class Condition:
    """One input confined to ``low``..``high`` (as written: numbers or ``pNN`` texts)."""

    input: str
    low: str | None
    high: str | None
    low_closed: bool = False
    high_closed: bool = False
    text: str = ""


def _split(given) -> list[str]:
    items = [given] if isinstance(given, str) else list(given)
    out = [part.strip() for item in items for part in str(item).split(",")]
    return [p for p in out if p]


def parse_given(given) -> list[Condition]:
    """``"x>-0.05, y in p10..p50"`` (or a list of such texts) -> the conditions.

    Raises
    ------
    OptionError
        On a condition that reads as none of the forms (:data:`SYNTAX`).
    """
    out = []
    parts = _split(given)
    if not parts:
        raise OptionError(f"--given: no condition; {SYNTAX}")
    for text in parts:
        s = text.replace(" ", "")
        if m := _IN.match(text):
            name, low, high = (g.strip() for g in m.groups())
            out.append(Condition(name, low, high, True, True, text))
        elif m := _RANGE.match(s):
            low, op1, name, op2, high = m.groups()
            out.append(Condition(name, low, high, op1 == "<=", op2 == "<=", text))
        elif m := _ONE.match(s):
            name, op, value = m.groups()
            if op.startswith(">"):
                out.append(Condition(name, value, None, op == ">=", False, text))
            else:
                out.append(Condition(name, None, value, False, op == "<=", text))
        else:
            raise OptionError(f"--given {text}: {SYNTAX}")
    return out


def _bound(text: str | None, values: np.ndarray, cond: Condition) -> float:
    if text is None:
        return math.nan
    if m := _PCT.match(text):
        q = float(m.group(1))
        if not 0 <= q <= 100:
            raise OptionError(f"--given {cond.text}: percentile {text} must lie in 0..100")
        return float(np.quantile(values[np.isfinite(values)], q / 100))
    return parse_amount(text, flag=f"--given {cond.text}:")


def _mask(ds: xr.Dataset, conditions: list[Condition]) -> tuple[np.ndarray, list[dict]]:
    names = [str(v) for v in ds["input"].values]
    x = ds["input_value"].transpose("sample", "input").values
    mask = np.ones(x.shape[0], dtype=bool)
    used = []
    for c in conditions:
        if c.input not in names:
            import difflib

            close = difflib.get_close_matches(c.input, names, n=1)
            raise OptionError(f"--given {c.text}: '{c.input}' is not an uncertain input of "
                              "the file" + (f"; did you mean '{close[0]}'?" if close else
                                            "; see 'mc-tco inputs'"))
        col = x[:, names.index(c.input)].astype(float)
        low, high = _bound(c.low, col, c), _bound(c.high, col, c)
        if not math.isnan(low) and not math.isnan(high) and low > high:
            raise OptionError(f"--given {c.text}: the lower bound {low:g} is above the "
                              f"upper {high:g}; swap them")
        keep = np.ones_like(mask)
        if not math.isnan(low):
            keep &= col >= low if c.low_closed else col > low
        if not math.isnan(high):
            keep &= col <= high if c.high_closed else col < high
        mask &= keep
        used.append({"input": c.input, "low": None if math.isnan(low) else low,
                     "high": None if math.isnan(high) else high,
                     "low_closed": c.low_closed, "high_closed": c.high_closed,
                     "text": c.text, "rows": int(keep.sum())})
    return mask, used


def given(ds: xr.Dataset, conditions, target: str, *, strategy=None,
          threshold: float | str = 0.0, quantiles=QUANTILES, min_rows: int = MIN_ROWS,
          **at: Any) -> xr.Dataset:
    """P(target > threshold) and the target's bands on the rows where ``conditions`` hold.

    Parameters
    ----------
    ds : xr.Dataset
        A results file that kept the target's samples and the sampled inputs.
    conditions : str or list of str
        See the module (:func:`parse_given`); all must hold.
    target : str
        A per-sample output (``saving``: P(saving > 0) is P(beats the API)).
    strategy : str or list of str, optional
        The alternatives (default all but the baseline).
    threshold : float or str
        The share reported is P(target > threshold).
    quantiles : sequence of float
        Levels of the bands.
    min_rows : int
        Refuse (OptionError, one line) when fewer rows meet the conditions.
    **at
        Grid points (``demand="500B"``); a dim not given takes the file's focus.

    Returns
    -------
    xr.Dataset
        Over strategy (and quantile): ``p``, ``p_ci``, ``fallback`` on the conditional
        rows and ``p_all``, ``p_all_ci`` on all; ``bands``, ``bands_ci`` and
        ``bands_all`` (target's unit); ``rows`` and ``rows_all`` (non-NaN rows each rests
        on); attrs ``given`` (the conditions as written), ``conditions`` (JSON: each
        input's bounds as values, with the rows meeting it), ``rows_given``,
        ``rows_total``, ``min_rows``, ``target``, ``units``, ``threshold``, ``ci_prob``,
        ``method``, ``point`` and ``option_dim`` (the strategy dim's name or ``""``).
    """
    parsed = parse_given(conditions)
    if "input_value" not in ds:
        raise OptionError("the file stores no sampled inputs (input_value); rerun it")
    x_thr = parse_amount(threshold, flag="threshold")
    y, point = target_at(ds, target, strategy, at)
    mask, used = _mask(ds, parsed)
    n_given, n = int(mask.sum()), int(mask.size)
    text = ", ".join(c.text for c in parsed)
    if n_given < min_rows:
        raise OptionError(
            f"--given {text}: holds in only {n_given:,} of {n:,} scenarios, fewer than "
            f"{min_rows}, too few for a share or a band; widen the range, rerun with "
            "more --samples or lower --min-rows")
    run = ds.mc_tco.run
    conf, reps = run.conf_level, int(run.replicates or 1)
    keep = xr.DataArray(mask, dims="sample", coords={"sample": y["sample"]})
    out = xr.Dataset()
    for suffix, yy in (("", y.where(keep)), ("_all", y)):
        event = indicator(yy > x_thr, yy)
        # one scramble (reps = 1): Wilson's and the order-statistics interval throughout
        res = probability_with_interval(event, replicates=reps, conf_level=conf)
        q = quantiles_with_interval(yy, quantiles, replicates=reps, conf_level=conf)
        out[f"p{suffix}"] = res["estimate"].assign_attrs(units="1")
        out[f"p{suffix}_ci"] = res["ci"].assign_attrs(units="1")
        out[f"bands{suffix}"] = q["estimate"].assign_attrs(units=ds[target].attrs.get(
            "units", ""))
        if suffix == "":
            out["fallback"] = res["fallback"]
            out["bands_ci"] = q["ci"].assign_attrs(units=ds[target].attrs.get("units", ""))
            method = str(res.attrs.get("method", ""))
        out[f"rows{suffix}"] = yy.notnull().sum("sample").astype(int).assign_attrs(
            units="scenarios")
    out = out.drop_vars([c for c in out.coords if c not in out.dims])
    alt = [str(d) for d in y.dims if d != "sample"]
    out.attrs.update(option_dim=alt[0] if alt else "")
    out.attrs.update(given=text, conditions=json.dumps(used), rows_given=n_given,
                     rows_total=n, min_rows=int(min_rows), target=target,
                     units=str(ds[target].attrs.get("units", "")), threshold=x_thr,
                     ci_prob=conf, method=method,
                     point={k: (float(v) if isinstance(v, float) else v)
                            for k, v in point.items()})
    return out
