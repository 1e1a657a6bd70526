"""The memo with its figures drawn by child processes, against the same memo drawn in this
process (:mod:`mc_tco.report.memo.background`), in one process.

:func:`mc_tco.report.memo.build_memo` of a results file (with ``--compare``, as ``mc-tco
report`` builds it), in turn with ``background_figures=False`` (the reference: every
figure drawn here) and ``True`` (``mc-tco memo``'s and ``report``'s way; the children
``MC_TCO_FIGURE_WORKERS`` or the cores less one). Printed for each: wall seconds, CPU
seconds of this process and of the children it reaped, and at the end the medians, their
ratio, and whether the two memos are the same (every figure's bytes, the Markdown and the
HTML: the date is fixed).

    python benchmarks/memo_figures.py results/deepseek-v4.1-flash.nc --compare results/article.nc
    python benchmarks/memo_figures.py RESULTS --repeat 5
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import time
import warnings


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("--compare", default=None)
    ap.add_argument("--repeat", type=int, default=3, help="memos of each kind, in turn")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    from mc_tco.report.memo import build_memo
    from mc_tco.report.memo.background import workers
    from mc_tco.results.io import open_results

    ds = open_results(args.results)
    other = open_results(args.compare) if args.compare else None
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; children drawing figures: "
          f"{workers()}")
    times: dict[bool, list[float]] = {False: [], True: []}
    memos = {}
    for i in range(args.repeat):
        for bg in (False, True):
            c0, k0, t0 = time.process_time(), _children_cpu(), time.perf_counter()
            m = build_memo(ds, compare=other, created="2026-01-01 00:00 UTC",
                           background_figures=bg)
            wall = time.perf_counter() - t0
            cpu, kids = time.process_time() - c0, _children_cpu() - k0
            times[bg].append(wall)
            memos[bg] = m
            print(f"{i + 1} {'children' if bg else 'here    '}: {wall:6.2f} s wall, "
                  f"{cpu:6.2f} CPU s here, {kids:5.2f} in children (load "
                  f"{os.getloadavg()[0]:.1f})")
    here, kids = statistics.median(times[False]), statistics.median(times[True])
    a, b = memos[False], memos[True]
    same = a.figures == b.figures and a.markdown == b.markdown and a.html == b.html
    print(f"median: drawn here {here:.2f} s, by children {kids:.2f} s: {kids / here:.2f}x; "
          f"the same memo (figures, Markdown, HTML): {same}")


if __name__ == "__main__":
    main()
