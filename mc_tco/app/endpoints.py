"""What the explorer's server knows and does: :class:`App` (the book it started with, its
model, the run cache, the full runs) with one method per API route, and :class:`Job`, a
full run in the background. The HTTP side is :mod:`mc_tco.app.server`."""

from __future__ import annotations

import math
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from mc_tco.app import api, bridge

__all__ = ["App", "Job"]


def _whole(value, name: str, default: int, least: int) -> int:
    """``value`` (a number or its text; None or "": ``default``) as a whole number >=
    ``least``, else the one-line error the page shows beside the box."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not number.is_integer() or number < least:
        raise bridge.McTcoError(f"{name} {value}: must be a whole number >= {least}, "
                                f"e.g. {default}")
    return int(number)


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
    def initial(self, q) -> dict:
        """The page's first state: the started book (or ``q["path"]``, a book of the app's
        own: the file the page saved to before a reload), its inputs, options and model."""
        text, path = self.book_text, self.book_path
        if q.get("path") and str(q["path"]) != self.book_path:
            own = self.own_book(str(q["path"]))
            if own.suffix != ".toml":
                raise bridge.BookError(str(q["path"]), None, "is not a book: a .toml file")
            try:
                text, path = own.read_text(encoding="utf-8"), str(q["path"])
            except OSError as exc:
                raise bridge.BookError(str(q["path"]), None,
                                       f"cannot be read ({exc.strerror})") from None
        state = api.book_state(text, path, self.model, self.model_file)
        return {**state, "samples": self.samples, "seed": self.seed, "model": self.model,
                "default_samples": bridge.default_samples()}

    def load(self, q) -> dict:
        """Load a book the user opened or pasted (``q["text"]``, named ``q["name"]``)."""
        name = Path(str(q.get("name") or "pasted.toml")).name
        return api.book_state(str(q["text"]), name, self.model, self.model_file)

    def check(self, q) -> dict:
        """Check the user's edits of the book's inputs, field by field, without running."""
        out = api.check_edits(str(q["text"]), str(q["path"]), dict(q.get("edits") or {}),
                              self.model, self.model_file)
        out.pop("book", None)
        return out

    def _options(self, q) -> tuple[int, int]:
        return (_whole(q.get("samples"), "samples", self.samples, 1),
                _whole(q.get("seed"), "seed", self.seed, 0))

    def _run(self, q, stage: str = "full", book=None):
        samples, seed = self._options(q)
        text, path = str(q["text"]), str(q["path"])
        # the full stage ranks at the page's demand (a book ranked by Shapley effects
        # estimates them there: mc_tco.app.runs)
        demand = float(q["demand"]) if stage == "full" and q.get("demand") else None
        rough = stage == "full" and bool(q.get("rough"))  # a first ranking will do
        cached = self.cache.cached(text, samples, seed, stage, demand, rough)
        t = time.monotonic()
        ds = self.cache.get(text, path, samples, seed, str(q.get("session") or ""),
                            self.model, self.model_file, stage=stage, book=book,
                            demand=demand, rough=rough)
        return ds, time.monotonic() - t, cached

    def _answer(self, q, stage: str, book=None) -> dict:
        ds, elapsed, cached = self._run(q, stage, book)
        res = api.results_json(ds, round(elapsed, 2))
        res["cached"] = cached
        demand = float(q.get("demand") or res["focus"])
        return {"results": res, "answer": api.answer(ds, demand, results=res), "stage": stage}

    def preview(self, q) -> dict:
        """A change on the page: check the edits (``q["text"]`` is the book as loaded) and,
        when they pass, the first answer from the base rows (:mod:`mc_tco.app.runs`).

        Returns ``check``'s ``{"ok": False, "error": ...}``, or ``{"ok": True, "text",
        "inputs"}`` with ``results`` and ``answer`` of the ``"answer"`` stage.
        """
        self._options(q)  # a bad seed is the seed's error, not an input's
        checked = api.check_edits(str(q["text"]), str(q["path"]),
                                  dict(q.get("edits") or {}), self.model, self.model_file)
        if not checked["ok"]:
            session = str(q.get("session") or "")
            if session:  # an invalid change stops the tab's run of the previous one
                self.cache.latest[session] = object()
            return checked
        book = checked.pop("book")  # checked: the run need not parse it again
        return {**checked, **self._answer({**q, "text": checked["text"]}, "answer", book)}

    def run(self, q) -> dict:
        """Run the edited book at ``q["stage"]`` (``"base"``: with the break-even demands;
        ``"full"``, the default: the ranking at ``q["demand"]``, a first estimate with
        ``q["rough"]``); results and answer. The full stage's are the ranking's alone
        (``results``: ``n``, ``seed``, ``elapsed``, ``cached``, ``note``; ``answer``:
        ``demand``, ``ranking``, ``conf_level``): the base stage, beside it, draws the rest.
        """
        stage = str(q.get("stage") or "full")
        if stage not in ("base", "full"):
            raise bridge.McTcoError(f"stage {stage!r}: base or full")
        if stage == "base":
            return self._answer(q, stage)
        ds, elapsed, cached = self._run(q, stage)
        res = api.results_json(ds, round(elapsed, 2), summary=True)
        res["cached"] = cached
        demand = float(q.get("demand") or res["focus"])
        return {"results": res, "stage": stage,
                "answer": api.answer(ds, demand, results=res, sentence=False)}

    def answer(self, q) -> dict:
        """The answer at another demand of the run already made for the same book (its
        fullest stage so far)."""
        ds, _, _ = self._run(q, "answer")
        return api.answer(ds, float(q["demand"]))

    def target(self, q) -> dict:
        """P(target > ``q["threshold"]``) per strategy at ``q["demand"]`` of the same run."""
        from mc_tco.app.chance import target_chance

        ds, _, _ = self._run(q, "answer")
        return target_chance(ds, float(q["demand"]), q.get("threshold", 0))

    def status(self, _q) -> dict:
        """What is using the cores: the full run in the background (any tab's) and the
        quick runs going; the page says so when its own run is slow."""
        job = next((j for j in self.jobs.values() if j.status == "running"), None)
        return {"full_run": None if job is None else {
                    "done": job.done, "total": job.total,
                    "elapsed": round(time.monotonic() - job.started, 1)},
                "quick_runs": self.cache.running}

    def curves(self, q) -> dict:
        """The curves panel at ``q["demand"]`` of the same run (:mod:`mc_tco.app.curves`)."""
        from mc_tco.app.curves import curves_panel

        ds, _, _ = self._run(q, "answer")  # the fullest stage so far: its base rows
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
        seed = _whole(q.get("seed"), "seed", self.seed, 0)
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
                job.result = bridge.full_run(book, seed, progress,
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
        ("POST", "/api/preview"): "preview", ("GET", "/api/status"): "status",
        ("POST", "/api/curves"): "curves",
    }
