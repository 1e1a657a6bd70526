"""Plain-text tables of computed results, for the terminal. Nothing here computes."""

from __future__ import annotations

from itertools import product

import numpy as np
import xarray as xr

from mc_tco.decision.shares import MIN_EVENTS, rare_indicator
from mc_tco.decision.timeaxis import median_with_interval, payback_medians
from mc_tco.report.book_table import inputs_table
from mc_tco.report.fmt import fmt_prob_ci, fmt_value
from mc_tco.report.words.input_grid import input_grid_note
from mc_tco.results.ranking import rank_order

__all__ = ["inputs_table", "run_table"]


def _dim_header(name: str | None, unit: str) -> str:
    """``name (unit)``, or ``name`` alone when there is no unit (no empty brackets)."""
    if not name:
        return ""
    return f"{name} ({unit})" if unit and unit != "1" else str(name)

def _grid_table(ds: xr.Dataset, da: xr.DataArray, name: str, blank: str, cell) -> str:
    """A table of ``cell(point)`` over the layout of ``da`` (:func:`_layout`): one row per
    strategy (or other point), one column per report value of the grid dim; ``blank`` heads
    the only column when there is no grid."""
    col_dim, cols, rows = _layout(ds, da)
    unit = ds[col_dim].attrs.get("units", "") if col_dim else ""
    header = [_dim_header(col_dim, unit)] + [
        fmt_value(c, unit) if c is not None else blank for c in cols]
    body = [[", ".join(str(v) for v in row.values()) or name]
            + [cell({**row, **({col_dim: c} if col_dim else {})}) for c in cols]
            for row in rows]
    return _table(header, body)


def _report(ds: xr.Dataset) -> tuple[dict, dict]:
    report = ds.mc_tco.report
    focus = ds.mc_tco.focus
    return report, focus


def _sel(da: xr.DataArray, point: dict) -> xr.DataArray:
    numeric = {k: v for k, v in point.items() if k in da.dims and not isinstance(v, str)}
    labels = {k: v for k, v in point.items() if k in da.dims and isinstance(v, str)}
    out = da.sel(labels) if labels else da
    return out.sel(numeric, method="nearest") if numeric else out


def _layout(ds: xr.Dataset, da: xr.DataArray):
    """Columns (one numeric dim's points) and rows (combinations of the other dims)."""
    report, _ = _report(ds)
    dims = [d for d in da.dims if d != "ci_bound"]
    col_dim = next(
        (d for d in dims if d in report and not isinstance(report[d][0], str)),
        next((d for d in dims if np.issubdtype(ds[d].dtype, np.number)), None),
    )
    if col_dim is None:
        cols = [None]
    elif col_dim in report:
        cols = list(report[col_dim])
    else:
        vals = ds[col_dim].values
        cols = list(vals[np.linspace(0, len(vals) - 1, min(5, len(vals))).astype(int)])
    row_dims = [d for d in dims if d != col_dim]
    row_values = [list(report[d]) if d in report else list(ds[d].values) for d in row_dims]
    rows = [dict(zip(row_dims, combo, strict=True)) for combo in product(*row_values)]
    return col_dim, cols, rows


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                       for i, (c, w) in enumerate(zip(r, widths, strict=True)))
             for r in [header, *rows]]
    return "\n".join(lines)


