"""The self-hosting TCO model, version 3: monthly after-tax cash flows of six strategies.

This is the model of ``shared/MODEL.md`` (version 3), reconstructed from the article "Does
Self-Hosting DeepSeek Pay Off for Mid-Size Companies": ``api, buy, rent, reserved, owned,
hybrid``, a fleet sized for the busiest hour with spares and scale efficiency, a token mix
in the GPU work, reserved terms, a step price cut and off-peak billing, cancel and stop
events with dates, taxes with depreciation, colocation and network capex, owned's
opportunity cost and the hybrid's marginal rule. Every quantity of its input list is an
input of the book (:mod:`.tco_inputs`: units, ranges, the values that give version 2 back).
Months ``t = 0 .. T-1``, ``T = round(12 * horizon_years)``; the equations are MODEL.md's,
written out month by month in :func:`.kernels.cell.cell` and tested against an independent
plain-Python loop (``tests/models/v3_reference/``, whose docstring lists the same choices).

Choices where MODEL.md is ambiguous or silent, and why:

1. Every ceil is MODEL.md's tolerant one, ``ceil(v - 1e-9 max(1, |v|))``: the fleet, the
   spares, the event months and the first reserved term (``ceil(setup_months)``). The price
   cut applies from ``t >= api_price_cut_month`` exactly. An event month past the horizon is
   "never"; books write :data:`.tco_inputs.NEVER` (1000 months), since a book's value is
   finite.
2. ``need[t]`` (and so a reserved term's size) comes from the demand with ``alive`` but
   not ``self``: a term that holds a stop month is sized on the demand after the stop too
   (the plan made at its start). ``reserved_term_months`` is rounded to a whole number.
3. Staff is paid by buy, rent, reserved and owned from month 0 to exit, also when nothing
   is ever served in house; the hybrid pays it from the first month it owns a node.
4. The hybrid's search runs to the first fleet whose capacity reaches the peak, included;
   with no demand a node has infinite capacity and serves nothing. Its margin charges the
   staff in every month with a node (MODEL.md's formula, followed although the staff is
   sunk once a node is owned: it only delays growth). Its level quantities (``A_t``,
   ``pbar``, ``crf_t``) run to the horizon, not to an exit it cannot foresee; ``pbar``
   keeps the off-peak discount and drops only the step cut. Of the fleet sizes it tries
   (:mod:`.kernels.hybrid`: exact for a concave margin) it takes the largest within 1e-9
   of the best.
5. ``cost[s]`` (level USD/month, "as in version 2") is ``cost[api] + sovereignty[s] -
   saving[s]``, so it includes the extra tax and the lump sums; ``cost_per_mtok`` is that
   cost over the discounted tokens demanded (every strategy serves all demand, in house
   or through the API); NaN when no demand ever arrives.
6. ``cash_by_year`` depends on the demand, so it is given, as ``cash_path``, at the report
   demands: (sample, cash_demand, year, strategy), ``ceil(T / 12)`` years (a last partial
   year when ``T`` is not a multiple of 12; 0 past a row's horizon). Lump sums book in the
   month of MODEL.md's rule (``exit``, or ``T - 1``); sovereignty, tax and ``owned_out`` are
   not cash and are left out.
7. ``simple_payback_months`` and ``peak_cash_need_nominal`` read the undiscounted after-tax
   cumulative flow (sovereignty in, ``owned_out`` at month 0, lump sums in the lump month).
   api's payback and peak are 0, and the hybrid's where it never owns a node. Payback is
   the first month the cumulative flow is >= 0, even if a later purchase takes it below;
   the hybrid's counts from the first month it owns a node (before it, its flows are 0:
   version 2's rule read "paid back in month 1" for a hybrid that buys in month 10).
8. ``irr`` (buy, hybrid) is that of the after-tax flows to exit and the lump at exit; NaN
   when they never change sign or the present value keeps its sign from -99% to +999,900%
   a year; with several sign changes it may be one root of several.
9. ``nodes``, ``storage_tb`` and the investment outputs are buy's (largest fleet, largest
   storage); ``investment`` and ``initial_investment`` include network capex;
   ``gpu_share`` is the nodes' share of it, ``storage_to_gpu_ratio`` SSDs over nodes.
   ``fleet_utilization`` is buy's served tokens over its fleet's full-load tokens
   (spares counted, large-scale efficiency), undiscounted; ``hybrid_served_share`` the
   hybrid's served tokens over all demand, undiscounted; ``hybrid_nodes`` the hybrid's
   largest fleet before exit (0: it never buys a server and is the API). Not MODEL.md's:
   added because "buys a server" is not "serves tokens" (a node bought during the setup
   of a project cancelled before the setup ends serves nothing: 0.13% of the default
   book's scenarios at 500B), and the memo's numbers "where the hybrid buys a server"
   need the first.
10. ``node_capacity`` is a node's tokens in month 0 at the SLO load (version 2's at
    ``peak_to_average`` 1); ``node_api_revenue_per_hour`` is ``c[0] / H * blend``.
11. ``cost_component`` (buy, level USD/month) has nine components that sum to
    ``cost[buy]``: hardware (nodes less their discounted resale), network, power,
    colocation, upkeep, storage, staff, ``setup_api`` (the API bill of the months buy does
    not serve: setup, and after a stop) and tax (the extra tax, with the tax at exit).
12. Tax losses are used in full in the month they arise (the company has other profits);
    ``12 * tax_depreciation_years`` need not be whole (a share of ``1 / (12 Y)`` in each
    month ``u <= t < u + 12 Y``).
13. ``breakeven_demand`` scans demands from 1e6 to 1e15 tokens/month in steps of
    :data:`BREAKEVEN_RATIO` (all strategies at once, stopping when each has a bracket) and
    bisects the first bracket to a relative width of :data:`BREAKEVEN_REL`; 0 where npv >= 0
    at 1 token/month, inf where never, NaN for api; the hybrid breaks even only where it
    owns a node. Version 3's npv dips at every month's node purchase (with growth, a
    jagged curve), so a positive window narrower than a step can be missed: the answer is
    then the next window's. :data:`BREAKEVEN_REL` is 1e-7 (it was 1e-10): the narrowing is
    nearly linear on that jagged curve (regula falsi rarely gets its superlinear steps), so
    each decade costs about the same; three decades less took 26% off the search (12% of a
    ``--keep-samples targets`` run at 2^17), and 1e-7 of a demand is 10^4-10^5 times below
    the Monte Carlo error of any break-even the memo reports.
14. ``sovereignty_value`` counts for buy, rent, reserved and owned in every month self-
    hosting is allowed (also during setup and before reserved's first term), never for the
    hybrid (MODEL.md: its overflow goes to the API). It is not taxed.
15. ``horizon_years`` may vary by sample; arrays run to the longest horizon, months past a
    row's horizon carry no flow (``cash_path`` repeats its final value there).
16. ``peak_hours_share * peak_to_average < 1`` is checked at run time (a ModelError naming
    the sample); ``peak_to_average = 1`` is a flat profile whatever ``peak_hours_share``.
"""

