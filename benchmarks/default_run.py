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
    python benchmarks/default_run.py --big-only       # only the 2^20 run
    python benchmarks/default_run.py --first-ever     # empty numba cache first (compiles)
    python benchmarks/default_run.py --shapley-grid   # and one with --shapley-at grid
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
    ap.add_argument("--big", action="store_true", help="also run --samples 1048576")
    ap.add_argument("--big-only", action="store_true", help="only the --samples 1048576 run")
    args = ap.parse_args()
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
    if args.shapley_grid and not args.big_only:
        records.append(one_run([*extra, "--shapley-at", "grid"], "default, --shapley-at grid"))
    if args.big or args.big_only:
        records.append(one_run(["--samples", "1048576", *extra], "--samples 1048576"))
    print(f"\n{'run':44s} {'wall s':>8s} {'cpu s':>8s} {'peak MB':>8s} {'file MB':>8s} "
          f"{'load':>5s}")
    for r in records:
        print(f"{r['run']:44s} {r['wall_s']:8.1f} {r['cpu_s']:8.1f} {r['peak_rss_mb']:8d} "
              f"{r['file_mb']:8.1f} {r['load_before']:5.1f}")
    if shutil.which("uptime"):
        print(subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
