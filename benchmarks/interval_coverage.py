"""Do the intervals of probabilities, quantiles, means, EVPI and EVPPI mean what they say?

Coverage experiments on cases with known answers, on the engine's design: ``R = 8``
independently scrambled Sobol' sequences (seeds ``rqmc_seeds(seed, 8)``, the base rows ``A``
of :class:`mc_tco.design.SaltelliDesign`), interleaved so that base sample ``g`` belongs to
scramble ``g % 8``, exactly as ``Plan.base_points`` makes them.

* ``y = x1 - x2 - c`` with ``x ~ N(0, 1)``: ``P(y > 0) = Phi(-c / sqrt 2)``, quantiles
  ``-c + sqrt(2) Phi^-1(q)``, mean ``-c``; ``c = 0.5`` (P = 0.36) and ``c = 3.3``
  (P = 0.0098, a rare event: some scrambles see no event and fall back).
* the break-even "never" share: ``b = 1e12 / (x1 - x2 + c)``, ``inf`` where the margin is
  not positive, so ``P(never) = Phi(-c / sqrt 2)`` (``c = 1``: 0.24; ``c = 3``: 0.017),
  through :func:`mc_tco.uncertainty.statistics.quantiles_with_never` as the engine calls it.
* the family check's paired change of a share on common random numbers:
  ``P(x1 - 0.6 x2 > 0.5) - P(x1 - x2 > 0.5)`` in closed form (Newcombe's interval before).
* Ishigami (``x ~ U(-pi, pi)^3``): ``P(y > 3.5)``, ``P(y > 10)`` and the median, against a
  reference from 2^22 x 8 scrambled Sobol' points.
* a linear-Gaussian net benefit ``INB = a + b . x`` (options "don't act" = 0 and "act"),
  ``a = -0.3``, ``b = (1, 0.7, 0.5)``: EVPI ``= E max(N(a, |b|^2), 0) - max(a, 0)`` with
  ``E max(N(a, s^2), 0) = a Phi(a/s) + s phi(a/s)``, EVPPI(x_j) likewise with ``s = b_j``
  (x2: 0.154, x3: 0.084, the weak inputs whose regression bias issue 14 measured).

For each number: coverage of the 95% interval (share of seeds whose interval holds the
truth), and the mean half-width against the real spread (1.96 x the standard deviation of
the estimate over the seeds): BEFORE (Wilson on the pooled count, the i.i.d. standard error,
the regression standard error; quantiles had none) and AFTER (:mod:`mc_tco.uncertainty.scrambles`,
:func:`mc_tco.decision.voi.evpi_replicates` / ``evppi_replicates``). A t interval over R = 8
has an expected half-width of 2.365 x 0.965 = 1.16 x the oracle 1.96 sd, so AFTER's ideal
ratio is about 1.16, not 1.

    python benchmarks/interval_coverage.py        # about 2 minutes on one core
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import time

import numpy as np
from scipy import stats

from mc_tco.decision.voi import evpi, evpi_replicates, evppi, evppi_replicates
from mc_tco.design import SaltelliDesign
from mc_tco.sensitivity.sobol import rqmc_seeds
from mc_tco.uncertainty.scrambles import (
    mean_interval,
    proportion,
    quantile_interval,
    replicate_of,
    wilson_interval,
    z_value,
)

R = 8
Z = z_value(0.95)


def points(dim: int, seed: int, n: int) -> np.ndarray:
    """``n`` base rows (unit cube, ``dim`` columns) of R interleaved scrambles."""
    parts = [SaltelliDesign(dim, s).base(0, n // R)[:, :dim] for s in rqmc_seeds(seed, R)]
    return np.stack(parts, axis=1).reshape(n, dim)


def ishigami(u):
    x = np.pi * (2 * u - 1)
    s1 = np.sin(x[:, 0])
    return s1 + 7 * np.sin(x[:, 1]) ** 2 + 0.1 * x[:, 2] ** 4 * s1


def gauss_gain(m, s):
    return m * stats.norm.cdf(m / s) + s * stats.norm.pdf(m / s)


class Tally:
    """Estimates and intervals of one number over the seeds."""

    def __init__(self):
        self.est, self.before, self.after, self.fell = [], [], [], []

    def add(self, est, before, after, fell=False):
        self.est.append(est)
        self.before.append(before)
        self.after.append(after)
        self.fell.append(fell)

    def row(self, case, name, n, truth):
        est = np.array(self.est)
        spread = Z * est.std(ddof=1)
        cells = [case, name, f"2^{int(np.log2(n))}", f"{truth:.4g}"]
        for ci in (self.before, self.after):
            if ci[0] is None:
                cells += ["—", "—"]
                continue
            ci = np.array(ci)
            cover = np.mean((ci[:, 0] <= truth) & (truth <= ci[:, 1]))
            half = np.mean((ci[:, 1] - ci[:, 0]) / 2)
            cells += [f"{cover:.0%}", f"{half / spread:.2f}"]
        cells += [f"{np.mean(self.fell):.0%}", f"{est.mean() - truth:+.1e}"]
        return "| " + " | ".join(cells) + " |"


def normal_difference(n, seeds, c_values=(0.5, 3.3), qs=(0.05, 0.5, 0.95)):
    rows = []
    rep = replicate_of(np.arange(n), R)
    for c in c_values:
        tp, tm = Tally(), Tally()
        tq = {q: Tally() for q in qs}
        for seed in range(seeds):
            x = stats.norm.ppf(points(2, 1000 + seed, n))
            y = x[:, 0] - x[:, 1] - c
            k = int((y > 0).sum())
            p = proportion(y > 0, rep, R)
            tp.add(k / n, wilson_interval(k, n), (p.lower, p.upper), bool(p.fallback))
            sd = y.std(ddof=1) / np.sqrt(n)
            m = mean_interval(y, rep, R)
            tm.add(float(m.estimate), (y.mean() - Z * sd, y.mean() + Z * sd),
                   (m.lower, m.upper))
            qi = quantile_interval(y, qs, rep, R)
            for i, q in enumerate(qs):
                tq[q].add(qi.estimate[i], None, (qi.lower[i], qi.upper[i]), qi.fallback[i])
        case = f"x1 - x2 - {c}"
        rows.append(tp.row(case, "P(y > 0)", n, stats.norm.sf(c / np.sqrt(2))))
        if c == c_values[0]:
            rows.append(tm.row(case, "mean", n, -c))
            for q in qs:
                rows.append(tq[q].row(case, f"quantile {q}", n,
                                      -c + np.sqrt(2) * stats.norm.ppf(q)))
    return rows


def never_share(n, seeds, c_values=(1.0, 3.0), scale=1e12):
    """The break-even "never" share through
    :func:`mc_tco.uncertainty.statistics.quantiles_with_never` (the
    engine's code path for ``breakeven_demand_p_never``): break-even ``b = scale / m`` of a
    margin ``m = x1 - x2 + c``, ``inf`` where ``m <= 0``; P(never) = Phi(-c / sqrt 2)."""
    import xarray as xr

    from mc_tco.uncertainty.statistics import quantiles_with_never

    rows = []
    for c in c_values:
        t = Tally()
        for seed in range(seeds):
            x = stats.norm.ppf(points(2, 4000 + seed, n))
            m = x[:, 0] - x[:, 1] + c
            with np.errstate(divide="ignore"):
                b = np.where(m > 0, scale / np.where(m > 0, m, 1), np.inf)
            da = xr.DataArray(b, dims="sample", coords={"sample": np.arange(n)})
            res = quantiles_with_never(da, replicates=R)
            k = int(np.isinf(b).sum())
            t.add(float(res.p_never), wilson_interval(k, n), tuple(res.p_never_ci.values),
                  bool(res.p_never_fallback))
        rows.append(t.row(f"x1 - x2 + {c} <= 0", "P(never)", n, stats.norm.cdf(-c / np.sqrt(2))))
    return rows


def paired_change_case(n, seeds, c=0.5, w=0.6):
    """The family check's change of a share on common random numbers
    (:func:`mc_tco.engine.family.paired_change`): ``P(x1 - w x2 > c) - P(x1 - x2 > c)`` =
    ``Phi(-c / sqrt(1 + w^2)) - Phi(-c / sqrt 2)``; BEFORE: Newcombe's paired interval."""
    from mc_tco.engine.family import paired_change, paired_difference_interval

    rep = replicate_of(np.arange(n), R)
    t = Tally()
    for seed in range(seeds):
        x = stats.norm.ppf(points(2, 5000 + seed, n))
        ref, var = x[:, 0] - x[:, 1] > c, x[:, 0] - w * x[:, 1] > c
        a, b = int((var & ref).sum()), int((var & ~ref).sum())
        cc = int((~var & ref).sum())
        res = paired_change(var, ref, rep, R)
        t.add(float(res.estimate), paired_difference_interval(b, cc, n, 0.95, a=a,
                                                              d=n - a - b - cc),
              (res.lower, res.upper), bool(res.fallback))
    truth = stats.norm.sf(c / np.sqrt(1 + w**2)) - stats.norm.sf(c / np.sqrt(2))
    return [t.row(f"x1 - {w} x2 vs x1 - x2 (> {c})", "paired change", n, truth)]


def ishigami_reference():
    y = ishigami(points(3, 7, 2**22))
    return {"P(y > 3.5)": np.mean(y > 3.5), "P(y > 10)": np.mean(y > 10),
            "median": np.quantile(y, 0.5)}


def ishigami_case(n, seeds, ref):
    rep = replicate_of(np.arange(n), R)
    tallies = {k: Tally() for k in ref}
    for seed in range(seeds):
        y = ishigami(points(3, 2000 + seed, n))
        for t, name in ((3.5, "P(y > 3.5)"), (10, "P(y > 10)")):
            k = int((y > t).sum())
            p = proportion(y > t, rep, R)
            tallies[name].add(k / n, wilson_interval(k, n), (p.lower, p.upper),
                              bool(p.fallback))
        qi = quantile_interval(y, 0.5, rep, R)
        tallies["median"].add(qi.estimate[0], None, (qi.lower[0], qi.upper[0]), qi.fallback[0])
    return [tallies[k].row("Ishigami", k, n, ref[k]) for k in ref]


A, B = -0.3, np.array([1.0, 0.7, 0.5])


def linear_gaussian(n, seeds, draws=100):
    rep = replicate_of(np.arange(n), R)
    t_evpi = Tally()
    t_evppi = {j: Tally() for j in (1, 2)}
    bias_split = {j: [] for j in (1, 2)}
    for seed in range(seeds):
        x = stats.norm.ppf(points(3, 3000 + seed, n))
        nb = np.column_stack([np.zeros(n), A + x @ B])
        v, se = evpi(nb)
        r = evpi_replicates(nb, rep, R)
        t_evpi.add(v, (v - Z * se, v + Z * se), (r.lower, r.upper))
        for j in t_evppi:
            v, se, _ = evppi(x[:, j], nb, draws=draws, rng=seed)
            r = evppi_replicates(x[:, j], nb, rep, R, value=v)
            t_evppi[j].add(v, (v - Z * se, v + Z * se), (r.lower, r.upper))
            bias_split[j].append((r.per_replicate.mean() - v) / (R - 1))
    truth = gauss_gain(A, np.linalg.norm(B)) - max(A, 0)
    rows = [t_evpi.row("linear-Gaussian", "EVPI", n, truth)]
    bias = []
    for j, t in t_evppi.items():
        exact = gauss_gain(A, B[j]) - max(A, 0)
        rows.append(t.row("linear-Gaussian", f"EVPPI(x{j + 1})", n, exact))
        est = np.array(t.est)
        bias.append((f"x{j + 1}", n, exact, est.mean() - exact,
                     est.std(ddof=1) / np.sqrt(len(est)), np.mean(bias_split[j])))
    return rows, bias


def main() -> None:
    t0 = time.perf_counter()
    header = ("| case | number | N | truth | before: coverage | before: half-width / "
              "spread | after: coverage | after: half-width / spread | fell back | "
              "bias of estimate |\n|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
    rows, biases = [], []
    for n in (2**10, 2**13):
        rows += normal_difference(n, 200)
    for n in (2**10, 2**13):
        rows += never_share(n, 200)
    for n in (2**10, 2**13):
        rows += paired_change_case(n, 200)
    ref = ishigami_reference()
    for n in (2**10, 2**13):
        rows += ishigami_case(n, 200, ref)
    for n in (2**10, 2**12):
        r, b = linear_gaussian(n, 200)
        rows += r
        biases += b
    print("## Coverage of 95% intervals (200 seeds; all cases), R = 8 scrambles\n")
    print(header)
    print("\n".join(rows))
    print("\n## Upward bias of the regression EVPPI (pooled estimate, 200 seeds)\n")
    print("| input | N | true EVPPI | mean bias | its s.e. | split estimate "
          "(mean of reps - pooled) / (R - 1) |\n|---|---|---:|---:|---:|---:|")
    for name, n, exact, bias, se, split in biases:
        print(f"| {name} | 2^{int(np.log2(n))} | {exact:.4f} | {bias:+.4f} | {se:.4f} | "
              f"{split:+.4f} |")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
