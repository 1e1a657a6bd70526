"""Speed of the TCO model, version 3, in cell-months per second per core.

A cell-month is one row (a sample or Saltelli design row) at one demand in one month. The
script draws ``--rows`` rows of the default book (inputs by their ``ppf`` of uniform
draws), adds the book's report demands to its grid, and times the CPU of one thread
(``time.thread_time``: the machine may be shared; numba's kernels and numpy are
single-threaded here):

* the engine's hot path: the model asked for its target only (``attrs["outputs"] =
  ["saving"]``), on all rows (:func:`mc_tco.models.kernels.block.npv_block`, 16 demands
  per block);
* the same rows at the report demands alone (the lanes kernel: the Shapley pass and, with
  ``--sobol-at report``, the default, the Saltelli design rows), against the scalar loop
  and the fused reference there;
* the same rows through the scalar month loop (:func:`mc_tco.models.kernels.npv.npv_cell`,
  one demand at a time, the state in registers), and through a fused reference kernel of
  version 3's month recursion alone (the fleet for the busiest hour with spares and scale
  efficiency, buy's running maximum, the hybrid's rule), the demand-independent factors
  hoisted; the model's ratio to each;
* the full model (every output) on the base rows of those rows (1 in D+2), and each
  expensive output group alone;
* version 1 (``tco_v1_reference.py``, its book ``tco_v1_book.toml``): cells per second.

And, in a fresh subprocess with an empty numba cache, the cold-start cost (its CPU
seconds): import plus first (compiling) call, against a warm call.

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
from mc_tco.models.kernels import grid as kgrid
from mc_tco.models.kernels import hybrid, npv
from mc_tco.models.kernels import rows as krows

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
def fused_reference(V, S, demands, out):
    """Version 3's month recursion alone, one demand at a time: buy's fleet for the busiest
    hour (ceil, scale efficiency, spares, running maximum) and the hybrid's rule (its
    running maximum), the demand-independent factors hoisted (the model's own)."""
    buf = np.zeros((2, 64))
    for i in range(V.shape[0]):
        v, sc = V[i], S[i]
        a, ut, e1 = sc[krows.A_], sc[krows.UTIL], sc[krows.E1]
        sf, sp = sc[krows.SFULL], sc[krows.SPARE]
        for j in range(demands.shape[0]):
            dem = demands[j]
            nb = nh = acc = 0.0
            for t in range(int(sc[krows.T_])):
                D = dem * v[krows.DU, t]
                cu = v[krows.CAP, t] * ut
                x = D * a / cu
                k = max(0.0, np.ceil(x - 1e-9 * max(1.0, x)))
                while k * hybrid.eta(k, e1, sf) < x - 1e-9 * max(1.0, x):
                    k += 1.0
                nb = max(nb, k + np.ceil(sp * k))
                nh = max(nh, hybrid.n_star(D, cu, (v[krows.PBAR, t] - v[krows.STOK, t]) * D,
                                           v[krows.CNODE, t], sc[krows.STAFF], a, sc[krows.HP],
                                           sc[krows.B_], e1, sf, buf))
                acc += v[krows.DISC, t] * (nb + nh)
            out[i, j] = acc


@njit(cache=True, nogil=True)
def scalar_npv(V, S, demands, out):
    """:func:`mc_tco.models.kernels.npv.npv_cell` at every row and demand."""
    W = np.empty((npv.NW_NPV, V.shape[2]))
    buf = np.zeros((2, 64))
    res = np.empty(npv.NRES_OUT)
    for i in range(V.shape[0]):
        for j in range(demands.shape[0]):
            npv.npv_cell(V[i], S[i], demands[j], W, buf, res)
            out[i, j] = res[npv.NPV + 1]


def best(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.thread_time()
        fn()
        times.append(time.thread_time() - start)
    return min(times)


COLD = """
import time, numpy as np
t0 = time.process_time()
from mc_tco.models import tco
import benchmarks.model_speed as ms
t1 = time.process_time()
x = ms.sample_inputs(ms.BOOK, 64, np.geomspace(1e9, 1e13, 46))
t2 = time.process_time(); tco.model(x); t3 = time.process_time()
tco.model(x); t4 = time.process_time()
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
    print(f"v3 target only (saving): {t_hot:.3f} s, {cells / t_hot / 1e6:.1f}M cell-months/s")

    base = x.isel(sample=slice(0, rows // 48))  # base rows: 1 in D+2 = 48
    bcells = base.sizes["sample"] * grid.size * months
    t_full = best(lambda: tco.model(base), args.repeats)
    print(f"v3 all outputs on {base.sizes['sample']} base rows: {t_full:.3f} s, "
          f"{bcells / t_full / 1e6:.1f}M cell-months/s")
    for group in (["saving", "cost", "npv"], sorted(tco.PATH), ["irr"],
                  ["cash_path", "cash_by_year"], ["breakeven_demand"]):
        t = best(lambda g=group: tco.model(base.assign_attrs(outputs=g)), args.repeats)
        print(f"    {', '.join(group)[:60]:60s} {t:.3f} s")

    V, S = krows.row_factors({k: x[k].values for k in tco.INPUTS})
    t_rows = best(lambda: krows.row_factors({k: x[k].values for k in tco.INPUTS}), args.repeats)
    out = np.empty((rows_n := V.shape[0], grid.size))
    fused_reference(V[:64], S[:64], grid, out[:64])
    scalar_npv(V[:64], S[:64], grid, out[:64])
    t_ref = best(lambda: fused_reference(V, S, grid, out), args.repeats)
    t_scalar = best(lambda: scalar_npv(V, S, grid, out), args.repeats)
    print(f"fused reference kernel (fleet + hybrid rule): {t_ref:.3f} s, "
          f"{cells / t_ref / 1e6:.1f}M cell-months/s (row factors alone: {t_rows:.3f} s, "
          f"{rows_n} rows)")
    print(f"scalar month loop (npv_cell): {t_scalar:.3f} s, {cells / t_scalar / 1e6:.1f}M "
          "cell-months/s")
    print(f"ratio v3 target path / fused reference: {t_ref / t_hot:.2f}; "
          f"/ scalar month loop: {t_scalar / t_hot:.2f}")
    few = np.asarray(tco.REPORT_DEMANDS, dtype=float)  # < 8 demands: rows in the lanes
    res_few, out_few = np.empty((rows_n, few.size, npv.NRES_OUT)), np.empty((rows_n, few.size))
    t_few, t_few_s = (best(lambda: kgrid.npv_grid(V, S, few, res_few), args.repeats),
                      best(lambda: scalar_npv(V, S, few, out_few), args.repeats))
    t_few_ref = best(lambda: fused_reference(V, S, few, out_few), args.repeats)
    print(f"few demands ({few.size}, as the Shapley pass and, with --sobol-at report, the "
          f"default, the Saltelli design rows; lanes.npv_lanes, kernel alone): "
          f"{t_few:.3f} s, {rows * few.size * months / t_few / 1e6:.1f}M cell-months/s; "
          f"scalar month loop {t_few_s:.3f} s, ratio {t_few_s / t_few:.2f}; fused reference "
          f"{t_few_ref:.3f} s, ratio {t_few_ref / t_few:.2f}")

    sys.path.insert(0, str(HERE))
    import tco_v1_reference as v1

    v1_grid = v1.SPEC.grid["demand"].with_points(v1.REPORT_DEMANDS).values
    x1 = sample_inputs(V1_BOOK, rows, v1_grid)
    t_v1 = best(lambda: v1.model(x1), args.repeats)
    v1_cells = rows * x1.sizes["demand"]
    print(f"v1 (all outputs, xarray): {t_v1:.3f} s, {v1_cells / t_v1 / 1e6:.2f}M cells/s "
          f"(v3 target path: {rows * grid.size / t_hot / 1e6:.2f}M cells/s, 48 months each)")

    if not args.no_cold:
        imp, first, warm = cold_start()
        print(f"cold start (empty numba cache, CPU): import {imp:.2f} s, first call "
              f"{first:.2f} s (compiles), warm call {warm:.3f} s")


if __name__ == "__main__":
    main()
