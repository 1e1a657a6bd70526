"""The self-hosting TCO model, version 2: monthly cash flows of five strategies.

This is the model of ``shared/MODEL.md`` (version 2), reconstructed from the article "Does
Self-Hosting DeepSeek Pay Off for Mid-Size Companies". Every quantity of its input list is
an input of the book (constants included); :data:`model.spec` lists them with units and
allowed ranges. Months ``t = 0 .. T-1``, ``T = round(12 * horizon_years)``; the equations
are MODEL.md's, written out month by month in :func:`.kernels.paths.paths` and, for the
npv alone, in the equivalent fused form of :func:`.kernels.npv.npv_grid`::

    npv[buy]   = demand * LB + (sovereignty_value - staff) * A - sum_t n_buy[t] * VB[t]
    npv[owned] = demand * LB + (sovereignty_value - staff) * A - sum_t n_buy[t] * VO[t]
    npv[rent]  = demand * LB + (sovereignty_value - staff) * A - sum_t need[t] * VR[t]

where ``LB`` is the discounted API bill served in house less the SSDs per token, and
``VB[t] = W[t] - W[t+1]`` with ``W[u]`` the discounted cost of a node bought in month
``u`` (price, upkeep and power to the horizon, less its discounted resale): summation by
parts of MODEL.md's flows, so the demand loop carries only the node counts. The hybrid
is summed month by month (its served tokens and storage depend on its fleet).

Choices where MODEL.md leaves room, and why:

* Node counts use a relative tolerance of 1e-9: ``need = ceil(x (1 - 1e-9))`` and
  ``floor(x (1 + 1e-9))`` with ``x = D[t] / cap[t]``, so a demand that is an exact multiple
  of a node's capacity does not buy one node more (or the hybrid one fewer) through
  rounding.
* ``payback_months`` counts the resale in the last month (``t + 1 = T``), the month the
  nodes are sold; ``api``'s payback and peak cash need are 0 (it never spends ahead), and
  so are the hybrid's where it never owns a node.
  Payback is the *first* month the cumulative discounted flow reaches 0, even when a later
  node purchase takes it below 0 again; ``peak_cash_need`` sees those later holes.
* ``cost`` is derived from the npv, ``cost[s] = cost[api] + sovereignty - saving[s]``,
  which is MODEL.md's definition rearranged (the hybrid's sovereignty counts only when it
  owns a node, as its staff).
* ``cost_component`` (buy) has a sixth component, ``setup_api``: the API bill during
  setup, so the components sum to ``cost[buy]``; ``hardware`` is net of the discounted
  resale.
* ``breakeven_demand`` walks up the demand from 1e6 to 1e15 tokens/month in steps of at
  most 5.3% and at most 1/8 of one node's capacity in its busiest month, and bisects the
  first bracket where npv turns >= 0 by repeated scans of 8 geometric sub-brackets (each
  level keeps the first that turns >= 0) to a relative width below 1e-13; 0
  where npv >= 0 already at 1 token/month, ``inf`` where never up to 1e15, NaN for
  ``api``. The npv dips at each new node, so a positive window narrower than 1/8 of a
  node's capacity can be missed. A linear upper bound of the npv (from ``x <= ceil(x) <
  x + 1`` on the node counts) lets the walk jump over demands where the npv cannot be
  >= 0 and stop where it never can. Inputs so extreme that the walk needs more than
  20,000 evaluations (a node of a few tokens a month) fall back to the 5.3% step. The
  hybrid breaks even only where it owns a node
  (with none it *is* the API, npv 0).
* ``irr`` is sought in yearly rates from -99% to +999,900% (Halley's method from the root
  at the previous demand where the flows provably have one root there, else safeguarded
  Newton from 10%); NaN where the flows (with the resale) never change sign or the
  present value does not change sign over that range. With several sign changes (later
  node purchases) it may be one root of several.
* ``horizon_years`` may vary by sample; arrays run to the longest horizon and months past
  a row's horizon carry no flow (``cash_path`` repeats its final value there). It is
  limited to 30 years to bound memory.
* ``api_price_per_mtok`` is the undiscounted mean of the API price over the horizon (as
  version 1's); ``node_capacity`` is a node's capacity at month 0;
  ``implied_valley_factor`` is ``38 / (reference_tokens_per_gpu_hour * blend / 1e6)``,
  the consistency check MODEL.md suggests (38 USD/GPU-hour: the article's figure).
* ``storage_tb``, ``nodes`` and the investment outputs are buy's; ``investment`` and
  ``initial_investment`` are undiscounted, at the prices of the month of purchase.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from mc_tco.book import Grid
from mc_tco.models import InputRule, ModelSpec, check_outputs, check_samples
from mc_tco.models.kernels import breakeven, factors, layout, npv, paths
from mc_tco.models.tco_inputs import INF, INPUTS, NEUTRAL, RETIRED

NAME = "mc_tco.models.tco:model"
HOURS_PER_MONTH = layout.HOURS_PER_MONTH
DAYS_PER_MONTH = layout.DAYS_PER_MONTH
STRATEGIES = ("api", "buy", "rent", "owned", "hybrid")
COMPONENTS = ("hardware", "power", "upkeep", "storage", "staff", "setup_api")
#: DeepSeek's revenue per GPU-hour the article quotes (for ``implied_valley_factor``)
ARTICLE_REVENUE_PER_GPU_HOUR = 38.0
#: the break-even search: from 1e6 to 1e15 tokens/month (after the first token), in steps
#: of at most 5.3% and at most 1/8 of a node's capacity in its busiest month
BREAKEVEN_RANGE = (1e6, 1e15)
BREAKEVEN_STEP = 0.0533
BREAKEVEN_FINE = 0.125
BISECTION_STEPS = 20  # levels of 8 sub-brackets: 0.053 / 8**14 < 1e-13
ROW_BLOCK = 8192

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
    report={"demand": REPORT_DEMANDS, "strategy": ["buy", "rent", "owned", "hybrid"]},
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

FAST = {"npv", "saving", "cost"}
PATH = {"payback_months", "peak_cash_need", "nodes", "storage_tb", "initial_investment",
        "investment", "gpu_share", "storage_to_gpu_ratio", "cost_component"}
PER_SAMPLE = {"api_price_per_mtok", "list_price_per_mtok", "node_capacity",
              "node_api_revenue_per_hour", "rent_per_node_hour", "implied_valley_factor"}


def input_matrix(x: dict[str, np.ndarray]) -> np.ndarray:
    """The inputs as the kernels' matrix (rows, ``layout.COLUMNS``)."""
    return np.ascontiguousarray(np.stack([x[c] for c in layout.COLUMNS], axis=1), dtype=float)


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


