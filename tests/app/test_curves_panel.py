"""The explorer's curves panel (issue 25, items 2-4): ``POST /api/curves`` gives what
``ds.mc_tco.cdf``, ``scatter`` and ``given`` computed, and the page draws it in a real
browser (Debian's chromium through Playwright, as tests/app/test_browser.py)."""

from __future__ import annotations

import os
import shutil
import threading

import numpy as np
import pytest

from mc_tco.app.curves import MAX_POINTS, curves_panel
from mc_tco.results.io import open_results
from tests.paths import DEFAULT_BOOK


def test_the_panel_data_is_the_accessors(result_files):
    ds = open_results(result_files["default"])
    got = curves_panel(ds, 5e11, "buy", "api_price_annual_change>-0.05")
    assert got["demand"] == 5e11 and got["target"] == "saving"
    ref = ds.mc_tco.cdf("saving", demand=5e11, points=len(got["curves"]["x"]))
    np.testing.assert_allclose(got["curves"]["x"], ref["x"].values)
    np.testing.assert_allclose(got["curves"]["strategies"]["rent"]["ccdf"],
                               ref["ccdf"].sel(strategy="rent").values)
    assert "api" not in got["curves"]["strategies"]
    sc = ds.mc_tco.scatter("saving", strategy="buy", demand=5e11)
    assert [i["name"] for i in got["scatter"]["inputs"]] == list(sc["input"].values)
    assert got["scatter"]["wins"] == [bool(w) for w in sc["wins"].values]  # 512 <= MAX
    assert ds.sizes["sample"] <= MAX_POINTS
    g = ds.mc_tco.given("api_price_annual_change>-0.05", demand=5e11, min_rows=1)
    if g.attrs["rows_given"] >= 100:
        assert got["given"]["rows"]["buy"]["p"] == float(g["p"].sel(strategy="buy"))
    else:
        assert "holds in only" in got["given"]["error"]
    bad = curves_panel(ds, 5e11, None, "node_prize>3")["given"]
    assert "did you mean 'node_price'" in bad["error"]


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


@pytest.fixture(scope="module")
def small_app(tmp_path_factory):
    """The explorer on a copy of the default book with quick runs of 256 samples (the
    panel's drawing, not the run, is under test: a quarter of the conftest's run time)."""
    from mc_tco.app.server import App, make_server

    book = tmp_path_factory.mktemp("curves_app") / "book.toml"
    shutil.copy(DEFAULT_BOOK, book)
    server = make_server(App(str(book), samples=256), "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.slow  # chromium's start and the page's first run: ~6 s idle, 16 s at load 16
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium is not installed")
def test_the_panel_renders_in_chromium(small_app):
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.app.test_browser import ARGS

    url = small_app
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            ctx = browser.new_context(viewport={"width": 1500, "height": 1100},
                                      bypass_csp=True)
            ctx.route("**/*", lambda route: route.continue_() if "127.0.0.1" in
                      route.request.url else route.abort())
            page = ctx.new_page()
            page.goto(url + "/")
            page.wait_for_function("(+document.body.dataset.curves || 0) >= 1",
                                   timeout=60_000)
            assert page.locator("#chart-cdf path.cdf-series").count() == 5
            assert page.locator("#scatter-grid .scatter-panel").count() == 4
            assert page.locator("#scatter-grid circle.win").count() > 0
            assert page.locator("#scatter-grid circle.lose").count() > 0
            assert "MC interval" in page.inner_text("#scatter-caption")
            # the drawn P(saving > x) near 0 is P(buy beats the API) of the table
            near = float(page.get_attribute("#chart-cdf path[data-strategy='buy']",
                                            "data-at-zero"))
            assert 0 < near < 1
            done = page.evaluate("+document.body.dataset.curves")
            page.fill("#given-text", "api_price_annual_change>-0.15")
            page.dispatch_event("#given-text", "change")
            page.wait_for_function(f"(+document.body.dataset.curves || 0) > {done}")
            cell = "#given-table td[data-strategy='buy']"
            assert "MC interval" in page.inner_text(cell)
            assert "of 256 scenarios" in page.inner_text("#given-table")
            done = page.evaluate("+document.body.dataset.curves")
            page.fill("#given-text", "node_price>p99.9")
            page.dispatch_event("#given-text", "change")
            page.wait_for_function(f"(+document.body.dataset.curves || 0) > {done}")
            err = page.locator("#given-error")
            assert err.is_visible() and "holds in only" in err.inner_text()
            assert "\n" not in err.inner_text()
        finally:
            browser.close()
