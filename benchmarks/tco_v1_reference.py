"""Version 1 of the TCO model (steady state), kept as the speed reference of model_speed.py.

This is the model of ``shared/MODEL.md``, reconstructed from the article "Does Self-Hosting
DeepSeek Pay Off for Mid-Size Companies". Every quantity of its input list is an input of
the book (constants included); :data:`model.spec` lists them with units and allowed ranges.

All costs are monthly equivalents in USD (H = 730 hours a month, 30.4 days a month)::

    list_blend   = api_price_level * [(1-output_share) * (hit*price_hit + (1-hit)*price_miss)
                                      + output_share * price_output]          [USD/Mtok]
    trend        = mean over months k = 0..12L-1 of (1 + api_price_annual_change)**(k/12)
    p            = list_blend * trend / 1e6                                   [USD/token]
    cost[api]    = p * demand
    node_capacity= G * reference_revenue_per_gpu_hour / (valley_price_factor * list_blend)
                   * 1e6 / throughput_multiple * H * utilization             [tokens/month]
    nodes        = max(1, ceil(demand / node_capacity))
    crf          = r / (1 - (1+r)**(-12L)),  r = (discount_rate + regulatory_premium) / 12
    cost[buy]    = staff + nodes*(node_price*crf + power + upkeep) + storage
    cost[rent]   = staff + nodes*G*gpu_rent_per_hour*H + storage
    cost[owned]  = staff + nodes*(power + upkeep) + storage
    saving[s]    = cost[api] - cost[s] + sovereignty_value     (saving[api] = 0)

Choices where MODEL.md leaves room, and why:

* ``trend`` uses the closed form of the geometric mean, ``expm1(M*l)/(M*expm1(l))`` with
  ``l = log1p(change)/12`` and ``M = 12L``; it equals the month-by-month mean for whole
  months and stays exact when the change is close to 0 (no 0/0).
* ``npv[s]`` is the present value over the ``12L`` months, at the same monthly rate ``r``,
  of the monthly saving: ``saving / crf``. Because the hardware enters the monthly cost as
  ``price * crf``, this equals "minus the purchase, plus the discounted operating savings"
  for buy, without a second cash-flow model that could drift from the first.
* ``breakeven_demand[s]`` is exact (see :func:`breakeven_demand`): per node count ``n`` the
  saving is linear in demand, so the first ``n`` whose interval holds a root gives it.
* ``api_price_level`` scales the tokens that DeepSeek's 38 USD/GPU-hour buys (revenue /
  price) as MODEL.md writes; it therefore cancels in the API-equivalent revenue of a node
  and acts only through the fixed costs (staff, the first node) and storage.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr

from mc_tco.book import Grid
from mc_tco.models import InputRule, ModelSpec, check_outputs, check_samples

NAME = "mc_tco.models.tco:model"
HOURS_PER_MONTH = 730.0
DAYS_PER_MONTH = 30.4
STRATEGIES = ("api", "buy", "rent", "owned")
COMPONENTS = ("hardware", "power", "upkeep", "storage", "staff")

INF = math.inf
_I = InputRule


def _P(unit, description, high=INF):
    return InputRule(unit, 0.0, high, description, low_open=True)


INPUTS = {
    "price_input_cache_hit": _I("USD/Mtok", 0, INF, "API list price of cached input tokens"),
    "price_input_cache_miss": _I("USD/Mtok", 0, INF, "API list price of uncached input tokens"),
    "price_output": _I("USD/Mtok", 0, INF, "API list price of output tokens"),
    "api_price_level": _P("1", "multiplier on the API list prices"),
    "api_price_annual_change": InputRule(
        "1/year", -1.0, 10.0, "yearly change of API prices", low_open=True
    ),
    "output_share": _I("1", 0, 1, "fraction of tokens that are output"),
    "api_cache_hit_rate": _I("1", 0, 1, "fraction of input tokens billed as cache hits"),
    "reference_revenue_per_gpu_hour": _P("USD/GPU-hour", "DeepSeek's revenue per GPU-hour"),
    "valley_price_factor": _P("1", "valley price as a fraction of list price", 1.0),
    "throughput_multiple": _P("1", "DeepSeek's per-GPU throughput / self-hoster's"),
    "utilization": _P("1", "average fraction of node capacity used", 1.0),
    "gpus_per_node": _I("GPU", 1, INF, "GPUs per node"),
    "node_price": _P("USD", "price of one 8xB300 node"),
    "gpu_rent_per_hour": _I("USD/GPU-hour", 0, INF, "rental price per GPU-hour"),
    "amortization_years": _I("year", 1 / 12, 100, "amortisation horizon (at least a month)"),
    "node_power_kw": _I("kW", 0, INF, "power draw of one node"),
    "pue": _I("1", 1, INF, "power usage effectiveness of the data centre"),
    "electricity_price": _I("USD/kWh", 0, INF, "electricity price"),
    "maintenance_fraction": _I("1/year", 0, INF, "yearly upkeep as a fraction of node price"),
    "kv_kb_per_token": _I("KB/token", 0, INF, "KV cache stored per token"),
    "kv_ttl_days": _I("day", 0, INF, "time a KV cache entry is kept"),
    "kv_unique_fraction": _I("1", 0, 1, "fraction of tokens whose KV is newly stored"),
    "ssd_price_per_tb": _I("USD/TB", 0, INF, "SSD price"),
    "storage_overhead": _I("1", 1, INF, "servers, replication, free space on top of raw SSD"),
    "staff_fte": _I("FTE", 0, INF, "dedicated engineers"),
    "staff_cost_per_fte": _I("USD/year", 0, INF, "loaded cost of one engineer"),
    "discount_rate": _I("1/year", 0, 1, "cost of capital"),  # negative rates: not supported
    "regulatory_premium": _I("1/year", 0, 1, "extra discount rate for regulatory risk"),
    "sovereignty_value": _I("USD/month", -INF, INF, "value of keeping data in house"),
}

REPORT_DEMANDS = [1e11, 3e11, 5e11, 1e12, 3e12]

SPEC = ModelSpec(
    inputs=INPUTS,
    grid={
        "demand": Grid(
            "demand", np.geomspace(1e9, 1e13, 41), "tokens/month", "log", "monthly token demand"
        )
    },
    targets=("saving",),
    report={"demand": REPORT_DEMANDS, "strategy": ["buy", "rent", "owned"]},
    focus={"demand": 5e11, "strategy": "buy"},
    distributions=("breakeven_demand",),
    indicator_label="beats the API",
)


def _v(ds: xr.Dataset, name: str) -> xr.DataArray:
    return ds[name]


def mean_growth(annual_change, months):
    """Mean of ``(1 + annual_change) ** (k / 12)`` over ``k = 0 .. months - 1``.

    Closed form ``expm1(M l) / (M expm1(l))`` with ``l = log1p(annual_change) / 12``,
    exact as ``annual_change -> 0`` (where the mean is 1).
    """
    lg = np.log1p(annual_change) / 12.0
    small = np.abs(lg) < 1e-12
    safe = xr.where(small, 1.0, lg) if isinstance(lg, xr.DataArray) else np.where(small, 1.0, lg)
    ratio = np.expm1(months * safe) / (months * np.expm1(safe))
    # second-order series for tiny l: 1 + (M-1) l / 2
    series = 1.0 + (months - 1) * lg / 2.0
    if isinstance(ratio, xr.DataArray):
        return xr.where(small, series, ratio)
    return np.where(small, series, ratio)


def capital_recovery_factor(annual_rate, years):
    """Monthly capital recovery factor ``r / (1 - (1 + r)**(-12 L))`` with ``r`` monthly.

    Equals ``1 / (12 L)`` (straight-line) when the rate is 0.
    """
    r = annual_rate / 12.0
    months = 12.0 * years
    small = np.abs(r) < 1e-12
    safe = xr.where(small, 1.0, r)
    crf = -safe / np.expm1(-months * np.log1p(safe))
    return xr.where(small, 1.0 / months + r / 2.0, crf)


def breakeven_demand(fixed, node_cost, margin, capacity):
    """Smallest demand at which ``margin*d - fixed - nodes(d)*node_cost >= 0`` (numpy kernel).

    Parameters
    ----------
    fixed : array
        Fixed monthly cost net of any fixed benefit, ``staff - sovereignty_value`` [USD/month].
    node_cost : array
        Monthly cost of one node for the strategy [USD/month].
    margin : array
        API price minus storage cost per token, ``p - storage/demand`` [USD/token].
    capacity : array
        Tokens one node serves a month, ``node_capacity`` [tokens/month].

    Returns
    -------
    array
        Break-even demand in tokens/month, ``inf`` where the strategy never breaks even,
        0 where it does from the first token.

    Notes
    -----
    With ``nodes(d) = max(1, ceil(d / capacity))`` the saving is linear on each node
    interval ``((n-1) cap, n cap]``, with root ``d_n = (fixed + n node_cost) / margin``.
    The first ``n`` with ``d_n <= n cap`` gives the break-even ``max(d_n, 0)`` (its root
    cannot lie below the interval, or interval ``n-1`` would have held one). That holds iff
    ``fixed <= n (margin cap - node_cost)``: ``n = 1`` if it already holds, else
    ``ceil(fixed / (margin cap - node_cost))`` when a full node earns a positive margin,
    else never. With ``margin <= 0`` the saving falls with demand, so only ``d -> 0`` can
    break even.
    """
    fixed, node_cost, margin, capacity = np.broadcast_arrays(
        *(np.asarray(a, dtype=float) for a in (fixed, node_cost, margin, capacity))
    )
    out = np.full(fixed.shape, np.inf)
    node_margin = margin * capacity - node_cost
    pos = margin > 0
    first = pos & (fixed <= node_margin)
    later = pos & ~first & (node_margin > 0)
    n = np.ones(fixed.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        n[later] = np.ceil(fixed[later] / node_margin[later])
        # guard the ceil against rounding: the root must fit in the n-th node interval
        ok = first | later
        root = (fixed + n * node_cost) / np.where(pos, margin, 1.0)
        bump = ok & (root > n * capacity * (1 + 1e-12))
        n[bump] += 1
        root = (fixed + n * node_cost) / np.where(pos, margin, 1.0)
    out[ok] = np.maximum(root[ok], 0.0)
    out[~pos & (fixed + node_cost <= 0)] = 0.0
    return out


def model(inputs: xr.Dataset) -> xr.Dataset:
    """Monthly cost, saving and derived outputs of the four strategies.

    Parameters
    ----------
    inputs : xr.Dataset
        One variable per input of :data:`INPUTS` along ``sample``; coordinate ``demand``
        in tokens/month.

    Returns
    -------
    xr.Dataset
        ``cost``, ``saving``, ``npv`` (sample, demand, strategy); ``breakeven_demand``
        (sample, strategy); ``nodes``, ``storage_tb``, ``initial_investment``,
        ``gpu_share``, ``storage_to_gpu_ratio``, ``payback_months`` (sample, demand);
        ``cost_component`` (sample, demand, component) of buy; and per sample
        ``api_price_per_mtok``, ``list_price_per_mtok``, ``node_capacity``,
        ``node_api_revenue_per_hour``, ``rent_per_node_hour``. Units in attrs.

    Raises
    ------
    ModelError
        When an input lies outside its :data:`INPUTS` rule (e.g. ``utilization`` > 1, a
        negative price, ``pue`` < 1), naming the input, the sample and the value; or when
        an output is NaN, naming the sample's input values.
    """
    # a notebook may call the model directly, bypassing the book checks: same rules here
    check_samples(inputs, SPEC, NAME)
    x = inputs
    demand = x["demand"]
    G = _v(x, "gpus_per_node")
    L = _v(x, "amortization_years")
    hit = _v(x, "api_cache_hit_rate")
    out_share = _v(x, "output_share")

    list_blend = (
        (1 - out_share)
        * (hit * x["price_input_cache_hit"] + (1 - hit) * x["price_input_cache_miss"])
        + out_share * x["price_output"]
    ) * x["api_price_level"]
    trend = mean_growth(x["api_price_annual_change"], 12.0 * L)
    p = list_blend * trend / 1e6
    cost_api = p * demand

    tokens_per_gpu_hour_ref = (
        x["reference_revenue_per_gpu_hour"] / (x["valley_price_factor"] * list_blend) * 1e6
    )
    tokens_per_gpu_hour_self = tokens_per_gpu_hour_ref / x["throughput_multiple"]
    node_capacity = G * tokens_per_gpu_hour_self * HOURS_PER_MONTH * x["utilization"]
    nodes = np.maximum(1.0, np.ceil(demand / node_capacity))

    crf = capital_recovery_factor(x["discount_rate"] + x["regulatory_premium"], L)
    power_month = x["node_power_kw"] * x["pue"] * HOURS_PER_MONTH * x["electricity_price"]
    upkeep_month = x["node_price"] * x["maintenance_fraction"] / 12.0
    storage_tb_per_token = (
        x["kv_unique_fraction"]
        * (x["kv_ttl_days"] / DAYS_PER_MONTH)
        * x["kv_kb_per_token"]
        * 1e3
        / 1e12
        * x["storage_overhead"]
    )
    storage_tb = demand * storage_tb_per_token
    storage_cost_per_token = storage_tb_per_token * x["ssd_price_per_tb"] * crf
    storage_month = demand * storage_cost_per_token
    staff_month = x["staff_fte"] * x["staff_cost_per_fte"] / 12.0
    sovereignty = x["sovereignty_value"]

    node_cost = {
        "buy": x["node_price"] * crf + power_month + upkeep_month,
        "rent": G * x["gpu_rent_per_hour"] * HOURS_PER_MONTH,
        "owned": power_month + upkeep_month,
    }
    strategy = xr.DataArray(list(STRATEGIES), dims="strategy", name="strategy")
    cost = xr.concat(
        [cost_api] + [staff_month + nodes * node_cost[s] + storage_month for s in STRATEGIES[1:]],
        dim=strategy,
        coords="minimal",
        join="exact",
    )
    saving = (cost.sel(strategy="api") - cost + sovereignty).where(strategy != "api", 0.0)
    npv = saving / crf

    margin = p - storage_cost_per_token
    breakeven = xr.concat(
        [xr.full_like(p, np.nan)]
        + [
            xr.apply_ufunc(
                breakeven_demand, staff_month - sovereignty, node_cost[s], margin, node_capacity
            )
            for s in STRATEGIES[1:]
        ],
        dim=strategy,
        coords="minimal",
    )

    gpu_capex = nodes * x["node_price"]
    storage_capex = storage_tb * x["ssd_price_per_tb"]
    initial_investment = gpu_capex + storage_capex
    operating_saving = cost_api - (staff_month + nodes * (power_month + upkeep_month)) + sovereignty
    payback = xr.where(operating_saving > 0, initial_investment / operating_saving.where(
        operating_saving > 0, 1.0), np.inf)

    components = xr.concat(
        [
            nodes * x["node_price"] * crf,
            nodes * power_month,
            nodes * upkeep_month,
            storage_month,
            (staff_month + 0 * demand),
        ],
        dim=xr.DataArray(list(COMPONENTS), dims="component", name="component"),
        coords="minimal",
    )

    out = xr.Dataset(
        {
            "cost": cost.transpose("sample", "demand", "strategy"),
            "saving": saving.transpose("sample", "demand", "strategy"),
            "npv": npv.transpose("sample", "demand", "strategy"),
            "breakeven_demand": breakeven.transpose("sample", "strategy"),
            "nodes": nodes.transpose("sample", "demand"),
            "storage_tb": storage_tb.transpose("sample", "demand"),
            "initial_investment": initial_investment.transpose("sample", "demand"),
            "gpu_share": (gpu_capex / initial_investment).transpose("sample", "demand"),
            "storage_to_gpu_ratio": (storage_capex / gpu_capex).transpose("sample", "demand"),
            "payback_months": payback.transpose("sample", "demand"),
            "cost_component": components.transpose("sample", "demand", "component"),
            "api_price_per_mtok": p * 1e6,
            "list_price_per_mtok": list_blend,
            "node_capacity": node_capacity,
            "node_api_revenue_per_hour": G * tokens_per_gpu_hour_self * p,
            "rent_per_node_hour": G * x["gpu_rent_per_hour"],
        }
    )
    for name, (unit, long_name) in OUTPUT_ATTRS.items():
        out[name].attrs.update(units=unit, long_name=long_name)
    check_outputs(out, inputs, NAME, nan_allowed={"breakeven_demand": {"strategy": "api"}})
    return out


OUTPUT_ATTRS = {
    "cost": ("USD/month", "monthly-equivalent cost of the strategy"),
    "saving": ("USD/month", "cost of the API minus cost of the strategy, plus sovereignty value"),
    "npv": ("USD", "present value of the monthly saving over the amortisation horizon"),
    "breakeven_demand": ("tokens/month", "smallest demand at which the strategy saves money"),
    "nodes": ("1", "8-GPU nodes needed"),
    "storage_tb": ("TB", "KV-cache storage needed, with overhead"),
    "initial_investment": ("USD", "purchase of nodes and SSDs (buy)"),
    "gpu_share": ("1", "share of the nodes in the initial investment (buy)"),
    "storage_to_gpu_ratio": ("1", "KV-cache SSD purchase as a fraction of the GPU purchase"),
    "payback_months": ("month", "initial investment / monthly operating saving (buy)"),
    "cost_component": ("USD/month", "monthly cost of buy by component"),
    "api_price_per_mtok": ("USD/Mtok", "blended API price averaged over the horizon"),
    "list_price_per_mtok": ("USD/Mtok", "blended API list price today"),
    "node_capacity": ("tokens/month", "tokens one self-hosted node serves a month"),
    "node_api_revenue_per_hour": ("USD/hour", "API bill of the load one full node serves"),
    "rent_per_node_hour": ("USD/hour", "rent of one node's GPUs"),
}

model.spec = SPEC