def run_table(ds: xr.Dataset, path: str | None = None, elapsed: float | None = None) -> str:
    """The table ``mc-tco run`` prints: P(target > 0), distributions, top inputs by ST;
    at the focus value of each grid input (said), with P(target > 0) by its values."""
    full, ds = ds, ds.mc_tco.at_input_grid()
    run = ds.mc_tco.run
    targets = ds.mc_tco.targets
    label = run.indicator_label
    out = []
    runs = f"{run.model_runs:,} model runs"
    if run.shapley_evaluations is not None:
        runs += f" (+ {run.shapley_evaluations:,} for the Shapley effects)"
    head = f"{run.book_name} ({run.book_path})"
    out.append(head)
    out.append(
        f"  {ds.sizes['input']} uncertain inputs, {run.samples:,} base samples x "
        f"{run.rows_per_sample} design rows" + "".join(
            f" x {len(g['values'])} values of {n}" for n, g in full.mc_tco.input_grid.items())
        + f" = {runs}, seed {run.seed}"
        + (f", {elapsed:.1f} s" if elapsed is not None else "")
    )
    if path:
        out.append(f"  wrote {path}")
    conf = f"{run.conf_level:.0%}"
    for t in targets:
        # (read once: each cell's selection of the file's lazy array read it again)
        prob = ds["p_positive"].sel(target=f"{t}>0").load()
        ci = ds["p_positive_ci"].sel(target=f"{t}>0").load()
        what = "strategy beats the API" if label == "beats the API" else f"{t} > 0"
        out.append("")
        out.append(f"P({what}), with its {conf} Monte Carlo interval")
        out.append(_grid_table(ds, prob, t, "P", lambda point, prob=prob, ci=ci: fmt_prob_ci(
            float(_sel(prob, point)), *(float(v) for v in _sel(ci, point).values))))
    out.extend(_input_grid_tables(full, ds, targets, label, conf))
    if "independent_p_positive" in ds:
        out.append("")
        out.append(_independence_table(ds, targets, label, conf))
    for name in ds.mc_tco.distributions:
        q = ds[f"{name}_quantile"].load()
        never, never_ci = ds[f"{name}_p_never"].load(), ds[f"{name}_p_never_ci"].load()
        unit = q.attrs.get("units", "")
        report, _ = _report(ds)
        out.append("")
        out.append(f"{_dim_header(name, unit)}: median, 90% interval, and the share that "
                   "never gets there")
        rows = []
        others = [d for d in q.dims if d != "quantile"]
        combos = [dict(zip(others, c, strict=True)) for c in product(
            *[report.get(d, list(ds[d].values)) for d in others])]
        for row in combos:
            qq = _sel(q, row)
            lo, med, hi = (float(qq.sel(quantile=v)) for v in (0.05, 0.5, 0.95))
            p, (plo, phi) = float(_sel(never, row)), (float(v) for v in _sel(never_ci, row).values)
            rows.append([
                ", ".join(map(str, row.values())) or name,
                fmt_value(med, unit),
                f"[{fmt_value(lo, unit)} - {fmt_value(hi, unit)}]",
                f"never {fmt_prob_ci(p, plo, phi)}",
            ])
        out.append(_table(["", "median", "90% interval", "share never"], rows))
        out.extend(_median_lines(ds, name, unit))
    out.extend(_payback_lines(ds))
    _, focus = _report(ds)
    where = ", ".join(
        f"{k}={fmt_value(v, ds[k].attrs.get('units', '')) if not isinstance(v, str) else v}"
        for k, v in focus.items() if k != "target"
    )
    where = f" at {where}" if where else ""
    hinted = False
    rule = ds.mc_tco.ranking_index  # the index that ranks (mc_tco.results.ranking)
    if "correlation_used" in ds:
        out.append("")
        within = ds.mc_tco.run.groups_independent
        shown = {"shapley": "Shapley effects rank them",
                 "ST_group": "the groups rank by their grouped indices",
                 }.get(rule, "no index ranks them (rerun with --shapley)")
        out.append("Inputs are correlated: Sobol' S1/ST of single inputs are not shares of "
                   f"the variance (the file keeps them, 'moved one at a time'); {shown}" + (
                       " (with grouped Sobol' indices, exact: every correlation stays "
                       "within a group)" if within and "ST_group" in ds else
                       "; every correlation stays within a group, so grouped Sobol' "
                       "indices (--by group) would be exact" if within else ""))
    # the book's focus target ([analysis] focus = { target = ... }) is ranked first
    for t in sorted(targets, key=lambda t: t != focus.get("target")):
        for target in (f"{t}>0", t):
            plain = label in ("> 0", "")
            what = (f"'{t} > 0'" + ("" if plain else f" ({label})") if target.endswith(">0")
                    else f"'{t}'")
            by = "Shapley effect" if rule == "shapley" else "ST"
            st = _sel(ds["ST"].sel(target=target), focus)
            if st.ndim != 1:
                if not hinted:
                    dims = [str(d) for d in st.dims if d != "input"]
                    out += ["", "Inputs are ranked at one point of the grid: set [analysis] "
                            f"focus = {{{', '.join(f'{d} = ...' for d in dims)}}} in the book "
                            f"(the grid dims without a focus: {', '.join(dims)})"]
                    hinted = True
                continue
            out.append("")
            if not np.isfinite(st.values).any():
                out.append(f"Inputs ranked by {by} for {what}{where}: not defined, the "
                           "target does not vary there")
                continue
            if target.endswith(">0"):
                p = float(_sel(ds["p_positive"].sel(target=target), focus))
                wins = round(p * ds.sizes["sample"])
                if rare_indicator(wins, ds.sizes["sample"], RARE):
                    out.append(
                        f"Inputs ranked by {by} for {what}{where}: only {wins:,} of "
                        f"{ds.sizes['sample']:,} scenarios "
                        f"{('has' if wins == 1 else 'have') if wins < RARE else 'miss'} "
                        f"{t} > 0 here, too few to rank the inputs (see the ranking "
                        "for the target itself below, or raise --samples)"
                        + _nearest_enough(ds, target, focus)
                    )
                    continue
            correlated = rule != "ST"  # per-input S1/ST are not shares of the variance
            for dim, suffix, noun in (("group", "_group", "groups"), ("input", "", "inputs")):
                if f"ST{suffix}" not in ds or (correlated and dim == "input"):
                    continue
                if correlated and not ds.mc_tco.run.groups_independent:
                    out.append(f"Groups not ranked by Sobol' indices for {what}: correlations "
                               "cross the book's groups, so the groups are not independent")
                    continue
                exact = " (exact: every correlation stays within a group)" if correlated else ""
                out.append(f"Top {noun} by total Sobol' index ST for {what}{where} "
                           f"(± {conf} {_ci_label(ds)} half-width){exact}")
                out.append(_ranking(ds, suffix, dim, target, focus))
            if "S2" in ds or "ST_group" in ds:
                out.append(EXTRA_ROWS_NOTE)
            if "shapley" in ds:
                out.append(f"Top inputs by Shapley effect for {what}{where} "
                           f"(± {conf} half-width; the effects sum to 1)")
                out.append(_shapley_ranking(ds, target, focus))
            if "S2" in ds:
                out.append(f"Largest second-order indices S2 for {what}{where}")
                out.append(_pairs(ds, target, focus))
    return "\n".join(out)


