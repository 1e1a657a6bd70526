"""Peak memory and wall time of `mc-tco run` on the default book as N grows (issue 5).

Each run is a fresh process (so its peak RSS is its own), writing to a temporary folder that
is removed afterwards. Prints a table: N, model runs, wall time, time per model run relative
to the smallest N (1.00 = linear growth), peak RSS, file size, and throughput in model
evaluations (design rows x demand x strategy cells are vectorised; a "model run" is one
design row) per second per core.

    python benchmarks/scale.py                      # N = 2^12 .. 2^20 (takes ~30 min here)
    python benchmarks/scale.py --max-power 16       # a quick look
    python benchmarks/scale.py --keep-samples targets
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = r"""
import json, resource, sys, time
from mc_tco.cli import main
t = time.perf_counter()
try:
    main(sys.argv[1:], standalone_mode=False)
finally:
    wall = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print("BENCH " + json.dumps({"wall": wall, "rss_mb": rss, "children_rss_mb": kids}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-power", type=int, default=12)
    ap.add_argument("--max-power", type=int, default=20)
    ap.add_argument("--book", default=str(ROOT / "distributions" / "deepseek-v4.1-flash.toml"))
    ap.add_argument("--keep-samples", default="all", choices=["all", "targets"])
    ap.add_argument("--scheduler", default="threads")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    rows = []
    print(f"book {args.book}, keep-samples {args.keep_samples}, scheduler {args.scheduler}, "
          f"{cores} cores", flush=True)
    header = (f"{'N':>9} {'model runs':>12} {'wall s':>8} {'s/run vs N0':>11} "
              f"{'peak RSS MB':>11} {'file MB':>8} {'runs/s/core':>12}")
    print(header, flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for power in range(args.min_power, args.max_power + 1):
            n = 2**power
            out = Path(tmp) / f"run{power}.nc"
            cmd = [sys.executable, "-c", CHILD, "run", args.book, "--samples", str(n),
                   "--out", str(out), "--quiet", "--keep-samples", args.keep_samples,
                   "--scheduler", args.scheduler]
            res = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
            line = [ln for ln in res.stdout.splitlines() if ln.startswith("BENCH ")]
            if res.returncode or not line:
                print(res.stderr[-2000:], file=sys.stderr)
                raise SystemExit(f"run at N = {n} failed")
            m = json.loads(line[-1][6:])
            import xarray as xr

            with xr.open_dataset(out, engine="h5netcdf") as ds:
                model_runs = int(ds.attrs["model_runs"])
            size = out.stat().st_size / 1e6
            out.unlink()
            per_run = m["wall"] / model_runs
            rows.append((n, model_runs, m["wall"], per_run, max(m["rss_mb"], m["children_rss_mb"]),
                         size))
            rel = per_run / rows[0][3]
            print(f"{n:>9,} {model_runs:>12,} {m['wall']:>8.1f} {rel:>11.2f} "
                  f"{rows[-1][4]:>11.0f} {size:>8.1f} {model_runs / m['wall'] / cores:>12,.0f}",
                  flush=True)
    peak = max(r[4] for r in rows)
    print(f"largest peak RSS {peak:.0f} MB ({'under' if peak < 3000 else 'OVER'} the 3 GB bound)")


if __name__ == "__main__":
    main()
