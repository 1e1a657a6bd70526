"""A running explorer (port 0, loopback) on a copy of the default book, per module."""

from __future__ import annotations

import shutil
import threading

import pytest

from tests.paths import DEFAULT_BOOK


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    from mc_tco.app import bridge
    from mc_tco.app.server import App, make_server

    folder = tmp_path_factory.mktemp("app")
    book = folder / "book.toml"
    shutil.copy(DEFAULT_BOOK, book)
    app = App(str(book))
    server = make_server(app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    bridge.warm_up()
    yield app, f"http://127.0.0.1:{server.server_address[1]}", folder
    server.shutdown()
    server.server_close()
