"""The app loads a pasted book through the CLI's loader: a book that broke the parser (a
RecursionError, answered 500) gets the CLI's one line as a 400 (item 7)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.paths import DEFAULT_BOOK

TEXT = DEFAULT_BOOK.read_text(encoding="utf-8")
ANALYSIS = '[analysis]\ntargets = ["saving"]\n'
LINE = TEXT[: TEXT.index(ANALYSIS)].count("\n") + 3


def _post(url, body, token):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={
        "Content-Type": "application/json", "X-Mc-Tco-Token": token})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.mark.parametrize(("value", "message"), [
    ("[" * 1000 + "]" * 1000,
     f"pasted.toml:{LINE}: arrays or inline tables nested more than 32 deep"),
    ("{a=" * 5000 + "1" + "}" * 5000,
     f"pasted.toml:{LINE}: arrays or inline tables nested more than 32 deep"),
    ('"' + "x" * 20_000 + '"', f"pasted.toml:{LINE}: analysis.x: a text of 20,000 characters"),
])
def test_a_pasted_book_past_a_limit_is_a_400_with_the_line(app_server, value, message):
    app, url, _ = app_server
    text = TEXT.replace(ANALYSIS, ANALYSIS + f"x = {value}\n", 1)
    status, body = _post(url + "/api/load", {"text": text, "name": "pasted.toml"}, app.token)
    assert status == 400, body
    assert body["error"].startswith(message), body
    assert "\n" not in body["error"] and "Traceback" not in body["error"]
