"""Peak memory of `mc-tco memo` and `mc-tco explain` on a results file (issue 26).

Issue 26's target: ``memo`` and ``explain`` on a 2^18-sample results file of the default
book under 1.5 GB each, at a demand of the grid and at one between its points (``memo
--demand 800B`` evaluates the stored scenarios there). Each command is a fresh process,
measured as in ``benchmarks/memory.py`` (``ru_maxrss`` of the process, and the RSS
sampled every 0.1 s with the stage running at its peak). The references printed beside
them: the file's variables in memory (what loading it would take, ``ds.nbytes``) and the
peak of ``mc-tco memo --help`` (the interpreter and the command's imports). Each line
also gives the command's CPU seconds (user + system, from the kernel's accounting of the
reaped child): on a shared machine they mean more than its wall time.

    python benchmarks/memo_memory.py /tmp/r18.nc                     # memo at 500B, 800B; explain
    python benchmarks/memo_memory.py /tmp/r18.nc --demand 800B --only memo
    python benchmarks/memo_memory.py /tmp/r18.nc --keep /tmp/memo18  # keep the memos
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory import MIB, measure, show

LIMIT_MIB = 1536


def _measured(cmd: list[str]) -> dict:
    """:func:`memory.measure` of ``cmd``, with its CPU seconds (``cpu``: user + system of
    the child, which ``measure`` reaps)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec = measure(cmd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    rec["cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return rec


def _show(label: str, rec: dict) -> None:
    show(label, rec)
    print(f"    {rec['cpu']:,.0f} CPU s (user + system)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="the results file")
    ap.add_argument("--demand", action="append", default=None,
                    help="memo --demand (repeatable; default: the file's focus and 800B)")
    ap.add_argument("--only", choices=["memo", "explain"], default=None)
    ap.add_argument("--keep", type=Path, default=None,
                    help="write each memo under this folder (<folder>/<demand>/) and keep it")
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}", flush=True)
    mc = [sys.executable, "-m", "mc_tco"]
    size = Path(args.results).stat().st_size / MIB
    rows = []
    from mc_tco.results.io import open_results

    with open_results(args.results) as ds:
        loaded = ds.nbytes / MIB
        n = ds.sizes["sample"]
    print(f"{args.results}: {n:,} samples, {size:,.0f} MiB on disk, {loaded:,.0f} MiB loaded")
    ref = _measured([*mc, "memo", "--help"])
    _show("reference: mc-tco memo --help", ref)
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "memo"):
            for demand in args.demand or [None, "800B"]:
                where = (args.keep or Path(tmp)) / (demand or "focus")
                cmd = [*mc, "memo", args.results, "--out-dir", str(where)]
                if demand:
                    cmd += ["--demand", demand]
                rec = _measured(cmd)
                label = f"mc-tco memo ({size:,.0f} MiB file) --demand {demand or '(focus)'}"
                _show(label, rec)
                rows.append((label, rec))
        if args.only in (None, "explain"):
            rec = _measured([*mc, "explain", args.results, "--quiet"])
            label = f"mc-tco explain ({size:,.0f} MiB file)"
            _show(label, rec)
            rows.append((label, rec))
    worst = max(rec["maxrss"] for _, rec in rows) / MIB
    print(f"largest peak {worst:,.0f} MiB, {'under' if worst < LIMIT_MIB else 'OVER'} the "
          f"{LIMIT_MIB:,} MiB target (the file loaded: {loaded:,.0f} MiB; start-up "
          f"{ref['maxrss'] / MIB:,.0f} MiB)")


if __name__ == "__main__":
    main()
