"""Decision analysis on a results file: when does a strategy win, what is it worth to know
more, and how much does the shape of the distributions matter.

Kernels (numpy, no results file):

* :mod:`~mc_tco.decision.prim`, :mod:`~mc_tco.decision.boxes` — PRIM (Friedman & Fisher
  1999): peel, paste, prune, choose, and the boxes with their shares.
* :mod:`~mc_tco.decision.voi` — EVPI and EVPPI estimators (Strong, Oakley & Brennan 2014)
  on net benefits, with randomized-QMC intervals; :mod:`~mc_tco.decision.regression` the
  smoothers they fit.

On a results file (stored samples only, no model run):

* :mod:`~mc_tco.decision.data` — one grid point's inputs and net benefits.
* :mod:`~mc_tco.decision.discovery` — scenario discovery: boxes of the input space where a
  strategy beats the API, as readable rules.
* :mod:`~mc_tco.decision.information` — EVPI and per-input / per-group EVPPI in USD per
  month, EVPI by demand, and the memo's summary of them.
* the numbers of the TCO memo, read by the memo, the terminal and the app (which only
  word and draw them): :mod:`~mc_tco.decision.tco_data` (the file checked, its decision
  demand and grid points), :mod:`~mc_tco.decision.shares` (shares of scenarios with the
  run's interval; the share where each option is cheapest), :mod:`~mc_tco.decision.indices`
  (the inputs ranked, with the ranks their intervals allow), :mod:`~mc_tco.decision.tornado`,
  :mod:`~mc_tco.decision.breakeven` (the break-even distribution),
  :mod:`~mc_tco.decision.costs`, :mod:`~mc_tco.decision.timeaxis` (payback, peak cash, IRR),
  :mod:`~mc_tco.decision.budget` (nominal cash by year, cost per million tokens),
  :mod:`~mc_tco.decision.claims` (the article's claims as shares and verdicts),
  :mod:`~mc_tco.decision.one_page` and :mod:`~mc_tco.decision.triggers` (the one-page
  summary: medians a year, what would change the answer); :mod:`~mc_tco.decision.choice`
  (which option leads, and the options in order).
* :mod:`~mc_tco.engine.family` — reruns the base sample with every bounded input's family
  swapped (uniform, triangular, PERT over the same range);
  :mod:`~mc_tco.decision.family_findings` reads what it found at the reported points.

Words and pictures, from computed results: :mod:`~mc_tco.report.words` (terminal text and
Markdown sections, one renderer per medium) and :mod:`~mc_tco.report.decision_figures`.
"""
