"""From a change in the explorer to the re-rendered answer, measured in the page (issue 26).

Starts ``mc-tco app``'s server in this process on a copy of the default book, opens it in
chromium (Playwright) at 1366 px, and makes ``--changes`` changes (``node_price`` low
400000 -> 399000, 398000, ...: each a book never run before). For each change the page's
own clock (``performance.now()``, read by a MutationObserver this script installs) times,
from the field's input event:

* ``answer``: the sentence, the P table and the P and fan charts re-rendered (the
  ``"answer"`` stage: the base rows without their break-even search);
* ``break-even``: the break-even chart current (stage ``"base"``);
* ``ranking``: the ranking chart current (stage ``"full"``; for the default book, whose
  inputs rank by Shapley effects, a first estimate at a quarter of the CLI's permutations
  at the page's demand, its intervals drawn);
* ``refined``: the ranking at the CLI's permutations (the numbers of ``mc-tco run
  --samples N --seed S`` at that demand), the page idle.

The answer's path is split in the page (from the request's resource timing: change to
request sent, request to first byte, transfer, last byte to the answer drawn) and in the
server (``App.preview`` wrapped: its wall and CPU seconds and those of the check, the base
rows, their summaries and the JSON; CPU seconds do not grow with the load, wall seconds
do). The next change waits until the page is current and idle. The reference, measured in the
same process right after each change on the same edited book (a seed the page never ran,
so nothing is cached): each stage's in-process evaluation (``bridge.base_run`` without
and with the break-even demands; for the ranking ``bridge.shapley_ranking`` at the first
estimate's permutations on the base rows, and ``bridge.quick_run``, the whole quick run
the page ranked from before issue 26), without HTTP, JSON or drawing.
The medians (min-max) are printed with the machine's load; on a loaded machine wall times
grow by about the load over the cores. The CPU seconds of this process over a whole change
(the server's threads: change to ranking) are printed beside those of the three stages
in-process: they do not depend on the load.

    python benchmarks/app_latency.py                 # 10 changes
    python benchmarks/app_latency.py --changes 5 --samples 512
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "distributions" / "deepseek-v4.1-flash.toml"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

#: installed in the page before each change: the times of the change and of each part
#: becoming current (its data-stale attribute removed after the change)
WATCH = """(field) => {
  const t = window.__t = {};
  // capture on the document: before the page's own listener on the field sends the change
  const input = document.querySelector(field);
  document.addEventListener("input", (e) => {
    if (e.target === input && t.change === undefined) t.change = performance.now();
  }, {capture: true});
  const parts = {answer: "#card-fan", breakeven: "#card-be", ranking: "#card-rank",
                 refined: "#card-rank"};
  for (const [name, sel] of Object.entries(parts)) {
    const node = document.querySelector(sel);
    new MutationObserver((_, obs) => {
      if (t.change !== undefined && !node.dataset.stale && performance.now() > t.change
          && (name !== "refined" || !node.dataset.rough)) {
        t[name] = performance.now(); obs.disconnect();
      }
    }).observe(node, {attributes: true, attributeFilter: ["data-stale", "data-rough"]});
  }
  // the answer's request: sent (after the page's debounce), first byte, last byte
  new PerformanceObserver((list, obs) => {
    for (const e of list.getEntries()) {
      if (e.name.includes("/api/preview") && t.change !== undefined
          && e.startTime > t.change && t.sent === undefined) {
        t.sent = e.startTime; t.first = e.responseStart; t.received = e.responseEnd;
        obs.disconnect();
      }
    }
  }).observe({type: "resource"});
}"""


def _median(xs: list[float]) -> str:
    return f"{statistics.median(xs):.2f} s ({min(xs):.2f}-{max(xs):.2f})"


def _reference(book, n: int, seed: int, demand: float) -> dict[str, tuple[float, float]]:
    """Each stage in-process on ``book``: (wall, CPU) seconds."""
    from mc_tco.app import bridge

    out = {}
    start, cpu = time.perf_counter(), time.process_time()
    rows = bridge.base_run(book, n, seed, breakeven=False)
    out["answer"] = (time.perf_counter() - start, time.process_time() - cpu)
    for k, call in (
            ("breakeven", lambda: bridge.base_run(book, n, seed)),
            ("ranking", lambda: bridge.shapley_ranking(
                book, rows, n, seed, {"demand": demand},
                permutations=bridge.rough_permutations(n))),
            ("refined", lambda: bridge.quick_run(book, n, seed))):
        start, cpu = time.perf_counter(), time.process_time()
        call()
        out[k] = (time.perf_counter() - start, time.process_time() - cpu)
    return out


class ServerClock:
    """The server's side of each change's answer (``App.preview``): its wall and CPU
    seconds, and each stage's (the checks, the base rows, the JSON of the results and of
    the answer), timed by wrapping the functions the route calls."""

    STAGES = (("api", "check_edits", "check"), ("bridge", "base_run", "base rows"),
              ("engine", "summarize", "their summaries"),
              ("api", "results_json", "results JSON"), ("api", "answer", "answer"))

    def __init__(self, app) -> None:
        import mc_tco.engine as engine
        from mc_tco.app import api, bridge

        self.local = threading.local()
        self.calls: list[dict[str, tuple[float, float]]] = []
        modules = {"api": api, "bridge": bridge, "engine": engine}
        for mod, name, label in self.STAGES:
            setattr(modules[mod], name, self._timed(getattr(modules[mod], name), label))
        app.preview = self._timed(app.preview, "preview", top=True)

    def _timed(self, fn, label: str, top: bool = False):
        def call(*a, **k):
            mine = getattr(self.local, "times", None)
            if top:
                mine = self.local.times = {}
            start, cpu = time.perf_counter(), time.process_time()
            try:
                return fn(*a, **k)
            finally:
                if mine is not None:
                    mine[label] = (time.perf_counter() - start, time.process_time() - cpu)
                if top:
                    self.calls.append(mine)
                    self.local.times = None
        return call


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--changes", type=int, default=10)
    ap.add_argument("--samples", type=int, default=1024)
    args = ap.parse_args()

    from playwright.sync_api import sync_playwright

    from mc_tco.app import bridge
    from mc_tco.app.server import App, make_server

    folder = Path(tempfile.mkdtemp(prefix="app-latency-"))
    book = folder / "book.toml"
    shutil.copy(BOOK, book)
    app = App(str(book), samples=args.samples)
    server = make_server(app, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    clock = ServerClock(app)
    bridge.warm_up()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    field = ".input[data-input='node_price'] input[data-field='low']"
    names = ("answer", "breakeven", "ranking", "refined")
    page_t: dict[str, list[float]] = {k: [] for k in names}
    ref_t: dict[str, list[float]] = {k: [] for k in names}
    ref_cpu: dict[str, list[float]] = {k: [] for k in names}
    after: list[float] = []
    page_cpu: list[float] = []
    #: the answer's path in the page: debounce (change -> request), server (request ->
    #: first byte), transfer, render (last byte -> answer current)
    parts: dict[str, list[float]] = {k: [] for k in ("debounce", "server", "transfer",
                                                     "render")}
    server_t: dict[str, list[tuple[float, float]]] = {}
    print(f"load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM,
                                        args=["--no-sandbox", "--disable-gpu"])
            # bypass_csp: the page forbids eval, which wait_for_function needs
            page = browser.new_context(viewport={"width": 1366, "height": 900},
                                       bypass_csp=True).new_page()
            page.goto(url)
            page.wait_for_function("(+document.body.dataset.runs || 0) >= 1", timeout=300_000)
            for i in range(args.changes):
                page.evaluate(WATCH, field)
                cpu = time.process_time()  # the server's threads (and this script's)
                runs = page.evaluate("+document.body.dataset.runs")
                page.fill(field, str(399_000 - 1000 * i))
                page.wait_for_function(f"window.__t.refined !== undefined && "
                                       f"+document.body.dataset.runs > {runs}",
                                       timeout=300_000)
                page_cpu.append(time.process_time() - cpu)
                t = page.evaluate("window.__t")
                for k in page_t:
                    page_t[k].append((t[k] - t["change"]) / 1000)
                after.append((t["ranking"] - t["answer"]) / 1000)
                for k, (a, b) in {"debounce": ("change", "sent"), "server": ("sent", "first"),
                                  "transfer": ("first", "received"),
                                  "render": ("received", "answer")}.items():
                    parts[k].append((t[b] - t[a]) / 1000)
                for k, v in clock.calls[-1].items():
                    server_t.setdefault(k, []).append(v)
                # the reference: the same stages in-process, on the same edited book
                text = page.evaluate("S.text")
                edited = bridge.loads_book(text, str(book))
                demand = page.evaluate("S.results.grid[S.demandIndex]")
                for k, (wall, cpu_s) in _reference(edited, args.samples, 10_000 + i,
                                                   demand).items():
                    ref_t[k].append(wall)
                    ref_cpu[k].append(cpu_s)
                print(f"change {i + 1}: answer {page_t['answer'][-1]:.2f} s, break-even "
                      f"{page_t['breakeven'][-1]:.2f} s, ranking {page_t['ranking'][-1]:.2f} s"
                      f" ({after[-1]:.2f} s after the answer), refined "
                      f"{page_t['refined'][-1]:.2f} s (in-process "
                      + " / ".join(f"{ref_t[k][-1]:.2f}" for k in names)
                      + f" s; load {os.getloadavg()[0]:.1f})")
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\n{args.changes} changes at {args.samples:,} samples, median (min-max), "
          f"from the change in the page:")
    labels = {"answer": "answer (P, band, fan, sentence)", "breakeven": "break-even chart",
              "ranking": "ranking (first estimate)",
              "refined": "ranking at the CLI's permutations"}
    refs = {"answer": "base rows", "breakeven": "base rows + break-even",
            "ranking": "Shapley rows, first estimate",
            "refined": "the whole quick run (before)"}
    for k, name in labels.items():
        print(f"  {name:35s} {_median(page_t[k])}   in-process, {refs[k]}: "
              f"{_median(ref_t[k])}")
    print(f"  {'ranking after the answer':35s} {_median(after)}")
    print("  the answer's path in the page: " + "; ".join(
        f"{k} {statistics.median(v):.3f} s" for k, v in parts.items()))
    print("  the server's answer (wall / CPU s, median): " + "; ".join(
        f"{k} {statistics.median(w for w, _ in v):.3f} / {statistics.median(c for _, c in v):.3f}"
        for k, v in server_t.items()))
    stages = [sum(v) for v in zip(*(ref_cpu[k] for k in names[:3]), strict=True)]
    print(f"  CPU seconds of a change, all its stages: in the app (server threads) "
          f"{_median(page_cpu)}; in-process, the answer, break-even and first-estimate "
          f"stages {_median(stages)}, the whole quick run {_median(ref_cpu['refined'])}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
