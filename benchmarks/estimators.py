"""Error of each Sobol' estimator against the analytic indices, as N grows.

For every test function (Ishigami, Sobol' G with a = [0, 1, 4.5, 9, 99, 99, 99, 99], the
linear model, and Borehole against its reference), every design (the scrambled Sobol'
design mc_tco runs, and independent uniform rows for comparison) and N = 2^8 .. 2^16 base
samples, 30 independent scrambles (seeds ``rqmc_seeds(0, 30)``) or independent samples
give the root-mean-square error of each index; a cell of the tables is that RMSE averaged
over the function's inputs (all inputs, then only those with S1 below 0.01). The
nested designs (the first 2^m points of one scrambled sequence) are used for every m, so
the rows of one column share their samples.

    python benchmarks/estimators.py            # about 1 minute on 2 cores
"""

import time

import numpy as np

from mc_tco.design import SaltelliDesign
from mc_tco.models import testfunctions as tf
from mc_tco.sensitivity.sobol import ESTIMATORS, SobolSums, rqmc_seeds

POWERS = range(8, 17)
SEEDS = 30
FUNCTIONS = [tf.ishigami(), tf.sobol_g(), tf.linear(), tf.borehole()]
# columns: (index, estimator); the first-order part of "sobol2007" is "saltelli"'s
COLUMNS = [("S1", "saltelli"), ("S1", "janon"), ("S1", "martinez"),
           ("ST", "saltelli"), ("ST", "sobol2007"), ("ST", "janon"), ("ST", "martinez")]
LABELS = {("S1", "saltelli"): "S1 saltelli", ("S1", "janon"): "S1 janon",
          ("S1", "martinez"): "S1 martinez", ("ST", "saltelli"): "ST jansen",
          ("ST", "sobol2007"): "ST sobol2007", ("ST", "janon"): "ST janon",
          ("ST", "martinez"): "ST martinez"}


def design_rows(f, design, seed, n):
    d = SaltelliDesign(f.dim, seed)
    if design == "qmc":
        return d.rows(0, n)
    u = np.random.default_rng(seed).random((n, 2 * f.dim))
    return d.mix(u[:, : f.dim], u[:, f.dim :])


def errors(f, design):
    """Squared errors, shape (seeds, powers, estimators, 2 (S1, ST), D)."""
    out = np.empty((SEEDS, len(POWERS), len(ESTIMATORS), 2, f.dim))
    nmax = 2 ** max(POWERS)
    for i, seed in enumerate(rqmc_seeds(0, SEEDS)):
        y = f(design_rows(f, design, seed, nmax))[..., None]
        sums = [SobolSums(f.dim, False, y[0, 0], estimator=e) for e in ESTIMATORS]
        done = 0
        for p, power in enumerate(POWERS):
            n = 2**power
            for s in sums:
                s.add(y[done:n])
            done = n
            for e, s in enumerate(sums):
                res = s.result(ci="none")
                out[i, p, e, 0] = (res["S1"][:, 0] - f.s1) ** 2
                out[i, p, e, 1] = (res["ST"][:, 0] - f.st) ** 2
    return out


def table(f, sq, subset, title):
    rmse = np.sqrt(sq.mean(axis=0))[..., subset].mean(axis=-1)  # (powers, est, 2)
    lines = [f"{title}", "",
             "| N | " + " | ".join(LABELS[c] for c in COLUMNS) + " |",
             "|---:|" + "---:|" * len(COLUMNS)]
    for p, power in enumerate(POWERS):
        cells = []
        row = [rmse[p, ESTIMATORS.index(e), 0 if kind == "S1" else 1] for kind, e in COLUMNS]
        best = {kind: min(v for (k, _), v in zip(COLUMNS, row, strict=True) if k == kind)
                for kind in ("S1", "ST")}
        for (kind, _), v in zip(COLUMNS, row, strict=True):
            cells.append(f"**{v:.1e}**" if v == best[kind] else f"{v:.1e}")
        lines.append(f"| 2^{power} | " + " | ".join(cells) + " |")
    return "\n".join(lines), rmse


def main() -> None:
    t0 = time.perf_counter()
    summary = {design: [] for design in ("qmc", "iid")}
    for design in ("qmc", "iid"):
        name = "scrambled Sobol' design" if design == "qmc" else "independent uniform rows"
        print(f"## {name}\n")
        for f in FUNCTIONS:
            sq = errors(f, design)
            small = f.s1 < 0.01
            ref = "analytic" if f.exact else f"reference, error {f.error:.0e}"
            text, rmse = table(f, sq, np.ones(f.dim, bool),
                               f"### {f.name} ({ref}): RMSE over {SEEDS} seeds, mean over "
                               f"the {f.dim} inputs (bold: smallest per index)")
            print(text, "\n")
            summary[design].append(rmse)
            if small.any():
                names = ", ".join(n for n, s in zip(f.names, small, strict=True) if s)
                text, _ = table(f, sq, small, f"{f.name}, inputs with S1 < 0.01 only ({names})")
                print(text, "\n")
    print("## Summary: geometric mean over functions and N of RMSE / RMSE of saltelli "
          "(S1: Saltelli 2010, ST: Jansen)\n")
    print("| design | " + " | ".join(LABELS[c] for c in COLUMNS) + " |")
    print("|---|" + "---:|" * len(COLUMNS))
    for design, rmses in summary.items():
        cells = []
        for kind, e in COLUMNS:
            k = 0 if kind == "S1" else 1
            logs = [np.log(r[:, ESTIMATORS.index(e), k] / r[:, 0, k]) for r in rmses]
            cells.append(f"{np.exp(np.mean(np.concatenate(logs))):.2f}")
        print(f"| {design} | " + " | ".join(cells) + " |")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
