"""Do the intervals mean what they say? Bootstrap, asymptotic and randomized-QMC.

Part 1, Borehole (reference indices from ``benchmarks/borehole_reference.py``): for
N = 2^10 .. 2^18 base samples of one scrambled Sobol' design, the 95% half-width of
S1(rw) from the Poisson bootstrap (100 resamples) and the asymptotic (delta-method)
interval, against the actual error scale: 1.96 x the standard deviation of the estimate
across 16 independent scrambles of the same N. Beside them the RQMC interval at the same
cost (8 scrambles of N/8 each) and the error of its pooled estimate; and SALib's own
bootstrap half-width at N = 2^18.

Part 2, coverage: 200 replications at a total of N = 2^11 base samples, 95% intervals, on
Ishigami, the linear model and Sobol' G: coverage rate of the analytic value (over all
S1 and ST of the function) and the mean half-width against the RMSE, for the bootstrap
and asymptotic intervals on one scrambled design, the same on independent rows, and RQMC
with R = 8 scrambles of N/8.

Part 3, choosing R: RQMC with R = 4, 8, 16, 32 scrambles at a fixed total N = 2^12 (200
replications) and 2^16 (100) on Ishigami and Sobol' G: coverage, mean half-width, RMSE of
the pooled estimate (splitting the budget costs accuracy: a single scramble of N is the
reference) and the spread of the half-width (its coefficient of variation over the
replications; the t interval with few replicates has a noisy width).

    python benchmarks/intervals.py        # about 4 minutes on 2 cores
"""

import time

import numpy as np
from SALib.analyze import sobol as salib_analyze

from mc_tco.design import SaltelliDesign
from mc_tco.models import testfunctions as tf
from mc_tco.sensitivity.sobol import SobolSums, poisson_weights, rqmc_result, rqmc_seeds

CHUNK = 2**14


def outputs(f, seed, start, stop, iid=False):
    d = SaltelliDesign(f.dim, seed)
    if not iid:
        return f(d.rows(start, stop))[..., None]
    u = np.random.default_rng([seed, start]).random((stop - start, 2 * f.dim))
    return f(d.mix(u[:, : f.dim], u[:, f.dim :]))[..., None]


def grow(f, seed, powers, shift, resamples=0, moments=False, keep=None):
    """Nested sums of one design at N = 2^p for p in ``powers``: {p: SobolSums result}."""
    s = SobolSums(f.dim, False, shift, resamples, moments=moments)
    out, done = {}, 0
    for p in powers:
        n = 2**p
        for start in range(done, n, CHUNK):
            stop = min(n, start + CHUNK)
            y = outputs(f, seed, start, stop)
            if keep is not None:
                keep.append(y)
            s.add(y, poisson_weights(seed, start, stop, resamples))
        done = n
        out[p] = s
        s = s + SobolSums(f.dim, False, shift, resamples, moments=moments)  # a copy
    return out


