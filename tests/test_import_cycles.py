"""No import circle in mc_tco (issue 22, item 5).

The graph is built from the source (``ast``), not by importing: an edge ``a -> b`` for
every ``import b`` / ``from b import x`` / ``from a's package import b`` in module ``a``,
at module level and inside functions alike (a function-level import is how a circle is
usually hidden: it still means that ``a`` needs ``b`` and ``b`` needs ``a``). Two kinds of
import are left out, and why:

- imports under ``if TYPE_CHECKING:``: they never run, they only name types for the
  annotations (``from __future__ import annotations``);
- the implicit import of a module's parent package (``import a.b`` runs ``a/__init__``
  first): that is how Python loads a package, not a dependency the code states; counting
  it would make every package that re-exports its own submodules a circle. An explicit
  ``from a import name`` in a submodule of ``a`` is counted (it is an edge to ``a``).
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import mc_tco

ROOT = Path(mc_tco.__file__).parent

#: Circles outside the memo that this item found and left to their owners (each through a
#: function-level import; see the report of issue 22 item 5). Remove an entry once its
#: circle is gone: the test fails on an entry that is no longer a circle.
KNOWN: set[frozenset[str]] = set()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST):
    """Every Import / ImportFrom node of ``tree``, skipping ``if TYPE_CHECKING:`` bodies."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
        stack.extend(ast.iter_child_nodes(node))


def import_graph(root: Path) -> dict[str, set[str]]:
    """``module -> modules it imports`` for the package at ``root`` (its own modules only).

    ``from p import name`` is an edge to the module ``p.name`` when there is one, else to
    ``p``; relative imports are resolved against the importing module's package.
    """
    modules: dict[str, Path] = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                graph[name] |= {a.name for a in node.names if a.name in modules}
                continue
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([node.module] if node.module else []))
            for alias in node.names:
                target = f"{base}.{alias.name}"
                if target in modules:
                    graph[name].add(target)
                elif base in modules:
                    graph[name].add(base)
        graph[name].discard(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles of ``graph``: each strongly connected component of more than one
    module, as one circle through it (``[a, b, ..., a]``), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    comps: list[set[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm (the graph has ~200 nodes)
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(comp)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(_circle(graph, comp) for comp in comps)


def _circle(graph: dict[str, set[str]], comp: set[str]) -> list[str]:
    """One circle through the component's first module (breadth-first, shortest)."""
    start = min(comp)
    paths = {start: [start]}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v] & comp):
                if w == start:
                    return [*paths[v], start]
                if w not in paths:
                    paths[w] = [*paths[v], w]
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"{sorted(comp)} is not strongly connected")  # pragma: no cover


def test_mc_tco_has_no_import_circle():
    found = cycles(import_graph(ROOT))
    new = [c for c in found if frozenset(c) not in KNOWN]
    assert not new, "import circles: " + "; ".join(" -> ".join(c) for c in new)
    gone = [sorted(k) for k in KNOWN if k not in {frozenset(c) for c in found}]
    assert not gone, f"no longer circles, remove them from KNOWN: {gone}"


def test_the_graph_counts_function_level_imports_and_not_type_checking_ones(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from pkg import b\nfrom pkg.sub.c import f\n",
        "b.py": "def g():\n    from pkg.a import x\n",          # a <-> b, inside a function
        "sub/__init__.py": "",
        "sub/c.py": "from typing import TYPE_CHECKING\n"
                    "if TYPE_CHECKING:\n    from pkg.a import x\n"  # not counted
                    "from ..d import y\n",                         # relative: pkg.d
        "d.py": "import pkg.sub\n",                                # to a package
    }
    for rel, text in files.items():
        (pkg / rel).write_text(textwrap.dedent(text))
    graph = import_graph(pkg)
    assert graph["pkg.a"] == {"pkg.b", "pkg.sub.c"}
    assert graph["pkg.b"] == {"pkg.a"}
    assert graph["pkg.sub.c"] == {"pkg.d"}
    assert graph["pkg.d"] == {"pkg.sub"}
    assert cycles(graph) == [["pkg.a", "pkg.b", "pkg.a"]]
    # a longer circle is named through the modules in it
    (pkg / "b.py").write_text("")
    (pkg / "d.py").write_text("import pkg.sub\nfrom pkg import a\n")
    assert cycles(import_graph(pkg)) == [["pkg.a", "pkg.sub.c", "pkg.d", "pkg.a"]]