def _shape(name: str, rows: int, n_dem: int, n_cash: int, n_months: int) -> tuple:
    size = {"demand": n_dem, "strategy": len(STRATEGIES), "component": len(COMPONENTS),
            "cash_demand": n_cash, "month": n_months}
    return (rows, *(size[d] for d in DIMS.get(name, ())))


def _fill(out: dict[str, np.ndarray], rows: slice, x: dict[str, np.ndarray], demand: np.ndarray,
          cash_demand: np.ndarray, want: set[str]) -> None:
    """Compute the outputs ``want`` of the rows ``rows`` into the arrays of ``out``."""
    X = input_matrix({k: v[rows] for k, v in x.items()})
    M = factors.months(X)
    n, n_dem = X.shape[0], demand.shape[0]
    S = np.empty((n, layout.NS))
    if want & (PER_SAMPLE | {"cost"}) or {"npv", "saving"} <= want:  # (not the hot path)
        factors.scalars(X, M, S)
    ann = S[:, layout.ANN]
    if want & FAST:
        first = "npv" if "npv" in want else "saving"
        dest = out[first][rows] if first in out else np.empty((n, n_dem, len(STRATEGIES)))
        npv.npv_grid(X, M, demand, first == "saving", dest)
        if first == "npv" and want & {"saving", "cost"}:
            saving = out["saving"][rows] if "saving" in out else np.empty_like(dest)
            np.multiply(dest, (1.0 / ann)[:, None, None], out=saving)  # as the kernel
        else:
            saving = dest
        if "cost" in want:
            cost = out["cost"][rows]
            owns = np.floor(demand[None, :] * S[:, layout.MAX_QH, None] * (1 + layout.EPS)) > 0
            np.subtract((S[:, layout.API_LEVEL, None] * demand[None, :])[:, :, None], saving,
                        out=cost)
            cost[:, :, 1:4] += S[:, layout.SOV, None, None]
            cost[:, :, 4] += S[:, layout.SOV, None] * owns
    if want & (PATH | {"irr"}):
        res = np.empty((n, n_dem, layout.NRES))
        irr = np.full((n, n_dem, 2), np.nan)
        paths.paths(X, M, demand, "irr" in want, False, res, irr, np.empty((1, 1, 1, 4)))
        capn, caps = res[:, :, layout.CAPN], res[:, :, layout.CAPS]
        fields = {
            "payback_months": lambda: res[:, :, layout.PAY:layout.PAY + layout.NK],
            "peak_cash_need": lambda: res[:, :, layout.PEAK:layout.PEAK + layout.NK],
            "nodes": lambda: res[:, :, layout.NODES],
            "storage_tb": lambda: res[:, :, layout.TB],
            "initial_investment": lambda: res[:, :, layout.INIT],
            "investment": lambda: capn + caps,
            "gpu_share": lambda: capn / (capn + caps),
            "storage_to_gpu_ratio": lambda: caps / capn,
            "cost_component": lambda: res[:, :, layout.COMP:layout.COMP + len(COMPONENTS)],
        }
        for name in want & set(fields):
            if name in ("payback_months", "peak_cash_need"):
                out[name][rows, :, 0] = 0.0  # the API never spends ahead
                out[name][rows, :, 1:] = fields[name]()
            else:
                out[name][rows] = fields[name]()
        if "irr" in want:
            out["irr"][rows] = np.nan
            out["irr"][rows, :, 1] = irr[:, :, 0]
            out["irr"][rows, :, 4] = irr[:, :, 1]
    if "cash_path" in want:
        cash = np.empty((n, cash_demand.shape[0], M, 4))
        scratch = np.empty((n, cash_demand.shape[0], layout.NRES))
        paths.paths(X, M, cash_demand, False, True, scratch, np.empty((1, 1, 2)), cash)
        out["cash_path"][rows, :, :, 0] = 0.0
        out["cash_path"][rows, :, :M, 1:] = cash
        out["cash_path"][rows, :, M:, 1:] = cash[:, :, -1:]
    if "breakeven_demand" in want:
        be = np.empty((n, 4))
        breakeven.breakeven(X, M, *BREAKEVEN_RANGE, BREAKEVEN_STEP, BREAKEVEN_FINE,
                       BISECTION_STEPS, be)
        out["breakeven_demand"][rows, 0] = np.nan
        out["breakeven_demand"][rows, 1:] = be
    G = x["gpus_per_node"][rows]
    per_sample = {
        "api_price_per_mtok": lambda: S[:, layout.P_MEAN] * 1e6,
        "list_price_per_mtok": lambda: S[:, layout.BLEND],
        "node_capacity": lambda: S[:, layout.CAP0],
        "node_api_revenue_per_hour": lambda: (
            G * x["reference_tokens_per_gpu_hour"][rows] / x["throughput_multiple"][rows]
            * S[:, layout.P0]),
        "rent_per_node_hour": lambda: G * x["gpu_rent_per_hour"][rows],
        "implied_valley_factor": lambda: ARTICLE_REVENUE_PER_GPU_HOUR / (
            x["reference_tokens_per_gpu_hour"][rows] * S[:, layout.BLEND] / 1e6),
    }
    for name in want & PER_SAMPLE:
        out[name][rows] = per_sample[name]()


