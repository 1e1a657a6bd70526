"""Wall time and peak memory of the default `mc-tco run`, each in a fresh process (issue 12).

Issue 12's targets: the default run (default book, default samples, a cold process, 2
cores) under 10 s and 1 GB; ``--samples 1048576`` under 15 minutes and 3 GB. Each run is
``python -m mc_tco run ...`` in a new subprocess (a cold process: imports, the numba
kernels loaded from their cache, or compiled on the first run after an install), writing
to a temporary folder removed afterwards. Wall time is measured around the subprocess,
CPU time and peak memory (``ru_maxrss``) are the child's own resource usage
(``os.wait4``; ``resource.getrusage(RUSAGE_CHILDREN)`` would give the largest so far).

The machine's load is printed (``os.getloadavg``): with other jobs running, wall times
grow by about the load over the cores; CPU seconds (user + sys) change less.

    python benchmarks/default_run.py                  # the default run, 3 times
    python benchmarks/default_run.py --repeat 1 --no-shapley
    python benchmarks/default_run.py --big            # also --samples 1048576 (10-30 min)
    python benchmarks/default_run.py --big-only       # only the 2^20 run (--keep-samples targets)
    python benchmarks/default_run.py --first-ever     # empty numba cache first (compiles)
    python benchmarks/default_run.py --shapley-grid   # and one with --shapley-at grid
    python benchmarks/default_run.py --sobol-grid     # each run beside one --sobol-at grid
    python benchmarks/default_run.py --stages         # each stage's wall and CPU seconds

``--stages`` runs the default run in a fresh process that times its own stages
(``mc_tco.engine.execute``'s ``on_stage``): imports, book, plan, sampling (the model on
the base and Saltelli design rows, the base rows written), independence check, Shapley
effects (on a thread of their own beside the run's tail since 2026-12-06: their own wall
seconds, which overlap the stages before, and no CPU column), summaries (indices with
their scramble intervals, the file completed); wall and CPU seconds (all threads: the
Shapley pass's included where it overlaps), so that a loaded machine's wall can be read
against the CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "distributions" / "deepseek-v4.1-flash.toml"
#: the kernels' package: numba keeps their cache in its __pycache__ (or NUMBA_CACHE_DIR),
#: one index file (.nbi) and data files (.nbc) named MODULE.FUNCTION-LINE.pyXY
KERNELS = ROOT / "mc_tco" / "models" / "kernels"


def _cache_files() -> list[Path]:
    where = os.environ.get("NUMBA_CACHE_DIR")
    folders = [KERNELS / "__pycache__"]
    if where:
        folders.append(Path(where))
    modules = {p.stem for p in KERNELS.glob("*.py")}
    return [f for d in folders if d.exists() for f in d.rglob("*.nb[ic]")
            if f.name.split(".")[0] in modules and f.parent.name in ("__pycache__", "kernels")]


def one_run(args: list[str], label: str) -> dict:
    """Run ``mc-tco run ARGS`` in a fresh process; return wall, CPU, peak RSS and load."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "run.nc"
        cmd = [sys.executable, "-m", "mc_tco", "run", str(BOOK), "--out", str(out),
               "--quiet", *args]
        load = os.getloadavg()[0]
        log = Path(tmp) / "stderr.txt"
        start = time.perf_counter()
        with open(log, "w") as err:
            child = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err,
                                     env={**os.environ, "PYTHONPATH": str(ROOT)})
            # the child's own resource usage (RUSAGE_CHILDREN would keep the largest so far)
            _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code:
            print(log.read_text()[-3000:], file=sys.stderr)
            raise SystemExit(f"{label}: mc-tco run failed ({code})")
        size = out.stat().st_size / 1e6
    cpu = usage.ru_utime + usage.ru_stime
    rec = {"run": label, "args": " ".join(args) or "(defaults)", "wall_s": round(wall, 2),
           "cpu_s": round(cpu, 2), "peak_rss_mb": round(usage.ru_maxrss / 1024),
           "file_mb": round(size, 1), "load_before": round(load, 2),
           "load_after": round(os.getloadavg()[0], 2)}
    print(json.dumps(rec), flush=True)
    return rec


