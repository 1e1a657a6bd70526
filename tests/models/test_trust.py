"""No code runs that the user did not choose: the model loader and the commands around it.

* A file planted next to a book, or in the working directory, named like a library the
  model imports for the first time (``numba.py``, ``yaml.py``, ``timeit.py``), never runs.
* Read-only commands (``inputs``, ``memo``, ``explain``) execute no model file of the book's;
  commands that evaluate the model say on stderr which file they execute, with its SHA-256.
* The results file records the model file and its SHA-256; ``rerun`` refuses a changed one.

The security tests run the installed ``mc-tco`` in real processes (a module imported once
stays imported in a test session) and assert that the planted file's marker never appears.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from mc_tco.book import load_book
from mc_tco.cli import main
from mc_tco.engine import run
from tests.paths import ARTICLE_BOOK

MC_TCO = str(Path(sys.executable).with_name("mc-tco"))
PLANTED = ("numba", "yaml", "timeit")

USER_BOOK = """
[book]
name = "own model"
model = "{module}:run"

[analysis]
targets = ["y"]

[inputs.x]
dist = "uniform"
low = 0
high = 1
"""

USER_MODEL = """
import xarray as xr
{extra}

def run(inputs):
    return xr.Dataset({{"y": inputs["x"] * {factor}}})
"""


def _plant(folder: Path, markers: Path) -> None:
    """Files named like libraries, each leaving a marker in ``markers`` if it ever runs."""
    for name in PLANTED:
        (folder / f"{name}.py").write_text(
            f"open({str(markers / ('RAN_' + name))!r}, 'w').write('ran')\n")


def _ran(markers: Path) -> list[str]:
    return sorted(p.name for p in markers.iterdir() if p.name.startswith("RAN_"))


def _cli(args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([MC_TCO, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


def _tco_book(folder: Path) -> Path:
    """The article's book without its model line: the TCO model, by default."""
    text = ARTICLE_BOOK.read_text(encoding="utf-8")
    book = folder / "book.toml"
    book.write_text("\n".join(line for line in text.splitlines()
                              if not line.startswith("model")) + "\n", encoding="utf-8")
    return book


def _user_book(folder: Path, module: str = "own", factor: float = 2.0, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{module}.py").write_text(
        textwrap.dedent(USER_MODEL.format(factor=factor, extra=extra)), encoding="utf-8")
    book = folder / "book.toml"
    book.write_text(USER_BOOK.format(module=module), encoding="utf-8")
    return book


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _announced(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("mc-tco: running the model")]


# --------------------------------------------------------------- item 1: planted files


@pytest.mark.slow
@pytest.mark.parametrize("where", ["book", "cwd"])
def test_planted_library_files_never_run(where, tmp_path):
    """inputs, run and rerun of a TCO book with numba.py, yaml.py, timeit.py planted next to
    the book or in the working directory: exit 0 and no marker."""
    books, cwd, markers = tmp_path / "books", tmp_path / "cwd", tmp_path / "markers"
    for d in (books, cwd, markers):
        d.mkdir()
    _plant(books if where == "book" else cwd, markers)
    book = _tco_book(books)
    res = _cli(["inputs", str(book)], cwd)
    assert res.returncode == 0, res.stderr
    assert _ran(markers) == []
    res = _cli(["run", str(book), "-n", "64", "-q", "--out", "out.nc"], cwd)
    assert res.returncode == 0, res.stderr
    assert _ran(markers) == []
    assert _announced(res.stderr) == []  # the TCO model is installed code: no line
    res = _cli(["rerun", "out.nc"], cwd)
    assert res.returncode == 0, res.stdout + res.stderr
    assert _ran(markers) == []


