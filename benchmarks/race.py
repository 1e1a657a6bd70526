"""The race: SALib's loop, OpenTURNS and mc_tco on the same design and outputs.

One process, one design: SALib's ``sobol.sample`` of D = 15 inputs, N = 2^14 base samples,
first order and total only (``calc_second_order=False``), and 64 outputs ("cells": Sobol'
G functions with 64 different coefficient vectors). Timed, each with 100 bootstrap
resamples and 95% intervals:

* SALib: ``sobol.analyze`` called once per cell, the loop a SALib user writes;
* OpenTURNS: ``SaltelliSensitivityAlgorithm`` per cell with a bootstrap of 100 (its
  intervals are per output only for a single-output algorithm; with 64 outputs it gives
  the interval of the aggregated index), on the same rows reordered into its block layout
  ``A, B, E_1..E_D`` (``E_i`` = ``A`` with column ``i`` from ``B``, SALib's ``AB_i``);
* mc_tco: :func:`mc_tco.sensitivity.sobol.sobol_indices`, all 64 cells at once.

Prints the times, the ratios against SALib's loop and the largest difference of the point
estimates against SALib's. The machine may be shared, so mc_tco is timed 5 times,
interleaved with SALib's loop (before the first cell and after every 16th), and the ratio
uses the median; SALib's loop is also given as 64 x its median time per cell. SALib's loop
is single-threaded numpy; mc_tco's bootstrap is one BLAS matrix product per chunk, which
uses all cores unless ``OPENBLAS_NUM_THREADS=1`` (a fair per-core comparison, and steadier
on a loaded machine). Run: ``python benchmarks/race.py`` (about 4 minutes).
"""

import os
import time

import numpy as np
import xarray as xr
from SALib.analyze import sobol as salib_analyze
from SALib.sample import sobol as salib_sample

from mc_tco.sensitivity.sobol import sobol_indices

D, N, CELLS, RESAMPLES = 15, 2**14, 64, 100


def outputs(x: np.ndarray) -> np.ndarray:
    """64 Sobol' G functions of the unit-cube rows ``x`` (rows, D) -> (rows, 64)."""
    rng = np.random.default_rng(64)
    a = rng.choice([0.0, 0.5, 1.0, 3.0, 9.0, 99.0], size=(CELLS, D))
    y = np.ones((len(x), CELLS))
    for j in range(D):
        y *= (np.abs(4 * x[:, j, None] - 2) + a[:, j]) / (1 + a[:, j])
    return y


def run_salib(problem, y, between=None):
    """SALib's loop; returns the indices and the time of each cell (``between`` untimed)."""
    s1, st, s1c, stc = (np.empty((D, CELLS)) for _ in range(4))
    times = np.empty(CELLS)
    for c in range(CELLS):
        t0 = time.perf_counter()
        res = salib_analyze.analyze(problem, y[:, c], calc_second_order=False,
                                    num_resamples=RESAMPLES, seed=c + 1)
        s1[:, c], st[:, c], s1c[:, c], stc[:, c] = (
            res["S1"], res["ST"], res["S1_conf"], res["ST_conf"])
        times[c] = time.perf_counter() - t0
        if between is not None and c % 16 == 15:
            between()
    return (s1, st, s1c, stc), times


def run_openturns(x, y):
    import openturns as ot

    per = D + 2
    # SALib rows per base sample: A, AB_1..AB_D, B -> OpenTURNS blocks A, B, E_1..E_D
    order = [0, per - 1, *range(1, D + 1)]
    xb = x.reshape(N, per, D)[:, order].transpose(1, 0, 2).reshape(-1, D)
    yb = y.reshape(N, per, CELLS)[:, order].transpose(1, 0, 2).reshape(-1, CELLS)
    xs = ot.Sample(xb)
    s1, st = np.empty((D, CELLS)), np.empty((D, CELLS))
    for c in range(CELLS):
        algo = ot.SaltelliSensitivityAlgorithm(xs, ot.Sample(yb[:, c : c + 1]), N)
        algo.setBootstrapSize(RESAMPLES)
        algo.setUseAsymptoticDistribution(False)
        s1[:, c] = algo.getFirstOrderIndices()
        st[:, c] = algo.getTotalOrderIndices()
        algo.getFirstOrderIndicesInterval()
        algo.getTotalOrderIndicesInterval()
    return s1, st


