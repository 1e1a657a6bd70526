"""Speed of the TCO model, version 2, in cell-months per second per core.

A cell-month is one row (a sample or Saltelli design row) at one demand in one month. The
script draws ``--rows`` rows of the default book (inputs by their ``ppf`` of uniform
draws), adds the book's report demands to its grid, and times on one thread (numba's
kernels and numpy are single-threaded here):

* the engine's hot path: the model asked for its target only (``attrs["outputs"] =
  ["saving"]``), on all rows;
* the full model (every output) on the base rows of those rows (1 in D+2), and each
  expensive output group alone;
* a fused numba reference kernel over buy's and hybrid's month recursion, the
  demand-independent factors hoisted (the kernel the issue quotes at ~167M
  cell-months/s/core; ~375M on this machine, idle, December 2026), and the model's ratio
  to it (then: target path ~510M cell-months/s, ratio 1.37; all outputs ~15M; before the
  demand-vectorized kernels: ~170M, 0.44 and ~7M);
* version 1 (``tco_v1_reference.py``, its book ``tco_v1_book.toml``): cells per second.

And, in a fresh subprocess with an empty numba cache, the cold-start cost: import plus
first (compiling) call, against a warm call.

    python benchmarks/model_speed.py [--rows 65536] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import xarray as xr
from numba import njit

from mc_tco.book import load_book
from mc_tco.models import tco
from mc_tco.models.kernels import factors
from mc_tco.models.kernels import layout as kern

HERE = Path(__file__).resolve().parent
BOOK = HERE.parent / "distributions" / "deepseek-v4.1-flash.toml"
V1_BOOK = HERE / "tco_v1_book.toml"


def sample_inputs(book_path: Path, rows: int, demand: np.ndarray, seed: int = 0) -> xr.Dataset:
    book = load_book(book_path)
    rng = np.random.default_rng(seed)
    data = {}
    for name, inp in book.inputs.items():
        if inp.is_constant:
            data[name] = ("sample", np.full(rows, float(inp.value)))
        else:
            data[name] = ("sample", inp.ppf(rng.uniform(0.001, 0.999, rows)))
    return xr.Dataset(data, coords={"demand": demand})


@njit(cache=True, nogil=True)
def fused_reference(X, M, demands, out):
    """Buy's and hybrid's month recursion only (node counts, fleets, served tokens), the
    demand-independent factors hoisted per row (the model's own row function)."""
    k = np.empty((kern.NV, M))
    s = np.empty(kern.NS)
    for i in range(X.shape[0]):
        factors.row(X[i], k, s)
        for j in range(demands.shape[0]):
            dem = demands[j]
            n = 0.0
            ab = 0.0
            nh = 0.0
            top = 0.0
            ah = 0.0
            for t in range(int(s[kern.T_])):
                c = np.ceil(dem * k[kern.Q, t])
                if c > n:
                    n = c
                ab += n * k[kern.VB, t]
                f = np.floor(dem * k[kern.QH, t])
                if f > nh:
                    nh = f
                served = k[kern.PHI, t] * min(dem * k[kern.GD, t], nh * k[kern.CAPH, t])
                if served > top:
                    top = served
                ah += k[kern.DP, t] * served - s[kern.SSDTB] * top * k[kern.DD, t] - nh * k[
                    kern.VB, t]
            out[i, j, 0] = ab
            out[i, j, 1] = ah


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


COLD = """
import time, numpy as np
t0 = time.perf_counter()
from mc_tco.models import tco
import benchmarks.model_speed as ms
t1 = time.perf_counter()
x = ms.sample_inputs(ms.BOOK, 64, np.geomspace(1e9, 1e13, 46))
t2 = time.perf_counter(); tco.model(x); t3 = time.perf_counter()
tco.model(x); t4 = time.perf_counter()
print(f"{t1 - t0:.2f} {t3 - t2:.2f} {t4 - t3:.3f}")
"""


def cold_start() -> tuple[float, ...]:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(HERE.parent))
        res = subprocess.run([sys.executable, "-c", COLD], env=env, capture_output=True,
                             text=True, check=True, cwd=HERE.parent)
    return tuple(float(v) for v in res.stdout.split())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=65536)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-start test")
    args = parser.parse_args()
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    book = load_book(BOOK)
    grid = book.grid["demand"].with_points(tco.REPORT_DEMANDS).values
    rows = args.rows
    x = sample_inputs(BOOK, rows, grid)
    months = round(12 * float(x["horizon_years"].max()))
    cells = rows * grid.size * months
    print(f"default book: {rows} rows x {grid.size} demands x {months} months "
          f"= {cells / 1e6:.0f}M cell-months")

    tco.model(x.isel(sample=slice(0, 64)))  # compile / load the kernels
    hot = x.assign_attrs(outputs=["saving"])
    t_hot = best(lambda: tco.model(hot), args.repeats)
    print(f"v2 target only (saving): {t_hot:.3f} s, {cells / t_hot / 1e6:.1f}M cell-months/s")

    base = x.isel(sample=slice(0, rows // 32))  # base rows: 1 in D+2 = 32
    bcells = base.sizes["sample"] * grid.size * months
    t_full = best(lambda: tco.model(base), args.repeats)
    print(f"v2 all outputs on {base.sizes['sample']} base rows: {t_full:.3f} s, "
          f"{bcells / t_full / 1e6:.1f}M cell-months/s")
    for group in (["saving", "cost", "npv"], sorted(tco.PATH), ["irr"], ["cash_path"],
                  ["breakeven_demand"]):
        t = best(lambda g=group: tco.model(base.assign_attrs(outputs=g)), args.repeats)
        print(f"    {', '.join(group)[:60]:60s} {t:.3f} s")

    X = tco.input_matrix({k: x[k].values for k in tco.INPUTS})
    M = factors.months(X)
    out = np.empty((rows, grid.size, 2))
    fused_reference(X[:64], M, grid, out[:64])
    t_ref = best(lambda: fused_reference(X, M, grid, out), args.repeats)
    S = np.empty((rows, kern.NS))
    t_factors = best(lambda: factors.scalars(X, M, S), args.repeats)
    print(f"fused reference kernel (buy + hybrid recursion): {t_ref:.3f} s, "
          f"{cells / t_ref / 1e6:.1f}M cell-months/s (row factors alone: {t_factors:.3f} s)")
    print(f"ratio v2 target path / fused reference: {(cells / t_hot) / (cells / t_ref):.2f}")

    sys.path.insert(0, str(HERE))
    import tco_v1_reference as v1

    v1_grid = v1.SPEC.grid["demand"].with_points(v1.REPORT_DEMANDS).values
    x1 = sample_inputs(V1_BOOK, rows, v1_grid)
    t_v1 = best(lambda: v1.model(x1), args.repeats)
    v1_cells = rows * x1.sizes["demand"]
    print(f"v1 (all outputs, xarray): {t_v1:.3f} s, {v1_cells / t_v1 / 1e6:.2f}M cells/s "
          f"(v2 target path: {rows * grid.size / t_hot / 1e6:.2f}M cells/s, 48 months each)")

    if not args.no_cold:
        imp, first, warm = cold_start()
        print(f"cold start (empty numba cache): import {imp:.2f} s, first call {first:.2f} s "
              f"(compiles), warm call {warm:.3f} s")


if __name__ == "__main__":
    main()