@pytest.mark.slow
@pytest.mark.slow
@pytest.mark.parametrize("where", ["book", "cwd"])
def test_the_app_does_not_run_planted_library_files(where, tmp_path):
    """``mc-tco app BOOK`` loads the book's model as run does: planted files never run."""
    import time

    books, cwd, markers = tmp_path / "books", tmp_path / "cwd", tmp_path / "markers"
    for d in (books, cwd, markers):
        d.mkdir()
    _plant(books if where == "book" else cwd, markers)
    book = _tco_book(books)
    proc = subprocess.Popen([MC_TCO, "app", str(book), "--port", "0", "--no-browser"],
                            cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # printed once the book is loaded and checked
        assert line.startswith("mc-tco app: "), line + proc.stderr.read()
        time.sleep(2)  # the warm-up thread imports the memo's modules
    finally:
        proc.terminate()  # the app this test started, by its own handle
        proc.communicate(timeout=30)
    assert _ran(markers) == []


@pytest.mark.slow
def test_a_model_file_imports_the_installed_libraries_not_its_neighbours(tmp_path):
    """A user's model file that imports numba and yaml for the first time gets the installed
    ones, though files of those names lie next to it; its own helper module still imports."""
    markers = tmp_path / "markers"
    markers.mkdir()
    folder = tmp_path / "own"
    book = _user_book(folder, extra="import numba\nimport yaml\nimport timeit\n"
                                    "from helper import FACTOR")
    (folder / "helper.py").write_text("FACTOR = 3.0\n", encoding="utf-8")
    _plant(folder, markers)
    res = _cli(["run", str(book), "-n", "64", "-q", "--out", "out.nc"], folder)
    assert res.returncode == 0, res.stderr
    assert _ran(markers) == []


def test_an_installed_module_is_imported_with_sys_path_untouched(tmp_path, monkeypatch):
    from mc_tco.models import resolve_model

    book = load_book(_tco_book(tmp_path))
    seen = []

    import importlib

    real = importlib.import_module

    def spy(name, *args):
        if name == "mc_tco.models.tco":
            seen.append(list(sys.path))
        return real(name, *args)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(importlib, "import_module", spy)
    before = list(sys.path)
    resolve_model(book)
    assert seen == [before]


# --------------------------------------------------------------- item 2: read-only commands


def test_inputs_does_not_execute_the_books_model_file(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    book = _user_book(tmp_path / "b", module="evil",
                      extra=f"open({str(markers / 'RAN_evil')!r}, 'w').write('ran')")
    res = CliRunner().invoke(main, ["inputs", str(book)])
    assert res.exit_code == 0, res.output
    assert _ran(markers) == []
    last = res.stdout.splitlines()[-1]
    assert str((book.parent / "evil.py").resolve()) in last
    assert "mc-tco run" in last and "spec" in last
    assert "x " in res.stdout  # the inputs are listed


@pytest.mark.slow
def test_memo_and_explain_do_not_execute_the_model_file(tmp_path):
    markers = tmp_path / "markers"
    markers.mkdir()
    book = _user_book(tmp_path / "b", module="counted",
                      extra=f"open({str(markers / 'RAN_counted')!r}, 'a').write('x')")
    res = _cli(["run", str(book), "-n", "64", "-q", "--out", "r.nc"], tmp_path)
    assert res.returncode == 0, res.stderr
    marker = markers / "RAN_counted"
    assert marker.read_text() == "x"  # run executed it, once
    marker.unlink()
    for args in (["memo", "r.nc", "--out-dir", "memo"], ["explain", "r.nc"],
                 ["inputs", str(book)]):
        res = _cli(args, tmp_path)
        assert "Traceback" not in res.stderr, args
        assert _announced(res.stderr) == [], args
        assert _ran(markers) == [], args


@pytest.mark.slow
def test_run_says_which_model_file_it_executes(tmp_path):
    book = _user_book(tmp_path / "b")
    res = _cli(["run", str(book), "-n", "64", "-q", "--out", "r.nc"], tmp_path)
    assert res.returncode == 0, res.stderr
    model = (book.parent / "own.py").resolve()
    assert _announced(res.stderr) == [
        f"mc-tco: running the model file {model} (SHA-256 {_sha(model)}), the book's own "
        "code, not part of an installed package"]


def test_the_app_says_which_model_file_it_executes(tmp_path, capsys):
    from mc_tco.app.server import App

    book = _user_book(tmp_path / "b", module="app_model")
    App(str(book), samples=64)
    model = (book.parent / "app_model.py").resolve()
    err = capsys.readouterr().err
    assert _announced(err) == [
        f"mc-tco: running the model file {model} (SHA-256 {_sha(model)}), the book's own "
        "code, not part of an installed package"]


# --------------------------------------------------------------- item 3: provenance


def test_the_results_record_the_model_file_and_its_sha256(tmp_path, default_book):
    book = _user_book(tmp_path / "b", module="recorded")
    ds = run(load_book(book), samples=64, resamples=0)
    model = (book.parent / "recorded.py").resolve()
    assert ds.attrs["model_file"] == str(model)
    assert ds.attrs["model_sha256"] == _sha(model)
    tco = run(default_book, samples=16, resamples=0, ci="asymptotic")
    assert tco.attrs["model_file"].endswith("tco.py")
    assert tco.attrs["model_sha256"] == _sha(Path(tco.attrs["model_file"]))


def test_rerun_refuses_a_changed_model_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    book = _user_book(tmp_path / "b", module="changing")
    res = CliRunner().invoke(main, ["run", str(book), "-n", "64", "-q", "--out", "r.nc"])
    assert res.exit_code == 0, res.output
    model = book.parent / "changing.py"
    recorded = _sha(model)
    model.write_text(model.read_text().replace("* 2.0", "* 3.0"))
    res = CliRunner().invoke(main, ["rerun", "r.nc"])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.stderr
    lines = res.stderr.splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("mc-tco: error: r.nc: model changing:run: ")
    assert recorded in lines[0] and _sha(model) in lines[0]
    assert "--accept-model-change" in lines[0]
    assert _announced(res.stderr) == []  # refused before the file ran
    res = CliRunner().invoke(main, ["rerun", "r.nc", "--accept-model-change"])
    assert res.exit_code == 1, res.output  # it ran: the numbers differ
    assert _announced(res.stderr) == [
        f"mc-tco: running the model file {model.resolve()} (SHA-256 {_sha(model)}), the "
        "book's own code, not part of an installed package"]


def test_rerun_of_an_unchanged_model_file_matches(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    book = _user_book(tmp_path / "b", module="unchanged")
    res = CliRunner().invoke(main, ["run", str(book), "-n", "64", "-q", "--out", "r.nc"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["rerun", "r.nc"])
    assert res.exit_code == 0, res.output


@pytest.mark.slow
def test_report_says_which_model_file_it_executes(tmp_path):
    book = _user_book(tmp_path / "b", module="reported")
    res = _cli(["report", str(book), "--samples", "64", "-q", "--results-dir", "out"],
               tmp_path)
    assert res.returncode == 0, res.stderr
    model = (book.parent / "reported.py").resolve()
    assert _announced(res.stderr) == [
        f"mc-tco: running the model file {model} (SHA-256 {_sha(model)}), the book's own "
        "code, not part of an installed package"]


@pytest.mark.slow
def test_python_m_mc_tco_does_not_import_from_the_working_directory(tmp_path):
    """``python -m`` puts the working directory first on sys.path; __main__ takes it off."""
    markers = tmp_path / "markers"
    markers.mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    _plant(cwd, markers)
    book = _tco_book(tmp_path)
    res = subprocess.run([sys.executable, "-m", "mc_tco", "inputs", str(book)], cwd=cwd,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert _ran(markers) == []


def test_a_worker_refuses_a_model_file_edited_during_the_run(tmp_path, monkeypatch):
    """A plan sent to a worker process re-imports the model file; if the file's bytes are
    not those the run started with (and announced), the worker refuses to execute it."""
    import pickle

    from mc_tco.engine import plan_run
    from mc_tco.errors import ModelError

    monkeypatch.chdir(tmp_path)
    markers = tmp_path / "markers"
    markers.mkdir()
    book = _user_book(tmp_path / "b", module="edited")
    plan = plan_run(load_book(book), samples=64, resamples=0)
    sent = pickle.dumps(plan)
    assert pickle.loads(sent).model is plan.model  # unchanged: the same module
    model = book.parent / "edited.py"
    model.write_text(model.read_text() + f"open({str(markers / 'RAN_edited')!r}, 'w')\n")
    with pytest.raises(ModelError, match="the model file changed during the run"):
        pickle.loads(sent)
    assert _ran(markers) == []