DIMS = {
    "npv": ("demand", "strategy"), "saving": ("demand", "strategy"),
    "cost": ("demand", "strategy"), "payback_months": ("demand", "strategy"),
    "peak_cash_need": ("demand", "strategy"), "irr": ("demand", "strategy"),
    "breakeven_demand": ("strategy",), "nodes": ("demand",), "storage_tb": ("demand",),
    "initial_investment": ("demand",), "investment": ("demand",), "gpu_share": ("demand",),
    "storage_to_gpu_ratio": ("demand",), "cost_component": ("demand", "component"),
    "cash_path": ("cash_demand", "month", "strategy"),
}


def model(inputs: xr.Dataset) -> xr.Dataset:
    """Cash flows, npv, level monthly saving and derived outputs of the five strategies.

    Parameters
    ----------
    inputs : xr.Dataset
        One variable per input of :data:`INPUTS` along ``sample``; coordinate ``demand``
        in tokens/month. Optional attrs: ``outputs`` (the names to compute; all when
        absent) and ``report`` (``{"demand": [...]}``, the demands of ``cash_path``;
        :data:`REPORT_DEMANDS` when absent).

    Returns
    -------
    xr.Dataset
        ``npv``, ``saving``, ``cost``, ``payback_months``, ``peak_cash_need``, ``irr``
        (sample, demand, strategy); ``breakeven_demand`` (sample, strategy); ``nodes``,
        ``storage_tb``, ``initial_investment``, ``investment``, ``gpu_share``,
        ``storage_to_gpu_ratio`` (sample, demand) of buy; ``cost_component`` (sample,
        demand, component) of buy; ``cash_path`` (sample, cash_demand, month, strategy);
        and per sample ``api_price_per_mtok``, ``list_price_per_mtok``, ``node_capacity``,
        ``node_api_revenue_per_hour``, ``rent_per_node_hour``, ``implied_valley_factor``.
        Units in attrs.

    Raises
    ------
    ModelError
        When an input lies outside its :data:`INPUTS` rule, naming the input, the sample
        and the value; or when an output is NaN where it must not be, naming the sample's
        input values.
    """
    check_samples(inputs, SPEC, NAME)
    want = wanted_outputs(inputs) & set(OUTPUT_ATTRS)
    demand = np.asarray(inputs["demand"].values, dtype=float)
    cash_demand = _report_demands(inputs)
    x = {k: np.asarray(inputs[k].values, dtype=float).reshape(-1) for k in INPUTS}
    rows = len(x["node_price"])
    months = int(max(1.0, np.rint(12.0 * x["horizon_years"]).max(initial=1.0)))
    arrays = {name: np.empty(_shape(name, rows, demand.size, cash_demand.size, months))
              for name in OUTPUT_ATTRS if name in want}  # in a fixed order
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # NaN: reported below
        for i in range(0, rows, ROW_BLOCK):
            _fill(arrays, slice(i, i + ROW_BLOCK), x, demand, cash_demand, want)
    coords = {
        "demand": inputs["demand"],
        "strategy": list(STRATEGIES),
        "component": list(COMPONENTS),
        "cash_demand": ("cash_demand", cash_demand, {"units": "tokens/month"}),
        "month": ("month", np.arange(months), {"units": "month"}),
    }
    data = {name: xr.Variable(("sample", *DIMS.get(name, ())), arr,
                              dict(zip(("units", "long_name"), OUTPUT_ATTRS[name], strict=True)))
            for name, arr in arrays.items()}
    used = {d for v in data.values() for d in v.dims}
    out = xr.Dataset(data, coords={k: v for k, v in coords.items() if k in used})
    checked = out.drop_vars([n for n in ("irr",) if n in out])
    check_outputs(checked, inputs, NAME, nan_allowed={"breakeven_demand": {"strategy": "api"}})
    return out


