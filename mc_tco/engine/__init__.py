"""The engine: book -> Saltelli design -> model -> Sobol' sums and summaries -> xr.Dataset.

The pipeline, one module a step, imports pointing down:

* :mod:`.plan` — check a book and the options (:func:`plan_run`), nothing computed;
* :mod:`.evaluate` — evaluate chunks of design rows (:func:`evaluate_chunk`);
* :mod:`.schedule` — run the chunks on dask (threads, processes, a cluster);
* :mod:`.adaptive` — double the sample until the ranking converges (``--target-halfwidth``);
* :mod:`.summarize` — Sobol' indices, bands, probabilities and provenance as a Dataset;
* :mod:`.run` — :func:`run` and :func:`execute`, which tie them together.

Nothing here prints or writes files except :func:`execute`'s results file.
"""

from mc_tco.engine.assemble import provenance, run_options, summarize
from mc_tco.engine.evaluate import design_values, estimate_base_bytes, evaluate_base, evaluate_chunk
from mc_tco.engine.plan import DEFAULT_SAMPLES, KEEP_SAMPLES, Plan, RunSums, check_samples, plan_run
from mc_tco.engine.run import execute, run
from mc_tco.engine.schedule import SCHEDULERS, check_scheduler

__all__ = [
    "DEFAULT_SAMPLES",
    "KEEP_SAMPLES",
    "SCHEDULERS",
    "Plan",
    "RunSums",
    "check_samples",
    "check_scheduler",
    "design_values",
    "estimate_base_bytes",
    "evaluate_base",
    "evaluate_chunk",
    "execute",
    "plan_run",
    "provenance",
    "run",
    "run_options",
    "summarize",
]
