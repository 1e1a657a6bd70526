"""Do the Sobol' intervals cover at 95% whatever the number of inputs?

Coverage of the randomized-QMC intervals of S1 and ST (R = 8 interleaved scrambles of the
Saltelli design, exactly as ``mc-tco run`` makes them: :func:`mc_tco.sensitivity.sobol.rqmc_result`
on the scrambles of ``rqmc_seeds(seed, 8)``) against the number of inputs D, on functions
whose indices are known in closed form:

* ``linear 1/j``: ``y = sum_j x_j / j``, ``x ~ U(0, 1)``: additive, many small effects,
  ``S1 = ST = b_j^2 / sum b^2``.
* ``G 0,1,4.5,9,99..``: Sobol' G with Saltelli et al.'s (2010) coefficients, then 99 for
  every further input (a few important inputs and many of about 1e-4).
* ``G a=2``, ``G a=1``, ``G a=0.5``: Sobol' G with equal coefficients: every input equal
  and interacting with every other; the smaller ``a``, the heavier the output's tail (its
  moments are products over the inputs, so its kurtosis grows geometrically with D).
* ``threshold``: the indicator ``1{z > 0.5}``, ``z = sum_j b_j x_j / |b|``,
  ``b_j = 1/j``, ``x ~ N(0, 1)`` (an indicator like mc_tco's ``saving > 0``):
  ``ST_j = (p - Phi2(-c, -c; 1 - b_j^2)) / (p (1 - p))``,
  ``S1_j = (Phi2(-c, -c; b_j^2) - p^2) / (p (1 - p))``, ``p = Phi(-c)``, with ``Phi2``
  the standard bivariate normal cdf of correlation rho (scipy).

For each function, D and total N (2^11, 2^13; N / 8 per scramble): the share of
(seed, input) pairs whose 95% interval holds the analytic index, and the median over the
inputs of the mean half-width over the real spread (1.96 x the standard deviation of the
pooled estimate over the seeds). A t interval over R = 8 has an expected half-width of
about 1.16 x the oracle. ``ST t``: the plain t interval; ``ST rule``: what is stored, the
larger of the t interval and the t interval of ``log ST_r`` scaled to the pooled estimate
(:func:`mc_tco.sensitivity.sobol.log_scale_halfwidth`). Also R = 16 and 32 at D = 20,
which do not help.

    python benchmarks/sobol_coverage_inputs.py            # 100 seeds, about 30 minutes
    python benchmarks/sobol_coverage_inputs.py --seeds 40 # quicker, noisier
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import time

import numpy as np
from scipy import stats

from mc_tco.design import SaltelliDesign
from mc_tco.models import testfunctions as tf
from mc_tco.sensitivity.sobol import SobolSums, rqmc_result, rqmc_seeds

DIMS = (3, 5, 8, 12, 16, 20)
SIZES = (2**11, 2**13)
C = 0.5


def _bvn(h: float, rho: np.ndarray) -> np.ndarray:
    return np.array([stats.multivariate_normal([0, 0], [[1, r], [r, 1]]).cdf([h, h])
                     for r in rho])


def threshold(b, c: float = C) -> tf.TestFunction:
    """The indicator ``1{b . x / |b| > c}`` of normal inputs with its closed-form indices."""
    b = np.asarray(b, dtype=float) / np.linalg.norm(b)
    p = stats.norm.sf(c)
    v = p * (1 - p)

    def evaluate(u):
        z = stats.norm.ppf(np.clip(np.asarray(u, dtype=float), 1e-16, 1 - 1e-16)) @ b
        return (z > c).astype(float)

    return tf.TestFunction(
        "threshold", tuple(f"x{i + 1}" for i in range(len(b))), evaluate,
        (_bvn(-c, b**2) - p**2) / v, (p - _bvn(-c, 1 - b**2)) / v, True, 0.0,
        "closed form (bivariate normal)")


def functions(d: int) -> dict[str, tf.TestFunction]:
    """The test functions at ``d`` inputs."""
    j = np.arange(1, d + 1)
    saltelli = np.r_[np.asarray(tf.SOBOL_G_A), np.full(max(0, d - 8), 99.0)][:d]
    return {
        "linear 1/j": tf.linear(1.0 / j),
        "G 0,1,4.5,9,99..": tf.sobol_g(saltelli),
        "G a=2": tf.sobol_g(np.full(d, 2.0)),
        "G a=1": tf.sobol_g(np.full(d, 1.0)),
        "G a=0.5": tf.sobol_g(np.full(d, 0.5)),
        "threshold": threshold(1.0 / j),
    }


def estimate(f: tf.TestFunction, n: int, replicates: int, seed: int) -> dict:
    """:func:`rqmc_result` of ``f`` on ``replicates`` scrambles of ``n / replicates`` each."""
    ys = [f(SaltelliDesign(f.dim, s).rows(0, n // replicates))[..., None]
          for s in rqmc_seeds(seed, replicates)]
    shift = ys[0][0, 0].copy()
    sums = []
    for y in ys:
        s = SobolSums(f.dim, False, shift, 0)
        s.add(y, np.zeros((0, y.shape[0])))
        sums.append(s)
    return rqmc_result(sums)


def coverage(f, n, replicates, seeds):
    """Coverage and half-width / spread of S1, plain-t ST and the stored ST."""
    tq = stats.t.ppf(0.975, replicates - 1)
    s1, s1h, st, st_t, st_h = [], [], [], [], []
    for k in range(seeds):
        res = estimate(f, n, replicates, 10_000 + k)
        s1.append(res["S1"][:, 0])
        s1h.append(res["S1_conf"][:, 0])
        st.append(res["ST"][:, 0])
        st_h.append(res["ST_conf"][:, 0])
        st_t.append(tq * res["ST_rep"][:, :, 0].std(axis=0, ddof=1) / np.sqrt(replicates))
    s1, s1h, st, st_t, st_h = map(np.array, (s1, s1h, st, st_t, st_h))

    def cell(est, half, truth):
        spread = 1.96 * est.std(axis=0, ddof=1)
        ok = spread > 0
        cover = np.mean(np.abs(est - truth) <= half)
        ratio = np.median(half.mean(axis=0)[ok] / spread[ok]) if ok.any() else np.nan
        return f"{cover:.1%}", f"{ratio:.2f}"

    return (*cell(s1, s1h, f.s1), *cell(st, st_t, f.st), *cell(st, st_h, f.st))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    seeds = parser.parse_args().seeds
    t0 = time.perf_counter()
    print(f"## Coverage of 95% Sobol' intervals against the number of inputs "
          f"({seeds} seeds, R = 8)\n")
    print("| function | D | N | S1 coverage | S1 half-width / spread | ST t coverage | "
          "ST t half-width / spread | ST rule coverage | ST rule half-width / spread |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    names = list(functions(3))
    for name in names:
        for d in DIMS:
            f = functions(d)[name]
            for n in SIZES:
                cells = coverage(f, n, 8, seeds)
                print(f"| {name} | {d} | 2^{int(np.log2(n))} | " + " | ".join(cells) + " |",
                      flush=True)
    print(f"\n## More scrambles at D = 20 ({seeds} seeds)\n")
    print("| function | R | N | S1 coverage | S1 half-width / spread | ST t coverage | "
          "ST t half-width / spread | ST rule coverage | ST rule half-width / spread |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|")
    for name in ("G a=1", "G a=0.5"):
        f = functions(20)[name]
        for r in (8, 16, 32):
            for n in SIZES:
                cells = coverage(f, n, r, seeds)
                print(f"| {name} | {r} | 2^{int(np.log2(n))} | " + " | ".join(cells) + " |",
                      flush=True)
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
