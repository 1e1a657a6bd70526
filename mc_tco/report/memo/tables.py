"""The memo's summary tables as DataFrames, written as CSV for spreadsheet users.

:data:`TABLES` maps a file stem to a function ``table(ctx) -> DataFrame | None``; add a
table with one line. Columns carry their unit in the name (``_usd_per_month``,
``_tokens_per_month``); shares are fractions (0-1), not percent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
import pandas as pd
import xarray as xr

from mc_tco.decision import budget
from mc_tco.decision import tco_data as A
from mc_tco.decision.costs import cost_breakdown as breakdown
from mc_tco.decision.indices import indicator_rankable
from mc_tco.decision.timeaxis import time_numbers
from mc_tco.report.memo.context import MemoContext, _stem
from mc_tco.results.points import point_index

__all__ = ["TABLES", "csv_tables"]


def _books(ctx: MemoContext) -> list[xr.Dataset]:
    other = ctx.compared
    return [ctx.ds] + ([other] if other is not None else [])


def p_beats_api(ctx: MemoContext) -> pd.DataFrame:
    """P(strategy beats the API) with its interval, per book, demand and strategy."""
    frames = []
    for ds in _books(ctx):
        sel = {"target": "saving>0", "strategy": list(A.STRATEGIES)}
        p = ds["p_positive"].sel(sel)
        ci = ds["p_positive_ci"].sel(sel)
        df = xr.Dataset({
            "p_beats_api": p,
            "ci_lower": ci.sel(ci_bound="lower", drop=True),
            "ci_upper": ci.sel(ci_bound="upper", drop=True),
        }).drop_vars("target").to_dataframe().reset_index()
        df.insert(0, "book", _stem(ds))
        df["winning_scenarios"] = np.round(df["p_beats_api"] * ds.sizes["sample"]).astype(int)
        df["scenarios"] = ds.sizes["sample"]
        df["conf_level"] = ds.mc_tco.run.conf_level
        frames.append(df)
    return _demand_columns(pd.concat(frames, ignore_index=True))


def saving_quantiles(ctx: MemoContext) -> pd.DataFrame:
    """Mean and quantiles of the monthly saving (USD/month) per book, demand, strategy."""
    frames = []
    for ds in _books(ctx):
        q = ds["target_quantile"].sel(target="saving", strategy=list(A.STRATEGIES))
        wide = {f"q{round(100 * float(v)):02d}_usd_per_month": q.sel(quantile=v, drop=True)
                for v in q["quantile"].values}
        mean = ds["target_mean"].sel(target="saving", strategy=list(A.STRATEGIES))
        df = xr.Dataset({"mean_usd_per_month": mean, **wide}).drop_vars("target") \
            .to_dataframe().reset_index()
        df.insert(0, "book", _stem(ds))
        frames.append(df)
    return _demand_columns(pd.concat(frames, ignore_index=True))


def breakeven_demand(ctx: MemoContext) -> pd.DataFrame:
    """Break-even demand quantiles (tokens/month, inf = never) and P(never) per book."""
    rows = []
    for ds in _books(ctx):
        for s in A.STRATEGIES:
            q = ds["breakeven_demand_quantile"].sel(strategy=s)
            lo, hi = ds["breakeven_demand_p_never_ci"].sel(strategy=s).values
            row: dict[str, str | float] = {"book": _stem(ds), "strategy": s}
            row.update({f"q{round(100 * float(v)):02d}_tokens_per_month": float(q.sel(quantile=v))
                        for v in q["quantile"].values})
            row.update(p_never=float(ds["breakeven_demand_p_never"].sel(strategy=s)),
                       p_never_lower=float(lo), p_never_upper=float(hi))
            rows.append(row)
    return pd.DataFrame(rows)


def claims(ctx: MemoContext) -> pd.DataFrame:
    """Each part of each claim: the share of scenarios where it is true and the verdicts."""
    rows = []
    for c in ctx.claims:
        for p in c.parts:
            rows.append({
                "claim": c.number, "quote": c.quote, "part": p.statement,
                "share_true": p.p, "ci_lower": p.lower, "ci_upper": p.upper,
                "scenarios_true": p.k, "scenarios": p.n, "part_verdict": p.verdict,
                "substantive": p.substantive, "borderline": p.borderline,
                "claim_verdict": c.verdict,
            })
    return pd.DataFrame(rows)


def assumptions(ctx: MemoContext) -> pd.DataFrame:
    """Every input: family, parameters, quantiles, unit, source and its rank (by the run's
    ranking index)."""
    r = ctx.ranking
    t = r.table
    rows = []
    for inp in ctx.book.inputs.values():
        q05, q50, q95 = (float(v) for v in inp.quantiles([0.05, 0.5, 0.95]))
        row = {"input": inp.name, "group": inp.group, "family": inp.family,
               "distribution": inp.describe(), "q05": q05, "q50": q50, "q95": q95,
               "unit": inp.unit, "source": inp.source, "is_assumption": inp.is_assumption}
        if inp.name in t["input"].values:
            x = t.sel(input=inp.name)
            row.update({k: float(x[k]) for k in ("ST", "ST_conf", "S1", "S1_conf",
                                                 "shapley", "shapley_conf") if k in x})
            row.update({k: int(x[k]) for k in ("rank", "rank_best", "rank_worst")})
            row["flag_weak_source_top5"] = inp.is_assumption and int(x["rank"]) <= 5
        rows.append(row)
    df = pd.DataFrame(rows)
    df["ranked_target"] = r.target
    df["ranked_at_demand_tokens_per_month"] = r.demand
    df["ranked_strategy"] = r.strategy
    df["ranked_by"] = r.index  # the index "rank" orders by (the file's ranking_index)
    return df.sort_values("rank", na_position="last", kind="stable")


def sobol_indices(ctx: MemoContext) -> pd.DataFrame:
    """S1 and ST with half-widths for every target, strategy, demand (where the run
    estimated them) and input.

    ``ranked`` is False where the indicator has fewer than MIN_EVENTS winning (or losing)
    scenarios (:func:`mc_tco.decision.indices.indicator_rankable`): those indices are noise
    and the memo does not use them.
    """
    from mc_tco.decision.at_demand import indexed_demands

    ds = ctx.ds
    sel: dict[str, Any] = {"strategy": list(A.STRATEGIES)}
    own = indexed_demands(ds)  # (--sobol-at report: the demands it estimated them at)
    if own is not None:
        sel["demand"] = own
    df = xr.Dataset({v: ds[v].sel(sel) for v in ("S1", "S1_conf", "ST", "ST_conf")}) \
        .drop_vars(["input_unit", "input_group", "input_family"], errors="ignore") \
        .to_dataframe(dim_order=["input", "target", "demand", "strategy"]).reset_index()
    ok = indicator_rankable(ds, A.STRATEGIES).to_dataframe("rankable").reset_index()
    df = df.merge(ok, on=["demand", "strategy"])
    indicator = df["target"].str.endswith(">0")
    df["ranked"] = ~indicator | df["rankable"]
    df = df.drop(columns="rankable")
    return _demand_columns(df)


def tornado(ctx: MemoContext) -> pd.DataFrame:
    """The tornado's numbers: each input's low and high end and the median saving there."""
    t = ctx.tornado
    df = pd.DataFrame({
        "input": t["input"].values,
        "low_value": t["low_value"].values, "high_value": t["high_value"].values,
        "median_saving_low_usd_per_month": t["median_low"].values,
        "median_saving_high_usd_per_month": t["median_high"].values,
        "swing_usd_per_month": t["swing"].values,
        "swing_lower": t["swing_ci"].sel(ci_bound="lower").values,
        "swing_upper": t["swing_ci"].sel(ci_bound="upper").values,
    })
    df["median_saving_all_usd_per_month"] = t.attrs["base_median"]
    df["demand_tokens_per_month"] = t.attrs["demand"]
    df["strategy"] = t.attrs["strategy"]
    df["scenarios_per_end"] = t.attrs["samples_per_end"]
    return df


def cost_breakdown(ctx: MemoContext) -> pd.DataFrame:
    """Buy's monthly cost by component (medians) and the API bill, by demand (USD/month)."""
    bd = breakdown(ctx.ds)
    # 2-d, so a DataFrame: xarray types to_pandas for every number of dims
    df = cast(pd.DataFrame, bd["component_median"].to_pandas())
    df.columns = [f"buy_{c}_median_usd_per_month" for c in df.columns]
    for name in ("buy", "api"):
        for q in bd["quantile"].values:
            col = f"{name}_total_q{round(100 * float(q)):02d}_usd_per_month"
            df[col] = bd[f"{name}_quantile"].sel(quantile=q).values
    return _demand_columns(df.reset_index())


