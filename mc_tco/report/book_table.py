"""The book as a plain-text table for the terminal (``mc-tco inputs``): each input's family,
parameters, 5/50/95% quantiles, unit, group and source, then the correlations."""

from __future__ import annotations

from mc_tco.report.fmt import fmt_value

__all__ = ["inputs_table"]


def inputs_table(book) -> str:
    """The book as a table: family and parameters, 5/50/95% quantiles, unit, source."""
    rows = []
    for inp in book.inputs.values():
        q = inp.quantiles([0.05, 0.5, 0.95])
        rows.append([
            inp.name,
            inp.describe(),
            *(fmt_value(float(v)) for v in q),
            inp.unit or "-",
            inp.group or "-",
            inp.source or "(no source)",
        ])
    header = ["input", "distribution", "5%", "50%", "95%", "unit", "group", "source"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for r in [header, *rows]:
        cells = [c.ljust(w) if i in (0, 1, 5, 6) else c.rjust(w)
                 for i, (c, w) in enumerate(zip(r[:-1], widths, strict=True))]
        lines.append("  ".join(cells) + "  " + r[-1])
    n_unc, n_const = len(book.uncertain), len(book.constants)
    title = f"{book.name} ({book.path}): {n_unc} uncertain inputs, {n_const} constants" + (
        f", {len(book.input_grid)} fixed at each value of a grid" if book.input_grid else "")
    return title + "\n" + "\n".join(lines) + _correlations_table(book)


def _correlations_table(book) -> str:
    """The book's [[correlation]] pairs with their sources ('' when there are none)."""
    if not book.correlations:
        return ""
    corr = book.correlation
    col = {n: j for j, n in enumerate(corr.names)}
    achieved = corr.achieved
    rows = []
    for c in book.correlations:
        a, b = c["between"]
        value = f"{c['kind']} {c['value']:+.2f}"
        if corr.repaired:
            value += f" (repaired: {achieved[col[a], col[b]]:+.2f})"
        rows.append([f"{a} ~ {b}", value, c["source"] or "(no source)"])
    widths = [max(len(r[i]) for r in rows) for i in range(2)]
    lines = [f"{r[0].ljust(widths[0])}  {r[1].ljust(widths[1])}  {r[2]}" for r in rows]
    head = (f"\n\nCorrelations ({len(rows)}; a Gaussian copula, margins unchanged; pairs "
            "not listed are independent)")
    if corr.repaired:
        head += (f"; not jointly possible as written (smallest eigenvalue "
                 f"{corr.min_eigenvalue:.3g}): the sample uses the nearest valid matrix")
    return head + "\n" + "\n".join(lines)
