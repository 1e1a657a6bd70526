"""Words for the decision analyses: each analysis, computed once, rendered by one terminal
renderer and one Markdown renderer.

* :mod:`.common` — wrapping, plain and Markdown tables, value ± Monte Carlo error.
* :mod:`.prim` — scenario discovery (:class:`~mc_tco.decision.discovery.Discovery`):
  ``prim_text`` (terminal), ``scenario_markdown`` / ``scenario_section`` (memo).
* :mod:`.voi` — value of information (:class:`~mc_tco.decision.information.VoiResult`,
  :class:`~mc_tco.decision.information.VoiSummary`): ``voi_text``, ``voi_markdown`` /
  ``voi_section``.
* :mod:`.family` — the family check (:class:`~mc_tco.decision.family_findings.FamilyFindings`):
  ``family_text``, ``family_markdown`` / ``family_section``.
* :mod:`.explain` — what ``mc-tco explain`` prints and writes as JSON.

Nothing here computes an estimate; the ``*_section`` functions of the memo call the one
function that computes the analysis, then its Markdown renderer.
"""
