"""Peak memory of `mc-tco run`, `memo` and `explain` on large runs (issue 26).

Issue 26's targets: 2^16 samples of the default book under 1.5 GB, and ``memo`` and
``explain`` on a 2^18 results file under 1.5 GB each. Each command is a fresh process;
its resident memory (RSS, with its children) is sampled every 0.1 s with psutil, and each
line it prints on stderr is stamped with the time, so the peak is placed in the stage
that was running (the last line before it: "sampling: 40.0% ...", "family check: ...").
The peak printed is the kernel's own ``ru_maxrss`` of the process (``os.wait4``), which
a sample could miss; the sampled one is beside it.

    python benchmarks/memory.py run --samples 65536           # the default book, 2^16
    python benchmarks/memory.py run --samples 262144 --keep /tmp/r18.nc   # and keep the file
    python benchmarks/memory.py memo /tmp/r18.nc              # memo of a results file
    python benchmarks/memory.py explain /tmp/r18.nc           # explain of a results file
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "distributions" / "deepseek-v4.1-flash.toml"
MIB = 2**20


def measure(cmd: list[str]) -> dict:
    """Run ``cmd``; its wall time, ``ru_maxrss`` and the sampled RSS peak with its stage."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=env)
    lines: list[tuple[float, str]] = []

    def read() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            lines.append((time.perf_counter() - start, line.rstrip()))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    peak, peak_at = 0, 0.0
    watched = psutil.Process(proc.pid)
    while True:
        # reaped here (not by proc.poll), so that its resource usage is its own
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        try:
            rss = watched.memory_info().rss + sum(
                c.memory_info().rss for c in watched.children(recursive=True))
        except psutil.Error:
            rss = 0
        if rss > peak:
            peak, peak_at = rss, time.perf_counter() - start
        time.sleep(0.1)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    reader.join(5)
    code = proc.returncode
    if code:
        tail = "\n".join(text for _, text in lines[-20:])
        raise SystemExit(f"{' '.join(cmd[2:5])} ... failed ({code}):\n{tail}")
    stage = next((text for t, text in reversed(lines) if t <= peak_at), "(start-up)")
    return {"wall": wall, "maxrss": usage.ru_maxrss * 1024, "sampled": peak,
            "peak_at": peak_at, "stage": stage}


def show(label: str, rec: dict) -> None:
    print(f"{label}: peak RSS {rec['maxrss'] / MIB:,.0f} MiB (ru_maxrss; sampled "
          f"{rec['sampled'] / MIB:,.0f} MiB at {rec['peak_at']:.0f} s, during: "
          f"{rec['stage'][:90]}), wall {rec['wall']:.0f} s, load "
          f"{os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("command", choices=["run", "memo", "explain"])
    ap.add_argument("results", nargs="?", help="the results file (memo, explain)")
    ap.add_argument("--samples", type=int, default=65536, help="run: base sample size")
    ap.add_argument("--book", default=str(BOOK), help="run: the book")
    ap.add_argument("--keep", type=Path, default=None,
                    help="run: write the results file here (kept) instead of a temporary one")
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)
    mc = [sys.executable, "-m", "mc_tco"]
    with tempfile.TemporaryDirectory() as tmp:
        if args.command == "run":
            out = args.keep or Path(tmp) / "run.nc"
            rec = measure([*mc, "run", args.book, "--samples", str(args.samples),
                           "--out", str(out)])
            size = out.stat().st_size / MIB
            show(f"mc-tco run, N = {args.samples:,} ({size:,.0f} MiB file)", rec)
            return
        if not args.results:
            raise SystemExit(f"{args.command}: give the results file")
        if args.command == "memo":
            rec = measure([*mc, "memo", args.results, "--out-dir", str(Path(tmp) / "memo")])
        else:
            rec = measure([*mc, "explain", args.results])
        show(f"mc-tco {args.command} {args.results}", rec)


if __name__ == "__main__":
    main()
