"""The book reader's distributions, each built (and checked) once per family and fields.

A book parsed again with an input unchanged gets that input's frozen distribution as
built before, without scipy's construction of it and the family's probes again: the
explorer parses the edited book at every change, and those were 28 of the 38 CPU ms of
the default book's parse, all for the inputs the change did not touch. A frozen
``scipy.stats`` distribution is never modified after it is built (a unit conversion builds
another: :meth:`mc_tco.book.types.Input.in_unit`), so two books may share it. Fields that
are refused raise every time (an exception is not kept); fields that cannot be a key (an
empirical column's data) are built every time.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from mc_tco.distributions.families import build_distribution

__all__ = ["checked_distribution"]

#: distributions kept (a book has tens of inputs; the explorer's edits add a few each)
SIZE = 512

_BUILT: OrderedDict[tuple, Any] = OrderedDict()
_LOCK = threading.Lock()
_PLAIN = (bool, int, float, str)


def _key(family: str, params: dict[str, Any]) -> tuple | None:
    """``(family, the fields by name, type and repr)``: 1 and 1.0, -0.0 and 0.0 stay apart;
    None when a field is neither a number, a string nor a list of them."""
    fields = []
    for name, value in sorted(params.items()):
        if not (isinstance(value, _PLAIN) or (isinstance(value, list) and all(
                isinstance(v, _PLAIN) for v in value))):
            return None
        fields.append((name, type(value).__name__, repr(value)))
    return (family, *fields)


def checked_distribution(family: str, params: dict[str, Any]):
    """:func:`mc_tco.distributions.families.build_distribution` of ``family`` with
    ``params``, the object built before for the same family and fields when there is one
    (raises its :class:`~mc_tco.distributions.family_base.FieldProblem` alike)."""
    key = _key(family, params)
    if key is None:
        return build_distribution(family, params)
    with _LOCK:
        if key in _BUILT:
            _BUILT.move_to_end(key)
            return _BUILT[key]
    dist = build_distribution(family, params)
    with _LOCK:
        _BUILT[key] = dist
        while len(_BUILT) > SIZE:
            _BUILT.popitem(last=False)
    return dist