def _input_grid_tables(full: xr.Dataset, view: xr.Dataset, targets, label: str,
                       conf: str) -> list[str]:
    """The note of :func:`~mc_tco.report.words.input_grid.input_grid_note`, then per grid
    input P(target > 0) with its interval by its values (columns) and strategy (rows), at
    the focus point and the other grid inputs' focus values ([] without a grid input)."""
    note = input_grid_note(view, "the table below")
    if not note:
        return []
    report, focus = _report(full)
    at = view.mc_tco.input_grid_at
    out = ["", note]
    for name in at:
        point = {k: v for k, v in {**focus, **at}.items()
                 if k not in ("target", name, full.mc_tco.alternatives)}
        where = ", ".join(f"{k} = {fmt_value(v, full[k].attrs.get('units', ''))}"
                          for k, v in point.items() if k in full.dims
                          and not isinstance(v, str))
        unit = full[name].attrs.get("units", "")
        for t in targets:
            prob = _sel(full["p_positive"].sel(target=f"{t}>0"), point)
            ci = _sel(full["p_positive_ci"].sel(target=f"{t}>0"), point)
            what = "strategy beats the API" if label == "beats the API" else f"{t} > 0"
            rows = [d for d in prob.dims if d != name]
            combos = [dict(zip(rows, c, strict=True)) for c in product(
                *[report.get(d, list(full[d].values)) for d in rows])]
            body = [[", ".join(str(v) for v in row.values()) or t] + [fmt_prob_ci(
                float(_sel(prob, {**row, name: v})),
                *(float(x) for x in _sel(ci, {**row, name: v}).values))
                for v in full[name].values] for row in combos]
            out += ["", f"P({what}) by {name}, with its {conf} Monte Carlo interval"
                    + (f", at {where}" if where else "") + " (paired: the same scenarios "
                    "at every value)",
                    _table([_dim_header(name, unit)]
                           + [fmt_value(float(v), unit) for v in full[name].values], body)]
    return out


