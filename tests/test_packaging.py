"""How mc_tco is installed: one version, a license, a lock file, a package that wins.

Issue 21: pyproject.toml said 0.1.0 while ``mc_tco.__version__`` and the results files
said 0.2.0; ``license = "MIT"`` had no LICENSE file; nothing pinned what CI proved; and
``import mc_tco`` from the folder that holds a clone called ``mc_tco`` got an empty
namespace package (the editable install's import hook lost to the folder on the path).
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import mc_tco

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"


def test_one_version():
    """The installed distribution's version is ``mc_tco.__version__`` (single source)."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert "version" not in meta and "version" in meta["dynamic"]
    assert importlib.metadata.version("mc_tco") == mc_tco.__version__


def test_the_license_is_shipped():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert meta["license"] == "MIT"
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY" in text
    assert "LICENSE" in meta["license-files"]


def _pins() -> dict[str, list[str]]:
    pins: dict[str, list[str]] = {}
    for line in LOCK.read_text().splitlines():
        m = re.match(r"^([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if m:
            pins.setdefault(m[1].lower().replace("_", "-"), []).append(m[2])
    return pins


def test_the_lock_file_pins_every_dependency_and_says_how_it_was_made():
    """Every dependency and extra of pyproject.toml is pinned with ``==``, and the lock's
    first lines give the command that regenerates it."""
    head = LOCK.read_text().splitlines()[:3]
    assert any("uv pip compile pyproject.toml" in line for line in head), head
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = list(meta["dependencies"])
    for extra in meta["optional-dependencies"].values():
        wanted += extra
    pins = _pins()
    for req in wanted:
        name = re.match(r"[A-Za-z0-9_.\-]+", req)[0].lower().replace("_", "-")
        assert name in pins, f"{name} is not pinned in requirements.lock"


def test_this_environment_is_the_locked_one():
    """The environment the tests run in was installed from the lock (the README's commands
    use it as pip's constraints): each locked package that is installed has the locked
    version. Fails when someone installs without ``-c requirements.lock``."""
    pins = _pins()
    wrong = []
    for dist in importlib.metadata.distributions():
        name = dist.metadata["Name"].lower().replace("_", "-")
        if name in pins and dist.version not in pins[name]:
            wrong.append(f"{name} {dist.version} (locked {', '.join(pins[name])})")
    assert not wrong, "; ".join(wrong)


def test_import_from_the_folder_that_holds_a_clone(tmp_path):
    """A notebook next to a checkout called ``mc_tco`` imports the installed package, not
    the checkout's folder as an empty namespace package."""
    (tmp_path / "mc_tco" / "docs").mkdir(parents=True)  # a clone: no __init__.py at its top
    code = "import mc_tco, sys; print(mc_tco.__file__); print(callable(mc_tco.load_book))"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    file, ok = out.stdout.split()
    assert Path(file).resolve() == (ROOT / "mc_tco" / "__init__.py").resolve()
    assert ok == "True"
