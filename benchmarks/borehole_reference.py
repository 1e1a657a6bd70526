"""Reference Sobol' indices of the Borehole function (no closed form exists).

16 independent scrambles (seeds ``rqmc_seeds(2024, 16)``) of a Saltelli design of
``2^21`` base samples each, ``saltelli`` estimator, pooled, with the randomized-QMC 95%
half-width of every index. The printed arrays are what ``mc_tco.models.testfunctions.
BOREHOLE_REFERENCE`` holds. About 3 minutes on 2 cores.

    python benchmarks/borehole_reference.py [log2_base_samples] [replicates]
"""

import sys
import time

import numpy as np

from mc_tco.design import SaltelliDesign
from mc_tco.models.testfunctions import borehole
from mc_tco.sensitivity.sobol import SobolSums, rqmc_result, rqmc_seeds

CHUNK = 2**15


def replicate_sums(f, seed, n, shift, estimator="saltelli"):
    design = SaltelliDesign(f.dim, seed)
    sums = SobolSums(f.dim, False, shift, estimator=estimator)
    for start in range(0, n, CHUNK):
        stop = min(n, start + CHUNK)
        sums.add(f(design.rows(start, stop))[..., None])
    return sums


def main(log2_n: int = 21, replicates: int = 16) -> None:
    f = borehole()
    n = 2**log2_n
    t0 = time.perf_counter()
    shift = f(SaltelliDesign(f.dim, 0).rows(0, 1))[0, :1]
    sums = [replicate_sums(f, s, n, shift) for s in rqmc_seeds(2024, replicates)]
    res = rqmc_result(sums)
    np.set_printoptions(precision=10, linewidth=100)
    print(f"Borehole, {replicates} scrambles x 2^{log2_n} base samples, "
          f"{time.perf_counter() - t0:.0f} s")
    print(f"{'input':>6} {'S1':>12} {'+-':>9} {'ST':>12} {'+-':>9}")
    for j, name in enumerate(f.names):
        print(f"{name:>6} {res['S1'][j, 0]:12.8f} {res['S1_conf'][j, 0]:9.2e} "
              f"{res['ST'][j, 0]:12.8f} {res['ST_conf'][j, 0]:9.2e}")
    print("s1 =", repr(res["S1"][:, 0]))
    print("st =", repr(res["ST"][:, 0]))
    print(f"largest half-width: {max(res['S1_conf'].max(), res['ST_conf'].max()):.2e}")


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
