"""``mc-tco fit`` in words and figures: the ranking of the fitted families, the matches to an
expert's quantiles, and their figures (matplotlib, Agg).

The numbers come from :mod:`mc_tco.distributions.fitting` and
:mod:`mc_tco.distributions.elicit`; here they are only laid out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from mc_tco.report.fmt import fmt_pct, fmt_value

__all__ = ["data_fit_figure", "data_fit_text", "match_figure", "match_text"]

#: an AIC or BIC this far above the best has essentially no support (Burnham and Anderson)
_DECISIVE = 10


def _table(header: list[str], rows: list[list[str]], left: int = 1) -> list[str]:
    """Columns padded to their widest cell; the first ``left`` columns left-aligned."""
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(c.ljust(w) if i < left else c.rjust(w)
                      for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip()
            for r in [header, *rows]]


def _p(p: float) -> str:
    if math.isnan(p):
        return "n/a"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


def data_fit_text(result, label: str) -> str:
    """The fitted families as a table, best first by AIC, and what was not fitted.

    Parameters
    ----------
    result : mc_tco.distributions.fitting.DataFit
    label : str
        What the values are, e.g. ``prices.csv, column price``.
    """
    s = result.summary
    head = (f"{label}: {result.n:,} values from {fmt_value(s['min'])} to "
            f"{fmt_value(s['max'])} (median {fmt_value(s['median'])})")
    rows = [[f.family, str(f.k), f"{f.loglik:,.1f}", f"{f.aic:,.1f}", f"{da:,.1f}",
             f"{f.bic:,.1f}", f"{db:,.1f}", f"{f.ks_d:.3f}", _p(f.ks_p)]
            for f, da, db in zip(result.fits, result.delta_aic, result.delta_bic, strict=True)]
    lines = [head, "", "Families fitted by maximum likelihood (scipy.stats), best first by AIC",
             *_table(["family", "k", "log L", "AIC", "ΔAIC", "BIC", "ΔBIC", "KS D", "KS p"],
                     rows)]
    if result.skipped:
        lines.append("not fitted: " + "; ".join(f"{k} ({v})" for k, v in
                                                result.skipped.items()))
    lines.append(f"k: fitted parameters. A ΔAIC or ΔBIC above {_DECISIVE}: essentially no "
                 "support against the best. KS p is optimistic (the parameters were fitted "
                 "to these values): a small one refutes a family, a large one does not "
                 "confirm it.")
    return "\n".join(lines)


def match_text(matches: Sequence, skipped: dict[str, str], probs, values) -> str:
    """The families matched to the quantiles, smallest error first, with their quantiles."""
    given = ", ".join(f"{p:g}={fmt_value(float(v))}" for p, v in zip(probs, values,
                                                                     strict=True))
    cols = [f"{100 * p:g}%" for p in probs]
    rows = [["given", *(fmt_value(float(v)) for v in values), ""]]
    for m in matches:
        rows.append([m.family, *(fmt_value(float(v)) for v in m.fitted),
                     f"{fmt_value(m.max_error)} ({fmt_pct(m.rel_error)} of the spread)"])
    lines = [f"Matches to {given} (least squares on the quantiles, scipy.optimize), "
             "smallest error first",
             *_table(["family", *cols, "largest error"], rows)]
    if skipped:
        lines.append("not matched: " + "; ".join(f"{k} ({v})" for k, v in skipped.items()))
    return "\n".join(lines)


def _figure(ncols: int):
    import matplotlib

    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.0 * ncols, 3.8), layout="tight")
    return fig, [fig.add_subplot(1, ncols, i + 1) for i in range(ncols)]


def data_fit_figure(curves: dict[str, Any], title: str, xlabel: str = ""):
    """The data's histogram with the fitted densities, and its ECDF with their cdfs.

    ``curves`` is :func:`mc_tco.distributions.fitting.fit_curves`'s dict.
    """
    fig, (left, right) = _figure(2)
    edges = curves["edges"]
    left.stairs(curves["density"], edges, fill=True, color="0.85", label="data")
    right.step(curves["ecdf_x"], curves["ecdf_y"], where="post", color="0.3", lw=1.2,
               label="data (ECDF)")
    for family, pdf, cdf in curves["curves"]:
        (line,) = left.plot(curves["x"], pdf, lw=1.5, label=family)
        right.plot(curves["x"], cdf, lw=1.2, color=line.get_color(), label=family)
    left.set_ylabel("density")
    right.set_ylabel("share of values at or below")
    for ax in (left, right):
        ax.set_xlabel(xlabel)
        ax.legend(fontsize=8, frameon=False)
    fig.suptitle(title, fontsize=10)
    return fig


def match_figure(curves: dict[str, Any], probs, values, title: str):
    """Each match's cdf through the expert's quantiles (marked)."""
    fig, (ax,) = _figure(1)
    for family, cdf in curves["curves"]:
        ax.plot(curves["x"], cdf, lw=1.5, label=family)
    ax.plot(values, probs, "o", color="black", ms=5, label="given quantiles", zorder=3)
    ax.set_ylabel("probability at or below")
    ax.legend(fontsize=8, frameon=False)
    ax.set_title(title, fontsize=10)
    return fig
