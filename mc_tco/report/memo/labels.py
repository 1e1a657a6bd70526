"""Plain words for the model's inputs: what a reader of the memo's body sees instead of a
variable name (the appendix and the CSV keep the names)."""

from __future__ import annotations

__all__ = ["PLAIN", "plain"]

#: input name -> what it means, in a few plain words
PLAIN = {
    "api_price_level": "API price level (× today's list price)",
    "api_price_annual_change": "yearly change of API prices",
    "output_share": "share of tokens that are output",
    "api_cache_hit_rate": "share of input billed at the cache-hit price",
    "reference_tokens_per_gpu_hour": "tokens a GPU serves per hour at DeepSeek",
    "throughput_multiple": "how many times faster DeepSeek's stack is than ours",
    "throughput_final_ratio": "how much of that gap we close by learning",
    "learning_months": "months it takes us to learn",
    "utilization": "how busy a fleet sized for all demand is",
    "hybrid_utilization": "how busy a base-load fleet is",
    "ramp_months": "months until demand reaches its run-rate",
    "demand_annual_growth": "yearly growth of demand",
    "setup_months": "months before our own stack serves traffic",
    "node_price": "price of an 8×B300 server",
    "gpu_rent_per_hour": "rent of one GPU per hour",
    "gpu_price_annual_change": "yearly change of GPU prices and rents",
    "node_annual_depreciation": "yearly loss of a server's resale value",
    "node_power_kw": "power a server draws",
    "pue": "data-centre overhead on power (PUE)",
    "electricity_price": "electricity price",
    "maintenance_fraction": "yearly upkeep as a share of the hardware price",
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
    "horizon_years": "years the decision covers",
}


def plain(name: str) -> str:
    """The plain label of an input, or its name when it has none."""
    return PLAIN.get(name, name.replace("_", " "))
