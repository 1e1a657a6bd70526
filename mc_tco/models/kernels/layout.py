"""The kernels' buffers, declared once: each is an ordered table, and its index constants
(``Q``, ``T_``, ``PAY`` ...) are numbered from it at import, in table order.

* :data:`INPUT_COLUMNS`: the columns of the input matrix ``X`` (rows, inputs), the
  model's inputs (units: ``mc_tco.models.tco.INPUTS``); index constants ``HIT`` ...
  ``SOVV``, names in :data:`COLUMNS`.
* :data:`MONTH_VECTORS`: the row buffer ``k`` (NV, months) that
  :func:`.factors.row` fills for one row of ``X``, one vector over the months ``t = 0 ..
  T-1`` each.
* :data:`ROW_SCALARS`: the row buffer ``s`` (NS,) that it fills with the row's scalars.
* :data:`PATH_FIELDS`: the last axis (NRES) of :func:`.paths.paths`' result, fields of
  one or :data:`NK` entries (one per strategy of :data:`STRATEGIES`, in that order).

``D[t]`` is the discount factor of month ``t``, ``v**t`` with ``v = (1 + discount_rate +
regulatory_premium) ** (-1/12)``; "per unit of demand" is per token/month of run-rate
demand. The tables, as numbered (name, unit, what it holds):
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

HOURS_PER_MONTH = 730.0
DAYS_PER_MONTH = 30.4
#: relative tolerance of the node counts: a demand that is an exact multiple of the
#: capacity does not buy one more node (or one fewer) through rounding
EPS = 1e-9

#: the strategies of the kernels' outputs, in order (the model's without ``api``; only
#: :func:`.npv.npv_grid` writes all five, api first)
STRATEGIES = ("buy", "rent", "owned", "hybrid")
NK = len(STRATEGIES)

#: (index constant, input) of the input matrix's columns
INPUT_COLUMNS = (
    ("HIT", "price_input_cache_hit"), ("MISS", "price_input_cache_miss"),
    ("OUT", "price_output"), ("LEVEL", "api_price_level"),
    ("API_CHG", "api_price_annual_change"), ("OSHARE", "output_share"),
    ("HITRATE", "api_cache_hit_rate"), ("REF", "reference_tokens_per_gpu_hour"),
    ("MULT", "throughput_multiple"), ("FINAL", "throughput_final_ratio"),
    ("LEARN", "learning_months"), ("UTIL", "utilization"), ("HUTIL", "hybrid_utilization"),
    ("G", "gpus_per_node"), ("RAMP", "ramp_months"), ("GROWTH", "demand_annual_growth"),
    ("SETUP", "setup_months"), ("NODE", "node_price"), ("RENT", "gpu_rent_per_hour"),
    ("HW_CHG", "gpu_price_annual_change"), ("DEP", "node_annual_depreciation"),
    ("HORIZON", "horizon_years"), ("KW", "node_power_kw"), ("PUE", "pue"),
    ("ELEC", "electricity_price"), ("MAINT", "maintenance_fraction"),
    ("KVKB", "kv_kb_per_token"), ("TTL", "kv_ttl_days"), ("UNIQUE", "kv_unique_fraction"),
    ("SSDP", "ssd_price_per_tb"), ("OVER", "storage_overhead"), ("FTE", "staff_fte"),
    ("FTE_COST", "staff_cost_per_fte"), ("DISC", "discount_rate"),
    ("REG", "regulatory_premium"), ("SOVV", "sovereignty_value"),
)
#: the model's inputs, in the column order of the kernels' input matrix ``X``
COLUMNS = tuple(name for _, name in INPUT_COLUMNS)

#: (index constant, unit, what it holds) of ``k[vector, t]``
MONTH_VECTORS = (
    ("Q", "node/(tokens/month)", "nodes a fleet for all demand needs per unit of demand, "
     "GD[t] / cap[t]"),
    ("QH", "node/(tokens/month)", "the same at the hybrid's load, GD[t] / CAPH[t]"),
    ("GD", "1", "demand per unit of run-rate demand (ramp, then growth)"),
    ("PHI", "1", "fraction of the month a self-hosted fleet serves (0 during setup)"),
    ("CAPH", "tokens/month", "one node's capacity at the hybrid's load"),
    ("VB", "USD/node", "buy's weight of a node held in month t, W[t] - W[t+1]; W[u]: the "
     "discounted cost of a node bought in month u (price, upkeep and power to the "
     "horizon, less its discounted resale)"),
    ("VO", "USD/node", "owned's: the node's discounted power and upkeep in month t"),
    ("VR", "USD/node", "rent's: the node's discounted rent in month t, D PHI GRH"),
    ("DP", "USD/token", "discounted API price, D[t] P[t]"),
    ("DD", "1", "D[t] - D[t+1] (D[T] = 0), the weight of a storage peak held from t"),
    ("PP", "USD/node", "node price in month t"),
    ("GRH", "USD/month", "rent of one node's GPUs for month t"),
    ("D", "1", "discount factor of month t"),
    ("P", "USD/token", "API price in month t (blended, at the price level)"),
    ("RS", "1", "resale value at the horizon of a node bought in month t, per USD paid"),
)

#: (index constant, unit, what it holds) of ``s[scalar]``
ROW_SCALARS = (
    ("T_", "month", "months of the row's horizon, round(12 horizon_years), at least 1"),
    ("SSDTB", "USD/(tokens/month)", "SSD price of the KV storage per served token/month, "
     "TBPT ssd_price_per_tb"),
    ("LB", "USD/(tokens/month)", "discounted API bill served in house per unit of demand, "
     "less its SSDs (at the running peak)"),
    ("CB", "USD", "(sovereignty_value - staff) ANN"),
    ("STAFF", "USD/month", "staff_fte staff_cost_per_fte / 12"),
    ("SOV", "USD/month", "sovereignty_value"),
    ("POWER", "USD/month", "electricity of one node for a month"),
    ("MF12", "1/month", "maintenance_fraction / 12"),
    ("NODE0", "USD/node", "node_price (month 0)"),
    ("SSD", "USD/TB", "ssd_price_per_tb"),
    ("TBPT", "TB/(tokens/month)", "KV storage per served token/month, with overhead"),
    ("DT", "1", "discount factor at the horizon, D[T]"),
    ("ANN", "month", "annuity, sum_t D[t]: npv / ANN is the level monthly equivalent"),
    ("BLEND", "USD/Mtok", "blended API list price at the price level, month 0"),
    ("API_LEVEL", "USD/token", "level monthly API bill per unit of demand, "
     "sum_t D P GD / ANN"),
    ("MAX_QH", "node/(tokens/month)", "max_t QH[t]"),
    ("CAP0", "tokens/month", "one node's capacity in month 0"),
    ("P_MEAN", "USD/token", "API price averaged over the months, undiscounted"),
    ("P0", "USD/token", "API price in month 0"),
)

#: (index constant, width, unit, what it holds) of :func:`.paths.paths`' ``res[..., f]``
PATH_FIELDS = (
    ("PAY", NK, "month", "payback month: first t + 1 with cumulative discounted flow >= 0"),
    ("PEAK", NK, "USD", "peak cash need: minus the lowest cumulative discounted flow"),
    ("NODES", 1, "node", "buy's fleet at the horizon"),
    ("TB", 1, "TB", "buy's KV storage at the horizon, with overhead"),
    ("INIT", 1, "USD", "buy's month-0 purchase of nodes and SSDs"),
    ("CAPN", 1, "USD", "buy's node purchases, undiscounted"),
    ("CAPS", 1, "USD", "buy's SSD purchases, undiscounted"),
    ("COMP", 6, "USD/month", "buy's level monthly cost by component (hardware, power, "
     "upkeep, storage, staff, setup_api)"),
    ("NPV", NK, "USD", "npv: the cumulative discounted flow at the horizon"),
)


def _number(names: Iterable[str], widths: Iterable[int]) -> tuple[dict[str, int], int]:
    """``{name: first index}`` of consecutive fields of ``widths``, and the total width."""
    index: dict[str, int] = {}
    at = 0
    for name, width in zip(names, widths, strict=True):
        index[name] = at
        at += width
    return index, at


def _table(title: str, rows: Sequence[tuple[str, str, str]],
           widths: Sequence[int] | None = None) -> str:
    """The docstring table of ``rows`` (name, unit, what) numbered from 0."""
    lines = ["", title, ""]
    at = 0
    for i, (name, unit, what) in enumerate(rows):
        span = f"{at}" if widths is None or widths[i] == 1 else f"{at}-{at + widths[i] - 1}"
        lines.append(f"    {span:>5}  {name:<9}  {unit:<19}  {what}")
        at += 1 if widths is None else widths[i]
    return "\n".join(lines) + "\n"


_inputs, _ = _number((n for n, _ in INPUT_COLUMNS), [1] * len(INPUT_COLUMNS))
_vectors, NV = _number((n for n, *_ in MONTH_VECTORS), [1] * len(MONTH_VECTORS))
_scalars, NS = _number((n for n, *_ in ROW_SCALARS), [1] * len(ROW_SCALARS))
_fields, NRES = _number((n for n, *_ in PATH_FIELDS), [w for _, w, *_ in PATH_FIELDS])
_declared = [*_inputs, *_vectors, *_scalars, *_fields]
if len(set(_declared)) != len(_declared) or set(_declared) & set(globals()):
    raise ImportError(f"an index constant is declared twice: {sorted(_declared)}")
globals().update(_inputs, **_vectors, **_scalars, **_fields)
# The index constants numbered above, declared for the type checker (an annotation
# alone defines no name; tests/test_tco.py checks that these are the tables' names).
# INPUT_COLUMNS
HIT: int
MISS: int
OUT: int
LEVEL: int
API_CHG: int
OSHARE: int
HITRATE: int
REF: int
MULT: int
FINAL: int
LEARN: int
UTIL: int
HUTIL: int
G: int
RAMP: int
GROWTH: int
SETUP: int
NODE: int
RENT: int
HW_CHG: int
DEP: int
HORIZON: int
KW: int
PUE: int
ELEC: int
MAINT: int
KVKB: int
TTL: int
UNIQUE: int
SSDP: int
OVER: int
FTE: int
FTE_COST: int
DISC: int
REG: int
SOVV: int
# MONTH_VECTORS
Q: int
QH: int
GD: int
PHI: int
CAPH: int
VB: int
VO: int
VR: int
DP: int
DD: int
PP: int
GRH: int
D: int
P: int
RS: int
# ROW_SCALARS
T_: int
SSDTB: int
LB: int
CB: int
STAFF: int
SOV: int
POWER: int
MF12: int
NODE0: int
SSD: int
TBPT: int
DT: int
ANN: int
BLEND: int
API_LEVEL: int
MAX_QH: int
CAP0: int
P_MEAN: int
P0: int
# PATH_FIELDS
PAY: int
PEAK: int
NODES: int
TB: int
INIT: int
CAPN: int
CAPS: int
COMP: int
NPV: int
if __doc__ is not None:  # (None under python -OO)
    __doc__ += (_table("k[vector, t] (NV vectors):", [r for r in MONTH_VECTORS])
                + _table("s[scalar] (NS scalars):", [r for r in ROW_SCALARS])
                + _table("res[..., field] (NRES):", [(n, u, w) for n, _, u, w in PATH_FIELDS],
                         [w for _, w, *_ in PATH_FIELDS]))
