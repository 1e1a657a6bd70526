"""The package's layers: every module imports on its own, and imports point down.

The pipeline, bottom to top: errors, distributions and book, design and models,
sensitivity and uncertainty, engine and results, decision, report (terminal, words,
figures, memo), app, cli. A module may import its own
layer and those below it, never one above (a kernel never imports the CLI or the memo).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "mc_tco"

#: top-level names of mc_tco by layer; a module may import from its layer or lower ones
LAYERS = [
    {"errors", "interrupt", "quiet", "_version"},
    {"distributions", "book"},
    {"design", "sobol_points", "models"},
    {"sensitivity", "uncertainty"},
    {"engine", "results"},
    {"decision"},
    {"report"},
    {"app"},
    {"cli", "__main__", "_entry"},
]
LEVEL = {name: i for i, layer in enumerate(LAYERS) for name in layer}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


MODULES = list(_modules())


def _top(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _imported(name: str, path: Path) -> set[str]:
    """mc_tco modules imported by ``path`` (absolute names), at any depth of the file."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod.startswith("mc_tco"):
                out.add(mod)
                out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.startswith("mc_tco"))
    return out


def test_every_module_is_in_a_layer():
    tops = {_top(m) for m, _ in MODULES} - {None}
    assert tops <= set(LEVEL), f"add to LAYERS: {sorted(tops - set(LEVEL))}"


@pytest.mark.parametrize("name, path", MODULES, ids=[m for m, _ in MODULES])
def test_imports_point_down(name, path):
    own = _top(name)
    if own is None:
        return
    for mod in _imported(name, path):
        other = _top(mod)
        if other is None or other not in LEVEL:
            continue
        assert LEVEL[other] <= LEVEL[own], (
            f"{name} (layer {LEVEL[own]}) imports {mod} (layer {LEVEL[other]}): imports must "
            "point down the pipeline"
        )


@pytest.mark.slow
def test_every_module_imports_on_its_own():
    """Each module in a fresh mc_tco namespace, in one subprocess (third-party modules stay
    cached; a fresh namespace per module, so a cycle or a missing import shows)."""
    names = [m for m, _ in MODULES]
    script = (
        "import importlib, sys\n"
        f"names = {names!r}\n"
        "bad = []\n"
        "for name in names:\n"
        "    for k in [k for k in sys.modules if k == 'mc_tco' or k.startswith('mc_tco.')]:\n"
        "        del sys.modules[k]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        bad.append(f'{name}: {type(exc).__name__}: {exc}')\n"
        "print('\\n'.join(bad))\n"
    )
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=PACKAGE.parent, timeout=300)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "", res.stdout
