"""Find a book's model function, keyed by the FILE it is defined in, not its module name.

A book names its model as ``model = "module:function"``. Two kinds of module, two ways in:

* **A model file** (a plain name, no dot): looked up as ``module.py`` next to the book
  first, then in the working directory, and executed BY PATH under a name made from its
  absolute path, so two folders that each hold a ``model.py`` give two different models
  in one Python session. A loaded file is reused while its bytes are unchanged and loaded
  again when they change; the bytes hashed are the bytes executed. Before a file is
  executed, one line on stderr gives its path and SHA-256 (:func:`resolve_model`): it is
  the user's code, not part of an installed package.
* **An installed module** (a dotted name such as ``mc_tco.models.tco``, or a plain name
  with no file of that name next to the book or in the working directory): imported by
  name with ``sys.path`` untouched.

``sys.path`` is never PREPENDED to: a book's folder (or the working directory) may hold
files named like the libraries the model imports for the first time (``numba.py``,
``yaml.py``, ``timeit.py``), and those must never shadow the installed ones. So that a
model file's own helper modules (``from helpers import f`` next to it) keep importing, the
file's folder is APPENDED to ``sys.path`` while the file executes (and removed after):
an installed package, or the standard library, always wins over a file of the same name
there. A module that is not installed at all can still come from that folder while the
model file executes; that folder holds the model file the book chose, so it is code the
user runs anyway.

Read-only commands (``inputs``, ``memo``, ``explain``) execute no model file:
:func:`own_model_file` tells, without executing anything, which model file a book names.

:func:`model_facts` tells what is needed to find the model again (absolute paths) and the
SHA-256 of its source; the results file records ``model_file`` and ``model_sha256``, and
``mc-tco rerun`` refuses a model file whose SHA-256 changed
(:func:`mc_tco.engine.reproduce.check_model_unchanged`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

from mc_tco.book import Book
from mc_tco.errors import McTcoError, ModelError, one_line

__all__ = ["DEFAULT_MODEL", "loaded_sha256", "model_facts", "model_file", "model_source_hash",
           "own_model_file", "resolve_model"]

DEFAULT_MODEL = "mc_tco.models.tco:model"

#: absolute path of a loaded model file -> (sha256 of its bytes, module)
_LOADED: dict[str, tuple[str, ModuleType]] = {}


def _module_name(book: Book) -> str:
    return (book.model or DEFAULT_MODEL).partition(":")[0]


def _search_folders(book: Book) -> list[Path]:
    """Where a plain module name is looked up: the book's folder, then the working one."""
    folders = []
    if book.path and Path(book.path).parent.exists():
        folders.append(Path(book.path).resolve().parent)
    folders.append(Path.cwd().resolve())
    return list(dict.fromkeys(folders))


def own_model_file(book: Book) -> Path | None:
    """The model file a plain module name names (next to the book, else in the working
    directory), or None for a dotted name or when there is no such file. Executes nothing."""
    module_name = _module_name(book)
    if "." in module_name or not module_name:
        return None
    for folder in _search_folders(book):
        candidate = folder / f"{module_name}.py"
        if candidate.is_file():
            return candidate
    return None


def model_file(book: Book) -> Path | None:
    """The absolute path of the ``.py`` file that defines the book's model module.

    For a plain module name found next to the book or in the working directory, that file;
    for a module imported by name, its ``__file__`` (None when it cannot be found). Finding
    a dotted name imports its parent packages (installed code); ``sys.path`` is untouched.
    """
    own = own_model_file(book)
    if own is not None:
        return own
    try:
        spec = importlib.util.find_spec(_module_name(book))
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not Path(spec.origin).is_file():
        return None
    return Path(spec.origin).resolve()


def _announce(path: Path, digest: str) -> None:
    sys.stderr.write(one_line(
        f"mc-tco: running the model file {path} (SHA-256 {digest}), the book's own code, "
        "not part of an installed package") + "\n")
    sys.stderr.flush()


def _load_file(path: Path, module_name: str, announce: bool,
               expect_sha256: str | None = None) -> ModuleType:
    """Execute ``path`` as a module keyed by its absolute path (reused while unchanged)."""
    key = str(path)
    source = path.read_bytes()
    digest = hashlib.sha256(source).hexdigest()
    if expect_sha256 is not None and digest != expect_sha256:
        raise ModelError(
            f"{path}: the model file changed during the run (SHA-256 {digest}; the run "
            f"started with {expect_sha256}); run again once it is no longer being edited"
        )
    cached = _LOADED.get(key)
    if cached is not None and cached[0] == digest:
        return cached[1]
    unique = f"_mc_tco_model_{module_name}_{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(unique, path)
    assert spec is not None  # (None only for a path whose suffix no loader takes; ours: .py)
    module = importlib.util.module_from_spec(spec)
    if announce:
        _announce(path, digest)
    code = compile(source, str(path), "exec", dont_inherit=True)  # the bytes hashed
    sys.modules[unique] = module  # dataclasses and pickle look classes up there
    folder = str(path.parent)
    added = folder not in sys.path
    if added:
        sys.path.append(folder)  # after site-packages: helpers import, shadows do not
    try:
        exec(code, module.__dict__)  # the model file the book names
    except BaseException:
        sys.modules.pop(unique, None)
        raise
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)
    _LOADED[key] = (digest, module)
    return module


