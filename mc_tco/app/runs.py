"""The explorer's runs of an edited book, in three stages, cached (:class:`RunCache`).

A change on the page is answered in stages, each a request of its own, so the answer
comes first and the ranking last:

* ``"answer"``: the base rows with the outputs the answer reads (P(beats the API) with its
  interval, the fan chart, the memo's sentence): a tenth of a CPU second at 1,024 samples;
* ``"base"``: the same rows with the break-even demands (the model's slowest output);
* ``"full"``: the ranking. For a book ranked by ST (independent inputs) the quick run
  itself (:func:`mc_tco.app.bridge.quick_run`: the design rows and the Sobol' indices);
  for a book ranked by Shapley effects (correlated inputs: the CLI's rule) the base rows
  of ``"base"`` and the Shapley rows at the page's demand alone
  (:func:`mc_tco.app.bridge.shapley_ranking`: the CLI's numbers there, without the design
  rows, whose Sobol' indices rank nothing with correlations); another demand adds its own.

The base rows and their numbers are the same in every stage (same seed, same points).
:func:`check_model` says which books may run at all.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np
import xarray as xr

from mc_tco.app import bridge

__all__ = ["STAGES", "Cancelled", "RunCache", "check_model"]

#: the stages, each containing what the ones before it give
STAGES = ("answer", "base", "full")


def check_model(book, started_model: str, started_file: Path | None = None) -> None:
    """Refuse a book whose model is neither the TCO model nor the app's own.

    A book opened in the browser names Python code to run; only the model the user chose
    when starting the app (``started_model``, the model of its book, defined in
    ``started_file`` when given: the same name found in another file is refused) or the
    TCO model shipped with mc_tco may run: not any other function importable from mc_tco.
    """
    model = book.model or bridge.DEFAULT_MODEL
    if model == bridge.DEFAULT_MODEL:
        return
    if model == started_model:
        found = bridge.model_file(book) if started_file is not None else None
        if started_file is None or found == started_file:
            return
        raise bridge.BookError(
            book.path, "book.model",
            f"'{model}' is the app's model name, but for this book it is "
            f"{found or 'not found'}, not the app's {started_file}; open the book from "
            "the folder of the app's model, or run it with 'mc-tco run' if you trust it",
        )
    raise bridge.BookError(
        book.path, "book.model",
        f"'{model}' is not allowed in the app: a book opened in the browser may only name "
        f"the app's model ({started_model}) or the TCO model ({bridge.DEFAULT_MODEL}); "
        "run it with 'mc-tco run' if you trust its code",
    )


class Cancelled(Exception):
    """A run stopped because the user asked, or a newer request replaced it."""


class RunCache:
    """Runs by (stage, book text, samples, seed); the newest change of a tab wins.

    A tab's new change (an ``"answer"`` request) or full run cancels its previous full
    run at the next chunk, so typing does not queue runs; other tabs are not affected.
    """

    def __init__(self, size: int = 8):
        self.size = size
        self.runs: OrderedDict[tuple[str, str], xr.Dataset] = OrderedDict()
        self.latest: dict[str, object] = {}
        self.lock = threading.Lock()
        #: full quick runs at once (each on the machine's threads); the short stages do not wait
        self.cpu = threading.Semaphore(2)
        #: full quick runs going now (the page says so when another tab's run is slow)
        self.running = 0

    @staticmethod
    def key(text: str, samples: int, seed: int) -> str:
        """The cache key of a run: the book's text, its samples and seed."""
        return hashlib.sha256(f"{samples}:{seed}:{text}".encode()).hexdigest()

    def cached(self, text: str, samples: int, seed: int, stage: str = "full",
               demand: float | None = None) -> bool:
        """Whether ``stage`` (or a later stage) of this run is in the cache (the full
        stage: with its ranking at ``demand``)."""
        key = self.key(text, samples, seed)
        with self.lock:
            found = self._lookup(key, stage)
        return found is not None and not (stage == "full" and self._lacks(found, demand))

    def _lookup(self, key: str, stage: str) -> xr.Dataset | None:
        for s in STAGES[STAGES.index(stage):][::-1]:  # the fullest first
            if (s, key) in self.runs:
                self.runs.move_to_end((s, key))
                return self.runs[(s, key)]
        return None

    def get(self, text: str, path: str, samples: int, seed: int, session: str = "",
            started_model: str = bridge.DEFAULT_MODEL,
            started_file: Path | None = None, stage: str = "full",
            book=None, demand: float | None = None) -> xr.Dataset:
        """The results of the book ``text`` at ``samples`` and ``seed``: cached (this stage
        or a later one), or run now (``book``: ``text`` already loaded and checked).

        ``demand`` (a point of the results' grid dim, :func:`bridge.grid_dim`: the page's
        demand) is where the ``"full"`` stage of a book ranked by Shapley effects estimates
        them (:func:`bridge.shapley_ranking`:
        the base rows of the ``"base"`` stage, cached or run, and the Shapley rows at that
        point; a cached full run gains the point); None: the CLI's points. A book ranked
        by ST (or whose Shapley run cannot be cut) gets :func:`bridge.quick_run`.
        """
        if stage not in STAGES:
            raise bridge.McTcoError(f"stage {stage!r}: one of {', '.join(STAGES)}")
        key = self.key(text, samples, seed)
        with self.lock:
            if session and stage != "base":  # a new change, or its full run: the newest
                token = self.latest[session] = object()
            found = self._lookup(key, stage)
            if found is not None and not (stage == "full" and self._lacks(found, demand)):
                return found
            base = found if found is not None else self._lookup(key, "base")
        if book is None:
            book = bridge.loads_book(text, path)
            check_model(book, started_model, started_file)
        if stage == "full":
            ds = self._full(book, samples, seed, session, token if session else None,
                            base, demand)
        else:
            ds = bridge.base_run(book, samples, seed, breakeven=stage == "base")
        with self.lock:
            self.runs[(stage, key)] = ds
            self.runs.move_to_end((stage, key))
            # at most ``size`` full runs (~40 MB each at 1,024 samples) and twice as many
            # of the base rows alone (~5 MB), the oldest dropped first
            mine = [k for k in self.runs if (k[0] == "full") == (stage == "full")]
            for old in mine[: max(0, len(mine) - self.size * (1 if stage == "full" else 2))]:
                del self.runs[old]
        return ds

    @staticmethod
    def _lacks(ds: xr.Dataset, demand: float | None) -> bool:
        """Whether a full run ranked by Shapley effects has none at the grid point
        ``demand``."""
        if demand is None or "shapley" not in ds:
            return False
        dim = bridge.grid_dim(ds)
        have = ds.mc_tco.shapley_points().get(dim)
        return (have is not None and bool(np.isin(demand, ds[dim].values))
                and not bool(np.isin(demand, have)))

    def _full(self, book, samples: int, seed: int, session: str,
              token: object | None, base: xr.Dataset | None,
              demand: float | None) -> xr.Dataset:
        def progress(done, total):
            if token is not None and self.latest.get(session) is not token:
                raise Cancelled("a newer change replaced this run")

        with self.cpu:
            progress(0, 1)
            with self.lock:
                self.running += 1
            try:
                if base is None or "breakeven_demand" not in base:
                    base = bridge.base_run(book, samples, seed)
                    progress(0, 1)
                at = None if demand is None else {bridge.grid_dim(base): demand}
                ds = bridge.shapley_ranking(book, base, samples, seed, at, progress)
                if ds is None:  # ranked by ST: the design rows are the ranking
                    ds = bridge.quick_run(book, samples, seed, progress=progress)
                return ds
            finally:
                with self.lock:
                    self.running -= 1
