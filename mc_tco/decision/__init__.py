"""Decision analysis on a results file: when does a strategy win, what is it worth to know
more, and how much does the shape of the distributions matter.

* :mod:`~mc_tco.decision.prim` — scenario discovery (PRIM, Friedman & Fisher 1999): boxes
  of the input space where a strategy beats the API, as readable rules.
* :mod:`~mc_tco.decision.voi` — EVPI and per-input / per-group EVPPI (Strong, Oakley &
  Brennan 2014) from the stored samples, in USD per month.
* :mod:`~mc_tco.engine.family` — reruns the base sample with every bounded input's family
  swapped (uniform, triangular, PERT over the same range).
* :mod:`~mc_tco.decision.text`, :mod:`~mc_tco.decision.figures` — terminal text, Markdown
  sections and figures for the memo, from computed results.
"""
