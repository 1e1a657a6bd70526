"""What the memo computes from a results dataset: nothing here re-runs the model.

Every function takes the Dataset written by ``mc-tco run`` (:func:`mc_tco.results.io.open_results`)
and returns numbers or small xarray objects with named dims; the figures, tables and
sentences of the memo are drawn from these and from the stored summaries only, so every
number in the memo traces to the netCDF file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.results import points
from mc_tco.results.points import match_point, parse_amount
from mc_tco.results.ranking import rank_order
from mc_tco.uncertainty.scrambles import MIN_EVENTS, wilson_interval

__all__ = [
    "MIN_EVENTS",
    "TOKENS_PER_USER",
    "Ranking",
    "breakeven_cdf",
    "check_results",
    "cost_breakdown",
    "focus_demand",
    "grid_point",
    "indicator_counts",
    "input_order",
    "is_tco_model",
    "nearest_point",
    "prob_with_ci",
    "rank_intervals",
    "ranking",
    "rare_indicator",
    "tornado",
    "tornado_swing",
]

#: tokens a month of one heavy user (the article: "100 million tokens per heavy user")
TOKENS_PER_USER = 1e8

_NEEDED = (
    "saving", "cost", "breakeven_demand", "cost_component", "gpu_share",
    "storage_to_gpu_ratio", "node_api_revenue_per_hour", "rent_per_node_hour",
    "input_value", "ST", "ST_conf", "S1", "p_positive", "p_positive_ci", "target_quantile",
    "npv", "payback_months", "peak_cash_need", "irr", "investment", "cash_path",
)
STRATEGIES = ("buy", "rent", "owned", "hybrid")
#: the strategies a company can choose between (owned GPUs are a different premise)
CHOICES = ("api", "buy", "rent", "hybrid")


def check_results(ds: xr.Dataset, path: str = "results") -> None:
    """Raise :class:`OptionError` unless ``ds`` holds the TCO model's results.

    The memo reads the outputs of :mod:`mc_tco.models.tco` version 2 (strategies
    api/buy/rent/owned/hybrid over ``demand``, the target ``saving``, the cash-flow outputs);
    a run of another model cannot be memo'd.
    """
    missing = [v for v in _NEEDED if v not in ds.variables]
    if not missing:
        dims_ok = "demand" in ds.dims and "strategy" in ds.dims
        strategies = set(map(str, ds["strategy"].values)) if "strategy" in ds.coords else set()
        targets = set(map(str, ds["target"].values)) if "target" in ds.coords else set()
        if not dims_ok or not {"api", *STRATEGIES} <= strategies:
            missing = ["the dims demand and strategy (api, buy, rent, owned, hybrid)"]
        elif not {"saving", "saving>0"} <= targets:
            missing = ["the target 'saving'"]
    if missing:
        raise OptionError(
            f"{path}: not a results file of the TCO model (it lacks {', '.join(missing[:4])}); "
            "the memo reads the outputs of mc_tco.models.tco: run a book that uses it with "
            "'mc-tco run BOOK'"
        )


#: ``model`` attribute of a run of the TCO model
TCO_MODEL = "mc_tco.models.tco:model"


def is_tco_model(ds: xr.Dataset, path: str = "results") -> bool:
    """Whether ``ds`` is a run of the TCO model (the investment memo) or another model's
    (the generic memo). A TCO run that kept only its targets (``--keep-samples targets``)
    lacks what the investment memo reads: an OptionError says to rerun with
    ``--keep-samples all``."""
    run = ds.mc_tco.run
    tco = run.is_tco_model
    if tco and run.keep_samples == "targets":
        book = run.book_path or "BOOK"
        raise OptionError(
            f"{path}: the memo needs every output of every sample, but this run kept only "
            f"its targets (--keep-samples targets); rerun with --keep-samples all: mc-tco run "
            f"{book} -n {run.samples} --seed {run.seed} --keep-samples all"
        )
    return tco


def grid_point(ds: xr.Dataset, demand, option: str = "--demand") -> float:
    """The demand grid value at ``demand`` (``5e11``, ``500B``; one tolerance everywhere:
    :func:`mc_tco.results.points.match_point`), or an OptionError.

    Numbers at a demand are read from the stored grid, never interpolated: a demand that is
    not on the grid must be added to the book (``include``) and the book rerun.
    """
    value = parse_amount(demand, option)
    if not (math.isfinite(value) and value > 0):
        raise OptionError(f"{option} must be a positive number of tokens/month, got {demand}")
    return match_point(ds["demand"].values, value, dim="demand", flag=option,
                       unit=ds["demand"].attrs.get("units", ""))


def focus_demand(ds: xr.Dataset) -> float:
    """The decision demand of the TCO memo: the focus demand of the book the results were
    run from (``[analysis] focus``); when the book's focus names none, the model's shipped
    default (``mc_tco.models.tco.SPEC.focus``, the only place it is written)."""
    demand = ds.mc_tco.focus.get("demand")
    if demand is None:
        from mc_tco.models.tco import SPEC

        demand = SPEC.focus["demand"]
    return float(demand)


def nearest_point(ds: xr.Dataset, demand: float) -> float:
    """The demand grid value nearest ``demand`` on a log scale
    (:func:`mc_tco.results.points.nearest_point`)."""
    return points.nearest_point(ds["demand"].values, demand, points.scale_of("demand"))


def prob_with_ci(event: xr.DataArray | np.ndarray, conf_level: float = 0.95,
                 replicates: int | None = None):
    """P(event) over samples and its interval: ``(p, lo, hi, k, n)``.

    With ``replicates`` and a DataArray over ``sample``, the interval is the spread of the
    run's independent scrambles (:func:`mc_tco.uncertainty.scrambles.probability_with_interval`, as
    every probability stored in a results file); otherwise Wilson's. NaN entries (not
    applicable) are left out of ``n``.
    """
    if replicates and isinstance(event, xr.DataArray) and event.dims == ("sample",):
        from mc_tco.uncertainty.scrambles import probability_with_interval

        valid = event.astype(float).where(event.notnull())
        res = probability_with_interval(valid, replicates=int(replicates),
                                        conf_level=conf_level)
        arr = valid.values[~np.isnan(valid.values)]
        lo, hi = (float(v) for v in res["ci"].values)
        return float(res["estimate"]), lo, hi, int(np.count_nonzero(arr)), arr.size
    arr = np.asarray(event, dtype=float).ravel()
    arr = arr[~np.isnan(arr)]
    n = arr.size
    if n == 0:
        return math.nan, math.nan, math.nan, 0, 0
    k = int(np.count_nonzero(arr))
    lo, hi = wilson_interval(np.array(k), n, conf_level)
    return k / n, float(lo), float(hi), k, n


def indicator_counts(ds: xr.Dataset, demand: float, strategy: str = "buy") -> tuple[int, int]:
    """Winning scenarios (saving > 0) and the sample size at ``demand`` for ``strategy``."""
    saving = ds["saving"].sel(demand=demand, strategy=strategy)
    return int((saving > 0).sum()), int(saving.sizes["sample"])


def rare_indicator(wins: int, n: int, min_events: int = MIN_EVENTS) -> bool:
    """True when the indicator has too few wins (or losses) for its Sobol' indices to rank."""
    return min(wins, n - wins) < min_events


