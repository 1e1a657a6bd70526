"""The presentation layer words and draws; it does not compute (issue 22 item 4).

An :mod:`ast` scan of ``mc_tco/report/`` fails, naming file:line, on

* an import from the computing layers :data:`COMPUTING` (the estimators of
  ``mc_tco.uncertainty`` and ``mc_tco.sensitivity``, the runs of ``mc_tco.engine``): the
  numbers come from ``mc_tco.decision`` (or are stored in the results file);
* a call of a reduction that computes a statistic or an order over scenarios
  (:data:`STATISTICS`: ``np.quantile``, ``da.median()``, ``np.argsort``, ``x.sum()``, ...),
  as a numpy function or as a method (Python's builtin ``sum``, which counts the items
  of a sentence, is not one);
* a call of Python's ``max``, ``min`` or ``sorted`` with a ``key=`` (:data:`KEYED`): the
  option with the largest number, or the options in order, is chosen in
  :mod:`mc_tco.decision.choice`.

Each exemption is named with its reason, and one that is no longer needed fails.
"""

from __future__ import annotations

import ast

import pytest

from tests.paths import ROOT

REPORT = ROOT / "mc_tco" / "report"

#: packages the presentation layer may not import from
COMPUTING = ("mc_tco.uncertainty", "mc_tco.sensitivity", "mc_tco.engine")
#: reductions that compute a statistic (or an order) from values
STATISTICS = {
    "quantile", "nanquantile", "percentile", "nanpercentile", "median", "nanmedian",
    "mean", "nanmean", "average", "std", "nanstd", "var", "nanvar", "sum", "nansum",
    "cumsum", "count_nonzero", "argsort", "argmin", "argmax", "nanargmin", "nanargmax",
    "argpartition", "searchsorted", "sort", "sortby", "bincount", "histogram",
    "ptp", "prod", "nanprod", "cumprod", "nancumsum", "nancumprod", "corrcoef", "cov",
    "idxmax", "idxmin", "rank", "rank_order", "lexsort", "digitize", "unique", "groupby",
    "groupby_bins", "value_counts", "sort_values", "nlargest", "nsmallest",
}
#: Python's own ``max``, ``min`` and ``sorted`` with a ``key=``: the option with the
#: largest number, the options in order (:mod:`mc_tco.decision.choice`); without a key they
#: only bound an axis or list names
KEYED = {"max", "min", "sorted"}

#: Python's own ``sum`` counts the items a sentence names ("3 variants"); numpy's and a
#: DataArray's ``.sum()`` are caught
BUILTINS = {"sum"}

_TERMINAL = ("in the terminal's renderer, which no helper of item 4 owned; to read "
             "mc_tco.decision.indices next (as the memo's shapley_leaders): ")
#: (file under mc_tco/report, imported module or called name) -> why it is allowed there
EXEMPT = {
    ("memo/report.py", "mc_tco.engine"): "'mc-tco report' runs the book and then writes its "
    "memo: it orchestrates a run, it does not compute a number itself",
    ("words/common.py", "mc_tco.uncertainty.scrambles"): "z_value: the normal quantile of "
    "the level, to print a stored standard error as the half-width '± z se'",
    ("words/voi.py", "mc_tco.uncertainty.scrambles"): "z_value, as in words/common.py",
    ("memo/figures_drivers.py", "sum"): "the total of the component medians, to stack the "
    "bars of the cost-breakdown figure (a drawing's layout)",
    ("decision_figures.py", "argmax"): "the highest point of a drawn EVPI curve, to label it",
    ("words/voi.py", "argmax"): "the demand where the stored EVPI curve is highest, to name "
    "it",
    ("memo/__init__.py", "sorted(key)"): "the memo's files listed, memo.md and memo.html "
    "first (names, not numbers)",
    ("memo/evidence.py", "sorted(key)"): "the book's inputs in the order of their rank, "
    "which mc_tco.decision.indices.ranking computed (a read order)",
    ("memo/tables.py", "sort_values"): "assumptions.csv's rows in the order of the rank "
    "mc_tco.decision.indices.ranking computed (a read order)",
    ("terminal.py", "sorted(key)"): "the book's focus target first (a read order, not a "
    "number)",
    ("terminal.py", "rank_order"): _TERMINAL + "the top inputs by stored ST, Shapley effect "
    "or S2",
}


def violations(source: str, path: str = "<string>") -> list[tuple[str, str]]:
    """``(path:line: what, key)`` for each computing import or statistic call in
    ``source``; ``key`` is the imported module or the called name."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
        elif isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        else:
            modules = []
        for m in modules:
            if any(m == c or m.startswith(c + ".") for c in COMPUTING):
                out.append((f"{path}:{node.lineno}: imports {m}", m))
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else (
                f.id if isinstance(f, ast.Name) else None)
            builtin = isinstance(f, ast.Name) and name in BUILTINS
            if name in STATISTICS and not builtin:
                out.append((f"{path}:{node.lineno}: calls {ast.unparse(f)}", name))
            elif (isinstance(f, ast.Name) and name in KEYED
                  and any(k.arg == "key" for k in node.keywords)):
                out.append((f"{path}:{node.lineno}: calls {name}(..., key=...)",
                            f"{name}(key)"))
    return out


def _scan() -> list[tuple[str, tuple[str, str]]]:
    found = []
    for p in sorted(REPORT.rglob("*.py")):
        rel = p.relative_to(REPORT).as_posix()
        for where, key in violations(p.read_text(), f"mc_tco/report/{rel}"):
            found.append((where, (rel, key)))
    return found


def test_the_presentation_layer_computes_nothing():
    bad = [where for where, key in _scan() if key not in EXEMPT]
    assert not bad, ("mc_tco/report/ words and draws; compute in mc_tco.decision:\n"
                     + "\n".join(bad))


def test_every_exemption_is_still_needed():
    used = {key for _, key in _scan()}
    assert not set(EXEMPT) - used, sorted(set(EXEMPT) - used)


@pytest.mark.parametrize("code", [
    "import numpy as np\nnp.quantile(x, 0.5)",
    "x.median('sample')",
    "np.argsort(-x)",
    "(x > 0).sum()",
    "from numpy import quantile\nquantile(x, 0.5)",
    "from mc_tco.uncertainty.scrambles import proportion",
    "from mc_tco.engine import execute",
    "best = max(shares, key=lambda s: shares[s])",
    "order = sorted(options, key=lambda o: -mean[o])",
    "from mc_tco.results.ranking import rank_order\norder = rank_order(st, top=3)",
    "np.nanpercentile(x, 95)",
    "df.groupby('demand')",
    "import mc_tco.sensitivity.sobol",
    "def f():\n    from mc_tco.uncertainty import scrambles\n",
])
def test_the_scan_catches_each_kind(code):
    assert violations(code)


@pytest.mark.parametrize("code", [
    "from mc_tco.decision.shares import cheapest_shares\ncheapest_shares(ds, 5e11)",
    "ds['p_positive'].sel(target='saving>0')",
    "np.isinf(x)",
    "f'{p:.0%}'",
    "n = sum(len(r) for r in rows)",
    "from mc_tco.results.points import point_index",
    "top = max(span, 1e3)",
    "names = sorted(changed)",
    "from mc_tco.decision.choice import leader\nleader({'a': 1.0})",
])
def test_the_scan_passes_reads_and_words(code):
    assert not violations(code)