from __future__ import annotations

import math
import threading

import numpy as np
import xarray as xr

from mc_tco.book import Grid
from mc_tco.errors import ModelError
from mc_tco.models import InputRule, ModelSpec, check_outputs, check_samples
from mc_tco.models.kernels import cell, grid, npv, rows, warm
from mc_tco.models.tco_inputs import INF, INPUTS, NEUTRAL, RETIRED

NAME = "mc_tco.models.tco:model"
HOURS_PER_MONTH = rows.HOURS_PER_MONTH
DAYS_PER_MONTH = rows.DAYS_PER_MONTH
STRATEGIES = ("api", "buy", "rent", "reserved", "owned", "hybrid")
COMPONENTS = cell.COMPONENTS
ARTICLE_REVENUE_PER_GPU_HOUR = rows.ARTICLE_REVENUE_PER_GPU_HOUR
#: the break-even search: from 1e6 to 1e15 tokens/month (after the first token), in
#: geometric steps of BREAKEVEN_RATIO, each bracket bisected to a relative width
#: BREAKEVEN_REL
BREAKEVEN_RANGE = (1e6, 1e15)
BREAKEVEN_RATIO = 1.05
BREAKEVEN_REL = 1e-7
ROW_BLOCK = 4096
#: rows whose month vectors :func:`_fill` builds at once when the npv's outputs alone are
#: asked for (13 vectors x 49 months x 8 bytes a row: 1.3 MB, in a core's cache). With the
#: 4,096 rows of a block they went out to memory and back (``benchmarks/npv_parts.py``:
#: 16,384 default-book rows on two threads at the 6 report demands 0.142 -> 0.132 s)
NPV_ROWS = 256

