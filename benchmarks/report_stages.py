"""What the family check of ``mc-tco report`` costs, old (``main``'s) against new, in one process.

For each shipped book (or the ones given), the family check of its plan at ``--samples``
(8192, the report's) is run twice: with the family check of a git revision (``--old``,
default ``main``: its ``mc_tco/engine/family.py`` loaded from ``git show``, on today's
package) and with this checkout's. Printed: wall and CPU seconds (CPU: every thread of the
process) of each, the ratio, and whether the two agree: every variable identical where the
new check evaluates it (the one-at-a-time variants at the report points, claim points and
focus, without their break-even; the memo reads nothing else of them).

Usage::

    python benchmarks/report_stages.py                 # both shipped books, 8192 samples
    python benchmarks/report_stages.py --samples 1024 --repeat 2
    python benchmarks/report_stages.py --no-old        # the new check only
    python benchmarks/report_stages.py --report        # also the whole report, per stage

The machine's load changes wall time (other processes share its cores), so the two are
run in turn, ``--repeat`` times each, and the load average is printed with each line.
``--report`` then runs :func:`mc_tco.report.memo.report.make_report` (what ``mc-tco
report`` does) into a temporary folder and prints each stage's wall and CPU seconds: on an
idle machine a stage's wall time lies between its CPU seconds divided by the cores and its
CPU seconds, so the CPU column is the figure a loaded machine cannot change much.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import types
from pathlib import Path

import numpy as np
import xarray as xr

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mc_tco.book import load_book  # noqa: E402
from mc_tco.book.shipped import ARTICLE, DEFAULT, shipped_book  # noqa: E402
from mc_tco.engine import plan_run  # noqa: E402
from mc_tco.engine.family import family_check  # noqa: E402


def old_family_check(rev: str):
    """``family_check`` of ``mc_tco/engine/family.py`` at git revision ``rev``."""
    src = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:mc_tco/engine/family.py"],
                         capture_output=True, text=True, check=True).stdout
    mod = types.ModuleType(f"family_at_{rev}")
    exec(compile(src, f"{rev}:mc_tco/engine/family.py", "exec"), mod.__dict__)
    return mod.family_check


def timed(fn, *args):
    """(result, wall s, CPU s of the whole process: the worker threads too)."""
    w, c = time.monotonic(), time.process_time()
    out = fn(*args)
    return out, time.monotonic() - w, time.process_time() - c


def agree(old: xr.Dataset, new: xr.Dataset) -> str:
    """'identical' when every variable is where the new check evaluates it: the book and
    the all-at-once variants everywhere, the one-at-a-time ones at their points (attr
    ``one_at_a_time_at``; NaN elsewhere), the break-even for the book and all-at-once only."""
    whole = new["family_variant_input"].isin(["", "all"])
    for k in old.data_vars:
        a, b = old[k].drop_attrs(), new[k].drop_attrs()
        if "_quantile" in k or "_p_never" in k:
            if not bool(np.isnan(b.where(~whole, drop=True)).all()):
                return f"{k}: a one-at-a-time variant's break-even is not NaN"
            a, b = a.where(whole), b.where(whole)
        else:
            at = b.notnull() if "fallback" not in k else new[k.replace(
                "_change_fallback", "_change_ci").replace("_fallback", "_ci")].notnull().any(
                "ci_bound")
            if not bool(at.where(whole, True).all()):
                return f"{k}: NaN for the book or an all-at-once variant"
            a, b = a.where(at), b.where(at)
        if not a.identical(b):
            return f"{k} differs"
    return ("identical where evaluated (one-at-a-time: at the report points; break-even: "
            "book and all-at-once)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("books", nargs="*", help="books (default: the two shipped ones)")
    ap.add_argument("--samples", type=int, default=8192)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--old", default="main", help="git revision of the old family check")
    ap.add_argument("--no-old", action="store_true", help="run the new check only")
    ap.add_argument("--report", action="store_true",
                    help="then run the whole report and print each stage's wall and CPU")
    args = ap.parse_args()
    books = args.books or [shipped_book(DEFAULT), shipped_book(ARTICLE)]
    old = None if args.no_old else old_family_check(args.old)
    print(f"family check, {args.samples} samples, {os.cpu_count()} cores")
    for path in books:
        plan = plan_run(load_book(path), samples=args.samples, seed=args.seed,
                        family_check=True)
        name = plan.book.stem
        family_check(plan_run(plan.book, samples=64, family_check=True))  # load the kernels
        for _ in range(args.repeat):
            res = {}
            for label, fn in (("old", old), ("new", family_check)):
                if fn is None:
                    continue
                res[label], wall, cpu = timed(fn, plan)
                print(f"  {name:22s} {label}: {wall:7.1f} s wall {cpu:7.1f} s CPU "
                      f"(load {os.getloadavg()[0]:.1f})", flush=True)
                res[label + "_t"] = (wall, cpu)
            if old is not None:
                (ow, oc), (nw, nc) = res["old_t"], res["new_t"]
                print(f"  {name:22s} new/old: {nw / ow:.2f} wall, {nc / oc:.2f} CPU; "
                      f"{agree(res['old'], res['new'])}")
    if args.report:
        report_stages(args.samples, args.seed)


def report_stages(samples: int, seed: int) -> None:
    """The whole report, each stage's wall and CPU seconds as it ends."""
    import tempfile

    from mc_tco.report.memo.report import make_report

    last = [time.monotonic(), time.process_time()]
    t0 = list(last)

    def say(text: str) -> None:
        w, c = time.monotonic(), time.process_time()
        print(f"  {text[:90]:90s} | {w - last[0]:6.1f} s wall {c - last[1]:6.1f} s CPU "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)
        last[:] = [w, c]

    print(f"mc-tco report, {samples} samples (stage lines as the report says them | the "
          "wall and CPU seconds since the previous line)")
    with tempfile.TemporaryDirectory() as tmp:
        make_report(samples=samples, seed=seed, results_dir=tmp, say=say)
        say("[3/3] memo written")
    print(f"  total: {time.monotonic() - t0[0]:.1f} s wall, {time.process_time() - t0[1]:.1f} "
          "s CPU")


if __name__ == "__main__":
    main()