STAGES = """
import contextlib, importlib, json, sys, time
wall, cpu = time.perf_counter, time.process_time
t0 = (wall(), cpu())
from mc_tco.book import load_book
from mc_tco.engine.plan import plan_run
rows = [["imports", wall() - t0[0], cpu() - t0[1]]]
spent = {}
engine_run = importlib.import_module("mc_tco.engine.run")
timer = engine_run._Stages.__call__

@contextlib.contextmanager
def timed(self, name, last=True):  # each stage's CPU seconds beside its wall (all parts)
    start = cpu()
    try:
        with timer(self, name, last):
            yield
    finally:
        spent[name] = spent.get(name, 0.0) + cpu() - start

engine_run._Stages.__call__ = timed
for name, step in (("book", lambda: load_book(sys.argv[1])),
                   ("plan", lambda: plan_run(book, samples=int(sys.argv[3])))):
    t = (wall(), cpu())
    result = step()
    rows.append([name, wall() - t[0], cpu() - t[1]])
    book = result if name == "book" else book
said = []
engine_run.execute(result, out=sys.argv[2], on_stage=lambda name, s: said.append((name, s)))
# (the Shapley pass beside the run's tail is said with its own seconds, not timed
# by a clock of the main thread: no CPU of its own, it overlaps the stages before)
rows += [[name, s, spent.get(name)] for name, s in said]
print(json.dumps(rows))
"""


def stages(samples: int) -> None:
    """The default run in a fresh process, each stage's wall and CPU seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        load = os.getloadavg()[0]
        start = time.perf_counter()
        res = subprocess.run([sys.executable, "-c", STAGES, str(BOOK), str(Path(tmp) / "run.nc"),
                              str(samples)], cwd=ROOT, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        wall = time.perf_counter() - start
    if res.returncode:
        raise SystemExit(res.stderr[-3000:])
    rows = json.loads(res.stdout.strip().splitlines()[-1])
    print(f"\nstages of the default run at {samples} samples (load {load:.1f} before):")
    print(f"{'stage':22s} {'wall s':>8s} {'cpu s':>8s}")
    for name, w, c in rows:
        cpu_s = f"{c:8.2f}" if c is not None else "  beside"  # (overlaps the stages above)
        print(f"{name:22s} {w:8.2f} {cpu_s}")
    print(f"{'total (process)':22s} {wall:8.2f} "
          f"{sum(r[2] for r in rows if r[2] is not None):8.2f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="default runs (cold processes)")
    ap.add_argument("--first-ever", action="store_true",
                    help="delete the numba cache of the kernels first, so the first run "
                         "compiles them (as after an install)")
    ap.add_argument("--no-shapley", action="store_true", help="also pass --no-shapley")
    ap.add_argument("--shapley-grid", action="store_true",
                    help="also one default run with --shapley-at grid (Shapley effects at "
                         "every demand, as before the report-point default), for the ratio")
    ap.add_argument("--sobol-grid", action="store_true",
                    help="after each default run, one with --sobol-at grid (the Saltelli "
                         "design rows at every demand, as before the report-point default), "
                         "for the ratio")
    ap.add_argument("--big", action="store_true", help="also run --samples 1048576")
    ap.add_argument("--big-only", action="store_true", help="only the --samples 1048576 run")
    ap.add_argument("--big-keep", choices=("all", "targets"), default="targets",
                    help="--keep-samples of the 2^20 run: with all, its file is about 37 GB "
                         "(9.2 GB at 2^18), so the default is targets (about 8 GB)")
    ap.add_argument("--stages", action="store_true",
                    help="only the stages of one default run: wall and CPU seconds each")
    ap.add_argument("--samples", type=int, default=8192, help="base samples of --stages")
    args = ap.parse_args()
    if args.stages:
        stages(args.samples)
        return
    extra = ["--no-shapley"] if args.no_shapley else []
    print(f"{os.cpu_count()} cores, load {os.getloadavg()}, python {sys.version.split()[0]}",
          flush=True)
    records = []
    if not args.big_only:
        if args.first_ever:
            for f in _cache_files():
                f.unlink()
            records.append(one_run(extra, "default, first ever (compiles the kernels)"))
        for i in range(args.repeat):
            records.append(one_run(extra, f"default, cold process {i + 1}"))
            if args.sobol_grid:  # alternated, so that the machine's load hits both alike
                records.append(one_run([*extra, "--sobol-at", "grid"],
                                       f"default, --sobol-at grid {i + 1}"))
    if args.shapley_grid and not args.big_only:
        records.append(one_run([*extra, "--shapley-at", "grid"], "default, --shapley-at grid"))
    if args.big or args.big_only:
        records.append(one_run(["--samples", "1048576", "--keep-samples", args.big_keep, *extra],
                               f"--samples 1048576 --keep-samples {args.big_keep}"))
    print(f"\n{'run':44s} {'wall s':>8s} {'cpu s':>8s} {'peak MB':>8s} {'file MB':>8s} "
          f"{'load':>5s}")
    for r in records:
        print(f"{r['run']:44s} {r['wall_s']:8.1f} {r['cpu_s']:8.1f} {r['peak_rss_mb']:8d} "
              f"{r['file_mb']:8.1f} {r['load_before']:5.1f}")
    if shutil.which("uptime"):
        print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