OUTPUT_ATTRS = {
    "cost": ("USD/month", "level monthly equivalent of the strategy's cost"),
    "saving": ("USD/month", "level monthly equivalent of the npv (> 0: beats the API)"),
    "npv": ("USD", "present value of the strategy's cash flows minus the API's"),
    "payback_months": ("month", "first month the cumulative discounted flow is >= 0"),
    "peak_cash_need": ("USD", "deepest cumulative discounted flow below 0"),
    "irr": ("1/year", "internal rate of return of the flows (buy, hybrid)"),
    "breakeven_demand": ("tokens/month", "smallest demand at which the strategy's npv >= 0"),
    "nodes": ("1", "buy's fleet at the horizon"),
    "storage_tb": ("TB", "buy's KV-cache storage at the horizon, with overhead"),
    "initial_investment": ("USD", "buy's month-0 purchase of nodes and SSDs"),
    "investment": ("USD", "buy's purchases over the horizon, nodes and SSDs, undiscounted"),
    "gpu_share": ("1", "share of the nodes in buy's investment"),
    "storage_to_gpu_ratio": ("1", "buy's SSD purchases as a fraction of its node purchases"),
    "cost_component": ("USD/month", "buy's level monthly cost by component"),
    "cash_path": ("USD", "cumulative discounted flow at the report demands"),
    "api_price_per_mtok": ("USD/Mtok", "blended API price averaged over the horizon"),
    "list_price_per_mtok": ("USD/Mtok", "blended API list price today"),
    "node_capacity": ("tokens/month", "tokens one self-hosted node serves at month 0"),
    "node_api_revenue_per_hour": ("USD/hour", "API bill of the load one full node serves"),
    "rent_per_node_hour": ("USD/hour", "rent of one node's GPUs"),
    "implied_valley_factor": ("1", "38 USD/GPU-hour over the API bill of a reference GPU"),
}

model.spec = SPEC  # type: ignore[attr-defined]  # a function attribute, read by spec_of
