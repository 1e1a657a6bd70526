"""An independent reference of the cost model, version 3 (``shared/MODEL.md``), month by month.

Plain Python (numpy only for the hybrid's margins and the irr's polynomial), one scenario at
a time: :func:`.flows.scenario` takes a dict of inputs (every name of version 2's book but
``hybrid_utilization``, plus :data:`NEUTRAL`'s) and a planned demand, and returns every
output MODEL.md defines for the six strategies :data:`STRATEGIES`. It imports nothing of
``mc_tco.models``: version 3's kernels are tested against it. "L" is a line of MODEL.md.

Blocks and the lines they follow:

* :func:`.months.month_factors`: events L162-166 (``e_c, e_s, alive, self, exit``); demand
  and prices L168-177 (``D, blend, p, P, R``, ``p_trend`` of L209-210); capacity L179-188
  (``work, mix, m, c, eta, a, b, phi``); discount factors L260-261.
* :func:`.months.fleets`: ``x, k, need`` L190-195 (``k`` by stepping from ``ceil(x)``, L293),
  ``n_buy, n_rent`` L196-197, the reserved terms and ``n_res`` L198-201, ``served,
  served_res`` L202-203.
* :func:`.months.hybrid_fleet`: the margin rule L204-220 (``L, y_n, A_t, pbar, s_tok,
  crf_t, cost_node, margin_n, n_star, n_hyb, served_hyb``), the policy notes L280-292.
* :func:`.months.fleet_capex`, :func:`.months.storage`: capex L229, storage L225-230.
* :func:`.flows.scenario`: running costs L221-226, upkeep L231, the six costs L233-239,
  resale L240-241, owned's opportunity cost L242-245, taxes L247-257 (``_finance``), flows,
  npv and lump sums L259-266, sovereignty L270-273, the outputs L297-315.
* :func:`.flows.irr`, :func:`.flows.breakeven`: version 2's outputs of those names (L303).

Ambiguities (the choices this reference makes; the kernels are to follow them):

1. Tolerant rounding (L194-195) is applied to every ceil: ``k`` (L192's own tolerance),
   ``ceil(spare_fraction * k)``, the events ``ceil(cancel_month)``, ``ceil(stop_month)``
   and the first term ``ceil(setup_months)``. An infinite event month is "never". The price
   cut compares ``t >= api_price_cut_month`` as L174 writes it, without tolerance.
2. ``need[t]`` (and so reserved's sizing, L198) is computed from ``D[t]``, which includes
   ``alive`` but not ``self``: a term holding a stop month is sized on the demand after the
   stop too (the plan made at the term's start), one holding a cancel month only on the
   months before it (demand is 0 after). ``reserved_term_months`` is rounded to a whole
   number.
3. Staff (``[t < exit]``, L226) is paid by buy, rent, reserved and owned from month 0, also
   when no term or node ever serves (e.g. ``setup_months >= T``); the hybrid pays it from
   the first month it owns a node (L238). ``staff*[n > 0]`` in ``margin_n`` is that month's.
4. ``n = 0`` has capacity 0 (``L(0) = 0``) even when ``D = 0``; with ``D = 0`` a node has
   ``y = inf`` and ``L(inf) = 1``. The search over ``n`` runs to the first ``n`` with
   ``y_n >= a`` (L217), included.
5. ``p_trend`` keeps the off-peak discount (it is in ``blend``), drops only the step cut.
6. ``cost[s]`` (level USD/month, "as in version 2") is ``cost[api] + sov[s] - saving[s]``
   with ``cost[api] = sum d api / A`` and ``sov[s]`` the level sovereignty counted for
   ``s``: it includes the extra tax and the lump sums. ``cost_per_mtok = cost * A /
   sum d D * 1e6``: every strategy serves all demand (in house or through the API); NaN
   when no demand ever arrives.
7. ``cash_by_year`` has ``ceil(T / 12)`` years (a last partial year when ``T`` is not a
   multiple of 12); lump sums book in the lump month of L265-266 (``exit``, or ``T - 1``).
   Sovereignty is not cash and is left out, as are tax and ``owned_out`` (L297-300).
8. ``simple_payback_months`` and ``peak_cash_need_nominal`` both read the undiscounted
   after-tax cumulative flow (sovereignty in, ``owned_out`` in month 0, lump sums
   undiscounted in the lump month): the nominal twins of ``payback_months`` and
   ``peak_cash_need``. api's payback and peak are 0, and the hybrid's where it never owns
   a node (version 2's rule).
9. ``irr`` is defined for buy and hybrid only (version 2), from the after-tax flows and the
   lump ``resale - tax_exit`` at month ``exit``; NaN when the flows never change sign or
   the present value has one sign at -99% and +999,900% a year; of several roots in that
   range, the one nearest 10% a year in log rate.
10. ``nodes`` and ``storage_tb`` are buy's largest fleet and storage (at the horizon
    without events: version 2's); ``investment`` and ``initial_investment`` include
    network capex; ``gpu_share`` is the nodes' share (without network) of the investment,
    ``storage_to_gpu_ratio`` SSDs over nodes (without network).
11. ``fleet_utilization`` = sum served / sum ``n_buy[t] c[t]`` over the months (undiscounted;
    ``c`` at full load and large-scale efficiency, spares counted); NaN without nodes.
    ``hybrid_served_share`` = sum ``served_hyb`` / sum ``D`` (undiscounted).
    ``hybrid_nodes`` = the largest ``n_hyb[t]`` (0 where the hybrid never holds a node).
12. ``node_capacity`` is ``c[0] * utilization`` (version 2's at ``peak_to_average`` 1) and
    ``node_api_revenue_per_hour`` ``c[0] / H * blend / 1e6``.
13. ``breakeven_demand``: the first demand of a geometric scan (``lo`` to ``hi``) with npv
    >= 0 (the hybrid's only where it owns a node), bisected against the scan's point before
    it; 0 where npv >= 0 at 1 token/month, inf where never, NaN for api. A positive window
    narrower than the scan's step can be missed.
14. ``tax_depreciation_years`` must be > 0; ``12 * tax_depreciation_years`` need not be whole
    (the share per month is ``1 / (12 Y)`` for the months ``u <= t < u + 12 Y``).
15. Sovereignty (L262) is not taxed, and counts for buy, rent, reserved and owned in every
    month with ``self[t]``, during setup and before reserved's first term too (version 2).
16. The hybrid's ``crf_t`` and ``A_t`` run to the horizon ``T``, not to ``exit`` (the rule
    cannot foresee an event); its search for ``n`` may go one node past ``y_n >= a`` when
    rounding puts ``y_n`` a hair below ``a`` (a node that serves nothing: harmless).
17. Payback is the first month ``t + 1`` with a cumulative flow >= 0, so a strategy whose
    flows are all 0 (an event at month 0) pays back in month 1; only api and a hybrid
    without nodes get 0. The hybrid's runs from the first month it owns a node (before
    it, its flows are 0 and it has invested nothing: version 2's rule read "paid back in
    month 1" for a hybrid that buys its first node in month 10).
18. Tax losses are used in full the month they arise (L253: "or saves, when negative"): the
    company has other profits to offset them.
19. ``cash_by_year`` is listed as (sample, year, strategy) in L306, but it depends on the
    demand: this reference gives it per demand; the kernels should give it at the cash
    demands, as ``cash_path`` (sample, cash_demand, year, strategy).
20. Seems wrong, followed as written: ``margin_n`` charges ``staff*[n > 0]`` also once the
    hybrid owns nodes, when the staff is sunk, so it is slow to add nodes later (a running
    maximum never sells, so the error only delays growth).
"""

from .flows import IRR_RANGE, breakeven, irr, scenario
from .months import DAYS, NEUTRAL, STRATEGIES, H, ceil_tol, eta, profile, served_share

__all__ = ["DAYS", "IRR_RANGE", "NEUTRAL", "STRATEGIES", "H", "breakeven", "ceil_tol", "eta",
           "irr", "profile", "scenario", "served_share"]
