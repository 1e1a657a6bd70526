"""What halving the default sample size would cost: interval widths and time (issue 23).

Issue 23 asks, if the default run cannot stay under 10 s at 8,192 samples, what 4,096
samples would cost in interval width. This script runs the default book in this process at
each ``--samples`` value (same seed; the first run also pays the imports and the kernels'
cache load, so a warm-up run at 512 samples goes first) and prints, against the largest N
as the reference measured here:

* wall and CPU seconds of ``mc_tco.run`` (a warm process: no imports);
* the half-width of P(each strategy beats the API) at the report demands (median over the
  strategy x demand cells whose P lies in 5-95%), and the ratio to the reference's;
* the half-width of the ranking's index (Shapley effects with the book's correlations) of
  the top five inputs of ``saving>0`` for buy at 500B, and its ratio;
* the half-width of the median break-even demand of buy (relative).

    python benchmarks/sample_size.py                 # 4096 and 8192
    python benchmarks/sample_size.py --samples 2048 4096 8192
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

import mc_tco

BOOK = Path(__file__).resolve().parents[1] / "distributions" / "deepseek-v4.1-flash.toml"


def widths(ds) -> dict[str, float]:
    """The median half-widths this script compares."""
    p = ds.mc_tco.p_beats()
    demands = [d for d in (1e11, 3e11, 5e11, 1e12, 3e12) if d in p["demand"].values]
    sel = p.sel(demand=demands)
    if "strategy" in sel.dims:
        sel = sel.drop_sel(strategy="api", errors="ignore")
    half = (sel["upper"] - sel["lower"]).values / 2
    mid = sel["p"].values
    keep = (mid > 0.05) & (mid < 0.95)
    top = ds.mc_tco.ranking("saving>0", demand="500B", strategy="buy")
    index = top.attrs.get("index", "ST")
    conf = f"{index}_conf" if f"{index}_conf" in top else "ST_conf"
    rank_half = float(np.nanmedian(np.asarray(top[conf].values[:5], dtype=float)))
    return {"p_half": float(np.median(half[keep])), "cells": int(keep.sum()),
            "rank_half": rank_half, "index": index}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, nargs="+", default=[4096, 8192])
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    book = mc_tco.load_book(BOOK)
    mc_tco.run(book, samples=512, seed=args.seed)  # warm-up: imports, the kernels' cache
    rows = []
    for n in sorted(args.samples):
        t, c = time.perf_counter(), time.process_time()
        ds = mc_tco.run(book, samples=n, seed=args.seed)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        rows.append((n, wall, cpu, widths(ds)))
    ref = rows[-1]
    print(f"{'N':>7} {'wall s':>7} {'cpu s':>7} {'P half-width':>13} {'ratio':>6} "
          f"{'rank half-width':>16} {'ratio':>6}")
    for n, wall, cpu, w in rows:
        print(f"{n:>7} {wall:7.1f} {cpu:7.1f} {w['p_half']:13.4f} "
              f"{w['p_half'] / ref[3]['p_half']:6.2f} {w['rank_half']:16.4f} "
              f"{w['rank_half'] / ref[3]['rank_half']:6.2f}")
    print(f"(P: median over {ref[3]['cells']} strategy x demand cells with P in 5-95% at the "
          f"report demands; ranking: {ref[3]['index']} of saving>0, buy, 500B, top five; "
          f"time ratio {rows[0][1] / ref[1]:.2f} of the reference's wall time)")


if __name__ == "__main__":
    main()
