"""The inputs of the cost model, version 3 (``shared/MODEL.md``): units, allowed ranges,
the values of the new inputs that give version 2 back, and the inputs earlier versions
had (a book that still uses one is refused with what replaced it)."""

from __future__ import annotations

import math

from mc_tco.models.spec import InputRule

INF = math.inf
_I = InputRule


def _P(unit: str, description: str, high: float = INF) -> InputRule:
    return InputRule(unit, 0.0, high, description, low_open=True)


def _rate(description: str) -> InputRule:
    return InputRule("1/year", -1.0, 10.0, description, low_open=True)


def _share(description: str) -> InputRule:
    return InputRule("1", 0.0, 1.0, description)


#: a month past any horizon (30 years at most): an event that never happens within it
NEVER = 1000.0

INPUTS = {
    "price_input_cache_hit": _I("USD/Mtok", 0, INF, "API list price of cached input tokens"),
    "price_input_cache_miss": _I("USD/Mtok", 0, INF, "API list price of uncached input tokens"),
    "price_output": _I("USD/Mtok", 0, INF, "API list price of output tokens"),
    "api_price_level": _P("1", "multiplier on the API list prices"),
    "api_price_annual_change": _rate("yearly change of API prices"),
    "api_price_cut_size": _share("one step cut of API prices, as a fraction of the price"),
    "api_price_cut_month": _I("month", 0, INF, "month of that cut (past the horizon: none)"),
    "api_offpeak_share": _share("share of tokens billed at off-peak prices"),
    "api_offpeak_discount": _share("discount of the off-peak price"),
    "output_share": _share("fraction of tokens that are output"),
    "api_cache_hit_rate": _share("fraction of input tokens billed as cache hits"),
    "reference_tokens_per_gpu_hour": _P(
        "tokens/GPU-hour", "tokens one GPU of DeepSeek's stack serves an hour (all-day average)"
    ),
    "reference_output_share": _share("output share of DeepSeek's serving mix"),
    "reference_cache_hit_rate": _share("cache-hit rate of DeepSeek's serving mix"),
    "work_cache_hit": _I("1", 0, INF, "GPU work of a cache-hit input token / a cache miss's"),
    "work_output": _P("1", "GPU work of an output token / a cache-miss input token's"),
    "self_cache_hit_ratio": _share("self-hoster's cache-hit rate / the API's"),
    "throughput_multiple": _P("1", "DeepSeek's per-GPU throughput / self-hoster's at month 0"),
    "throughput_final_ratio": _P("1", "final throughput multiple / initial one", 1.0),
    "learning_months": _P("month", "time constant of the self-hoster's learning"),
    "scale_efficiency_single_node": _P("1", "throughput of a one-node deployment / a large one's",
                                       1.0),
    "scale_full_nodes": _I("node", 2, INF, "nodes at which a deployment reaches full efficiency"),
    "utilization": _P("1", "highest load, as a fraction of full throughput, that meets the SLO",
                      1.0),
    "peak_to_average": _I("1", 1, INF, "busiest hours' load / the month's average load"),
    "peak_hours_share": _I("1", 0, 1, "share of the month's hours at the peak level",
                           low_open=True, high_open=True),
    "spare_fraction": _I("1", 0, INF, "spare nodes per serving node"),
    "gpus_per_node": _I("GPU", 1, INF, "GPUs per node"),
    "ramp_months": _I("month", 1, INF, "months until the run-rate demand is reached"),
    "demand_annual_growth": _rate("yearly growth of demand after the ramp"),
    "demand_realization": _P("1", "actual demand / planned demand"),
    "setup_months": _I("month", 0, INF, "months before a self-hosted fleet serves traffic"),
    "cancel_month": _I("month", 0, INF, "month the use case ends (past the horizon: never)"),
    "stop_month": _I("month", 0, INF, "month self-hosting must stop (past the horizon: never)"),
    "node_price": _P("USD", "price of one 8xB300 node at month 0"),
    "gpu_rent_per_hour": _I("USD/GPU-hour", 0, INF, "on-demand rent per GPU-hour at month 0"),
    "reserved_discount": _share("discount of a GPU reservation on the on-demand rent"),
    "reserved_term_months": _I("month", 1, 360, "months of one reservation term"),
    "gpu_price_annual_change": _rate("yearly change of node prices and GPU rent"),
    "node_annual_depreciation": _I("1/year", 0, 1, "yearly loss of a node's resale value"),
    "owned_resale_fraction": _share("what idle owned nodes would fetch today / a new node's price"),
    "network_capex_fraction": _I("1", 0, INF, "network bought with each node / its price"),
    "horizon_years": _I("year", 1 / 12, 30, "horizon of the cash flows (a month to 30 years)"),
    "node_power_kw": _I("kW", 0, INF, "power draw of one node"),
    "pue": _I("1", 1, INF, "power usage effectiveness of the data centre"),
    "electricity_price": _I("USD/kWh", 0, INF, "electricity price"),
    "colocation_per_kw_month": _I("USD/kW-month", 0, INF, "space, cooling and connectivity"),
    "maintenance_fraction": _I("1/year", 0, 1, "yearly support and spares / the price paid"),
    "kv_kb_per_token": _I("KB/token", 0, INF, "KV cache stored per token"),
    "kv_ttl_days": _I("day", 0, INF, "time a KV cache entry is kept"),
    "kv_unique_fraction": _share("fraction of served tokens whose KV is newly stored"),
    "ssd_price_per_tb": _I("USD/TB", 0, INF, "SSD price"),
    "storage_overhead": _I("1", 1, INF, "servers, replication, free space on top of raw SSD"),
    "staff_fte": _I("FTE", 0, INF, "dedicated engineers"),
    "staff_cost_per_fte": _I("USD/year", 0, INF, "loaded cost of one engineer"),
    "discount_rate": _I("1/year", 0, 1, "cost of capital"),
    "regulatory_premium": _I("1/year", 0, 1, "extra discount rate on self-hosting flows"),
    "sovereignty_value": _I("USD/month", -INF, INF, "value of keeping data in house"),
    "tax_rate": _I("1", 0, 1, "corporate income tax rate", high_open=True),
    "tax_depreciation_years": _P("year", "straight-line tax life of nodes, network and SSDs"),
    "bonus_depreciation": _share("share of capex expensed in the month it is bought"),
}

