"""The presentation layer: it reads computed results and words or draws them, never computes.

- :mod:`.fmt`: the one formatter of numbers (money, tokens, shares, intervals), shared with
  the app's JavaScript through ``tests/fmt_cases.json``;
- :mod:`.terminal`: plain-text tables for the terminal;
- :mod:`.words`: the sentences of the decision analyses (family check, PRIM, VOI), the same
  for the terminal and the memo;
- :mod:`.decision_figures`: matplotlib figures of the decision analyses;
- :mod:`.memo`: the investment memo (Markdown, HTML, figures, CSV) and its one-page summary.
"""
