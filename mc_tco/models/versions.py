"""A book written for an earlier version of a model, refused with every change it needs
(:func:`check_version`, run by :func:`mc_tco.models.checks.check_book`)."""

from __future__ import annotations

import difflib
import re

from mc_tco.book import Book
from mc_tco.errors import BookError
from mc_tco.models.spec import ModelSpec

__all__ = ["check_version"]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def check_version(book: Book, spec: ModelSpec) -> None:
    """Refuse a book written for an earlier version of the model, or one that lacks inputs
    the current version added, with ONE error that lists every change.

    The first line names the file and what is wrong; below it, one line per retired input
    the book uses (``[inputs.x] removed: ...`` / ``renamed ...``: ``spec.retired``), one
    line of the new inputs it lacks with the values that give the earlier version's answer
    (``spec.neutral``, in the model's input order), and one of other inputs it lacks (but
    those a retired input's line names: its replacement).

    A missing input whose name is close to one of the book's unknown inputs is left to
    :func:`.checks.check_book`'s typo message (rename [inputs.x]); so is a book that lacks only
    inputs without a neutral value.
    """
    old = [n for n in book.inputs if n in spec.retired]
    unknown = [n for n in book.inputs if n not in spec.inputs and n not in spec.retired]
    missing = [n for n in spec.inputs if n not in book.inputs
               and not difflib.get_close_matches(n, unknown, n=1)]
    new = [n for n in missing if n in spec.neutral]
    if not old and not new:
        return
    details = [f"[inputs.{n}] {spec.retired[n]}" for n in old]
    if new:
        values = ", ".join(f"{n} = {spec.neutral[n]:g}" for n in new)
        details.append(f"add the new inputs with these values to keep the earlier version's "
                       f"answer: {values}")
    told = " ".join(spec.retired[n] for n in old)  # "renamed horizon_years": said already
    other = [n for n in missing if n not in spec.neutral and not re.search(rf"\b{n}\b", told)]
    if other:
        which = "which has no neutral value: give it" if len(other) == 1 else (
            "which have no neutral value: give each")
        details.append(f"and add {', '.join(other)}, {which} a dist")
    how = ('as [inputs.NAME] with dist = "constant" and value = V '
           "(distributions/ has the shipped books for this version)")
    if old:
        what = _plural(len(old), "input") + " removed or renamed"
        if new:
            what += f", {len(new)} new {'one' if len(new) == 1 else 'ones'} missing"
        raise book.error(
            f"inputs.{old[0]}",
            f"the book is written for an earlier version of the model ({what}); change it "
            f"as listed below, each new input {how}:",
            details=details,
        )
    raise BookError(
        book.path,
        "inputs",
        f"the book lacks {_plural(len(new), 'input')} that the current version of the model "
        f"added; add each {how}:",
        details=details,
    )
