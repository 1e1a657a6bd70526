"""The explorer's state and layout in a real browser (issue 26): a stale answer is dimmed
and labelled, never shown as current; the seed box refuses what is not a seed; a family
switch carries its fields over; save and reload keep the saved file; cached runs say so;
the ranking is labelled for what it is; the page fits a 390-px phone. Timings are
measured by benchmarks/app_latency.py, not here.

One tab (one page) serves the tests in order; the screenshots of both widths are saved to
/tmp/app/ (MC_TCO_SCREENSHOTS=DIR elsewhere).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.app.test_browser import ARGS, CHROMIUM, set_field, sync_api

SHOTS = Path(os.environ.get("MC_TCO_SCREENSHOTS") or "/tmp/app")
PARTS = ("#answer-card", "#card-p", "#card-fan", "#card-be", "#card-rank")


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    """The explorer on a copy of the default book, its quick runs at 256 samples (the
    states and layouts tested here do not depend on the size; a quarter of the waits)."""
    import shutil
    import threading

    from mc_tco.app import bridge
    from mc_tco.app.server import App, make_server
    from tests.paths import DEFAULT_BOOK

    folder = tmp_path_factory.mktemp("app_state")
    book = folder / "book.toml"
    shutil.copy(DEFAULT_BOOK, book)
    app = App(str(book), samples=256)
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    bridge.warm_up()
    yield app, f"http://127.0.0.1:{server.server_address[1]}", folder
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def page(app_server):
    """One tab of the app at 1366 x 900, loaded (its first full run done)."""
    _, url, _ = app_server
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        ctx = browser.new_context(viewport={"width": 1366, "height": 900}, bypass_csp=True)
        tab = ctx.new_page()
        tab.goto(url + "/")
        wait_for(tab, "runs", 1, timeout=120_000)
        yield tab
        ctx.close()
        browser.close()


def count(page, what: str) -> int:
    return int(page.evaluate(f"+document.body.dataset.{what} || 0"))


def wait_for(page, what: str, n: int, timeout: float = 60_000) -> None:
    page.wait_for_function(f"(+document.body.dataset.{what} || 0) >= {n}", timeout=timeout)


def stale(page, selector: str) -> str | None:
    return page.get_attribute(selector, "data-stale")


def test_a_phone_stacks_the_results_under_the_inputs_and_never_scrolls_sideways(page):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "app-1366.png"), full_page=True)
    # the fan chart's legend is HTML under the chart: it wraps inside its card at 1366 px
    legend = page.eval_on_selector("#fan-legend", "e => [e.scrollWidth, e.clientWidth, "
                                   "e.getBoundingClientRect().right, "
                                   "e.closest('.card').getBoundingClientRect().right]")
    assert legend[0] <= legend[1] and legend[2] <= legend[3], legend
    assert "median" in page.inner_text("#fan-legend")
    assert "linear within" in page.inner_text("#fan-scale")
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(200)
    page.evaluate("renderCharts(); renderRanking()")
    scroll, view, column, aside = page.evaluate(
        "[document.documentElement.scrollWidth, window.innerWidth, "
        "document.querySelector('#results').getBoundingClientRect().width, "
        "document.querySelector('#inputs-panel').getBoundingClientRect().bottom]")
    assert scroll <= view, (scroll, view)
    assert column > 300, column
    top = page.eval_on_selector("#results", "e => e.getBoundingClientRect().top")
    assert top >= aside - 1  # under the inputs, not beside them
    page.screenshot(path=str(SHOTS / "app-390.png"), full_page=True)
    page.set_viewport_size({"width": 1366, "height": 900})
    page.evaluate("renderCharts(); renderRanking()")


def test_the_ranking_is_labelled_for_what_it_ranks(page):
    # the default book correlates inputs: the CLI ranks by Shapley effects, so does the page
    assert page.get_attribute("#chart-rank", "data-index") == "shapley"
    assert page.inner_text("#rank-title").startswith("Top inputs by Shapley effect")
    assert "share of the variance" not in page.inner_text("#rank-title").replace(
        "shares of the variance sum to 1", "")
    assert page.locator("#chart-rank rect.bar").count() == 8
    # what it rests on: the CLI's permutations at the page's demand, once the run is in
    caption = page.inner_text("#rank-caption")
    assert "random permutations of the inputs" in caption, caption
    assert "the same numbers as mc-tco run --samples 256 --seed 0 --shapley-at grid" in caption
    assert "first estimate" not in caption and not page.get_attribute("#card-rank",
                                                                      "data-rough")


def test_the_ranking_follows_the_slider_to_a_demand_of_its_own(page):
    slider = page.locator("#demand-slider")
    index = int(slider.input_value())
    answers = count(page, "answers")
    slider.fill(str(index + 1))  # a demand the run has no Shapley effects at yet
    d = page.evaluate("S.results.grid[S.demandIndex]")
    # two ranking stages (the first estimate, then the CLI's) and the slider's answer
    wait_for(page, "answers", answers + 2)
    page.wait_for_function(f"S.ranking.demand === {d} && !S.refining && "
                           "!document.querySelector('#card-rank').dataset.stale")
    ranking = page.evaluate("S.ranking.ranking.buy")
    assert ranking["at"] == pytest.approx(d, rel=1e-9) and not ranking["rough"]
    assert "where the run estimated" not in page.inner_text("#rank-caption")
    slider.fill(str(index))  # back: the first demand's ranking is kept, not rerun
    page.wait_for_function(f"S.ranking.demand === {page.evaluate('S.results.grid[S.demandIndex]')}"
                           " && !document.querySelector('#card-rank').dataset.stale")


def test_an_invalid_value_dims_every_part_until_it_is_fixed(page):
    answers = count(page, "answers")
    set_field(page, "utilization", "max", "1.5")
    err = page.locator(".input[data-input='utilization'] .error")
    err.wait_for(state="visible")
    text = err.inner_text()
    assert "1.5 is above its upper bound 1" in text
    assert "percent" not in text and "(1)" not in text
    assert page.get_attribute(
        ".input[data-input='utilization'] input[data-field='max']", "class") == "bad"
    for part in PARTS:
        assert stale(page, part) == "not computed: fix utilization", part
    assert stale(page, ".input[data-input='utilization'] .picture").startswith("not computed")
    assert page.evaluate("document.body.dataset.state") == "invalid"
    page.eval_on_selector(".input[data-input='utilization']",
                          "e => e.scrollIntoView({block: 'center'})")
    page.screenshot(path=str(SHOTS / "app-invalid.png"))
    set_field(page, "utilization", "max", "abc")
    page.wait_for_function("document.querySelector('#card-p').dataset.stale === "
                           "'not computed: fix utilization.max'")
    assert count(page, "answers") == answers  # nothing was run
    # a valid value (never run): "recomputing…" at once, each part current once answered
    set_field(page, "utilization", "max", "0.91")
    assert stale(page, "#card-rank") == "recomputing…"
    assert {stale(page, p) for p in PARTS} <= {"recomputing…", None}
    wait_for(page, "answers", answers + 1)
    for part in ("#answer-card", "#card-p", "#card-fan"):
        assert stale(page, part) is None, part
    page.wait_for_function("document.body.dataset.state === 'current'", timeout=120_000)
    assert not page.locator("[data-stale]").count()


def test_the_seed_box_takes_whole_numbers_only_and_a_cached_run_says_so(page):
    runs = count(page, "runs")
    for bad in ("-1", "2.7"):
        page.fill("#seed", bad)
        page.locator("#seed-error").wait_for(state="visible")
        assert f"seed {bad}: must be a whole number >= 0" in page.inner_text("#seed-error")
        assert stale(page, "#card-p") == "not computed: fix the seed"
    page.wait_for_timeout(500)
    assert count(page, "runs") == runs  # neither -1 nor 2.7 ran as 0 or 2
    page.fill("#seed", "0")  # the run just made: cached
    wait_for(page, "runs", runs + 1, timeout=120_000)
    status = page.inner_text("#status")
    assert status.endswith("seed 0, cached") and " 0 s" not in status, status
    assert page.is_hidden("#seed-error")


def test_another_family_carries_over_what_maps(page):
    card = ".input[data-input='node_price']"
    page.select_option(f"{card} select.family", "pert")

    def value(f):
        return page.input_value(f"{card} input[data-field='{f}']")

    assert (value("min"), value("max"), value("mode")) == ("400000", "550000", "475000")
    page.select_option(f"{card} select.family", "normal|0")  # mean, sd
    assert value("mean") == "475000"
    assert float(value("sd")) == pytest.approx(150000 / (2 * 1.6448536269514722), rel=1e-5)
    answers = count(page, "answers")
    page.select_option(f"{card} select.family", "uniform")  # the ends of its 90% interval
    assert (value("low"), value("high")) == ("400000", "550000")
    wait_for(page, "answers", answers + 1)  # back to the book's: nothing to fix
    assert page.locator(f"{card} .error").is_hidden()
    page.wait_for_function("document.body.dataset.state === 'current'", timeout=120_000)


def test_unsaved_edits_ask_before_a_reload_and_the_saved_book_reopens(page, app_server):
    _, _, folder = app_server
    answers = count(page, "answers")
    set_field(page, "node_price", "low", "10000")
    set_field(page, "node_price", "high", "20000")
    wait_for(page, "answers", answers + 1)
    asked = []
    page.once("dialog", lambda d: (asked.append(d.type), d.dismiss()))
    assert page.evaluate("S.dirty") is True
    page.close(run_before_unload=True)  # the browser asks; dismissed, the tab stays
    page.wait_for_timeout(300)
    assert asked == ["beforeunload"] and not page.is_closed()
    dest = folder / "cheap-edited.toml"
    page.fill("#save-path", str(dest))
    page.click("#save")
    page.wait_for_function("document.querySelector('#save-msg').textContent.startsWith('saved')")
    assert dest.exists() and page.input_value("#save-path") == str(dest)  # no second -edited
    assert "book=" in page.url
    runs = count(page, "runs")
    page.reload()  # saved: no question, and the saved file comes back
    wait_for(page, "runs", 1, timeout=120_000)
    assert str(dest) in page.inner_text("#book-name")
    assert page.input_value(".input[data-input='node_price'] input[data-field='low']") == "10000"
    assert page.evaluate("S.dirty") is False and runs >= 1


@pytest.mark.slow
def test_a_run_waiting_for_a_full_run_says_why(page, app_server, monkeypatch):
    """A full run (of any tab) is going: the page's slow stage says that it waits for it."""
    import time

    from mc_tco.app import bridge
    from mc_tco.app.endpoints import Job

    app, _, _ = app_server
    job = Job("fake", "book.toml", done=2048, total=8192)
    app.jobs[job.id] = job
    slow = bridge.shapley_ranking  # the default book's ranking stage
    monkeypatch.setattr(bridge, "shapley_ranking",
                        lambda *a, **k: (time.sleep(2.5), slow(*a, **k))[1])
    try:
        page.fill("#seed", "5")
        page.wait_for_function("document.querySelector('#status').textContent"
                               ".includes('a full run is going')", timeout=30_000)
        assert "2,048 of 8,192 samples" in page.inner_text("#status")
    finally:
        job.status = "done"
