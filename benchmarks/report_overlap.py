"""``mc-tco report``'s two first-run savings, each against its own reference (issue 26).

1. **The compared book beside the memo.** ``make_report`` runs the article's book while
   the memo's own sections are written (:func:`mc_tco.report.memo.report._memo_beside`).
   The reference is the same report in the same process with the two one after the other
   (the article's run, then the memo): both are timed in turn, ``--repeat`` times, wall
   and CPU seconds (every thread), the kernels warm.
2. **A cold kernel cache compiled on both cores** (:mod:`mc_tco.models.kernels.warm`):
   ``mc-tco run`` of the default book at ``--cold-samples`` in a fresh process with an
   empty ``NUMBA_CACHE_DIR``, with the helper process (``MC_TCO_PARALLEL_COMPILE=1``) and
   without it (``=0``), in turn: wall seconds, and the CPU seconds of the run's process
   and of its children (the helper).

Wall time depends on the machine's load (printed with each line): on a loaded machine the
overlap has no idle core to use, so compare the two columns of one run of this script.

    python benchmarks/report_overlap.py                    # both, 8192 samples, 2 repeats
    python benchmarks/report_overlap.py --samples 1024 --repeat 1 --no-cold
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _report(samples: int, beside: bool) -> tuple[float, float, float]:
    """One in-process report into a temporary folder: (wall, CPU, memo seconds)."""
    from mc_tco.report.memo import build_memo
    from mc_tco.report.memo import report as rep

    original = rep._memo_beside

    def one_after_the_other(ds, run_other, **kw):
        return build_memo(ds, compare=run_other(), **kw)

    rep._memo_beside = original if beside else one_after_the_other
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t, c = time.perf_counter(), time.process_time()
            r = rep.make_report(samples=samples, results_dir=tmp)
            return time.perf_counter() - t, time.process_time() - c, r.memo_seconds
    finally:
        rep._memo_beside = original


def _cold(samples: int, parallel: bool) -> tuple[float, float, float]:
    """``mc-tco run`` on an empty numba cache: (wall, own CPU, children's CPU)."""
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as out:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache,
               "MC_TCO_PARALLEL_COMPILE": "1" if parallel else "0"}
        code = ("import resource, sys, time\n"
                "from mc_tco.engine import run\n"
                f"run({str(ROOT / 'distributions' / 'deepseek-v4.1-flash.toml')!r}, "
                f"samples={samples}, out={str(Path(out) / 'r.nc')!r})\n"
                "me = resource.getrusage(resource.RUSAGE_SELF)\n"
                "kids = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
                "print(me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime)\n")
        t = time.perf_counter()
        res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                             text=True, check=True)
        wall = time.perf_counter() - t
        own, kids = (float(x) for x in res.stdout.split())
        return wall, own, kids


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=8192)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--cold-samples", type=int, default=1024)
    ap.add_argument("--no-cold", action="store_true")
    ap.add_argument("--no-report", action="store_true")
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores; load {os.getloadavg()[0]:.1f}", flush=True)
    if not args.no_report:
        _report(min(args.samples, 256), True)  # imports, kernels loaded
        for _ in range(args.repeat):
            for beside in (False, True):
                wall, cpu, memo = _report(args.samples, beside)
                label = "beside the memo    " if beside else "one after the other"
                print(f"report {args.samples} samples, article {label}: wall {wall:6.1f} s, "
                      f"CPU {cpu:6.1f} s, memo stage {memo:5.1f} s "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)
    if not args.no_cold:
        for _ in range(args.repeat):
            for parallel in (False, True):
                wall, own, kids = _cold(args.cold_samples, parallel)
                label = "with the helper   " if parallel else "one core (no helper)"
                print(f"cold run {args.cold_samples} samples, {label}: wall {wall:6.1f} s, "
                      f"CPU {own:6.1f} s here + {kids:5.1f} s helper "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)


if __name__ == "__main__":
    main()
