"""Month-by-month kernels of the TCO model, version 2 (numba, one row at a time).

Each kernel takes the inputs as a matrix ``X`` (rows, :data:`.layout.COLUMNS`) and works
one row at a time, in the order of the pipeline:

* :mod:`.layout`: the buffers' index constants and what each entry holds, declared once;
* :mod:`.factors`: :func:`.factors.row` computes the row's demand-independent factors
  (demand per unit of run-rate, price paths, capacity, discount factors and the node
  weights built from them) into the row buffers ``k`` (vector, month) and ``s``
  (scalar); :func:`.factors.months`, :func:`.factors.scalars`;
* :mod:`.npv`: :func:`.npv.npv_grid`, the npv at every demand of a grid (the engine's hot
  path), and :func:`.npv.npv_one`, one strategy at one demand;
* :mod:`.breakeven`: :func:`.breakeven.breakeven`, the smallest demand with npv >= 0;
* :mod:`.paths`: :func:`.paths.paths`, the month-by-month flows and what is read from
  them (payback, peak cash need, fleet, capex, components, cash paths, irr);
* :mod:`.irr`: :func:`.irr.yearly_irr`, the irr of one stream of flows (no row buffer).

:func:`.npv.npv_grid` and :func:`.paths.paths` run the months in the outer loop and a
block of demands in the inner one, their state in a small buffer of (state, demand): LLVM
vectorizes the inner loop (4 demands per AVX2 instruction), each demand's operations keep
their order, so the numbers are those of the plain month loop per demand
(:func:`.npv.npv_one`), to the bit. The break-even walks evaluate one demand at a time,
the hybrid's in batches. Kernels are compiled once (:func:`.jit.jit`: ``cache=True``,
stale when any module of the package changes) and release the GIL, so the engine's
thread workers run them in parallel.

Strategy order in the kernels' outputs: :data:`.layout.STRATEGIES` (buy, rent, owned,
hybrid: the model's strategies without ``api``), except :func:`.npv.npv_grid`, which
writes all five, api first.

Where a new strategy's code goes:

* its name in :data:`.layout.STRATEGIES` (the per-strategy fields of
  :data:`.layout.PATH_FIELDS` widen with it); the month vectors and scalars it needs that
  are not there yet in :data:`.layout.MONTH_VECTORS` / :data:`.layout.ROW_SCALARS`, and
  its new inputs in :data:`.layout.INPUT_COLUMNS` (and ``mc_tco.models.tco.INPUTS``);
* those vectors and scalars computed in :func:`.factors.row`;
* its npv at one demand, a ``_npv_*`` function dispatched from :func:`.npv.npv_one`, and
  the same steps in :func:`.npv._grid_months` (state in its buffer: ``RUN``/``SUMS``)
  with its column in :func:`.npv.npv_grid`;
* its linear bounds in :func:`.breakeven.bounds`, and in :func:`.breakeven.breakeven`
  which walk finds its root: :func:`.breakeven._walk_exact` where its npv is linear in
  the demand between node-count changes, else the batched walk (a vectorized batch as
  :func:`.breakeven._h_months` where one demand at a time is too slow);
* its month's flow in :func:`.paths._path_month` (state vectors: the ``PAY_`` ...
  ``CUM_`` offsets of :mod:`.paths`), its fields in :func:`.paths.paths`, and its irr by
  :func:`.irr.yearly_irr` if it has one;
* in ``mc_tco.models.tco``: ``STRATEGIES`` and where ``_fill`` copies the kernels'
  outputs.
"""
