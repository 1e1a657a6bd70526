"""One warning ignored inside a block, safely beside the run's other threads.

``warnings.catch_warnings`` saves the process's filter list on entry and puts it back on
exit (Python 3.11; not thread-safe): with two threads inside such blocks at once, the one
that leaves first puts back a list without the other's filter, and the other's warning is
no longer ignored (under pytest's ``-W error``, an exception inside a run), or the one that
leaves last puts back a list with the first's filter in it for good. A run calls the
distributions' ppf (boost's warning) and the Sobol' design (scipy's balance warning) on
its worker threads, its Shapley pass and its independence check at once; their blocks
hold one lock (:func:`ignoring`), so none of them undoes another's."""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Iterator

__all__ = ["ignoring"]

_lock = threading.RLock()


@contextlib.contextmanager
def ignoring(message: str, category: type[Warning]) -> Iterator[None]:
    """Ignore warnings of ``category`` whose message starts with ``message`` inside the
    block (``warnings.filterwarnings``'s regular expression), the filter list put back on
    leaving; such blocks of different threads take turns."""
    with _lock, warnings.catch_warnings():
        warnings.filterwarnings("ignore", message, category)
        yield
