"""The explorer's server refuses what it must, promptly, with one line: a foreign Host
(whatever --host), a bad Content-Length, a book outside its folders for a full run, a
model that is neither the TCO model nor the app's own; and no page may frame it."""

from __future__ import annotations

import json
import shutil
import socket
import threading
import time

import pytest

from mc_tco.app import api, server
from tests.paths import DEFAULT_BOOK

TEXT = DEFAULT_BOOK.read_text(encoding="utf-8")
MODEL_LINE = 'model = "mc_tco.models.tco:model"'


def _serve(app, host, **kw):
    srv = server.make_server(app, host, 0, **kw)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


@pytest.fixture(scope="module")
def wildcard(app_server):
    """The same app listening on every address (--host 0.0.0.0 --allow-host tco.lan)."""
    app = app_server[0]
    srv = _serve(app, "0.0.0.0", allow_hosts=("tco.lan",))
    yield app, srv.server_address[1]
    srv.shutdown()
    srv.server_close()


def _raw(port: int, request: bytes, timeout: float = 5.0) -> tuple[int, bytes, bool]:
    """Send ``request`` as is; (status, everything received, whether the server closed
    the connection within ``timeout``). Fails the test when no answer comes in time."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(request)
        data, closed, end = b"", False, time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                break
            if not chunk:
                closed = True
                break
            data += chunk
    assert data, f"no answer within {timeout} s: {request[:120]!r}"
    return int(data.split(b" ", 2)[1]), data, closed


def _get(port, path, host, token=None) -> tuple[int, bytes, bytes]:
    head = f"GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
    if token:
        head += f"X-Mc-Tco-Token: {token}\r\n"
    status, data, _ = _raw(port, (head + "\r\n").encode())
    headers, _, body = data.partition(b"\r\n\r\n")
    return status, headers, body


def _post(port, path, body: dict, token, host="127.0.0.1"):
    data = json.dumps(body).encode()
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
            f"X-Mc-Tco-Token: {token}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n").encode()
    status, raw, _ = _raw(port, head + data, timeout=60)
    return status, json.loads(raw.partition(b"\r\n\r\n")[2])


def _port(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


# ---------------------------------------------------------------------------- Host header
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8050", "192.0.2.99",
                                  "localhost.evil.example", ""])
def test_a_foreign_host_never_gets_the_page_even_on_0000(wildcard, host):
    app, port = wildcard
    for path, token in (("/", None), ("/api/book", app.token), ("/static/app.js", None)):
        status, _, body = _get(port, path, host, token)
        assert status == 403, (path, host, body[:200])
        assert app.token.encode() not in body
        assert len(body.splitlines()) == 1 and b"not this app's" in body


def test_0000_answers_loopback_the_machine_and_allow_host(wildcard):
    app, port = wildcard
    names = ["127.0.0.1", f"localhost:{port}", f"[::1]:{port}", "tco.lan", "TCO.LAN.",
             socket.gethostname()]
    for host in names:
        status, _, body = _get(port, "/", host)
        assert status == 200, host
        assert app.token.encode() in body
    assert server.allowed_hosts("192.0.2.7") == server.LOOPBACK | {"192.0.2.7"}
    assert "evil.example" not in server.allowed_hosts("0.0.0.0", ["tco.lan"])


def test_the_startup_line_says_what_host_exposes(monkeypatch, tmp_path):
    from click.testing import CliRunner

    from mc_tco.cli import main

    book = tmp_path / "book.toml"
    shutil.copy(DEFAULT_BOOK, book)

    def stop(self, *a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(server._Server, "serve_forever", stop)
    out = CliRunner().invoke(main, ["app", str(book), "--host", "0.0.0.0", "--port", "0",
                                    "--no-browser", "--allow-host", "tco.lan"])
    assert out.exit_code == 0, out.output
    line = out.output.splitlines()[0]
    assert "http://127.0.0.1:" in line and "anyone who can reach this machine" in line
    assert "save books over any .toml you can write and start runs" in line
    assert "tco.lan" in line and socket.gethostname() in line and "other names get 403" in line
    out = CliRunner().invoke(main, ["app", str(book), "--port", "0", "--no-browser"])
    assert "only this machine can connect" in out.output.splitlines()[0]
    out = CliRunner().invoke(main, ["app", str(book), "--host", "no-such-host.invalid",
                                    "--no-browser"])
    assert out.exit_code == 2 and out.output.count("\n") == 1
    assert out.output.startswith("mc-tco: error: --host no-such-host.invalid: ")


# ---------------------------------------------------------------------------- framing
def test_every_answer_forbids_framing_and_foreign_scripts(app_server):
    app, url, _ = app_server
    port = _port(url)
    for path, host, token, code in (("/", "127.0.0.1", None, 200),
                                    ("/api/book", "127.0.0.1", app.token, 200),
                                    ("/api/book", "127.0.0.1", None, 403),
                                    ("/", "evil.example", None, 403),
                                    ("/nothing", "127.0.0.1", None, 404)):
        status, headers, _ = _get(port, path, host, token)
        assert status == code
        lines = headers.decode().lower().splitlines()
        assert "x-frame-options: deny" in lines, path
        csp = next(h for h in lines if h.startswith("content-security-policy:"))
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp


# ---------------------------------------------------------------------------- Content-Length
@pytest.mark.parametrize("length, code", [("-1", 400), (str(10**12), 413), ("12abc", 400),
                                          ("", 400)])
def test_a_bad_content_length_is_refused_at_once(app_server, length, code):
    app, url, _ = app_server
    req = (f"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Mc-Tco-Token: {app.token}\r\n"
           f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n{{}}").encode()
    start = time.monotonic()
    status, data, closed = _raw(_port(url), req)
    assert status == code, data
    assert closed, "the server kept the connection waiting for the rest of the body"
    assert time.monotonic() - start < 5
    body = data.partition(b"\r\n\r\n")[2]
    assert b"Content-Length" in body or b"too large" in body
    assert len(body.splitlines()) == 1


def test_a_body_shorter_than_its_length_times_out_with_408(app_server):
    srv = server.make_server(app_server[0], "127.0.0.1", 0)
    srv.RequestHandlerClass.timeout = 1
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        req = (f"POST /api/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"
               f"X-Mc-Tco-Token: {app_server[0].token}\r\nContent-Length: 100\r\n\r\n{{}}")
        status, _, closed = _raw(srv.server_address[1], req.encode())
        assert status == 408 and closed
    finally:
        srv.shutdown()
        srv.server_close()


# ---------------------------------------------------------------------------- /api/full
def test_full_runs_only_books_in_the_apps_folder(app_server, tmp_path, monkeypatch):
    app, url, folder = app_server
    monkeypatch.chdir(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    outside = tmp_path / "elsewhere" / "book.toml"
    shutil.copy(DEFAULT_BOOK, outside)
    jobs = dict(app.jobs)
    try:
        for path in (str(outside), str(folder / ".." / outside.relative_to(tmp_path.parent)),
                     str(DEFAULT_BOOK)):
            status, err = _post(_port(url), "/api/full", {"path": path, "seed": 0}, app.token)
            assert status == 400, (path, err)
            assert "is outside the app's folder" in err["error"]
            assert app.jobs == jobs  # nothing started
        assert not (tmp_path / "results").exists()
    finally:
        for job in app.jobs.values():  # the code before the fix started runs
            job.cancel = True
    # a book the page saved is the user's choice: it may run wherever it was saved
    dest = tmp_path / "elsewhere" / "saved.toml"
    status, out = _post(_port(url), "/api/save", {"text": TEXT, "path": str(DEFAULT_BOOK),
                                                   "edits": {}, "dest": str(dest)}, app.token)
    assert status == 200 and out["saved"] == str(dest)
    assert app.own_book(str(dest)) == dest.resolve()
    assert app.own_book(str(folder / "book.toml")) == (folder / "book.toml").resolve()


# ---------------------------------------------------------------------------- models
def test_only_the_tco_model_and_the_apps_own_may_run(app_server, monkeypatch):
    from mc_tco.book import loads_book
    from mc_tco.models import loading

    called = []
    monkeypatch.setattr(loading, "_load_file", lambda *a, **k: called.append(a))
    app, url, _ = app_server
    text = TEXT.replace(MODEL_LINE, 'model = "mc_tco.models.loading:_load_file"')
    assert text != TEXT
    with pytest.raises(api.bridge.BookError, match="not allowed in the app"):
        api.check_model(loads_book(text, "x.toml"), api.bridge.DEFAULT_MODEL)
    port = _port(url)
    for route in ("/api/load", "/api/run", "/api/answer"):
        status, err = _post(port, route, {"text": text, "path": "x.toml", "demand": 1e12},
                            app.token)
        assert status == 400 and "'mc_tco.models.loading:_load_file' is not allowed" in \
            err["error"], (route, err)
    status, res = _post(port, "/api/check", {"text": text, "path": "x.toml", "edits": {}},
                        app.token)
    assert status == 200 and "not allowed" in res["error"]["message"]
    assert called == []
    api.check_model(loads_book(TEXT, "x.toml"), "my_model:run")  # the TCO model
    own = TEXT.replace(MODEL_LINE, 'model = "my_model:run"')
    api.check_model(loads_book(own, "x.toml"), "my_model:run")  # the app's own


def test_the_apps_own_model_name_found_in_another_file_is_refused(tmp_path):
    from mc_tco.book import loads_book

    own, other = tmp_path / "own", tmp_path / "other"
    for folder in (own, other):
        folder.mkdir()
        (folder / "my_model.py").write_text(
            f"open({str(folder / 'ran')!r}, 'w').close()\ndef run(inputs):\n    pass\n")
    text = TEXT.replace(MODEL_LINE, 'model = "my_model:run"')
    started = (own / "my_model.py").resolve()
    api.check_model(loads_book(text, str(own / "b.toml")), "my_model:run", started)
    with pytest.raises(api.bridge.BookError, match="not the app's"):
        api.check_model(loads_book(text, str(other / "b.toml")), "my_model:run", started)
    res = api.check_edits(text, str(other / "b.toml"), {}, "my_model:run", started)
    assert not res["ok"] and "is the app's model name, but for this book it is" in \
        res["error"]["message"]
    with pytest.raises(api.bridge.BookError, match="not the app's"):
        api.RunCache().get(text, str(other / "b.toml"), 256, 0, started_model="my_model:run",
                           started_file=started)
    assert not (other / "ran").exists() and not (own / "ran").exists()


@pytest.mark.parametrize("request_, code", [
    (b"OPTIONS /api/save HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n"
     b"Access-Control-Request-Method: POST\r\n\r\n", 405),
    (b"PUT /api/save HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}", 405),
    (b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nGET /", 400),
    (b"GARBAGE\r\n\r\n", 400),
])
def test_other_requests_get_one_line_and_a_closed_connection(app_server, request_, code):
    app, url, _ = app_server
    status, data, closed = _raw(_port(url), request_)
    headers, _, body = data.partition(b"\r\n\r\n")
    assert status == code and closed, data
    assert len(body.splitlines()) == 1 and json.loads(body)["error"]
    assert b"access-control-allow" not in headers.lower()  # no CORS, ever
    assert b"X-Frame-Options: DENY" in headers and app.token.encode() not in data


@pytest.mark.parametrize("path, token, code", [("/api/nothing", True, 404),
                                               ("/api/check", False, 403)])
def test_a_refusal_before_the_body_closes_the_connection(app_server, path, token, code):
    app, url, _ = app_server
    head = f"X-Mc-Tco-Token: {app.token}\r\n" if token else ""
    req = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{head}Content-Length: -1\r\n\r\n"
           "{}").encode()
    status, data, closed = _raw(_port(url), req)
    assert status == code and closed, data