def run_mc_tco(y):
    ds = sobol_indices(xr.DataArray(y, dims=("row", "cell")), [f"x{j}" for j in range(D)],
                       resamples=RESAMPLES, seed=1)
    return ds.S1.values, ds.ST.values, ds.S1_conf.values, ds.ST_conf.values


def timed(func, *args):
    t0 = time.perf_counter()
    out = func(*args)
    return time.perf_counter() - t0, out


def main() -> None:
    problem = {"num_vars": D, "names": [f"x{j}" for j in range(D)], "bounds": [[0, 1]] * D}
    x = salib_sample.sample(problem, N, calc_second_order=False, seed=2024)
    y = outputs(x)
    print(f"design: D = {D}, N = 2^{int(np.log2(N))} base samples, {len(x)} rows, "
          f"{CELLS} cells, {RESAMPLES} bootstrap resamples, 95% intervals; "
          f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset (all cores)')}, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    mc_times, mc_out = [], []

    def time_mc():
        t, out = timed(run_mc_tco, y)
        mc_times.append(t)
        mc_out.append(out)

    time_mc()
    t_salib, ((s1_ref, st_ref, s1c_ref, stc_ref), cell_times) = timed(
        run_salib, problem, y, time_mc)
    t_salib = cell_times.sum()
    s1, st, s1c, stc = mc_out[-1]
    t_mc = float(np.median(mc_times))
    rows = [("SALib sobol.analyze, loop over 64 cells", t_salib, 0.0, 0.0)]
    try:
        t_ot, (s1_ot, st_ot) = timed(run_openturns, x, y)
    except ImportError:
        print("OpenTURNS is not installed (pip install openturns): skipped")
    else:
        rows.append(("OpenTURNS Saltelli + bootstrap, loop over 64 cells", t_ot,
                     np.abs(s1_ot - s1_ref).max(), np.abs(st_ot - st_ref).max()))
    rows.append(("mc_tco sobol_indices, 64 cells at once (median of 5)", t_mc,
                 np.abs(s1 - s1_ref).max(), np.abs(st - st_ref).max()))
    print()
    print(f"| {'method':<52} | {'time (s)':>8} | {'SALib / method':>14} "
          f"| {'max |dS1|':>9} | {'max |dST|':>9} |")
    print(f"|{'-' * 54}|{'-' * 10}:|{'-' * 15}:|{'-' * 10}:|{'-' * 10}:|")
    for name, t, d1, dt in rows:
        print(f"| {name:<52} | {t:8.3f} | {t_salib / t:13.1f}x | {d1:9.1e} | {dt:9.1e} |")
    print()
    print(f"mc_tco times (s): {', '.join(f'{t:.3f}' for t in mc_times)}; SALib per cell: "
          f"median {np.median(cell_times):.3f} s, min {cell_times.min():.3f} s, max "
          f"{cell_times.max():.3f} s; 64 x median cell / median mc_tco = "
          f"{CELLS * np.median(cell_times) / t_mc:.0f}x; load average at end "
          f"{os.getloadavg()[0]:.1f}")
    ok = np.isfinite(s1c_ref) & (s1c_ref > 0)
    print("bootstrap half-widths, mc_tco / SALib (different random resamples): median "
          f"{np.median(s1c[ok] / s1c_ref[ok]):.2f} (S1), "
          f"{np.median(stc[ok] / stc_ref[ok]):.2f} (ST)")


if __name__ == "__main__":
    main()
