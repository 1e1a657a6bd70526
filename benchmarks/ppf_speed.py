"""Speed and accuracy of the fast beta ppf (:func:`mc_tco.distributions.beta_ppf.beta_ppf`) against
scipy's.

For each distinct (a, b) of the default book's pert inputs, and a few other shapes, at
``--n`` scrambled Sobol' points (clipped to [U_MIN, 1 - U_MIN] as ``Input.ppf`` does), in
the same process: ns per value of ``scipy.stats.beta(a, b).ppf`` and of ``beta_ppf`` (its
table already built; the build is timed apart), their ratio, the largest difference in
units of the support width, and the values scipy had to answer (fallback).

    python benchmarks/ppf_speed.py [--n 262144] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
from bench_timing import best
from scipy import stats
from scipy.stats import qmc

from mc_tco.book import load_book
from mc_tco.distributions.beta_ppf import _solve, beta_ppf, beta_table
from mc_tco.distributions.families import U_MIN, ppf

BOOK = Path(__file__).resolve().parent.parent / "distributions" / "deepseek-v4.1-flash.toml"
OTHERS = [(0.3, 0.9), (2.5, 40.0), (40.0, 40.0), (1e4, 1e6)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=2**18)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    book = load_book(BOOK)
    shapes = sorted({tuple(float(v) for v in inp.dist.args)
                     for inp in book.uncertain if inp.family == "pert"})
    u = np.clip(qmc.Sobol(1, seed=11).random(args.n).ravel(), U_MIN, 1 - U_MIN)
    print(f"{args.n} values per (a, b), best of {args.repeats}; ns per value")
    print(f"{'a':>8} {'b':>8} {'scipy':>7} {'fast':>7} {'ratio':>6} {'table ms':>8} "
          f"{'max|diff|':>9} {'fallback':>8}")
    tot_s = tot_f = 0.0
    for k, (a, b) in enumerate(shapes + OTHERS):
        dist = stats.beta(a, b)
        t = time.perf_counter()
        beta_table.cache_clear()
        beta_table(a, b)
        t_table = time.perf_counter() - t
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Error in function boost", RuntimeWarning)
            ts = best(lambda dist=dist: dist.ppf(u), args.repeats)
            tf = best(lambda a=a, b=b: beta_ppf(a, b, u), args.repeats)
            diff = np.max(np.abs(beta_ppf(a, b, u) - dist.ppf(u)))
        with np.errstate(all="ignore"):
            todo = _solve(beta_table(a, b), u)[1].size
        if k < len(shapes):
            tot_s, tot_f = tot_s + ts, tot_f + tf
        print(f"{a:8.4g} {b:8.4g} {ts / args.n * 1e9:7.0f} {tf / args.n * 1e9:7.0f} "
              f"{ts / tf:6.2f} {t_table * 1e3:8.2f} {diff:9.1e} {todo:8d}"
              + ("   (not in the book)" if k >= len(shapes) else ""))
    print(f"the book's {len(shapes)} distinct pert shapes: scipy {tot_s / tot_f:.2f}x slower "
          f"({tot_s / len(shapes) / args.n * 1e9:.0f} vs "
          f"{tot_f / len(shapes) / args.n * 1e9:.0f} ns per value)")
    # the engine calls Input.ppf on a chunk's 256-512 values at a time
    perts = [inp for inp in book.uncertain if inp.family == "pert"]
    for size in (64, 256, 512):
        parts = [u[k:k + size] for k in range(0, min(args.n, 2**15), size)]
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Error in function boost", RuntimeWarning)
            ts = best(lambda parts=parts: [inp.dist.ppf(p) for inp in perts for p in parts],
                       args.repeats)
            tf = best(lambda parts=parts: [ppf(inp.dist, p) for inp in perts for p in parts],
                       args.repeats)
        n = len(perts) * sum(p.size for p in parts)
        print(f"calls of {size} values (distributions.ppf, the book's 22 perts): scipy "
              f"{ts / n * 1e9:.0f} ns, fast {tf / n * 1e9:.0f} ns per value, {ts / tf:.2f}x")


if __name__ == "__main__":
    main()
