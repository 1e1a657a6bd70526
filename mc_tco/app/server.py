"""The explorer's HTTP server: the standard library's ThreadingHTTPServer, one static page
and a JSON API (:mod:`mc_tco.app.api`). Nothing is fetched from outside the machine.

Every API request must carry the page's token (header ``X-Mc-Tco-Token``), and every
request's Host header must name this server (:func:`allowed_hosts`), whatever ``--host``
it listens on: another web site open in the same browser cannot drive the app (it can
neither read the token nor send the header without a CORS preflight, which is never
answered), nor reach it by DNS rebinding (its Host is the other site's name, and the page
with the token is never served to it). No page may frame the app (``X-Frame-Options`` and
the CSP's ``frame-ancestors``), so none can steer clicks onto "run full" or "save".
"""

from __future__ import annotations

import contextlib
import json
import secrets
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qs, urlparse

from mc_tco.app import api, bridge

__all__ = ["App", "Job", "make_server"]

STATIC = {"/": ("index.html", "text/html; charset=utf-8"),
          "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/static/app.css": ("app.css", "text/css; charset=utf-8")}
MAX_BODY = 4_000_000
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
WILDCARD = {"", "0.0.0.0", "::"}
#: the page's policy: its script, style and API from this server only, never in a frame
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
#: seconds a connection may stay silent (an unfinished body) before the server drops it
IDLE_TIMEOUT = 30


def _host_name(header: str) -> str:
    """The host of a Host header (``name``, ``name:port``, ``[v6]:port``), lower case."""
    h = header.strip().lower()
    if h.startswith("["):
        return h[1:].partition("]")[0]
    name, colon, port = h.rpartition(":")
    if colon and port.isdigit() and ":" not in name:
        h = name
    return h.rstrip(".")


def machine_names() -> set[str]:
    """The names and addresses this machine answers to, as a user would type them: its
    host name (short and fully qualified), their addresses and the address it reaches the
    network from (found without sending a packet)."""
    names: set[str] = set()
    for name in {socket.gethostname(), socket.getfqdn()}:
        if not name:
            continue
        names.add(name)
        with contextlib.suppress(OSError):
            names.update(str(a[4][0]) for a in socket.getaddrinfo(name, None))
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))  # UDP: chooses the route, sends nothing
            names.add(str(s.getsockname()[0]))
    return {_host_name(n) for n in names if n}


def allowed_hosts(host: str, extra: tuple[str, ...] | list[str] = ()) -> set[str]:
    """The Host header names the app answers, listening on ``host``.

    Always the loopback names and ``extra`` (``--allow-host``); ``host`` itself when it is
    a name or address; for a wildcard (``0.0.0.0``, ``::``) the machine's own names and
    addresses (:func:`machine_names`). Any other name is refused with 403 and the page
    (with its token) is never served to it.
    """
    names = set(LOOPBACK) | {_host_name(n) for n in extra if n.strip()}
    if host in WILDCARD:
        names |= machine_names()
    else:
        names.add(_host_name(host))
    return names


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
        state = api.book_state(self.book_text, self.book_path, self.model,
                               self.model_file)
        return {**state, "samples": self.samples, "seed": self.seed, "model": self.model,
                "default_samples": bridge.default_samples()}

    def load(self, q) -> dict:
        name = Path(str(q.get("name") or "pasted.toml")).name
        return api.book_state(str(q["text"]), name, self.model, self.model_file)

    def check(self, q) -> dict:
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
            self.saved.add(Path(out["saved"]).expanduser().resolve())
            out["state"] = api.book_state(out["text"], out["saved"], self.model,
                                          self.model_file)
        return out

    def full(self, q) -> dict:
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