def time_table(ctx: MemoContext) -> pd.DataFrame:
    """Payback, peak cash need and IRR (medians with their Monte Carlo intervals) and the
    share never paid back, per report demand and strategy, at full precision: over every
    scenario (``scenarios`` "all"), and for the hybrid also over the scenarios where it
    buys a server ("where it buys a server", the memo's time section; ``p_buys_server``
    that share, with its interval)."""
    rows = []
    for d in ctx.report_demands:
        for s, held in [(s, h) for s in A.STRATEGIES for h in (False, True)]:
            t = time_numbers(ctx.ds, d, s, where_held=held)
            if held and t.held is None:
                continue
            row = {"demand": d, "strategy": s,
                   "scenarios": "where it buys a server" if held else "all"}
            p = t.held
            row.update({"p_buys_server": p.value if p else float("nan"),
                        "p_buys_server_lower": p.lower if p else float("nan"),
                        "p_buys_server_upper": p.upper if p else float("nan")})
            for key, est in (("payback_months_median", t.payback),
                             ("p_never_paid_back", t.never),
                             ("peak_cash_need_median_usd", t.peak),
                             ("irr_median_per_year", t.irr)):
                row.update({key: est.value, f"{key}_lower": est.lower,
                            f"{key}_upper": est.upper})
            row["peak_cash_need_q05_usd"], row["peak_cash_need_q95_usd"] = t.peak_spread
            row["p_irr_defined"] = t.irr_defined
            rows.append(row)
    return _demand_columns(pd.DataFrame(rows))


