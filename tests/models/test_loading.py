"""A user's model is keyed by its file, not its module name (issue 11, items 1 and 17)."""

from __future__ import annotations

import hashlib
import textwrap

from mc_tco.book import load_book
from mc_tco.engine import run
from mc_tco.models import model_facts, model_source_hash, resolve_model

BOOK = """
[book]
name = "{name}"
model = "model:run"

[analysis]
targets = ["y"]

[inputs.x]
dist = "uniform"
low = 0
high = 1
"""

MODEL = """
import xarray as xr

def run(inputs):
    return xr.Dataset({{"y": inputs["x"] * {factor}}})
"""


def _folder(tmp_path, name, factor):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "book.toml").write_text(BOOK.format(name=name))
    (folder / "model.py").write_text(textwrap.dedent(MODEL.format(factor=factor)))
    return folder


def test_two_folders_with_model_py_run_their_own_model(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a = _folder(tmp_path, "A", 1.0)
    b = _folder(tmp_path, "B", 1000.0)
    ra = run(load_book(a / "book.toml"), samples=64, resamples=0)
    rb = run(load_book(b / "book.toml"), samples=64, resamples=0)
    assert float(ra["y"].max()) <= 1.0
    assert float(rb["y"].max()) > 1.0  # B's model, not A's again
    assert float(rb["y"].mean()) == 1000.0 * float(ra["y"].mean())


def test_an_edited_model_file_is_loaded_again(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    a = _folder(tmp_path, "A", 1.0)
    book = load_book(a / "book.toml")
    f1 = resolve_model(book)
    assert resolve_model(book) is f1  # unchanged bytes: the same module
    (a / "model.py").write_text(textwrap.dedent(MODEL.format(factor=2.0)))
    f2 = resolve_model(book)
    assert f2 is not f1


def test_model_facts_find_the_model_again(tmp_path, monkeypatch):
    a = _folder(tmp_path, "A", 1.0)
    monkeypatch.chdir(tmp_path)
    book = load_book("A/book.toml")
    facts = model_facts(book)
    source = (a / "model.py").read_bytes()
    assert facts["model"] == "model:run"
    assert facts["book_folder"] == str(a.resolve())
    assert facts["model_file"] == str((a / "model.py").resolve())
    assert facts["model_sha256"] == hashlib.sha256(source).hexdigest()
    assert model_source_hash(book) == facts["model_sha256"]
    assert "next to the book" in facts["model_search"]


def test_the_tco_model_has_a_source_hash(default_book):
    facts = model_facts(default_book)
    assert facts["model_file"].endswith("tco.py")
    assert len(model_source_hash(default_book)) == 64