def _nearest_enough(ds: xr.Dataset, target: str, focus: dict) -> str:
    """'; enough at demand 398B' naming the nearest demand where the indicator ranks."""
    from mc_tco.decision.targets import rare_ranking

    flag = rare_ranking(ds, target, {k: v for k, v in focus.items() if k != "target"}, RARE)
    near = flag["nearest_demand"] if flag else None
    if near is None:
        return ""
    return f"; the nearest demand with enough is {fmt_value(near, 'tokens/month')}"


def _independence_table(ds: xr.Dataset, targets, label: str, conf: str) -> str:
    """P(target > 0) without the correlations, and the change they make (points)."""
    out = []
    for t in targets:
        prob = ds["independent_p_positive"].sel(target=f"{t}>0").load()
        change = ds["correlation_change_ci"].sel(target=f"{t}>0").load()
        what = "strategy beats the API" if label == "beats the API" else f"{t} > 0"
        out.append(f"Does the answer depend on the correlations? P({what}) with the inputs "
                   f"independent (same Sobol' points, first "
                   f"{ds.mc_tco.run.independence_check_samples:,} samples), and "
                   f"the {conf} interval of what the correlations change (points)")

        def cell(point, prob=prob, change=change):
            lo, hi = (100 * float(v) for v in _sel(change, point).values)
            return f"{float(_sel(prob, point)):.1%} ({lo:+.1f} to {hi:+.1f})"

        out.append(_grid_table(ds, prob, t, "", cell))
    return "\n".join(out)


#: why --by group / --second-order move S1 a little (issue 11 item 18)
EXTRA_ROWS_NOTE = (
    "  (note: S1 is centred on the mean of all design rows, as SALib does; --by group and "
    "--second-order add rows, which moves S1 by up to ~1e-3 against a run without them)"
)


# -- version-2 cash-flow medians (issue 12): a separate block, computed by
# mc_tco.decision.timeaxis


def _median(ds: xr.Dataset, da: xr.DataArray):
    """Median over ``sample`` and its replicate interval (``inf`` kept: "never"):
    :func:`mc_tco.decision.timeaxis.median_with_interval`."""
    res = median_with_interval(ds, da)
    return res["estimate"], res["ci"]


def _median_lines(ds: xr.Dataset, name: str, unit: str) -> list[str]:
    """'median of <name>, with its Monte Carlo interval' per strategy (when sampled)."""
    if name not in ds or "sample" not in ds[name].dims or "strategy" not in ds[name].dims:
        return []
    report, _ = _report(ds)
    est, ci = _median(ds, ds[name])
    conf = f"{ds.mc_tco.run.conf_level:.0%}"
    rows = [[str(s), fmt_value(float(est.sel(strategy=s)), unit),
             "[" + " - ".join(fmt_value(float(v), unit) for v in ci.sel(strategy=s).values) + "]"]
            for s in report.get("strategy", list(ds["strategy"].values))]
    return [f"  median with its {conf} Monte Carlo interval:",
            *("  " + line for line in _table(["", "median", "interval"], rows).split("\n"))]


