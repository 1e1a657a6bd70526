"""The last step of a run that replaces its previous results: the new file renamed over
the old one (the reference, as before 2026-12-06) against the two names exchanged
(:func:`mc_tco.results.io._exchange`), in the same process, alternately.

ext4 with its default ``auto_da_alloc`` writes out the delayed blocks of a file renamed
over an existing file inside the rename; a default run has just written 290 MB, so that
rename took 0.09-0.2 s at the very end of the run (one core, nothing else to do). Each
trial writes ``--mb`` MB (as the run does: not yet on disk), then replaces the older file.

    python benchmarks/swap_speed.py [--mb 290] [--trials 3] [--dir results]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from mc_tco.results.io import _exchange


def _write(path: Path, mb: int) -> None:
    block = os.urandom(2**20)
    with open(path, "wb") as f:
        for _ in range(mb):
            f.write(block)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=int, default=290)
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--dir", default=None, help="a folder on the disk to measure (default: "
                    "a temporary folder in the system's)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        old, new = Path(tmp) / "x.nc", Path(tmp) / ".x.nc.tmp"
        times: dict[str, list[float]] = {"rename over": [], "exchange": []}
        for _ in range(args.trials):
            for how in times:
                _write(old, args.mb)
                os.sync()  # (the previous results: on disk long since)
                _write(new, args.mb)
                start = time.perf_counter()
                if how == "exchange":
                    if not _exchange(new, old):
                        raise SystemExit(f"{tmp}: no renameat2 exchange here")
                    os.unlink(new)  # (the previous file's name: its backup is another)
                else:
                    os.replace(new, old)
                times[how].append(time.perf_counter() - start)
                os.unlink(old)
                os.sync()
    print(f"replacing a {args.mb} MB file just written, {args.trials} trials each "
          f"(alternated), seconds:")
    for how, ts in times.items():
        print(f"  {how:<12} " + "  ".join(f"{t:.3f}" for t in ts))
    ref, new_t = min(times["rename over"]), min(times["exchange"])
    print(f"best: {ref:.3f} s against {new_t:.3f} s")


if __name__ == "__main__":
    main()
