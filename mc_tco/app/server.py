"""The explorer's HTTP server: the standard library's ThreadingHTTPServer, one static page
and a JSON API (:mod:`mc_tco.app.api`). Nothing is fetched from outside the machine.

Every API request must carry the page's token (header ``X-Mc-Tco-Token``), and the Host
header must name this server: another web site open in the same browser cannot drive the
app (it can neither read the token nor send the header without a CORS preflight, which
is never answered), nor reach it by DNS rebinding.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlparse

from . import api, bridge

__all__ = ["App", "Job", "make_server"]

STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/static/app.css": ("app.css", "text/css; charset=utf-8")}
MAX_BODY = 4_000_000
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


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
        self.book_path = str(book_path)
        self.book_text = book.text
        bridge.check_book(book)
        self.samples = samples
        self.seed = seed
        self.token = secrets.token_urlsafe(24)
        self.cache = api.RunCache()
        self.jobs: dict[str, Job] = {}
        self.lock = threading.Lock()

    # ------------------------------------------------------------------ endpoints
    def initial(self, _q) -> dict:
        state = api.book_state(self.book_text, self.book_path, self.model)
        return {**state, "samples": self.samples, "seed": self.seed, "model": self.model,
                "default_samples": bridge.default_samples()}

    def load(self, q) -> dict:
        name = Path(str(q.get("name") or "pasted.toml")).name
        return api.book_state(str(q["text"]), name, self.model)

    def check(self, q) -> dict:
        return api.check_edits(str(q["text"]), str(q["path"]), dict(q.get("edits") or {}),
                               self.model)

    def _run(self, q):
        samples = int(q.get("samples") or self.samples)
        seed = int(q.get("seed") if q.get("seed") is not None else self.seed)
        t = time.monotonic()
        ds = self.cache.get(str(q["text"]), str(q["path"]), samples, seed,
                            str(q.get("session") or ""), self.model)
        return ds, time.monotonic() - t

    def run(self, q) -> dict:
        ds, elapsed = self._run(q)
        res = api.results_json(ds, round(elapsed, 2))
        demand = float(q.get("demand") or res["focus"])
        return {"results": res, "answer": api.answer(ds, demand)}

    def answer(self, q) -> dict:
        ds, _ = self._run(q)
        return api.answer(ds, float(q["demand"]))

    def save(self, q) -> dict:
        out = api.save_book(str(q["text"]), str(q["path"]), dict(q.get("edits") or {}),
                            str(q["dest"]), bool(q.get("overwrite")))
        if "saved" in out:  # the page continues from the saved file
            out["state"] = api.book_state(out["text"], out["saved"], self.model)
        return out

    def full(self, q) -> dict:
        path = str(q["path"])
        book = bridge.load_book(path)
        api.check_model(book, self.model)
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
        job = self.jobs.get(str(q.get("id")))
        if job is None:
            raise bridge.McTcoError(f"no run with id {q.get('id')}")
        return job.json()

    def cancel(self, q) -> dict:
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
        ("POST", "/api/cancel"): "cancel",
    }


def _handler(app: App):
    class Handler(BaseHTTPRequestHandler):
        server_version = "mc-tco-app"
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # quiet: the terminal shows the URL only
            pass

        def _send(self, status: int, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Content-Security-Policy",
                             "default-src 'self'; img-src 'self' data:; style-src 'self' "
                             "'unsafe-inline'; connect-src 'self'")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, obj) -> None:
            self._send(status, json.dumps(obj, allow_nan=False).encode(),
                       "application/json")

        def _host_ok(self) -> bool:
            bound = self.server.server_address[0]
            if bound not in LOOPBACK:  # --host: the user chose to be reachable by name
                return True
            host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]")
            return host in LOOPBACK

        def _handle(self, method: str) -> None:
            url = urlparse(self.path)
            if not self._host_ok():
                return self._json(403, {"error": "unknown Host header"})
            if method == "GET" and url.path in STATIC:
                name, ctype = STATIC[url.path]
                body = resources.files(__package__).joinpath("static", name).read_bytes()
                if name == "index.html":
                    body = body.replace(b"{{TOKEN}}", app.token.encode())
                return self._send(200, body, ctype)
            if url.path == "/favicon.ico":
                return self._send(204, b"", "image/x-icon")
            route = App.ROUTES.get((method, url.path))
            if route is None:
                return self._json(404, {"error": f"no such page: {url.path}"})
            if not secrets.compare_digest(self.headers.get("X-Mc-Tco-Token", ""), app.token):
                return self._json(403, {"error": "missing or wrong token; reload the page"})
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            if method == "POST":
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY:
                    return self._json(413, {"error": "request too large"})
                try:
                    query.update(json.loads(self.rfile.read(length) or b"{}"))
                except json.JSONDecodeError:
                    return self._json(400, {"error": "the request is not JSON"})
            try:
                return self._json(200, getattr(app, route)(query))
            except api.Cancelled as exc:
                return self._json(409, {"cancelled": True, "error": str(exc)})
            except bridge.McTcoError as exc:
                return self._json(400, {"error": str(exc)})
            except (KeyError, TypeError, ValueError) as exc:
                return self._json(400, {"error": f"bad request: {type(exc).__name__}: {exc}"})
            except Exception as exc:  # a bug: say it on the page rather than drop the line
                return self._json(500, {"error": f"internal error: {type(exc).__name__}: {exc}"})

        def do_GET(self):
            self._handle("GET")

        def do_POST(self):
            self._handle("POST")

    return Handler


def make_server(app: App, host: str = "127.0.0.1", port: int = 8050) -> ThreadingHTTPServer:
    """A server for ``app`` bound to ``host:port`` (port 0: any free port)."""
    server = ThreadingHTTPServer((host, port), _handler(app))
    server.daemon_threads = True
    return server