def _payback_lines(ds: xr.Dataset) -> list[str]:
    """Median payback month per strategy at the report demands, with its interval."""
    if "payback_months" not in ds or "sample" not in ds["payback_months"].dims:
        return []
    report, _ = _report(ds)
    demands = [d for d in report.get("demand", []) if not isinstance(d, str)]
    strategies = [s for s in report.get("strategy", []) if s != "api"]
    if not demands or not strategies:
        return []
    grid = [float(d) for d in ds["demand"].sel(demand=demands, method="nearest").values]
    # the hybrid's median over the scenarios where it buys a server, with the share that
    # buys none (over every scenario it said "0" at 500B: 58% of them are the API itself)
    med = payback_medians(ds, grid, strategies)
    conf = f"{ds.mc_tco.run.conf_level:.0%}"
    header = ["demand (tokens/month)"] + [fmt_value(d, "tokens/month") for d in grid]
    rows = []
    for s in strategies:
        held = bool(med["where_held"].sel(strategy=s))
        line = [f"{s}, where it buys a server" if held else s]
        for d in med["demand"].values:
            m = float(med["estimate"].sel(strategy=s, demand=d))
            lo, hi = (float(v) for v in med["ci"].sel(strategy=s, demand=d).values)
            same = _months(lo) == _months(m) == _months(hi)
            line.append(_months(m) if same else f"{_months(m)} ({_months(lo)}-{_months(hi)})")
        rows.append(line)
        if held:
            rows.append([f"{s}: share with no server"] + [
                fmt_prob_ci(float(med["no_server"].sel(strategy=s, demand=d)),
                            *(float(v) for v in med["no_server_ci"].sel(strategy=s,
                                                                        demand=d).values))
                for d in med["demand"].values])
    return ["", f"payback_months (month): median, with its {conf} Monte Carlo interval where "
            "that spans more than one whole month (never = not within the horizon; a "
            "hybrid with no server is the API itself, with nothing to pay back: its "
            "median is over the scenarios where it buys one)", _table(header, rows)]


def _months(x: float) -> str:
    return "never" if np.isinf(x) else ("n/a" if np.isnan(x) else f"{x:.0f}")


def _ci_label(ds: xr.Dataset) -> str:
    run = ds.mc_tco.run
    return f"RQMC, {run.scrambles} scrambles," if run.ci == "rqmc" else run.ci


#: fewer winning (or losing) samples than this and an indicator's indices are not ranked
RARE = MIN_EVENTS


def _ranking(ds: xr.Dataset, suffix: str, dim: str, target: str, focus: dict, top: int = 5):
    """Rows 'rank. name  ST x ± e  S1 y ± f', by decreasing ST."""
    pick = {name: _sel(ds[f"{name}{suffix}"].sel(target=target), focus)
            for name in ("ST", "S1")}
    conf = {name: _sel(ds[f"{name}{suffix}_conf"].sel(target=target), focus)
            for name in ("ST", "S1")}
    st = pick["ST"]
    order = rank_order(st.values, top=top)
    rows = []
    for rank, j in enumerate(order, 1):
        rows.append([
            f"{rank}. {st[dim].values[j]}",
            f"ST {st.values[j]:.3f} ± {conf['ST'].values[j]:.3f}",
            f"S1 {pick['S1'].values[j]:.3f} ± {conf['S1'].values[j]:.3f}",
        ])
    return _table(["", "", ""], rows).split("\n", 1)[1]


def _shapley_ranking(ds: xr.Dataset, target: str, focus: dict, top: int = 5) -> str:
    """Rows 'rank. name  Shapley x ± e', by decreasing effect."""
    sh = _sel(ds["shapley"].sel(target=target), focus)
    half = _sel(ds["shapley_conf"].sel(target=target), focus)
    if not np.isfinite(sh.values).any():
        return "  (not defined: the target does not vary here)"
    order = rank_order(sh.values, top=top)
    rows = [[f"{rank}. {sh['input'].values[j]}",
             f"Shapley {sh.values[j]:.3f} ± {half.values[j]:.3f}"]
            for rank, j in enumerate(order, 1)]
    return _table(["", ""], rows).split("\n", 1)[1]


def _pairs(ds: xr.Dataset, target: str, focus: dict, top: int = 5) -> str:
    s2 = _sel(ds["S2"].sel(target=target), focus)
    s2_conf = _sel(ds["S2_conf"].sel(target=target), focus)
    values = np.nan_to_num(s2.values, nan=-np.inf)
    flat = rank_order(values, top=top)
    rows = []
    for rank, idx in enumerate(flat, 1):
        i, j = np.unravel_index(idx, values.shape)
        if not np.isfinite(values[i, j]):
            break
        rows.append([
            f"{rank}. {s2.input.values[i]} x {s2.input_2.values[j]}",
            f"S2 {s2.values[i, j]:.3f} ± {s2_conf.values[i, j]:.3f}",
        ])
    return _table(["", ""], rows).split("\n", 1)[1] if rows else "  (none estimable)"
