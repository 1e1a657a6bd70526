"""The TCO model asked for its target alone, the rows' month vectors built in parts of
``NPV_ROWS`` (:func:`mc_tco.models.tco._fill`, issue 26) against one part of the whole
block (the reference, as before 2026-12-06), in the same process, and the same bits.

The engine asks for the target alone on the Saltelli design rows (12,032 a chunk of 256
base samples) and on the Shapley pass's rows (blocks of 16,384), at the report demands
(the rows in the SIMD lanes); the independence check on 8,192 base rows at the grid's 46
demands (the demands in the lanes). Built for 4,096 rows at once, the month vectors (13 x
49 months a row: 21 MB) left the core's cache before the npv kernel read them.

    python benchmarks/npv_parts.py [--rows 16384] [--repeats 5]

The engine's two workers call the model at once, and the month vectors of both streamed
through the memory: ``--threads 2`` (the default) does the same.
"""

from __future__ import annotations

import argparse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import xarray as xr
from bench_timing import best

from mc_tco.book import load_book
from mc_tco.engine.plan import plan_run, report_grid
from mc_tco.models import tco

BOOK = Path(__file__).resolve().parent.parent / "distributions" / "deepseek-v4.1-flash.toml"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=16384)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2,
                    help="model calls at once, one a thread (the run's two workers)")
    args = ap.parse_args()
    book = load_book(BOOK)
    plan = plan_run(book, samples=64)
    rng = np.random.default_rng(26)
    n = args.rows
    x = {name: (np.full(n, float(inp.value)) if inp.is_constant
                else inp.ppf(rng.uniform(0.001, 0.999, n)))
         for name, inp in book.inputs.items() if not inp.is_grid}
    parts = tco.NPV_ROWS
    print(f"{n} rows of the default book, the target alone (saving), on {args.threads} "
          f"threads at once, best of {args.repeats}")
    print(f"{'demands':<26} {'one part s':>10} {f'parts of {parts} s':>16} {'ratio':>6}  same bits")
    for label, demand in (
            ("6 report demands", np.asarray(report_grid(plan)["demand"], dtype=float)),
            ("the grid's 46 demands", np.asarray(plan.grid["demand"].values, dtype=float))):
        ds = xr.Dataset({k: ("sample", x[k]) for k in tco.INPUTS},
                        coords={"demand": demand}).assign_attrs(outputs=["saving"])
        tco.model(ds.isel(sample=slice(0, 8)))  # (the kernels loaded first)
        got = {}
        times = {}
        for size in (10**9, parts):
            tco.NPV_ROWS = size

            def calls(size=size, ds=ds, got=got):
                with ThreadPoolExecutor(args.threads) as pool:
                    done = list(pool.map(lambda _: tco.model(ds), range(args.threads)))
                got[size] = done[0]

            times[size] = best(calls, args.repeats)
        tco.NPV_ROWS = parts
        same = np.array_equal(got[parts].saving.values, got[10**9].saving.values,
                              equal_nan=True)
        print(f"{label:<26} {times[10**9]:10.3f} {times[parts]:16.3f} "
              f"{times[parts] / times[10**9]:6.2f}  {same}")


if __name__ == "__main__":
    main()
