"""What the explorer's server knows and does: :class:`App` (the book it started with, its
model, the run cache, the full runs) with one method per API route, and :class:`Job`, a
full run in the background. The HTTP side is :mod:`mc_tco.app.server`."""

from __future__ import annotations

import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from mc_tco.app import api, bridge

__all__ = ["App", "Job"]


@dataclass
class Job:
    """A full run in the background: its progress, news, result or error."""

    id: str
    book_path: str
    status: str = "running"  # running, done, cancelled, error
    done: int = 0
    total: int = 0
    lines: list[str] = field(default_factory=list)
    result: dict | None = None
    error: str | None = None
    cancel: bool = False
    started: float = field(default_factory=time.monotonic)

    def json(self) -> dict:
        """The job as the page polls it: status, progress, the run's lines, result or error."""
        return {"id": self.id, "status": self.status, "done": self.done, "total": self.total,
                "lines": self.lines, "result": self.result, "error": self.error,
                "elapsed": round(time.monotonic() - self.started, 1)}


class App:
    """What the server knows: the book it started with, its model, the run cache, the jobs.

    Parameters
    ----------
    book_path : str
        The book the app opens first.
    samples : int
        The quick runs' default base sample size.
    seed : int
        The default seed.
    """

    def __init__(self, book_path: str, samples: int = 1024, seed: int = 0):
        book = bridge.load_book(book_path)
        self.model = book.model or bridge.DEFAULT_MODEL
        #: the file defining the app's own model: a book may name it only from there
        self.model_file = (None if self.model == bridge.DEFAULT_MODEL
                           else bridge.model_file(book))
        self.book_path = str(book_path)
        self.book_text = book.text
        bridge.check_book(book)
        self.samples = samples
        self.seed = seed
        self.token = secrets.token_urlsafe(24)
        self.cache = api.RunCache()
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()
        #: books saved from the page: runnable in full wherever the user saved them
        self.saved: set[Path] = set()

    def own_book(self, path: str) -> Path:
        """``path`` resolved, when it is the app's own: in the folder of the book it
        started with (or below) or saved from the page; else BookError."""
        resolved = Path(path).expanduser().resolve()
        folder = Path(self.book_path).expanduser().resolve().parent
        if resolved in self.saved or resolved.is_relative_to(folder):
            return resolved
        raise bridge.BookError(
            path, None,
            f"is outside the app's folder ({folder}); the app runs in full only books in "
            "it or saved from the page: save the book there first, or run it with "
            f"'mc-tco run {path}'",
        )

    # ------------------------------------------------------------------ endpoints
    def initial(self, _q) -> dict:
        """The page's first state: the started book, its inputs, the run's options and model."""
        state = api.book_state(self.book_text, self.book_path, self.model,
                               self.model_file)
        return {**state, "samples": self.samples, "seed": self.seed, "model": self.model,
                "default_samples": bridge.default_samples()}

    def load(self, q) -> dict:
        """Load a book the user opened or pasted (``q["text"]``, named ``q["name"]``)."""
        name = Path(str(q.get("name") or "pasted.toml")).name
        return api.book_state(str(q["text"]), name, self.model, self.model_file)

    def check(self, q) -> dict:
        """Check the user's edits of the book's inputs, field by field, without running."""
        return api.check_edits(str(q["text"]), str(q["path"]), dict(q.get("edits") or {}),
                               self.model, self.model_file)

    def _run(self, q):
        samples = int(q.get("samples") or self.samples)
        seed = int(q.get("seed") if q.get("seed") is not None else self.seed)
        t = time.monotonic()
        ds = self.cache.get(str(q["text"]), str(q["path"]), samples, seed,
                            str(q.get("session") or ""), self.model, self.model_file)
        return ds, time.monotonic() - t

    def run(self, q) -> dict:
        """Run the edited book (small samples) and return the answer, the charts and the ranking."""
        ds, elapsed = self._run(q)
        res = api.results_json(ds, round(elapsed, 2))
        demand = float(q.get("demand") or res["focus"])
        return {"results": res, "answer": api.answer(ds, demand)}

    def answer(self, q) -> dict:
        """The answer at another demand of the run already made for the same book."""
        ds, _ = self._run(q)
        return api.answer(ds, float(q["demand"]))

    def target(self, q) -> dict:
        """P(target > ``q["threshold"]``) per strategy at ``q["demand"]`` of the same run."""
        from mc_tco.app.chance import target_chance

        ds, _ = self._run(q)
        return target_chance(ds, float(q["demand"]), q.get("threshold", 0))

    def curves(self, q) -> dict:
        """The curves panel at ``q["demand"]`` of the same run (:mod:`mc_tco.app.curves`)."""
        from mc_tco.app.curves import curves_panel

        ds, _ = self._run(q)
        return curves_panel(ds, float(q["demand"]), q.get("strategy"), str(q.get("given") or ""))

    def save(self, q) -> dict:
        """Save the edited book to ``q["dest"]`` (refused if it exists unless ``overwrite``)."""
        out = api.save_book(str(q["text"]), str(q["path"]), dict(q.get("edits") or {}),
                            str(q["dest"]), bool(q.get("overwrite")))
        if "saved" in out:  # the page continues from the saved file
            self.saved.add(Path(out["saved"]).expanduser().resolve())
            out["state"] = api.book_state(out["text"], out["saved"], self.model,
                                          self.model_file)
        return out

    def full(self, q) -> dict:
        """Start a full run of a saved book in the background; returns the job to poll."""
        path = str(q["path"])
        self.own_book(path)
        book = bridge.load_book(path)
        api.check_model(book, self.model, self.model_file)
        bridge.check_book(book)
        with self.lock:
            if any(j.status == "running" for j in self.jobs.values()):
                raise bridge.McTcoError("a full run is already going; wait for it or cancel it")
            job = Job(uuid.uuid4().hex, path)
            self.jobs[job.id] = job

        def progress(done, total):
            job.done, job.total = done, total
            if job.cancel:
                raise api.Cancelled("cancelled")

        def work():
            try:
                job.result = bridge.full_run(book, int(q.get("seed") or 0), progress,
                                             job.lines.append)
                job.status = "done"
            except api.Cancelled:
                job.status = "cancelled"
                job.lines.append("cancelled; nothing was written")
            except bridge.McTcoError as exc:
                job.status, job.error = "error", str(exc)
            except Exception as exc:  # reported to the page, not lost in a thread
                job.status, job.error = "error", f"{type(exc).__name__}: {exc}"

        threading.Thread(target=work, daemon=True, name=f"full-run-{job.id[:8]}").start()
        return job.json()

    def job(self, q) -> dict:
        """The state of the background run ``q["id"]``."""
        job = self.jobs.get(str(q.get("id")))
        if job is None:
            raise bridge.McTcoError(f"no run with id {q.get('id')}")
        return job.json()

    def cancel(self, q) -> dict:
        """Stop the background run ``q["id"]``."""
        job = self.jobs.get(str(q.get("id")))
        if job is None:
            raise bridge.McTcoError(f"no run with id {q.get('id')}")
        job.cancel = True
        return job.json()

    ROUTES: ClassVar[dict[tuple[str, str], str]] = {
        ("GET", "/api/book"): "initial", ("POST", "/api/load"): "load",
        ("POST", "/api/check"): "check", ("POST", "/api/run"): "run",
        ("POST", "/api/answer"): "answer", ("POST", "/api/save"): "save",
        ("POST", "/api/full"): "full", ("GET", "/api/job"): "job",
        ("POST", "/api/cancel"): "cancel", ("POST", "/api/target"): "target",
        ("POST", "/api/curves"): "curves",
    }
