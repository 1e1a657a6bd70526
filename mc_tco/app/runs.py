"""The explorer's runs of an edited book, in three stages, cached (:class:`RunCache`).

A change on the page is answered in stages, each a request of its own, so the answer
comes first and the ranking last:

* ``"answer"``: the base rows with the outputs the answer reads (P(beats the API) with its
  interval, the fan chart, the memo's sentence): a tenth of a CPU second at 1,024 samples;
* ``"base"``: the same rows with the break-even demands (the model's slowest output);
* ``"full"``: the ranking. For a book ranked by ST (independent inputs) the quick run
  itself (:func:`mc_tco.app.bridge.quick_run`: the design rows and the Sobol' indices);
  for a book ranked by Shapley effects (correlated inputs: the CLI's rule) the Shapley
  rows at the page's demand alone (:func:`mc_tco.app.bridge.shapley_ranking`: the CLI's
  numbers there, without the design rows, whose Sobol' indices rank nothing with
  correlations), merged with the base rows so far; another demand adds its own. The
  page asks first for a ``rough`` estimate (a quarter of the permutations,
  :func:`mc_tco.app.bridge.rough_permutations`: about a quarter of the rows, twice the
  half-widths; kept apart, never taken for the run) and then for the CLI's.

On the loaded 2-core machine (load 9-11) the whole quick run took 11-12 s of the page's
ranking (5 CPU seconds, three fifths of them the 48 x 1,024 design rows at 46 demands);
the Shapley rows at one demand take 0.2 CPU seconds for the first estimate and 0.75 for
the CLI's (``benchmarks/app_latency.py`` prints both).

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
        #: the Shapley effects of runs ranked by them, at the points estimated so far
        self.ranks: OrderedDict[str, xr.Dataset] = OrderedDict()
        #: the same, first estimates at fewer permutations (:func:`bridge.rough_permutations`)
        self.rough: OrderedDict[str, xr.Dataset] = OrderedDict()
        #: the checked books of the runs (a later stage need not parse the text again)
        self.books: OrderedDict[str, object] = OrderedDict()
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
               demand: float | None = None, rough: bool = False) -> bool:
        """Whether ``stage`` (or a later stage) of this run is in the cache (the full
        stage: with its ranking at ``demand``; ``rough``: a first estimate will do)."""
        key = self.key(text, samples, seed)
        with self.lock:
            found = self._lookup(key, stage)
            if stage == "full" and found is None:
                found = self._assembled(key)
            if stage == "full" and rough and (found is None or self._lacks(found, demand)):
                found = self._assembled(key, rough=True)
        return found is not None and not (stage == "full" and self._lacks(found, demand))

    def _lookup(self, key: str, stage: str) -> xr.Dataset | None:
        for s in STAGES[STAGES.index(stage):][::-1]:  # the fullest first
            if (s, key) in self.runs:
                self.runs.move_to_end((s, key))
                return self.runs[(s, key)]
        return None

    def _assembled(self, key: str, rough: bool = False) -> xr.Dataset | None:
        """The base rows so far with the Shapley effects estimated so far (None: either
        is missing); kept as the full run once the base rows have their break-even (not
        a ``rough`` first estimate: returned, never kept as the run)."""
        rows = self._lookup(key, "answer")
        part = (self.rough if rough else self.ranks).get(key)
        if rows is None or part is None:
            return None
        ds = bridge.with_ranking(rows, part)
        if "breakeven_demand" in ds and not rough:
            self._store("full", key, ds)
        return ds

    def _store(self, stage: str, key: str, ds: xr.Dataset) -> None:
        self.runs[(stage, key)] = ds
        self.runs.move_to_end((stage, key))
        # at most ``size`` full runs (~40 MB each at 1,024 samples) and twice as many
        # of the base rows alone (~5 MB), the oldest dropped first
        mine = [k for k in self.runs if (k[0] == "full") == (stage == "full")]
        for old in mine[: max(0, len(mine) - self.size * (1 if stage == "full" else 2))]:
            del self.runs[old]
        for parts in (self.ranks, self.rough, self.books):
            while len(parts) > 2 * self.size:
                parts.popitem(last=False)

    def get(self, text: str, path: str, samples: int, seed: int, session: str = "",
            started_model: str = bridge.DEFAULT_MODEL,
            started_file: Path | None = None, stage: str = "full",
            book=None, demand: float | None = None, rough: bool = False) -> xr.Dataset:
        """The results of the book ``text`` at ``samples`` and ``seed``: cached (this stage
        or a later one), or run now (``book``: ``text`` already loaded and checked).

        The ``"full"`` stage of a book ranked by Shapley effects is the base rows so far
        (its ``"base"`` stage may still be running: it goes beside) with the Shapley
        effects at ``demand`` (a point of the results' grid dim, :func:`bridge.grid_dim`:
        the page's demand; None: the CLI's points), estimated by
        :func:`bridge.shapley_ranking` and kept, so another demand adds its own. A book
        ranked by ST gets :func:`bridge.quick_run`. ``rough``: a first estimate of the
        Shapley effects will do (:func:`bridge.rough_permutations`; the CLI's when
        cached or when that is the CLI's own).
        """
        if stage not in STAGES:
            raise bridge.McTcoError(f"stage {stage!r}: one of {', '.join(STAGES)}")
        key = self.key(text, samples, seed)
        with self.lock:
            if session and stage != "base":  # a new change, or its full run: the newest
                token = self.latest[session] = object()
            found = self._lookup(key, stage)
            if stage == "full" and found is None:
                found = self._assembled(key)
            rough = rough and bridge.rough_permutations(samples) is not None
            if stage == "full" and rough and (found is None or self._lacks(found, demand)):
                found = self._assembled(key, rough=True)
            if found is not None and not (stage == "full" and self._lacks(found, demand)):
                return found
            rows = self._lookup(key, "answer")  # the fullest base rows so far
            if book is None:
                book = self.books.get(key)
        if book is None:
            book = bridge.loads_book(text, path)
            check_model(book, started_model, started_file)
        with self.lock:
            self.books[key] = book
            self.books.move_to_end(key)
        if stage == "full":
            return self._full(book, samples, seed, session, token if session else None,
                              key, rows, demand, rough)
        ds = bridge.base_run(book, samples, seed, breakeven=stage == "base",
                             answer=rows if stage == "base" else None)  # (its rows reused)
        with self.lock:
            self._store(stage, key, ds)
            if stage == "base":  # a ranking that came first: the full run complete
                self._assembled(key)
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

    def _full(self, book, samples: int, seed: int, session: str, token: object | None,
              key: str, rows: xr.Dataset | None, demand: float | None,
              rough: bool = False) -> xr.Dataset:
        def progress(done, total):
            if token is not None and self.latest.get(session) is not token:
                raise Cancelled("a newer change replaced this run")

        with self.cpu:
            progress(0, 1)
            with self.lock:
                self.running += 1
            try:
                if rows is None:
                    rows = bridge.base_run(book, samples, seed, breakeven=False)
                    progress(0, 1)
                    with self.lock:
                        self._store("answer", key, rows)
                at = None if demand is None else {bridge.grid_dim(rows): demand}
                parts = self.rough if rough else self.ranks
                part = bridge.shapley_ranking(
                    book, rows, samples, seed, at, progress, have=parts.get(key),
                    permutations=bridge.rough_permutations(samples) if rough else None)
                if part is None:  # ranked by ST: the design rows are the ranking
                    ds = bridge.quick_run(book, samples, seed, progress=progress)
                    with self.lock:
                        self._store("full", key, ds)
                    return ds
                with self.lock:
                    parts[key] = part
                    parts.move_to_end(key)
                    full = self._assembled(key, rough)
                assert full is not None  # (rows and the ranking both kept just now)
                return full
            finally:
                with self.lock:
                    self.running -= 1