def rank_intervals(st: np.ndarray, conf: np.ndarray):
    """Rank of each index and the range of ranks its confidence interval allows.

    An input's best possible rank is one plus the number of inputs whose interval lies
    wholly above its own; its worst is the number of inputs whose interval reaches its own
    or higher. Two inputs whose intervals overlap can swap ranks: they are tied.

    Returns
    -------
    rank, best, worst : ndarray of int
        1 = most influential; NaN indices rank last.
    """
    st = np.nan_to_num(np.asarray(st, dtype=float), nan=-np.inf)
    conf = np.nan_to_num(np.asarray(conf, dtype=float), nan=0.0)
    lo, hi = st - conf, st + conf
    order = rank_order(st)
    rank = np.empty(st.size, dtype=int)
    rank[order] = np.arange(1, st.size + 1)
    best = 1 + (lo[None, :] > hi[:, None]).sum(axis=1)
    worst = (hi[None, :] >= lo[:, None]).sum(axis=1)
    return rank, best, np.maximum(worst, rank)


@dataclass
class Ranking:
    """The inputs ranked at one demand for one strategy, and why that target was used.

    ``table`` has dim ``input`` (sorted, most influential first) and variables ``ST``,
    ``ST_conf``, ``S1``, ``S1_conf``, ``rank``, ``rank_best``, ``rank_worst``.
    """

    target: str
    demand: float
    strategy: str
    wins: int
    n: int
    indicator_rare: bool
    table: xr.Dataset

    @property
    def by_indicator(self) -> bool:
        return self.target.endswith(">0")

    def tied_with_top(self) -> list[str]:
        """The inputs whose interval overlaps the top input's (the top one included)."""
        t = self.table
        return [str(i) for i in t["input"].values[t["rank_best"].values == 1]]


