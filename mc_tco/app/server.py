"""The explorer's HTTP server: the standard library's ThreadingHTTPServer, one static page
and a JSON API (:mod:`mc_tco.app.api`). Nothing is fetched from outside the machine.

Every API request must carry the page's token (header ``X-Mc-Tco-Token``), and every
request's Host header must name this server (:func:`allowed_hosts`), whatever ``--host``
it listens on: another web site open in the same browser cannot drive the app (it can
neither read the token nor send the header without a CORS preflight, which is never
answered), nor reach it by DNS rebinding (its Host is the other site's name, and the page
with the token is never served to it). No page may frame the app (``X-Frame-Options`` and
the CSP's ``frame-ancestors``), so none can steer clicks onto "run full" or "save".

The routes' work is :class:`App` (:mod:`.endpoints`); the Host names are :mod:`.hosts`.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from urllib.parse import parse_qs, urlparse

from mc_tco.app import api, bridge
from mc_tco.app.endpoints import App, Job
from mc_tco.app.hosts import LOOPBACK, WILDCARD, _host_name, allowed_hosts, machine_names

__all__ = [
    "LOOPBACK",
    "WILDCARD",
    "App",
    "Job",
    "allowed_hosts",
    "machine_names",
    "make_server",
]

STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.css": ("app.css", "text/css; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/charts.js": ("charts.js", "text/javascript; charset=utf-8"),
    "/static/curves.js": ("curves.js", "text/javascript; charset=utf-8"),
    "/static/editor.js": ("editor.js", "text/javascript; charset=utf-8"),
    "/static/ranking.js": ("ranking.js", "text/javascript; charset=utf-8"),
}
MAX_BODY = 4_000_000
#: the page's policy: its script, style and API from this server only, never in a frame
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
#: seconds a connection may stay silent (an unfinished body) before the server drops it
IDLE_TIMEOUT = 30



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
                page = resources.files(__package__).joinpath("static", name).read_bytes()
                if name == "index.html":
                    page = page.replace(b"{{TOKEN}}", app.token.encode())
                return self._send(200, page, ctype)
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
                answer = getattr(app, route)(query)
            except api.Cancelled as exc:
                return self._json(409, {"cancelled": True, "error": str(exc)})
            except bridge.McTcoError as exc:
                return self._json(400, {"error": str(exc)})
            except (KeyError, TypeError, ValueError) as exc:
                return self._json(400, {"error": f"bad request: {type(exc).__name__}: {exc}"})
            except Exception as exc:  # a bug: say it on the page rather than drop the line
                return self._json(500, {"error": f"internal error: {type(exc).__name__}: {exc}"})
            try:
                return self._json(200, answer)
            except (BrokenPipeError, ConnectionResetError):  # the tab went away (a reload)
                self.close_connection = True
                return None

        def do_GET(self):
            self._handle("GET")

        def do_POST(self):
            self._handle("POST")

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    #: the Host header names it answers (:func:`make_server`)
    allowed_hosts: set[str]


class _Server6(_Server):
    address_family = socket.AF_INET6


def make_server(app: App, host: str = "127.0.0.1", port: int = 8050,
                allow_hosts: tuple[str, ...] | list[str] = ()) -> _Server:
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