#: version 3's new inputs at values that give version 2 back (MODEL.md); the event months
#: at :data:`NEVER`, and the inputs that are irrelevant at the others' neutral values at a
#: typical value
NEUTRAL = {
    "api_price_cut_size": 0.0, "api_price_cut_month": NEVER,
    "api_offpeak_share": 0.0, "api_offpeak_discount": 0.0,
    "reference_output_share": 0.216, "reference_cache_hit_rate": 0.563,
    "work_cache_hit": 1.0, "work_output": 1.0, "self_cache_hit_ratio": 1.0,
    "scale_efficiency_single_node": 1.0, "scale_full_nodes": 16.0,
    "peak_to_average": 1.0, "peak_hours_share": 0.3, "spare_fraction": 0.0,
    "demand_realization": 1.0, "cancel_month": NEVER, "stop_month": NEVER,
    "colocation_per_kw_month": 0.0, "network_capex_fraction": 0.0,
    "reserved_discount": 0.5, "reserved_term_months": 12.0, "owned_resale_fraction": 0.0,
    "tax_rate": 0.0, "tax_depreciation_years": 5.0, "bonus_depreciation": 0.0,
}

_THROUGHPUT = (
    "throughput is now reference_tokens_per_gpu_hour, tokens one GPU of DeepSeek's stack "
    "serves an hour (about 8.3e8; 3.98e8 at the article's point), independent of the API price"
)
#: inputs of earlier versions and what replaced them
RETIRED = {
    "amortization_years": "renamed horizon_years (the months of cash flows; the article's 4)",
    "valley_price_factor": f"removed: {_THROUGHPUT}",
    "reference_revenue_per_gpu_hour": f"removed: {_THROUGHPUT}",
    "hybrid_utilization": (
        "removed: the hybrid's load follows from peak_to_average, peak_hours_share and its "
        "marginal rule"
    ),
}
