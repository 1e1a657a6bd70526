"""Find a book's model function, keyed by the FILE it is defined in, not its module name.

A book names its model as ``model = "module:function"``. A plain module name (no dot) is
looked up as ``module.py`` next to the book first, then in the working directory; that file
is loaded under a name made from its absolute path, so two folders that each hold a
``model.py`` give two different models in one Python session (``import model`` would give
the first one twice). A loaded file is reused while its bytes are unchanged and loaded
again when they change. Anything else (``mc_tco.models.tco``, an installed package) is
imported by name.

:func:`model_facts` tells what is needed to find the model again (absolute paths) and the
SHA-256 of its source, for the results file.
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

from ..book import Book

__all__ = ["DEFAULT_MODEL", "model_facts", "model_file", "model_source_hash", "resolve_model"]

DEFAULT_MODEL = "mc_tco.models.tco:model"

#: absolute path of a loaded model file -> (sha256 of its bytes, module)
_LOADED: dict[str, tuple[str, ModuleType]] = {}


def _search_folders(book: Book) -> list[Path]:
    """Where a plain module name is looked up: the book's folder, then the working one."""
    folders = []
    if book.path and Path(book.path).parent.exists():
        folders.append(Path(book.path).resolve().parent)
    folders.append(Path.cwd().resolve())
    return list(dict.fromkeys(folders))


def model_file(book: Book) -> Path | None:
    """The absolute path of the ``.py`` file that defines the book's model module.

    For a plain module name found next to the book or in the working directory, that file;
    for a module imported by name, its ``__file__`` (None when it cannot be imported).
    """
    module_name = (book.model or DEFAULT_MODEL).partition(":")[0]
    if "." not in module_name:
        for folder in _search_folders(book):
            candidate = folder / f"{module_name}.py"
            if candidate.is_file():
                return candidate
    try:
        spec = importlib.util.find_spec(module_name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not Path(spec.origin).is_file():
        return None
    return Path(spec.origin).resolve()


def _load_file(path: Path, module_name: str, extra: list[str]) -> ModuleType:
    """Execute ``path`` as a module keyed by its absolute path (reused while unchanged)."""
    key = str(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    cached = _LOADED.get(key)
    if cached is not None and cached[0] == digest:
        return cached[1]
    unique = f"_mc_tco_model_{module_name}_{hashlib.sha256(key.encode()).hexdigest()[:12]}"
    spec = importlib.util.spec_from_file_location(unique, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[unique] = module  # dataclasses and pickle look classes up there
    added = [p for p in extra if p not in sys.path]
    sys.path[:0] = added  # sibling modules of the model file import as before
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(unique, None)
        raise
    finally:
        for p in added:
            if p in sys.path:
                sys.path.remove(p)
    _LOADED[key] = (digest, module)
    return module


def _import(book: Book, module_name: str) -> ModuleType:
    folders = [str(f) for f in _search_folders(book)]
    if "." not in module_name:
        for folder in folders:
            candidate = Path(folder) / f"{module_name}.py"
            if candidate.is_file():
                return _load_file(candidate, module_name, folders)
    # the working directory first, then the book's folder, as before for packages
    extra = folders[::-1]
    added = [p for p in extra if p not in sys.path]
    sys.path[:0] = added
    try:
        return importlib.import_module(module_name)
    finally:
        for p in added:
            if p in sys.path:
                sys.path.remove(p)


def resolve_model(book: Book) -> Callable:
    """Import the book's model function (``module:function``), or the TCO model.

    Raises
    ------
    BookError
        When the module cannot be found or imported, or names no function.
    """
    path = book.model or DEFAULT_MODEL
    module_name, _, func_name = path.partition(":")
    try:
        module = _import(book, module_name)
    except ModuleNotFoundError as exc:
        raise book.error(
            "book.model",
            f"cannot import module '{module_name}' ({exc}); put {module_name}.py in the "
            "working directory or next to the book, or install it",
            "model",
        ) from None
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
        ""), ``model_sha256`` (of that file, or ""), and ``model_search`` (one sentence:
        where the model is looked for, for a message when it is not found again).
    """
    path = model_file(book)
    folder = Path(book.path).resolve().parent if book.path else None
    module_name = (book.model or DEFAULT_MODEL).partition(":")[0]
    return {
        "model": book.model or DEFAULT_MODEL,
        "book_folder": str(folder) if folder is not None else "",
        "model_file": str(path) if path is not None else "",
        "model_sha256": hashlib.sha256(path.read_bytes()).hexdigest() if path else "",
        "model_search": (
            f"'{module_name}' is looked up as {module_name}.py next to the book, then in the "
            "working directory, then imported by name; run from the folder that holds "
            f"{module_name}.py or copy it next to the book"
            if "." not in module_name
            else f"'{module_name}' is imported by name; install it or run where it imports"
        ),
    }
