"""Errors that reach users.

Every error a user can cause (a bad book, a bad option, a model that misbehaves) is an
:class:`McTcoError`. Its message is one line that names the file, the input (or option) and
says how to fix it. The CLI prints it without a traceback and exits with code 2.

A few errors need a list to be useful (a book written for an earlier version of the model:
one line per input that changed). Those give the list as ``details``: each detail is one
line of its own, indented by two spaces below the message, so the first line still names
the file and what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterable


def one_line(text: str) -> str:
    """``text`` with every non-printable character (newline, tab, NUL, U+2028, ...) escaped.

    Names in messages come from the user's file; a key with a newline in it must not break
    the one-line error.
    """
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in text)


class McTcoError(ValueError):
    """An error caused by the user's input; the message says what to fix (one line).

    Parameters
    ----------
    message : str
        What is wrong and how to fix it: one line (non-printable characters are escaped).
    details : iterable of str, optional
        Lines that list what the message summarises; each is escaped to one line and
        printed below the message, indented by two spaces.
    """

    exit_code = 2

    def __init__(self, message: str = "", details: Iterable[str] = ()):
        self.headline = one_line(str(message))
        self.details = tuple(one_line(str(d)) for d in details)
        super().__init__("\n".join([self.headline, *(f"  {d}" for d in self.details)]))


class BookError(McTcoError):
    """An assumption book that cannot be used.

    Parameters
    ----------
    path : str or None
        The book file (shown first in the message).
    where : str or None
        The place in the book, e.g. ``"inputs.node_price.low"``.
    message : str
        What is wrong and how to fix it.
    line : int or None
        The line in the file, when it is known.
    details : iterable of str, optional
        Lines below the message (:class:`McTcoError`).
    """

    def __init__(
        self, path: str | None, where: str | None, message: str, line: int | None = None,
        details: Iterable[str] = (),
    ):
        self.path = path
        self.where = where
        self.line = line
        self.reason = message
        location = ""
        if path:
            location = f"{path}:{line}" if line else str(path)
        parts = [p for p in (location, where) if p]
        super().__init__(": ".join([*parts, message]), details)


class ModelError(McTcoError):
    """A model function that cannot be imported, or that returned something unusable."""


class OptionError(McTcoError):
    """A command-line option or argument that cannot be used."""


def a_or_an(word: str) -> str:
    """``word`` with its indefinite article, for messages: ``a pert``, ``an exponential``,
    ``a uniform`` (by sound: a vowel letter read as "you" takes ``a``)."""
    w = word.lower()
    vowel = w[:1] in "aeiou" and not w.startswith(("uni", "use", "usu", "eu", "one"))
    return f"{'an' if vowel else 'a'} {word}"
