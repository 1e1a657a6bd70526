"""How much of the default run uses one core only: its serial time, and where it is.

Two measures, each in fresh processes (``python -m mc_tco run``, the kernels cached):

* Amdahl's split from the run on one thread (``--scheduler synchronous``) and on the
  default threads: with ``T1 = S + P`` and ``T2 = S + P / 2`` on 2 cores, the serial
  seconds ``S = 2 T2 - T1`` and the parallel ones ``P = 2 (T1 - T2)``. The CPU seconds of
  both runs are printed beside them: equal CPU means the threads cost nothing extra (no
  GIL contention), so the split reads the structure of the run, not overhead.
* A timeline of one default run: every 20 ms a monitor thread reads the process's CPU
  seconds (all threads) and the main thread's stack; it prints, by 0.25 s, the cores in
  use and the main thread's place, and the idle-core seconds (2 - cores in use, summed
  where fewer than 1.3 are busy) by the main thread's place. The monitor costs about 1%.

    python benchmarks/serial_time.py                 # both
    python benchmarks/serial_time.py --timeline      # the timeline only

Measured on the Intel AVX-512 machine of 2026-12-04 (idle, the kernels cached): one thread
14.96 s wall, 15.6 CPU s; threads 9.58 s, 16.0 CPU s (no GIL contention: the same CPU):
serial about 4.2 s by Amdahl's split (the one-thread run also runs the Shapley pass and the
independence rows on one thread). The timeline of a 9.30 s run: the imports 1.0 s and the
first model call 0.5 s (loading the cached kernels, numba's first-compile setup) at 1.0-1.4
cores; the Shapley pass and the sampling at 1.8-2.0; the tail 1.25 s at 1.0-1.9 (the last
chunk's write, the summaries, the independence check, the file completed). Its idle-core
seconds, 1.70 in all: work on every idle core would take at most 0.85 s off, so the issue's
8 s needs fewer CPU seconds, not only more overlap.
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

MONITOR = r'''
import collections, os, sys, threading, time, traceback
t0 = time.perf_counter()
samples, main_id, done = [], threading.get_ident(), threading.Event()

def monitor():
    last_t, last_c = time.perf_counter(), time.process_time()
    while not done.is_set():
        time.sleep(0.02)
        t, c = time.perf_counter(), time.process_time()
        frame = sys._current_frames().get(main_id)
        stack = traceback.extract_stack(frame) if frame else []
        ours = [f"{f.filename.split('mc_tco/')[-1]}:{f.name}" for f in stack
                if "mc_tco" in f.filename]
        samples.append((t - t0, (c - last_c) / (t - last_t), " > ".join(ours[-2:])))
        last_t, last_c = t, c

threading.Thread(target=monitor, daemon=True).start()
real_exit = os._exit

def report(code):
    done.set()
    idle = collections.Counter()
    for _, used, where in samples:
        if used < 1.3:
            idle[where or "(python)"] += 0.02 * (2 - min(used, 2.0))
    print(f"{samples[-1][0]:.2f} s; by 0.25 s: cores in use, the main thread's place")
    buckets = collections.defaultdict(list)
    for t, used, where in samples:
        buckets[int(t / 0.25)].append((used, where))
    for b in sorted(buckets):
        used = sum(u for u, _ in buckets[b]) / len(buckets[b])
        where = collections.Counter(w for _, w in buckets[b]).most_common(1)[0][0]
        print(f"  {b * 0.25:5.2f} s  {used:4.2f}  {where[-100:]}")
    print(f"idle-core seconds, {sum(idle.values()):.2f} in all, by the main thread's place:")
    for where, v in idle.most_common(12):
        print(f"  {v:5.2f}  {where[-100:]}")
    sys.stdout.flush()
    real_exit(code)

os._exit = report
sys.argv = ["mc-tco", "run", "--out", sys.argv[1], "--quiet"]
from mc_tco._entry import main
main()
report(0)
'''


def _run(args: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of ``mc-tco run ARGS`` in a fresh process."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "mc_tco", "run", "--out", f"{tmp}/run.nc", "--quiet",
               *args]
        start = time.perf_counter()
        child = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
        _, status, usage = os.wait4(child.pid, 0)
        if os.waitstatus_to_exitcode(status):
            raise SystemExit(f"mc-tco run {' '.join(args)} failed")
        return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def amdahl(repeat: int) -> None:
    one, two = [], []
    for _ in range(repeat):  # alternated, the median of each
        one.append(_run(["--scheduler", "synchronous"]))
        two.append(_run([]))
    t1 = sorted(w for w, _ in one)[len(one) // 2]
    t2 = sorted(w for w, _ in two)[len(two) // 2]
    c1 = sorted(c for _, c in one)[len(one) // 2]
    c2 = sorted(c for _, c in two)[len(two) // 2]
    print(f"one thread {t1:.2f} s wall, {c1:.1f} CPU s; threads {t2:.2f} s wall, "
          f"{c2:.1f} CPU s (median of {repeat}, load {os.getloadavg()[0]:.1f})")
    print(f"serial about {2 * t2 - t1:.2f} s, parallel {2 * (t1 - t2):.2f} s "
          f"(2 cores: T1 = S + P, T2 = S + P / 2)")


def timeline() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run([sys.executable, "-c", MONITOR, f"{tmp}/run.nc"], cwd=ROOT,
                             capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    if res.returncode:
        raise SystemExit(res.stderr[-3000:])
    print(res.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeline", action="store_true", help="only the timeline")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each for the split")
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, python "
          f"{sys.version.split()[0]}", flush=True)
    if not args.timeline:
        amdahl(args.repeat)
    timeline()


if __name__ == "__main__":
    main()
