"""Plain words for the model's inputs: what a reader of the memo's body sees instead of a
variable name (the appendix and the CSV keep the names)."""

from __future__ import annotations

__all__ = ["PLAIN", "plain"]

#: input name -> what it means, in a few plain words (the TCO model's inputs, version 3)
PLAIN = {
    "price_input_cache_hit": "API list price of cached input",
    "price_input_cache_miss": "API list price of uncached input",
    "price_output": "API list price of output",
    "api_price_level": "API price level (× today's list price)",
    "api_price_annual_change": "yearly change of API prices",
    "api_price_cut_size": "size of a one-off API price cut",
    "api_price_cut_month": "month of that API price cut",
    "api_offpeak_share": "share of tokens billed at off-peak prices",
    "api_offpeak_discount": "off-peak discount on API prices",
    "output_share": "share of tokens that are output",
    "api_cache_hit_rate": "share of input billed at the cache-hit price",
    "reference_tokens_per_gpu_hour": "tokens a GPU serves per hour at DeepSeek",
    "reference_output_share": "share of output in DeepSeek's own traffic",
    "reference_cache_hit_rate": "cache-hit rate of DeepSeek's own traffic",
    "work_cache_hit": "GPU work of a cached input token (× an uncached one)",
    "work_output": "GPU work of an output token (× an uncached input one)",
    "self_cache_hit_ratio": "our cache-hit rate (× the API's)",
    "throughput_multiple": "how many times faster DeepSeek's stack is than ours",
    "throughput_final_ratio": "how much of that gap we close by learning",
    "learning_months": "months it takes us to learn",
    "scale_efficiency_single_node": "speed of a one-server deployment (× a large one)",
    "scale_full_nodes": "servers a deployment needs to run at full speed",
    "utilization": "highest load that still meets latency targets",
    "peak_to_average": "busiest hours' load (× the average)",
    "peak_hours_share": "share of hours at the busiest load",
    "spare_fraction": "spare servers per serving server",
    "gpus_per_node": "GPUs per server",
    "ramp_months": "months until demand reaches its run-rate",
    "demand_annual_growth": "yearly growth of demand",
    "demand_realization": "actual demand (× the plan)",
    "setup_months": "months before our own stack serves traffic",
    "cancel_month": "month the project is cancelled",
    "stop_month": "month self-hosting must stop",
    "node_price": "price of an 8×B300 server",
    "gpu_rent_per_hour": "rent of one GPU per hour",
    "reserved_discount": "discount of a 12-month GPU reservation",
    "reserved_term_months": "months of one GPU reservation",
    "gpu_price_annual_change": "yearly change of GPU prices and rents",
    "node_annual_depreciation": "yearly loss of a server's resale value",
    "owned_resale_fraction": "what idle owned servers would sell for (× a new one)",
    "network_capex_fraction": "network gear bought with each server (× its price)",
    "horizon_years": "years the decision covers",
    "node_power_kw": "power a server draws",
    "pue": "data-centre overhead on power (PUE)",
    "electricity_price": "electricity price",
    "colocation_per_kw_month": "colocation price per kW and month",
    "maintenance_fraction": "yearly support and spares as a share of the hardware price",
    "kv_kb_per_token": "KV-cache size per token",
    "kv_ttl_days": "days the KV cache is kept",
    "kv_unique_fraction": "share of tokens whose KV cache is stored anew",
    "ssd_price_per_tb": "SSD price per TB",
    "storage_overhead": "storage overhead (servers, replication, free space)",
    "staff_fte": "engineers dedicated to self-hosting",
    "staff_cost_per_fte": "yearly cost of one engineer",
    "discount_rate": "cost of capital",
    "regulatory_premium": "extra discount for regulatory risk",
    "sovereignty_value": "value of keeping data in house",
    "tax_rate": "corporate income tax rate",
    "tax_depreciation_years": "years over which servers are written off for tax",
    "bonus_depreciation": "share of purchases written off for tax at once",
}


def plain(name: str) -> str:
    """The plain label of an input, or its name when it has none."""
    return PLAIN.get(name, name.replace("_", " "))
