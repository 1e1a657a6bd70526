"""The Shapley pass with the outer row shared by every set of its permutation, against
Song et al.'s fresh inner draws, on the default book: rows, seconds and half-widths.

Both estimators run in this process on the same plan (the default run's permutations,
its report points, the engine's own model calls on 2 threads), alternated ``--repeat``
times; the script prints the model rows of each, the best wall seconds, and the ratio of
their half-widths (mean over every cell, and the median of the per-cell ratios), with
the largest gap between their effects in units of the combined half-width (the two are
independent estimates of the same effects: a gap above about 3 would say they disagree).

    python benchmarks/shapley_shared.py [--permutations 4096] [--repeat 2]
"""

from __future__ import annotations

import argparse
import functools
import time
from pathlib import Path

import numpy as np

from mc_tco.book import load_book
from mc_tco.engine import shapley as engine_shapley
from mc_tco.engine.evaluate import _targets_array, evaluate_chunk
from mc_tco.engine.plan import plan_run
from mc_tco.sensitivity.shapley import effects

BOOK = Path(__file__).resolve().parents[1] / "distributions" / "deepseek-v4.1-flash.toml"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--permutations", type=int, default=4096)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    plan = plan_run(load_book(BOOK), samples=8192, shapley_permutations=args.permutations)
    first, _, _ = evaluate_chunk(plan, *plan.first)
    _, cells = _targets_array(plan, first)
    real = engine_shapley.shapley_effects
    results, seconds = {}, {True: [], False: []}
    for _ in range(args.repeat):
        for shared in (False, True):  # (the estimator's switch, through the engine's pass)
            engine_shapley.shapley_effects = functools.partial(real, shared=shared)
            start = time.perf_counter()
            results[shared] = engine_shapley.shapley_dataset(plan, cells, workers=2)
            seconds[shared].append(time.perf_counter() - start)
    engine_shapley.shapley_effects = real
    d = len(plan.factors)
    rows = {s: effects.evaluation_count(d, n_perm=args.permutations, n_var=4 * args.permutations,
                                        shared=s) for s in (False, True)}
    fresh, shared = results[False], results[True]
    hw_f, hw_s = fresh.shapley_conf.values, shared.shapley_conf.values
    gap = np.abs(fresh.shapley - shared.shapley) / np.hypot(fresh.shapley_conf,
                                                            shared.shapley_conf)
    print(f"default book, {d} inputs, {args.permutations} permutations, "
          f"{fresh.shapley.count().item():,} (target, input, cell) effects")
    for s, name in ((False, "fresh inner draws (Song et al.)"), (True, "shared outer row")):
        print(f"  {name:32s} {rows[s]:>9,} rows  {min(seconds[s]):6.2f} s")
    print(f"  rows ratio shared / fresh: {rows[True] / rows[False]:.3f}; "
          f"seconds ratio: {min(seconds[True]) / min(seconds[False]):.3f}")
    print(f"  half-widths shared / fresh: mean {np.nanmean(hw_s) / np.nanmean(hw_f):.3f}, "
          f"median per cell {np.nanmedian(hw_s / hw_f):.3f}")
    print(f"  largest gap between the two, in combined half-widths: {float(gap.max()):.2f} "
          f"(mean {float(gap.mean()):.2f})")


if __name__ == "__main__":
    main()
