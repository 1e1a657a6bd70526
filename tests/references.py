"""Reference intervals written out from their definitions with numpy and scipy only.

The tests compare mc_tco's stored summaries with these, so that a summary is checked against
something other than the function that made it. The definitions are those documented in
``mc_tco/uncertainty/scrambles.py`` and docs/estimators.md: row ``g`` of a run belongs to scramble
``g % R``; the interval of a share is the randomized-QMC t interval
``p +- t_{R-1, (1+c)/2} sd(p_r) / sqrt(R)`` of the ``R`` per-scramble shares, centred on the
pooled one, with Wilson's (``scipy.stats.binomtest(...).proportion_ci(method="wilson")``)
where it cannot work; the change of a paired share is the t interval of the per-scramble
mean changes, with Newcombe's (1998) method 10 where it cannot work.
"""

from __future__ import annotations

import numpy as np
from scipy import stats


def t_half(estimates, conf_level=0.95):
    """``t_{R-1, (1+c)/2} sd / sqrt(R)`` of the ``R`` replicate estimates (``ddof=1``)."""
    e = np.asarray(estimates, dtype=float)
    r = e.size
    return stats.t.ppf(0.5 + conf_level / 2, r - 1) * e.std(ddof=1) / np.sqrt(r)


def wilson(k, n, conf_level=0.95):
    """Wilson's score interval from scipy."""
    ci = stats.binomtest(int(k), int(n)).proportion_ci(conf_level, method="wilson")
    return ci.low, ci.high


def rqmc_proportion(event, sample, replicates, conf_level=0.95):
    """P(event) over the non-NaN rows with its interval; ``(p, lower, upper, fallback)``.

    Wilson's on the pooled count where a scramble has no event or only events, the ``R``
    shares are all equal, or the t interval leaves [0, 1].
    """
    event = np.asarray(event, dtype=float)
    keep = ~np.isnan(event)
    x, g = event[keep].astype(bool), np.asarray(sample)[keep] % replicates
    p = x.mean()
    p_r = np.array([x[g == r].mean() for r in range(replicates)])
    half = t_half(p_r, conf_level)
    lo, hi = p - half, p + half
    if (p_r == 0).any() or (p_r == 1).any() or half == 0 or lo < 0 or hi > 1:
        return (p, *wilson(x.sum(), x.size, conf_level), True)
    return p, lo, hi, False


def newcombe_method_10(a, b, c, d, conf_level=0.95):
    """Newcombe (1998, paired) method 10 for ``(b - c) / n``, as in his paper: Wilson's
    intervals of the margins and ``phi`` with ``ad - bc`` reduced by ``n/2`` where positive."""
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(a + b, n, conf_level)
    l2, u2 = wilson(a + c, n, conf_level)
    denom = (a + b) * (c + d) * (a + c) * (b + d)
    cross = a * d - b * c
    cross = max(cross - n / 2, 0) if cross > 0 else cross
    phi = cross / np.sqrt(denom) if denom > 0 else 0.0
    lo = p1 - p2 - np.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    hi = p1 - p2 + np.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return max(lo, -1.0), min(hi, 1.0)


def paired_change(wins, ref, sample, replicates, conf_level=0.95):
    """``P(wins) - P(ref)`` on the same rows with its interval; ``(est, lo, hi, fallback)``.

    Newcombe's on the pooled 2x2 counts where a scramble has no discordant pair, the ``R``
    mean changes are all equal, or the t interval leaves [-1, 1].
    """
    w, r = np.asarray(wins, dtype=bool), np.asarray(ref, dtype=bool)
    g = np.asarray(sample) % replicates
    diff = w.astype(float) - r
    est = diff.mean()
    d_r = np.array([diff[g == k].mean() for k in range(replicates)])
    half = t_half(d_r, conf_level)
    discordant = all((w[g == k] != r[g == k]).any() for k in range(replicates))
    lo, hi = est - half, est + half
    if not discordant or half == 0 or lo < -1 or hi > 1:
        a, b, c = int((w & r).sum()), int((w & ~r).sum()), int((~w & r).sum())
        return (est, *newcombe_method_10(a, b, c, w.size - a - b - c, conf_level), True)
    return est, lo, hi, False
