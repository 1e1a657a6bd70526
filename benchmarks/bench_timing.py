"""The best of a few timed calls, shared by the in-process benchmarks (``cells_speed.py``,
``npv_parts.py``, ``ppf_speed.py``). Not a benchmark: imported from the scripts' folder,
which ``python benchmarks/NAME.py`` puts first on ``sys.path``."""

from __future__ import annotations

import time
from collections.abc import Callable


def best(f: Callable[[], object], repeats: int) -> float:
    """The shortest wall time (seconds) of ``repeats`` calls of ``f``."""
    shortest = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        f()
        shortest = min(shortest, time.perf_counter() - t)
    return shortest
