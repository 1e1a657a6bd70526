"""Intervals for every summary of a run, from the spread across its independent scrambles.

A run draws its base samples from ``R`` independently scrambled Sobol' sequences,
interleaved: base sample ``g`` belongs to scramble ``g % R`` (:func:`replicate_of`). Any
statistic computed on the rows of one scramble is then one of ``R`` independent, identically
distributed replicate estimates, and the randomized-QMC interval (Owen 1997; L'Ecuyer &
Lemieux 2002; Owen 2023, *Practical Quasi-Monte Carlo Integration*, ch. 17) is

    pooled estimate  +-  t_{R-1, (1+c)/2} * sd(replicate estimates) / sqrt(R)

centred on the *pooled* estimate (the statistic of all rows). For a mean the pooled
estimate is the mean of the replicate ones; for a quantile it is not, and the replicate
quantiles, order statistics of ``N / R`` points, carry an O(R / N) bias the pooled one
divides by ``R``; the spread is unaffected by that common bias (Bahadur's representation
makes the pooled quantile the mean of the replicate ones to first order). Rows of a
scrambled Sobol' design are not independent: intervals that assume they are (Wilson's for a
proportion, ``sd / sqrt(N)`` for a mean) are valid but too wide, often by a factor of ten.

**Fallback rule.** The replicate interval needs ``R`` replicate estimates that vary and are
roughly normal. Where that fails it is replaced, cell by cell, by an interval that is valid
on independent rows and so conservative on a scrambled design, and the cell is flagged
(``fallback = True``):

* a proportion, where some scramble has no valid row, no event or only events, where the
  ``R`` replicate proportions are all equal, or where the t interval leaves ``[0, 1]``:
  Wilson's score interval on the pooled count (Wilson 1927; Brown, Cai & DasGupta 2001);
* a quantile, where some scramble has fewer than :data:`MIN_TAIL` valid rows on the short
  side of the quantile (a sparse tail), where a replicate quantile or the pooled one is
  infinite ("never"), or where the replicate quantiles are all equal: the distribution-free
  order-statistics interval on the pooled sample (the binomial interval for the rank of the
  quantile; David & Nagaraja 2003, sec. 7.1), whose bounds may be infinite.

**NaN rule.** A NaN value means "not applicable" (e.g. the break-even demand of the API
against itself). NaN rows are excluded from both the numerator and the denominator of every
statistic, per cell and per scramble: a proportion is events / non-NaN rows, a quantile is
taken over the non-NaN rows (infinite values, "never", are kept and sort last), a mean is
over the non-NaN rows. A cell with no non-NaN row gives NaN.

Numpy kernels take ``axis=``; the xarray wrappers name the sample dim ``sample`` and add
``ci_bound = ["lower", "upper"]`` (and ``quantile``), with ``method`` and ``conf_level`` in
``attrs`` and a boolean ``fallback`` variable beside the interval. The kernels are
:mod:`.intervals`, the wrappers :mod:`.interval_datasets`; this module re-exports both.

References
----------
Owen, A. B. (1997). Monte Carlo variance of scrambled net quadrature. SIAM J. Numer. Anal.
34(5), 1884-1910.
L'Ecuyer, P. & Lemieux, C. (2002). Recent advances in randomized quasi-Monte Carlo methods.
In Modeling Uncertainty, Kluwer, 419-474.
Owen, A. B. (2023). Practical Quasi-Monte Carlo Integration, ch. 17 (randomized QMC).
Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
inference. JASA 22(158), 209-212.
David, H. A. & Nagaraja, H. N. (2003). Order Statistics, 3rd ed., Wiley.
"""

from __future__ import annotations

from mc_tco.uncertainty.interval_datasets import (
    indicator,
    mean_with_interval,
    probability_with_interval,
    quantiles_with_interval,
)
from mc_tco.uncertainty.intervals import (
    MIN_TAIL,
    Interval,
    mean_interval,
    order_statistic_interval,
    proportion,
    proportion_from_counts,
    quantile_interval,
    replicate_interval,
    replicate_of,
    t_value,
    wilson_interval,
    z_value,
)

__all__ = [
    "MIN_EVENTS",
    "MIN_TAIL",
    "Interval",
    "indicator",
    "mean_interval",
    "mean_with_interval",
    "order_statistic_interval",
    "probability_with_interval",
    "proportion",
    "proportion_from_counts",
    "quantile_interval",
    "quantiles_with_interval",
    "replicate_interval",
    "replicate_of",
    "t_value",
    "wilson_interval",
    "z_value",
]

#: fewest winning and fewest losing scenarios an indicator (``target > 0``, "buy beats the
#: API") needs before anything finer than its share is read from it: with fewer winning (or
#: losing) scenarios than this, the indicator's Sobol' indices and the PRIM boxes that
#: describe where it wins rest on a few dozen points and cannot be told from noise, so they
#: are not ranked (``mc_tco.report.terminal``, the memo) or not searched (``mc_tco.decision.prim``)
MIN_EVENTS = 50