def _quantile_columns(row: dict, est: xr.DataArray, ci: xr.DataArray, unit: str) -> dict:
    """``q10_<unit>``, ``q10_<unit>_lower``, ``q10_<unit>_upper``, ... of one cell."""
    for q in est["quantile"].values:
        key = f"q{round(100 * float(q)):02d}_{unit}"
        lo, hi = (float(v) for v in ci.sel(quantile=q).values)
        row.update({key: float(est.sel(quantile=q)), f"{key}_lower": lo, f"{key}_upper": hi})
    return row


def cash_by_year(ctx: MemoContext) -> pd.DataFrame:
    """Nominal cash each option spends a year (USD, undiscounted, before tax), per book,
    report demand and option: P10, P50 and P90 over the scenarios with their Monte Carlo
    intervals (:func:`mc_tco.decision.budget.cash_by_year`); ``year`` "1-4" is the
    horizon's total."""
    rows = []
    for ds in _books(ctx):
        for d in ds["cash_demand"].values:
            t = budget.cash_by_year(ds, float(d))
            years = [str(int(y)) for y in t["year"].values]
            span = f"{years[0]}-{years[-1]}"
            for s in t["strategy"].values:
                cells = [(y, t["estimate"].sel(strategy=s, year=int(y)),
                          t["ci"].sel(strategy=s, year=int(y))) for y in years]
                cells.append((span, t["total_estimate"].sel(strategy=s),
                              t["total_ci"].sel(strategy=s)))
                for year, est, ci in cells:
                    row = {"book": _stem(ds), "demand": float(d), "strategy": str(s),
                           "year": year}
                    rows.append(_quantile_columns(row, est, ci, "usd"))
    return _demand_columns(pd.DataFrame(rows))


def cost_per_mtok(ctx: MemoContext) -> pd.DataFrame:
    """Level cost per million tokens (USD/Mtok) per book, report demand and option: P10,
    P50 and P90 over the scenarios with their Monte Carlo intervals
    (:func:`mc_tco.decision.budget.cost_per_mtok`)."""
    rows = []
    for ds in _books(ctx):
        grid = ds["demand"].values
        demands = [d for d in ctx.report_demands if point_index(grid, d) is not None]
        for d in demands:
            t = budget.cost_per_mtok(ds, d)
            for s in t["strategy"].values:
                row = {"book": _stem(ds), "demand": float(d), "strategy": str(s),
                       "scenarios": int(t["scenarios"].sel(strategy=s))}
                rows.append(_quantile_columns(row, t["estimate"].sel(strategy=s),
                                              t["ci"].sel(strategy=s), "usd_per_mtok"))
    return _demand_columns(pd.DataFrame(rows))


def _demand_columns(df: pd.DataFrame) -> pd.DataFrame:
    df = df.rename(columns={"demand": "demand_tokens_per_month"})
    i = list(df.columns).index("demand_tokens_per_month")
    # whole users: a demand grid point of 1.58489e12 is 15,849 users, not 15848.9
    df.insert(i + 1, "heavy_users",
              (df["demand_tokens_per_month"] / A.TOKENS_PER_USER).round().astype("int64"))
    return df


#: file stem -> table; each becomes ``<stem>.csv`` in the memo folder
TABLES: dict[str, Callable[[MemoContext], pd.DataFrame | None]] = {
    "p_beats_api": p_beats_api,
    "saving_quantiles": saving_quantiles,
    "breakeven_demand": breakeven_demand,
    "claims": claims,
    "assumptions": assumptions,
    "sobol_indices": sobol_indices,
    "tornado": tornado,
    "cost_breakdown": cost_breakdown,
    "time": time_table,
    "cash_by_year": cash_by_year,
    "cost_per_mtok": cost_per_mtok,
}


def csv_tables(ctx: MemoContext) -> dict[str, str]:
    """Every table of :data:`TABLES` as CSV text, keyed by file name."""
    out = {}
    for stem, func in TABLES.items():
        df = func(ctx)
        if df is not None:
            out[f"{stem}.csv"] = df.to_csv(index=False, float_format="%.6g")
    return out