def part1() -> None:
    f = tf.borehole()
    powers = list(range(10, 19))
    j = f.names.index("rw")
    shift = np.zeros(1)
    seeds = rqmc_seeds(1, 16)
    kept = []
    main = grow(f, seeds[0], powers, shift, resamples=100, moments=True, keep=kept)
    boot = {p: main[p].result(ci="bootstrap")["S1_conf"][j, 0] for p in powers}
    asy = {p: main[p].result(ci="asymptotic")["S1_conf"][j, 0] for p in powers}
    est = np.empty((16, len(powers)))
    est[0] = [main[p].result(ci="none")["S1"][j, 0] for p in powers]
    for i, seed in enumerate(seeds[1:], start=1):
        sums = grow(f, seed, powers, shift)
        est[i] = [sums[p].result(ci="none")["S1"][j, 0] for p in powers]
    spread = 1.96 * est.std(axis=0, ddof=1)
    rq_seeds = rqmc_seeds(2, 8)
    print(f"## Borehole, S1(rw) = {f.s1[j]:.6f} (reference, error {f.error:.0e}): "
          "95% half-widths\n")
    print("| N | bootstrap (1 design) | asymptotic (1 design) | 1.96 sd over 16 scrambles "
          "| bootstrap / spread | RQMC 8 x N/8 | RQMC pooled error |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for k, p in enumerate(powers):
        reps = [grow(f, s, [p - 3], shift)[p - 3] for s in rq_seeds]
        rq = rqmc_result(reps)
        print(f"| 2^{p} | {boot[p]:.1e} | {asy[p]:.1e} | {spread[k]:.1e} | "
              f"{boot[p] / spread[k]:.0f} | {rq['S1_conf'][j, 0]:.1e} | "
              f"{abs(rq['S1'][j, 0] - f.s1[j]):.1e} |")
    y = np.concatenate(kept).reshape(-1)
    t0 = time.perf_counter()
    ref = salib_analyze.analyze({"num_vars": 8, "names": list(f.names), "bounds": [[0, 1]] * 8},
                                y, calc_second_order=False, num_resamples=100, seed=1)
    print(f"\nSALib sobol.analyze on the same 2^18 design: S1(rw) = {ref['S1'][j]:.6f} "
          f"+- {ref['S1_conf'][j]:.1e} ({time.perf_counter() - t0:.0f} s)\n")


def coverage(f, method, total, r=8, reps=200, seed=0):
    """Coverage, mean half-width and RMSE over ``reps`` replications (all S1 and ST)."""
    hits, halves, errs = [], [], []
    seeds = rqmc_seeds(seed, reps * r)
    for i in range(reps):
        if method == "rqmc":
            sums = [SobolSums(f.dim, False, np.zeros(1)) for _ in range(r)]
            for s, sd in zip(sums, seeds[i * r : (i + 1) * r], strict=True):
                s.add(outputs(f, sd, 0, total // r))
            res = rqmc_result(sums)
        else:
            ci, design = method.split("-")
            y = outputs(f, seeds[i * r], 0, total, iid=design == "iid")
            s = SobolSums(f.dim, False, np.zeros(1), 100 if ci == "bootstrap" else 0,
                          moments=ci == "asymptotic")
            s.add(y, poisson_weights(i, 0, total, s.resamples))
            res = s.result(ci=ci)
        est = np.r_[res["S1"][:, 0], res["ST"][:, 0]]
        half = np.r_[res["S1_conf"][:, 0], res["ST_conf"][:, 0]]
        err = est - np.r_[f.s1, f.st]
        hits.append(np.abs(err) <= half)
        halves.append(half)
        errs.append(err)
    keep = ~((np.r_[f.s1, f.st] == 0) & (np.abs(np.array(errs)).max(axis=0) == 0))
    hits, halves, errs = (np.array(x)[:, keep] for x in (hits, halves, errs))
    width_cv = (halves.std(axis=0) / halves.mean(axis=0)).mean()
    return hits.mean(), halves.mean(), np.sqrt((errs**2).mean()), width_cv


def part2() -> None:
    total = 2**11
    print("## Coverage of 95% intervals, 200 replications, N = 2^11 base samples in total\n")
    print("Rate over every S1 and ST of the function (indices that are exactly 0 and "
          "estimated as exactly 0 left out); half-width and RMSE averaged over them.\n")
    print("| function | method | design | coverage | mean half-width | RMSE | "
          "half-width / (1.96 RMSE) |")
    print("|---|---|---|---:|---:|---:|---:|")
    for f in (tf.ishigami(), tf.linear(), tf.sobol_g()):
        for method, label, design in [
            ("bootstrap-qmc", "bootstrap (100)", "1 scrambled Sobol'"),
            ("asymptotic-qmc", "asymptotic", "1 scrambled Sobol'"),
            ("rqmc", "RQMC t, R = 8", "8 scrambles x 2^8"),
            ("bootstrap-iid", "bootstrap (100)", "independent rows"),
            ("asymptotic-iid", "asymptotic", "independent rows"),
        ]:
            cov, half, rmse, _ = coverage(f, method, total)
            print(f"| {f.name} | {label} | {design} | {cov:.3f} | {half:.1e} | {rmse:.1e} | "
                  f"{half / (1.96 * rmse):.1f} |")
    print()


def part3() -> None:
    print("## RQMC: how many scrambles? A fixed total budget split into R scrambles\n")
    print("| function | total N | R | coverage | mean half-width | RMSE of pooled estimate | "
          "RMSE / RMSE of 1 scramble of N | half-width CV |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for total, reps in ((2**12, 200), (2**16, 100)):
        for f in (tf.ishigami(), tf.sobol_g()):
            _, _, rmse1, _ = coverage(f, "asymptotic-qmc", total, reps=reps, seed=5)
            for r in (4, 8, 16, 32):
                cov, half, rmse, cv = coverage(f, "rqmc", total, r=r, reps=reps, seed=r)
                print(f"| {f.name} | 2^{int(np.log2(total))} | {r} | {cov:.3f} | {half:.1e} | "
                      f"{rmse:.1e} | {rmse / rmse1:.2f} | {cv:.2f} |")
    print()


def main() -> None:
    t0 = time.perf_counter()
    part1()
    part2()
    part3()
    print(f"({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