def _import(book: Book, module_name: str, announce: bool,
            expect_sha256: str | None = None) -> ModuleType:
    own = own_model_file(book)
    if own is not None:
        return _load_file(own, module_name, announce, expect_sha256)
    return importlib.import_module(module_name)  # installed: sys.path as it is


def resolve_model(book: Book, *, announce: bool = True,
                  expect_sha256: str | None = None) -> Callable:
    """Import the book's model function (``module:function``), or the TCO model.

    A model file (see the module docstring) is executed by path; unless ``announce`` is
    False, one line on stderr gives its path and SHA-256 first (once per file version and
    process: a file reused unchanged is not announced again). An installed module is
    imported by name, ``sys.path`` untouched. With ``expect_sha256`` (a worker process
    re-importing the model of a run, :class:`mc_tco.engine.Plan`), a model file whose
    bytes have another SHA-256 is refused rather than executed.

    Raises
    ------
    BookError
        When the module cannot be found or imported, or names no function.
    ModelError
        When the model file's SHA-256 is not ``expect_sha256``.
    """
    path = book.model or DEFAULT_MODEL
    module_name, _, func_name = path.partition(":")
    try:
        module = _import(book, module_name, announce, expect_sha256)
    except ModuleNotFoundError as exc:
        fix = (f"put {module_name}.py next to the book or in the working directory, or "
               "install it" if "." not in module_name else
               "install the package that holds it (pip install), or put the model in a "
               f"file next to the book and name it model = \"file:{func_name or 'model'}\"")
        raise book.error(
            "book.model", f"cannot import module '{module_name}' ({exc}); {fix}", "model",
        ) from None
    except McTcoError:
        raise
    except Exception as exc:
        raise book.error(
            "book.model",
            f"importing '{module_name}' failed: {type(exc).__name__}: {exc}",
            "model",
        ) from None
    func = getattr(module, func_name, None)
    if func is None:
        raise book.error(
            "book.model",
            f"module '{module_name}' has no '{func_name}'; name a function defined in it",
            "model",
        )
    if not callable(func):
        raise book.error(
            "book.model",
            f"'{path}' is {_article(type(func).__name__)} {type(func).__name__}, not a function; "
            "name a function model(inputs) -> xr.Dataset",
            "model",
        )
    return func


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def loaded_sha256(book: Book) -> str | None:
    """SHA-256 of the book's model file as this process last executed it (None for an
    installed module, or a file not executed here)."""
    own = own_model_file(book)
    loaded = _LOADED.get(str(own)) if own is not None else None
    return loaded[0] if loaded else None


def model_source_hash(book: Book) -> str | None:
    """SHA-256 (hex) of the source file of the book's model module, or None if none is found.

    A rerun that finds another hash runs a changed model.
    """
    path = model_file(book)
    return hashlib.sha256(path.read_bytes()).hexdigest() if path is not None else None


def model_facts(book: Book) -> dict[str, Any]:
    """What a results file needs to find the book's model again.

    Returns
    -------
    dict
        ``model`` (the book's ``module:function``), ``book_folder`` (absolute path of the
        book's folder, or ""), ``model_file`` (absolute path of the module's source, or
        ""), ``model_sha256`` (of that file, or ""; of the bytes executed when this
        process loaded the file), ``model_installed`` (False for a model file executed
        by path, True for an installed module) and ``model_search`` (one sentence: where
        the model is looked for, for a message when it is not found again).
    """
    path = model_file(book)
    folder = Path(book.path).resolve().parent if book.path else None
    module_name = _module_name(book)
    own = own_model_file(book) is not None
    digest = ""
    if path is not None:
        digest = (loaded_sha256(book) if own else None) or hashlib.sha256(
            path.read_bytes()).hexdigest()
    return {
        "model": book.model or DEFAULT_MODEL,
        "book_folder": str(folder) if folder is not None else "",
        "model_file": str(path) if path is not None else "",
        "model_sha256": digest,
        "model_installed": not own,
        "model_search": (
            f"'{module_name}' is looked up as {module_name}.py next to the book, then in the "
            "working directory, then imported by name; run from the folder that holds "
            f"{module_name}.py or copy it next to the book"
            if "." not in module_name
            else f"'{module_name}' is imported by name (an installed package); install it"
        ),
    }
