"""Time of PAWN and Borgonovo's delta: mc_tco's against SALib's own calls, same rows.

On the stored base rows of a results file (default: a fresh ``mc-tco run -n N`` of the
default book in memory), target ``saving`` of ``buy`` at the focus demand (a continuous
output, so both sides use kernel densities), 30 inputs:

1. the point estimates: ``SALib.analyze.delta.calc_delta`` and ``sobol_first`` per input
   and ``SALib.analyze.pawn.analyze`` against :func:`mc_tco.sensitivity.moment_independent.delta`,
   ``first_order`` and ``pawn`` (checked equal);
2. what a reader gets: ``SALib.analyze.delta.analyze`` (three bootstrapped deltas of
   ``--resamples`` each, and S1's bootstrap) against
   :func:`mc_tco.sensitivity.moment_dataset.moment_independent_dataset` (point estimates
   on all rows and again on each of the run's scrambles, for the t interval).

    python benchmarks/moment_independent.py                 # N = 2048, SALib 100 resamples
    python benchmarks/moment_independent.py -n 8192 --resamples 10
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from SALib.analyze import delta as salib_delta
from SALib.analyze import pawn as salib_pawn

from mc_tco.book import load_book
from mc_tco.decision.data import decision_data
from mc_tco.engine import run
from mc_tco.sensitivity import moment_independent as mi
from mc_tco.sensitivity.moment_dataset import moment_independent_dataset
from tests.paths import DEFAULT_BOOK


def timed(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=2048, help="base samples of the run")
    ap.add_argument("--resamples", type=int, default=100, help="SALib's bootstrap resamples")
    args = ap.parse_args()
    ds = run(load_book(DEFAULT_BOOK), samples=args.n, seed=1, resamples=50)
    data = decision_data(ds, among=["buy"], target="saving")
    x, y = data.x, data.option_values("buy")
    p = x.shape[1]
    problem = {"num_vars": p, "names": [f"x{i}" for i in range(p)]}
    grid = np.linspace(y.min(), y.max(), 100)
    m = mi.classes(y.size)

    ref, t_ref = timed(lambda: np.array([salib_delta.calc_delta(y, grid, x[:, i], m)
                                         for i in range(p)]))
    got, t_got = timed(lambda: mi.delta(x, y))
    assert np.allclose(ref, got, rtol=0, atol=1e-10)
    print(f"delta point, {y.size} rows x {p} inputs: SALib {t_ref:.3f} s, mc_tco "
          f"{t_got:.3f} s, ratio {t_ref / t_got:.1f}")
    ref, t_ref = timed(lambda: np.array([salib_delta.sobol_first(y, x[:, i], m)
                                         for i in range(p)]))
    got, t_got = timed(lambda: mi.first_order(x, y))
    assert np.allclose(ref, got, rtol=0, atol=1e-12)
    print(f"S1 point: SALib {t_ref:.3f} s, mc_tco {t_got:.3f} s, ratio {t_ref / t_got:.1f}")
    ref_p, t_ref = timed(lambda: salib_pawn.analyze(problem, x, y, S=10))
    got_p, t_got = timed(lambda: mi.pawn(x, y, 10))
    assert np.allclose(ref_p["median"], got_p[:, 2], rtol=0, atol=1e-12)
    print(f"PAWN: SALib {t_ref:.3f} s, mc_tco {t_got:.3f} s, ratio {t_ref / t_got:.1f}")

    reps = ds.mc_tco.run.replicates
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, t_ref = timed(lambda: salib_delta.analyze(problem, x, y, seed=1,
                                                     num_resamples=args.resamples))
    _, t_got = timed(lambda: moment_independent_dataset(
        x, y, data.inputs, sample=ds["sample"].values, replicates=reps))
    print(f"with intervals: SALib delta.analyze ({args.resamples} resamples) {t_ref:.1f} s, "
          f"mc_tco delta+PAWN+S1 and their {reps}-scramble t intervals {t_got:.2f} s, "
          f"ratio {t_ref / t_got:.0f}")


if __name__ == "__main__":
    main()