REPORT_DEMANDS = [1e11, 3e11, 5e11, 1e12, 3e12]
#: the demands the article's claims are stated at, added to every grid so that the memo
#: reads them exactly (mc_tco.report.memo.claims.CLAIM_DEMANDS): a few hundred users (300 x 100M
#: tokens a month) and break-even scale (500B, the top of the article's ~300-500B band)
CLAIM_DEMANDS = [3e10, 5e11]

SPEC = ModelSpec(
    inputs=INPUTS,
    grid={
        "demand": Grid(
            "demand", np.geomspace(1e9, 1e13, 41), "tokens/month", "log", "monthly token demand"
        )
    },
    targets=("saving",),
    report={"demand": REPORT_DEMANDS, "strategy": ["buy", "rent", "reserved", "owned", "hybrid"]},
    points={"demand": CLAIM_DEMANDS},
    focus={"demand": 5e11, "strategy": "buy"},
    distributions=("breakeven_demand",),
    indicator_label="beats the API",
    retired=RETIRED,
    neutral=NEUTRAL,
    grid_rules={"demand": InputRule("tokens/month", 0.0, INF, "monthly token demand",
                                    low_open=True)},
    benefits=("saving", "npv"),
    alternatives="strategy",
    baseline="api",
    days_per_month=DAYS_PER_MONTH,
)

FAST = {"npv", "saving", "cost", "cost_per_mtok", "hybrid_nodes"}
#: per-strategy outputs read from the full cell's results (their offsets)
_PER_STRATEGY = {"payback_months": cell.PAY, "peak_cash_need": cell.PEAK,
                 "simple_payback_months": cell.SPAY, "peak_cash_need_nominal": cell.SPEAK,
                 "irr": cell.IRR}
_PER_DEMAND = {"nodes": cell.NODES, "storage_tb": cell.TBMAX, "initial_investment": cell.INIT,
               "fleet_utilization": cell.FLEETU, "hybrid_served_share": cell.HYBS}
PATH = {"payback_months", "peak_cash_need", "simple_payback_months", "peak_cash_need_nominal"}
PER_SAMPLE = {"api_price_per_mtok", "list_price_per_mtok", "node_capacity",
              "node_api_revenue_per_hour", "rent_per_node_hour", "implied_valley_factor"}


def wanted_outputs(inputs: xr.Dataset) -> set[str]:
    """The outputs to compute: ``inputs.attrs["outputs"]`` when set, else all."""
    names = inputs.attrs.get("outputs")
    if names is None:
        return set(OUTPUT_ATTRS)
    return {names} if isinstance(names, str) else set(names)


def _report_demands(inputs: xr.Dataset) -> np.ndarray:
    report = inputs.attrs.get("report") or {}
    points = report.get("demand") if isinstance(report, dict) else None
    return np.asarray(points if points else REPORT_DEMANDS, dtype=float).reshape(-1)