def _handler(app: App, hosts: set[str]):
    class Handler(BaseHTTPRequestHandler):
        server_version = "mc-tco-app"
        protocol_version = "HTTP/1.1"
        timeout = IDLE_TIMEOUT

        def log_message(self, format, *args):  # quiet: the terminal shows the URL only
            pass

        def end_headers(self):  # every answer, errors of http.server included
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("X-Frame-Options", "DENY")
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("Referrer-Policy", "no-referrer")
            super().end_headers()

        def _send(self, status: int, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, obj) -> None:
            self._send(status, json.dumps(obj, allow_nan=False).encode(),
                       "application/json")

        def _refuse(self, status: int, error: str) -> None:
            """Answer ``status`` and close: the rest of the request is never read."""
            self.close_connection = True
            self._json(status, {"error": error})

        def send_error(self, code, message=None, explain=None):
            """http.server's own refusals (a malformed request, a method other than GET
            and POST: 405) as one line of JSON, and the connection closed."""
            if code == 501:
                code, message = 405, f"method {self.command} not allowed: GET or POST"
            self.close_connection = True
            self.request_version = self.protocol_version  # a status line, even then
            with contextlib.suppress(OSError):
                self._json(code, {"error": message or self.responses.get(code, ("",))[0]})

        def _host_ok(self) -> bool:
            return _host_name(self.headers.get("Host") or "") in hosts

        def _body(self) -> bytes | None:
            """The request's body, or None after refusing it (bad or too large length)."""
            if self.headers.get("Transfer-Encoding"):
                self._refuse(411, "send the request with a Content-Length, not chunked")
                return None
            sent = {v.strip() for v in self.headers.get_all("Content-Length") or ["0"]}
            raw = sent.pop() if len(sent) == 1 else ", ".join(sorted(sent))
            if not (raw.isascii() and raw.isdigit()):
                self._refuse(400, f"bad Content-Length {raw[:40]!r}: a byte count >= 0")
                return None
            length = int(raw)
            if length > MAX_BODY:
                self._refuse(413, f"request too large: {length} bytes, at most {MAX_BODY}")
                return None
            try:
                body = self.rfile.read(length)
            except OSError:  # the client went silent mid-body (IDLE_TIMEOUT) or away
                try:
                    self._refuse(408, f"the request body did not arrive in {IDLE_TIMEOUT} s")
                except OSError:
                    self.close_connection = True
                return None
            if len(body) < length:
                self._refuse(400, "the request body is shorter than its Content-Length")
                return None
            return body

        def _handle(self, method: str) -> None:
            url = urlparse(self.path)
            if not self._host_ok():
                return self._refuse(
                    403, f"Host {self.headers.get('Host', '')[:80]!r} is not this app's; "
                    "open it by a name it was started for (mc-tco app --allow-host NAME)")
            if method == "GET" and (self.headers.get("Content-Length", "0").strip() != "0"
                                    or self.headers.get("Transfer-Encoding")):
                return self._refuse(400, "a GET request has no body")
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
                return self._refuse(404, f"no such page: {url.path[:200]}")
            if not secrets.compare_digest(self.headers.get("X-Mc-Tco-Token", ""), app.token):
                return self._refuse(403, "missing or wrong token; reload the page")
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            if method == "POST":
                body = self._body()
                if body is None:
                    return None
                try:
                    sent = json.loads(body or b"{}")
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return self._json(400, {"error": "the request is not JSON"})
                if not isinstance(sent, dict):
                    return self._json(400, {"error": "the request is not a JSON object"})
                query.update(sent)
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


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class _Server6(_Server):
    address_family = socket.AF_INET6


def make_server(app: App, host: str = "127.0.0.1", port: int = 8050,
                allow_hosts: tuple[str, ...] | list[str] = ()) -> ThreadingHTTPServer:
    """A server for ``app`` bound to ``host:port`` (port 0: any free port).

    It answers only requests whose Host header is one of :func:`allowed_hosts` (``host``,
    loopback, ``allow_hosts``; the machine's names for a wildcard ``host``), kept as
    ``server.allowed_hosts``.
    """
    hosts = allowed_hosts(host, allow_hosts)
    cls = _Server6 if ":" in host else _Server
    server = cls((host, port), _handler(app, hosts))
    if host not in WILDCARD:  # --host NAME: also the address it was bound to
        hosts.add(_host_name(str(server.server_address[0])))
    server.allowed_hosts = hosts
    return server