def ranking(
    ds: xr.Dataset, demand: float, strategy: str = "buy", min_events: int = MIN_EVENTS
) -> Ranking:
    """Rank the inputs by ST at ``demand``: by the indicator "beats the API" when it is
    common enough to rank, otherwise by the monthly saving itself.

    The indicator's indices are used when at least ``min_events`` scenarios win and as many
    lose, and the top index is above its own half-width; otherwise they are noise (a
    handful of winning samples) and the continuous saving is ranked instead.
    """
    wins, n = indicator_counts(ds, demand, strategy)
    rare = rare_indicator(wins, n, min_events)
    target = "saving"
    if not rare:
        st = ds["ST"].sel(target="saving>0", demand=demand, strategy=strategy).values
        conf = ds["ST_conf"].sel(target="saving>0", demand=demand, strategy=strategy).values
        if np.isfinite(st).any():
            top = int(np.nanargmax(st))
            if st[top] > conf[top]:
                target = "saving>0"
    sel = {"target": target, "demand": demand, "strategy": strategy}
    table = xr.Dataset({v: ds[v].sel(sel).drop_vars(list(sel), errors="ignore")
                        for v in ("ST", "ST_conf", "S1", "S1_conf")})
    rank, best, worst = rank_intervals(table["ST"].values, table["ST_conf"].values)
    table["rank"] = ("input", rank)
    table["rank_best"] = ("input", best)
    table["rank_worst"] = ("input", worst)
    table = table.sortby("rank")
    return Ranking(target, demand, strategy, wins, n, rare, table)


def input_order(ds: xr.Dataset, strategy: str = "buy") -> list[str]:
    """Inputs grouped by the book's groups, groups and members ordered by influence.

    Influence is the mean over demand of ST for the saving (NaN cells ignored); a group
    ranks by its most influential member. Inputs without a group form a group "".
    """
    st = ds["ST"].sel(target="saving", strategy=strategy)
    influence = st.clip(min=0).mean("demand", skipna=True).fillna(0).values
    names = [str(v) for v in ds["input"].values]
    groups = [str(g) for g in ds["input_group"].values] if "input_group" in ds.coords \
        else [""] * len(names)
    best: dict[str, float] = {}
    for g, v in zip(groups, influence, strict=True):
        best[g] = max(best.get(g, -1.0), v)
    key = {n: (-best[g], g, -v) for n, g, v in zip(names, groups, influence, strict=True)}
    return sorted(names, key=lambda n: key[n])


def tornado(
    ds: xr.Dataset,
    demand: float,
    strategy: str = "buy",
    tail: float = 0.10,
    resamples: int = 200,
    conf_level: float = 0.95,
    seed: int = 0,
) -> xr.Dataset:
    """Swing of the median saving when each input goes from its low to its high end.

    Computed on the stored base rows, without re-running the model: the scenarios are
    split by each input's value, and the median saving among the ``tail`` share with the
    lowest values (centred on the input's 5% quantile when ``tail`` = 0.1) is compared with
    the median among the ``tail`` share with the highest (centred on 95%). The other
    inputs keep their sampled spread, so the swing is the input's effect on the median with
    everything else uncertain, not a one-at-a-time change around a base case. Its Monte
    Carlo interval is a percentile bootstrap over the whole sample (the tails re-chosen in
    each resample).

    Returns
    -------
    xr.Dataset
        Dim ``input`` (sorted by absolute swing, largest first) and ``ci_bound``:
        ``low_value``, ``high_value`` (the input's 5% and 95% sample quantiles, its unit),
        ``median_low``, ``median_high`` (USD/month), ``swing`` = high - low (USD/month),
        ``swing_ci`` (input, ci_bound); attrs ``base_median`` (USD/month), ``tail``,
        ``demand``, ``strategy``.
    """
    y = ds["saving"].sel(demand=demand, strategy=strategy).values
    x = ds["input_value"].transpose("sample", "input").values
    res = tornado_swing(y, x, ds["input"].values, tail=tail, resamples=resamples,
                        conf_level=conf_level, seed=seed, units="USD/month")
    res.attrs.update(demand=demand, strategy=strategy)
    return res


