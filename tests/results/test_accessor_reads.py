"""Every reader of a results file goes through ``ds.mc_tco`` (issue 22 item 1).

A scan of ``mc_tco/`` (outside ``mc_tco/results/``) with :mod:`ast` fails on a raw read
of a results attribute, naming file:line; and :class:`~mc_tco.results.run_info.RunInfo`
gives each attribute the schema's default when a file lacks it.
"""

from __future__ import annotations

import ast
import threading

import numpy as np
import pytest
import xarray as xr

from mc_tco.results.run_info import RunInfo
from mc_tco.results.schema import ATTRS, attr_names, default
from tests.paths import ROOT

PACKAGE = ROOT / "mc_tco"

#: metadata attrs of variables and coordinates, read freely
METADATA = {"units", "long_name", "description", "standard_name"}
#: methods that write into the attrs of a dataset being built
WRITES = {"update", "setdefault", "pop", "clear"}
#: calls that copy whole attrs into a dataset being built
COPIES = {"update", "assign_attrs"}
#: (file, function) -> why a whole-attrs or results-attr read there is not a bypass
EXEMPT = {
    ("mc_tco/engine/reproduce.py", "compare_results"): "compares every attr of two files, whatever "
    "it is",
    ("mc_tco/engine/reproduce.py", "summary"): "Comparison.attrs, its own dict of the attrs that "
    "differ",
    ("mc_tco/engine/options.py", "_is_results_file"): "an h5py file peeked at before xarray "
    "opens it",
    ("mc_tco/models/tco.py", "_report_demands"): "the model's inputs, not a results file",
}


def raw_reads(source: str, path: str = "<string>") -> list[str]:
    """``path:line: what`` for each raw read of a results attribute in ``source``.

    Flagged: ``X.attrs[k]``, ``X.attrs.get(k)`` and ``k in X.attrs`` with ``k`` a results
    attribute (or not a literal); ``X.attrs`` used whole (``a = X.attrs``, ``f(X.attrs)``,
    ``X.attrs.items()``, iterated); ``getattr(X, "attrs")``. Not flagged: the attrs of a
    variable (``ds[name].attrs``), metadata keys (units, long_name, ...), writes
    (``X.attrs[k] = v``, ``X.attrs.update(...)``) and copies into a dataset being built
    (``Y.attrs.update(X.attrs)``, ``assign_attrs(X.attrs)``).
    """
    tree = ast.parse(source)
    parents: dict[ast.AST, ast.AST] = {}
    funcs: dict[ast.AST, str] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    # ast.walk is breadth-first: an inner function overwrites its outer one
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for sub in ast.walk(node):
                funcs[sub] = node.name
    names = attr_names()
    out = []

    def key_of(expr) -> str | None:
        return expr.value if isinstance(expr, ast.Constant) and isinstance(
            expr.value, str) else None

    def flag(node, what):
        if (path, funcs.get(node, "")) not in EXEMPT:
            out.append(f"{path}:{node.lineno}: {what}")

    def keyed(node, key, how):
        if key is None:
            flag(node, f"{how} with a computed key")
        elif key in names and key not in METADATA:
            flag(node, f"{how} '{key}'")

    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and (
                node.func.id == "getattr" and len(node.args) >= 2
                and key_of(node.args[1]) == "attrs"):
            flag(node, "getattr(..., 'attrs')")
            continue
        if not (isinstance(node, ast.Attribute) and node.attr == "attrs"
                and isinstance(node.ctx, ast.Load)):
            continue
        if isinstance(node.value, ast.Subscript | ast.Call):
            continue  # a variable's attrs: ds[name].attrs
        parent = parents.get(node)
        if isinstance(parent, ast.Subscript) and parent.value is node:
            if isinstance(parent.ctx, ast.Load):
                keyed(node, key_of(parent.slice), ".attrs[...]")
            continue
        if isinstance(parent, ast.Attribute) and parent.value is node:
            call = parents.get(parent)
            if parent.attr == "get" and isinstance(call, ast.Call) and call.args:
                keyed(node, key_of(call.args[0]), ".attrs.get(...)")
            elif parent.attr not in WRITES:
                flag(node, f".attrs.{parent.attr}")
            continue
        if isinstance(parent, ast.Compare) and node in parent.comparators and all(
                isinstance(op, ast.In | ast.NotIn) for op in parent.ops):
            keyed(node, key_of(parent.left), "'...' in .attrs")
            continue
        if isinstance(parent, ast.Call) and node in parent.args and isinstance(
                parent.func, ast.Attribute) and parent.func.attr in COPIES:
            continue
        flag(node, ".attrs used whole")
    return out


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if not rel.startswith("mc_tco/results/"):
            yield rel, path.read_text()


def test_no_raw_results_attribute_reads_outside_the_accessor():
    found = [hit for rel, text in _sources() for hit in raw_reads(text, rel)]
    assert not found, ("read these through ds.mc_tco (ds.mc_tco.run, ...), not ds.attrs:\n"
                       + "\n".join(found))


def test_every_exemption_is_still_needed():
    """An exemption whose function no longer reads attrs is stale."""
    by_file: dict[str, set[str]] = {}
    for rel, text in _sources():
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef) and ".attrs" in ast.unparse(node):
                by_file.setdefault(rel, set()).add(node.name)
    for (rel, func) in EXEMPT:
        assert func in by_file.get(rel, set()), f"{rel}: {func} is exempt but reads no attrs"