def _shape(name: str, rows_: int, sizes: dict[str, int]) -> tuple:
    return (rows_, *(sizes[d] for d in DIMS.get(name, ())))


_local = threading.local()


def _scratch(key: str, shape: tuple[int, ...]) -> np.ndarray:
    """A C-ordered array of ``shape`` in this thread's scratch buffer ``key``, kept from
    one call of the model to the next (grown when too small): the chunks' largest arrays
    (the month vectors, the hot path's results: 37 MB a thread at 4,096 rows and 45
    demands) no longer in new memory each call, whose pages the system faulted in and
    zeroed (system time of the default run 3.5 -> 1.4 CPU s in those two, load 7). Its
    contents are overwritten by the next call on the thread that asks for the same key."""
    size = math.prod(shape)
    bufs = _local.__dict__.setdefault("bufs", {})
    buf = bufs.get(key)
    if buf is None or buf.size < size:
        buf = bufs[key] = np.empty(size)
    return buf[:size].reshape(shape)


def _fill(out: dict[str, np.ndarray], sl: slice, x: dict[str, np.ndarray], demand: np.ndarray,
          cash_demand: np.ndarray, want: set[str]) -> None:
    """Compute the outputs ``want`` of the rows ``sl`` into the arrays of ``out``.

    Asked for the npv's outputs alone (the design rows' targets, the Shapley pass's rows),
    the rows' month vectors are built :data:`NPV_ROWS` at a time, each part's read by the
    npv kernel while it is still in the core's cache (the same numbers: each part gets the
    whole's months, :func:`.rows.row_factors`)."""
    xs = {k: v[sl] for k, v in x.items()}
    n = xs["node_price"].shape[0]
    last = int(rows.horizon_months(xs).max(initial=1))
    step = NPV_ROWS if not (want - FAST - PER_SAMPLE) else max(n, 1)
    parts = []
    X = rows.input_matrix(xs)  # (each part's rows read in place)
    for lo in range(0, max(n, 1), step):  # (no rows: one empty part)
        m = min(step, n - lo)
        V, S = rows.factors_of(X, lo, m, last, _scratch("V", (m * rows.NV * (last + 1),)))
        if want & FAST:
            _npv_outputs(out, slice(sl.start + lo, sl.start + lo + m), V, S, demand, want)
        parts.append(S)
    S = parts[0] if len(parts) == 1 else np.concatenate(parts)  # (V: the last part's)
    cells = want & (set(_PER_STRATEGY) | set(_PER_DEMAND) | {
        "investment", "gpu_share", "storage_to_gpu_ratio", "cost_component"}) - FAST
    if cells:
        res = np.empty((n, demand.size, cell.NOUT))
        warm.wait()  # a first run: the helper compiling these kernels (.kernels.warm)
        grid.grid(V, S, demand, bool(want & (PATH | {"irr"})), "irr" in want, res)
        for name, off in _PER_STRATEGY.items():
            if name in cells:
                out[name][sl] = res[:, :, off:off + 6]
        for name, off in _PER_DEMAND.items():
            if name in want:
                out[name][sl] = res[:, :, off]
        capn, capw = res[:, :, cell.INV_NODE], res[:, :, cell.INV_NET]
        caps = res[:, :, cell.INV_SSD]
        derived = {"investment": lambda: capn + capw + caps,
                   "gpu_share": lambda: capn / (capn + capw + caps),
                   "storage_to_gpu_ratio": lambda: caps / capn,
                   "cost_component": lambda: res[:, :, cell.COMP:cell.COMP + len(COMPONENTS)]}
        for name, f in derived.items():
            if name in want:
                out[name][sl] = f()
    if want & {"cash_path", "cash_by_year"}:
        months = out["cash_path"].shape[2] if "cash_path" in out else V.shape[2] - 1
        path = np.zeros((n, cash_demand.size, max(months, V.shape[2] - 1), 6))
        years = np.zeros((n, cash_demand.size, -(-path.shape[2] // 12), 6))
        warm.wait()
        grid.cash(V, S, cash_demand, path, years)
        T = S[:, rows.T_].astype(int)
        if "cash_path" in want:
            for i in range(n):  # months past a row's horizon repeat its final value
                path[i, :, T[i]:] = path[i, :, T[i] - 1:T[i]]
            out["cash_path"][sl] = path[:, :, :months]
        if "cash_by_year" in want:
            out["cash_by_year"][sl] = years[:, :, :out["cash_by_year"].shape[2]]
    if "breakeven_demand" in want:
        be = np.empty((n, 6))
        grid.breakeven(V, S, *BREAKEVEN_RANGE, BREAKEVEN_RATIO, BREAKEVEN_REL, be)
        out["breakeven_demand"][sl] = be
    per_sample = {
        "api_price_per_mtok": lambda: S[:, rows.P_MEAN] * 1e6,
        "list_price_per_mtok": lambda: S[:, rows.BLEND],
        "node_capacity": lambda: S[:, rows.CAP0] * xs["utilization"],
        "node_api_revenue_per_hour": lambda: (
            S[:, rows.CAP0] / HOURS_PER_MONTH * S[:, rows.BLEND] / 1e6),
        "rent_per_node_hour": lambda: xs["gpus_per_node"] * xs["gpu_rent_per_hour"],
        "implied_valley_factor": lambda: ARTICLE_REVENUE_PER_GPU_HOUR / (
            xs["reference_tokens_per_gpu_hour"] * S[:, rows.BLEND] / 1e6),
    }
    for name in want & PER_SAMPLE:
        out[name][sl] = per_sample[name]()


def _npv_outputs(out: dict[str, np.ndarray], sl: slice, V: np.ndarray, S: np.ndarray,
                 demand: np.ndarray, want: set[str]) -> None:
    """The outputs of :data:`FAST` in ``want`` of the rows ``sl`` (month vectors ``V`` and
    scalars ``S``: :func:`.rows.row_factors`) into the arrays of ``out``."""
    n = V.shape[0]
    ann = S[:, rows.ANN]
    res = _scratch("npv", (n, demand.size, npv.NRES_OUT))
    if "saving" in want:  # (into its array: no temporary of the chunk's size)
        grid.npv_grid(V, S, demand, res, np.ascontiguousarray(ann), out["saving"][sl])
    else:
        grid.npv_grid(V, S, demand, res)
    value = res[:, :, npv.NPV:npv.NPV + 6]

    def total() -> np.ndarray:
        """The level cost's numerator: the API's bill less the npv, with the sovereignty
        the strategy counts."""
        v = res[:, :, npv.SUM_API, None] - value
        v[:, :, 1:5] += res[:, :, npv.SUM_SOV, None]
        return v

    dd = res[:, :, npv.SUM_DD, None]
    fast = {"npv": lambda: value,
            "cost": lambda: total() / ann[:, None, None],
            "hybrid_nodes": lambda: res[:, :, npv.HYB_TOP],
            "cost_per_mtok": lambda: np.where(  # NaN where no demand ever arrives
                dd > 0, total() / dd * 1e6, np.nan)}
    for name, f in fast.items():
        if name in want:
            out[name][sl] = f()


_DS = ("demand", "strategy")
DIMS = {
    "npv": _DS, "saving": _DS, "cost": _DS, "cost_per_mtok": _DS, "payback_months": _DS,
    "peak_cash_need": _DS, "simple_payback_months": _DS, "peak_cash_need_nominal": _DS,
    "irr": _DS, "breakeven_demand": ("strategy",), "nodes": ("demand",),
    "storage_tb": ("demand",), "initial_investment": ("demand",), "investment": ("demand",),
    "gpu_share": ("demand",), "storage_to_gpu_ratio": ("demand",),
    "fleet_utilization": ("demand",), "hybrid_served_share": ("demand",),
    "hybrid_nodes": ("demand",),
    "cost_component": ("demand", "component"),
    "cash_path": ("cash_demand", "month", "strategy"),
    "cash_by_year": ("cash_demand", "year", "strategy"),
}


def _check_profile(x: dict[str, np.ndarray]) -> None:
    bad = np.flatnonzero(~rows.profile_ok(x))
    if bad.size:
        i = int(bad[0])
        raise ModelError(
            f"{NAME}: peak_hours_share * peak_to_average must be < 1 (the off-peak load "
            f"would be negative), got {x['peak_hours_share'][i]:g} * "
            f"{x['peak_to_average'][i]:g} at sample {i}"
            + (f" and {bad.size - 1} more" if bad.size > 1 else "")
        )


def model(inputs: xr.Dataset) -> xr.Dataset:
    """Cash flows, npv, level monthly saving and derived outputs of the six strategies.

    Parameters
    ----------
    inputs : xr.Dataset
        One variable per input of :data:`INPUTS` along ``sample``; coordinate ``demand``
        in tokens/month. Optional attrs: ``outputs`` (the names to compute; all when
        absent) and ``report`` (``{"demand": [...]}``, the demands of ``cash_path`` and
        ``cash_by_year``; :data:`REPORT_DEMANDS` when absent).

    Returns
    -------
    xr.Dataset
        ``npv``, ``saving``, ``cost``, ``cost_per_mtok``, ``payback_months``,
        ``peak_cash_need``, ``simple_payback_months``, ``peak_cash_need_nominal``, ``irr``
        (sample, demand, strategy); ``breakeven_demand`` (sample, strategy); ``nodes``,
        ``storage_tb``, ``initial_investment``, ``investment``, ``gpu_share``,
        ``storage_to_gpu_ratio``, ``fleet_utilization`` of buy,
        ``hybrid_served_share`` and ``hybrid_nodes`` (sample, demand); ``cost_component``
        (sample, demand, component) of buy; ``cash_path`` (sample, cash_demand, month, strategy) and
        ``cash_by_year`` (sample, cash_demand, year, strategy); and per sample
        ``api_price_per_mtok``, ``list_price_per_mtok``, ``node_capacity``,
        ``node_api_revenue_per_hour``, ``rent_per_node_hour``, ``implied_valley_factor``.
        Units in attrs.

    Raises
    ------
    ModelError
        When an input lies outside its :data:`INPUTS` rule or the load profile is
        impossible, naming the input, the sample and the value; or when an output is NaN
        where it must not be, naming the sample's input values.
    """
    check_samples(inputs, SPEC, NAME)
    warm.start()  # a cold kernel cache: compile on both cores (.kernels.warm)
    want = wanted_outputs(inputs) & set(OUTPUT_ATTRS)
    # a writable copy: the kernels then see the demands with the type of the break-even
    # search's own (one compile of .block.npv_row, not one per array flag)
    demand = np.array(inputs["demand"].values, dtype=float)
    cash_demand = _report_demands(inputs)
    x = {k: np.asarray(inputs.variables[k].values, dtype=float).reshape(-1) for k in INPUTS}
    _check_profile(x)
    n = len(x["node_price"])
    months = int(rows.horizon_months(x).max(initial=1))
    sizes = {"demand": demand.size, "strategy": len(STRATEGIES), "component": len(COMPONENTS),
             "cash_demand": cash_demand.size, "month": months, "year": -(-months // 12)}
    arrays = {name: np.empty(_shape(name, n, sizes))
              for name in OUTPUT_ATTRS if name in want}  # in a fixed order
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # NaN: reported below
        for i in range(0, n, ROW_BLOCK):
            _fill(arrays, slice(i, i + ROW_BLOCK), x, demand, cash_demand, want)
    coords = {
        "demand": inputs["demand"],
        "strategy": list(STRATEGIES),
        "component": list(COMPONENTS),
        "cash_demand": ("cash_demand", cash_demand, {"units": "tokens/month"}),
        "month": ("month", np.arange(months), {"units": "month"}),
        "year": ("year", np.arange(1, sizes["year"] + 1), {"units": "year"}),
    }
    data = {name: xr.Variable(("sample", *DIMS.get(name, ())), arr,
                              dict(zip(("units", "long_name"), OUTPUT_ATTRS[name], strict=True)))
            for name, arr in arrays.items()}
    used = {d for v in data.values() for d in v.dims}
    out = xr.Dataset(data, coords={k: v for k, v in coords.items() if k in used})
    nan_ok = ("irr", "cost_per_mtok", "fleet_utilization", "hybrid_served_share", "gpu_share",
              "storage_to_gpu_ratio")
    checked = out.drop_vars([v for v in nan_ok if v in out])
    check_outputs(checked, inputs, NAME, nan_allowed={"breakeven_demand": {"strategy": "api"}})
    return out


OUTPUT_ATTRS = {
    "cost": ("USD/month", "level monthly equivalent of the strategy's cost"),
    "saving": ("USD/month", "level monthly equivalent of the npv (> 0: beats the API)"),
    "npv": ("USD", "present value of the strategy's after-tax cash flows minus the API's"),
    "cost_per_mtok": ("USD/Mtok", "level cost per million tokens (discounted cost / tokens)"),
    "payback_months": ("month", "first month the cumulative discounted flow is >= 0"),
    "peak_cash_need": ("USD", "deepest cumulative discounted flow below 0"),
    "simple_payback_months": ("month", "first month the cumulative undiscounted flow is >= 0"),
    "peak_cash_need_nominal": ("USD", "deepest cumulative undiscounted flow below 0"),
    "irr": ("1/year", "internal rate of return of the flows (buy, hybrid)"),
    "breakeven_demand": ("tokens/month", "smallest demand at which the strategy's npv >= 0"),
    "nodes": ("1", "buy's largest fleet"),
    "storage_tb": ("TB", "buy's largest KV-cache storage, with overhead"),
    "initial_investment": ("USD", "buy's month-0 purchase of nodes, network and SSDs"),
    "investment": ("USD", "buy's purchases over the horizon, nodes, network and SSDs, "
                   "undiscounted"),
    "gpu_share": ("1", "share of the nodes in buy's investment"),
    "storage_to_gpu_ratio": ("1", "buy's SSD purchases as a fraction of its node purchases"),
    "fleet_utilization": ("1", "buy's served tokens / its fleet's full-load capacity"),
    "hybrid_served_share": ("1", "share of the demand the hybrid serves in house"),
    "hybrid_nodes": ("1", "the hybrid's largest fleet (0: it never buys a server; it is "
                     "then the API)"),
    "cost_component": ("USD/month", "buy's level monthly cost by component"),
    "cash_path": ("USD", "cumulative discounted after-tax flow at the report demands"),
    "cash_by_year": ("USD", "nominal cash spent each year (before tax), API included"),
    "api_price_per_mtok": ("USD/Mtok", "blended API price averaged over the horizon"),
    "list_price_per_mtok": ("USD/Mtok", "blended API list price today"),
    "node_capacity": ("tokens/month", "tokens one self-hosted node serves at month 0 at the "
                      "SLO load"),
    "node_api_revenue_per_hour": ("USD/hour", "API bill of the load one full node serves"),
    "rent_per_node_hour": ("USD/hour", "on-demand rent of one node's GPUs"),
    "implied_valley_factor": ("1", "38 USD/GPU-hour over the API bill of a reference GPU"),
}

model.spec = SPEC  # type: ignore[attr-defined]  # a function attribute, read by spec_of