def tornado_swing(
    y: np.ndarray,
    x: np.ndarray,
    inputs,
    tail: float = 0.10,
    resamples: int = 200,
    conf_level: float = 0.95,
    seed: int = 0,
    units: str = "",
) -> xr.Dataset:
    """The kernel of :func:`tornado` for any output: ``y`` (sample,) of the output,
    ``x`` (sample, input) of the inputs, ``inputs`` their names; ``units`` the output's.

    Returns the Dataset :func:`tornado` describes, without the ``demand`` and ``strategy``
    attrs.
    """
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    n, d = x.shape
    m = max(1, round(tail * n))
    rng = np.random.default_rng(seed)
    # whole-sample bootstrap: the tails are re-chosen in every resample, so the interval
    # holds the error of where the tails end as well as that of the medians
    idx = rng.integers(0, n, size=(resamples, n)) if resamples else None
    out = {k: np.empty(d) for k in ("low_value", "high_value", "median_low", "median_high")}
    ci = np.full((d, 2), np.nan)
    alpha = (1 - conf_level) / 2
    for j in range(d):
        low, high = _tail_medians(x[:, j], y, m)
        out["low_value"][j], out["high_value"][j] = np.quantile(x[:, j], [0.05, 0.95])
        out["median_low"][j], out["median_high"][j] = low, high
        if idx is not None:
            blow, bhigh = _tail_medians(x[idx, j], y[idx], m)
            ci[j] = np.quantile(bhigh - blow, [alpha, 1 - alpha])
    res = xr.Dataset(
        {k: ("input", v) for k, v in out.items()},
        coords={"input": np.asarray(inputs), "ci_bound": ["lower", "upper"]},
    )
    res["swing"] = res["median_high"] - res["median_low"]
    res["swing_ci"] = (("input", "ci_bound"), ci)
    res["swing_ci"].attrs.update(ci_prob=conf_level, method=f"bootstrap, {resamples} resamples")
    for k in ("median_low", "median_high", "swing", "swing_ci"):
        res[k].attrs["units"] = units
    res.attrs.update(base_median=float(np.median(y)), tail=tail, samples_per_end=m)
    order = rank_order(np.abs(res["swing"].values))
    return res.isel(input=order)


def _tail_medians(x: np.ndarray, y: np.ndarray, m: int):
    """Median of ``y`` over the ``m`` smallest and the ``m`` largest ``x`` (last axis)."""
    k = x.shape[-1]
    part = np.argpartition(x, [m - 1, k - m], axis=-1)
    low = np.take_along_axis(y, part[..., :m], axis=-1)
    high = np.take_along_axis(y, part[..., k - m:], axis=-1)
    return np.median(low, axis=-1), np.median(high, axis=-1)


def breakeven_cdf(
    ds: xr.Dataset, x: np.ndarray, strategies=STRATEGIES, conf_level: float = 0.95
) -> xr.Dataset:
    """P(break-even demand <= x) per strategy with its pointwise Monte Carlo interval.

    The curve reaches ``1 - P(never)`` at most: scenarios that never break even stay out.
    With the run's ``R`` scrambles (``ci = "rqmc"``) the interval at each ``x`` is the
    replicate t interval of the ``R`` per-scramble shares, Wilson's on the pooled count where
    that cannot work (:func:`mc_tco.uncertainty.scrambles.proportion_from_counts`); otherwise
    Wilson's.
    NaN samples (not applicable) are left out of the count and the sample size.

    Returns
    -------
    xr.Dataset
        ``cdf`` (strategy, x), ``cdf_ci`` (strategy, x, ci_bound) and ``cdf_fallback``
        (strategy, x; True where the interval is Wilson's), unit 1.
    """
    from mc_tco.uncertainty.scrambles import proportion_from_counts, replicate_of

    be = ds["breakeven_demand"].sel(strategy=list(strategies)).transpose("strategy", "sample")
    reps = ds.mc_tco.run.scrambles
    rep = replicate_of(be["sample"].values if "sample" in be.coords
                       else np.arange(be.sizes["sample"]), reps)
    x = np.asarray(x, dtype=float)
    k_r, n_r = [], []
    for r in range(reps):
        vals = np.sort(be.values[:, rep == r], axis=1)  # NaN sorts last, above every x
        k_r.append(np.stack([np.searchsorted(v, x, side="right") for v in vals]))
        n_r.append(np.broadcast_to((~np.isnan(vals)).sum(axis=1)[:, None], k_r[-1].shape))
    res = proportion_from_counts(np.stack(k_r), np.stack(n_r), conf_level)
    return xr.Dataset(
        {"cdf": (("strategy", "x"), res.estimate),
         "cdf_ci": (("strategy", "x", "ci_bound"), np.stack([res.lower, res.upper], axis=-1)),
         "cdf_fallback": (("strategy", "x"), res.fallback)},
        coords={"strategy": list(strategies), "x": x, "ci_bound": ["lower", "upper"]},
    )


def cost_breakdown(ds: xr.Dataset) -> xr.Dataset:
    """Buy's monthly cost by component and the API bill, at the median, over demand.

    Returns
    -------
    xr.Dataset
        ``component_median`` (demand, component), ``buy_quantile`` and ``api_quantile``
        (quantile, demand) with quantiles 0.05, 0.5, 0.95; all USD/month. The medians of
        the components need not add up to the median of the total.
    """
    q = [0.05, 0.5, 0.95]
    out = xr.Dataset({
        "component_median": ds["cost_component"].median("sample"),
        "buy_quantile": ds["cost"].sel(strategy="buy", drop=True).quantile(q, dim="sample"),
        "api_quantile": ds["cost"].sel(strategy="api", drop=True).quantile(q, dim="sample"),
    })
    for v in out.data_vars:
        out[v].attrs["units"] = "USD/month"
    return out.transpose("quantile", "demand", "component")