@pytest.mark.parametrize("code", [
    'x = ds.attrs["seed"]',
    'x = ds.attrs.get("conf_level", 0.95)',
    'x = self.ds.attrs.get("replicates", 1)',
    'a = ds.attrs\nx = a["ci"]',
    'x = provenance_rows(ctx.ds.attrs)',
    'x = {k: v for k, v in ds.attrs.items()}',
    'x = "ci" in ds.attrs',
    'x = getattr(ds, "attrs")["seed"]',
    'x = ds.attrs[name]',
    'for k in ds.attrs:\n    pass',
])
def test_the_scan_catches_each_kind_of_raw_read(code):
    assert len(raw_reads(code)) == 1, code


@pytest.mark.parametrize("code", [
    'u = ds["saving"].attrs.get("units", "")',
    'u = ds[dim].attrs["long_name"]',
    'u = da.attrs.get("units")',
    'ds.attrs["created"] = now',
    'ds.attrs.update(seed=1)',
    'merged.attrs.update(ds.attrs)',
    'y = base.merge(s).assign_attrs(summary.attrs)',
    'm = swing.attrs["base_median"]',  # not a results attr: an analysis result's own
    'ds.attrs = {}',
])
def test_the_scan_passes_metadata_writes_and_copies(code):
    assert raw_reads(code) == [], code


def test_a_bare_dataset_gets_the_schema_defaults():
    """An older file lacking an attr gets the schema's default, not a reader's guess."""
    ds = xr.Dataset(coords={"sample": np.arange(12)})
    run = ds.mc_tco.run
    assert run.conf_level == default("conf_level") == 0.95
    assert run.ci == default("ci") == "bootstrap"
    assert run.scrambles == 1 and run.replicates is None
    assert run.seed == 0 and run.samples == 12
    assert run.keep_samples == "all" and run.indicator_label == "> 0"
    assert run.book_text is None and run.run_options is None
    assert run.model is None and not run.is_tco_model
    assert run.shapley_evaluations is None and run.converged is None
    assert run.versions == {} and run.mc_tco_version == "?"
    assert np.isnan(run.family_check_seconds)
    assert ds.mc_tco.options == {} and ds.mc_tco.targets == []


@pytest.mark.parametrize("ci, replicates, scrambles", [
    ("rqmc", 8, 8), ("rqmc", 16, 16), ("bootstrap", 1, 1), ("asymptotic", 1, 1),
    # a non-rqmc file's replicates never counts (the intervals are not their spread)
    ("bootstrap", 8, 1),
])
def test_effective_scrambles(ci, replicates, scrambles):
    run = RunInfo.from_attrs({"ci": ci, "replicates": replicates})
    assert run.scrambles == scrambles
    assert run.replicates == (scrambles if scrambles > 1 else None)


def test_every_schema_attr_has_a_documented_default_or_none():
    for a in ATTRS:
        assert a.default is not None or a.default_words or a.when or a.name in {
            "bootstrap_resamples", "chunk_size"}, a.name


def test_a_run_reads_back_through_the_record(article_run):
    ds = article_run
    run = ds.mc_tco.run
    a = ds.attrs
    assert (run.seed, run.samples, run.conf_level, run.ci) == (
        a["seed"], a["samples"], a["conf_level"], a["ci"])
    assert run.scrambles == a["replicates"] and run.scrambles > 1
    assert run.book_sha256 == a["book_sha256"] and run.book_text == a["book_text"]
    assert run.model == a["model"] and run.is_tco_model
    assert run.model_sha256 == a["model_sha256"] and run.model_file == a["model_file"]
    assert run.options == ds.mc_tco.options
    assert list(run.versions) == ["mc_tco_version", "numpy_version", "scipy_version",
                                  "SALib_version", "xarray_version"]


def test_claims_of_two_files_at_once_use_each_files_scrambles(article_run):
    """No module state: claims of an rqmc file and of a one-scramble copy, evaluated in
    threads, equal the claims evaluated alone (memo.claims kept the scrambles in a global)."""
    from mc_tco.report.memo.claims import evaluate_claims

    wilson = article_run.assign_attrs(ci="bootstrap", replicates=1)
    def bounds(d):
        return [(p.lower, p.upper) for c in evaluate_claims(d) for p in c.parts]

    alone = {k: bounds(d) for k, d in
             (("rqmc", article_run), ("wilson", wilson))}
    assert alone["rqmc"] != alone["wilson"]  # the interval method shows in the claims
    got: dict[str, list] = {"rqmc": [], "wilson": []}

    def work(key, d):
        for _ in range(3):
            got[key].append(bounds(d))

    threads = [threading.Thread(target=work, args=a) for a in
               (("rqmc", article_run), ("wilson", wilson))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for key in got:
        assert all(g == alone[key] for g in got[key]), key


def test_the_rerun_check_reads_the_model_facts_through_the_record(article_run):
    from mc_tco.engine.reproduce import check_model_unchanged
    from mc_tco.errors import ModelError

    ds = article_run.assign_attrs(model_sha256="0" * 64)
    from mc_tco.book import loads_book

    book = loads_book(ds.mc_tco.run.book_text, ds.mc_tco.run.book_path)
    with pytest.raises(ModelError, match=f"executed {ds.attrs['model_file']} with SHA-256 "
                                         f"{'0' * 64}"):
        check_model_unchanged(ds, book)
    check_model_unchanged(article_run.assign_attrs(model_sha256=""), book)  # not recorded
