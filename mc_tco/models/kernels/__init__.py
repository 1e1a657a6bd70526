"""Month-by-month kernels of the TCO model, version 3 (``shared/MODEL.md``).

In the order of the pipeline:

* :mod:`.rows`: :func:`.rows.row_factors`, one numba kernel a row at a time: each row's
  demand-independent month vectors (demand per unit of plan, prices with the step cut and
  without, node price and rent, capacity, the share served in house, discount factors, the
  hybrid's level price, SSD cost per token and node cost) and scalars, with their index
  constants;
* :mod:`.hybrid`: :func:`.hybrid.n_star`, the hybrid's fleet rule for one month;
* :mod:`.cell`: :func:`.cell.cell`, one row at one demand, month by month: the six
  strategies' costs, taxes, flows, and every output read from them, with the offsets of
  its result vector;
* :mod:`.grid`: the drivers (numba): every row at every demand of a grid, the cash paths
  and cash by year at a few demands, each strategy's break-even demand;
* :mod:`.irr`: :func:`.irr.yearly_irr`, the irr of one stream of flows.
* :mod:`.narrow`: :func:`.narrow.npv_one`, one strategy's npv (the break-even search's
  narrowing).

Kernels are compiled once (:func:`.jit.jit`: ``cache=True``, stale when any module of the
package changes) and release the GIL, so the engine's thread workers run them in parallel.
Strategy order in the kernels: api, buy, rent, reserved, owned, hybrid
(``mc_tco.models.tco.STRATEGIES``).

Where a new strategy's code goes: its month vectors or scalars in :mod:`.rows`, its cost
and capex in :func:`.cell.cell` (``Z[COST, s]``, ``Z[CAPX, s]``; the tax, flow, npv and
paths of every strategy follow from them), its break-even test in :func:`.grid._ok`, and
its name in ``mc_tco.models.tco.STRATEGIES``.
"""
