"""What a small model pays for the engine's start-up: `mc-tco run` against a SALib script
(issue 26).

The model is the Ishigami function, a user's own model file (benchmarks/ishigami/: 3
inputs, one target). Timed, each in a fresh process, alternated pair by pair:

* the CLI: ``python -m mc_tco run benchmarks/ishigami/ishigami.toml -n N -q`` (sample,
  evaluate, Sobol' indices with RQMC intervals, summaries, the results file);
* the SALib script a user writes for the same job on the same model file: SALib's
  ``sobol.sample`` (N, first and total order), the model called on the rows as an
  ``xr.Dataset`` (the book's model interface), ``sobol.analyze`` with 100 bootstrap
  resamples and 95% intervals, ``np.savez`` of the rows, outputs and indices.

and in this process (imports done, the model file loaded), alternated the same way:
``mc_tco.run(book, samples=N, out=...)`` against the SALib script's sample, evaluate and
analyze. Wall time and CPU time (user + sys) and peak RSS are the child's own
(``os.wait4``); the ratios use the medians. The machine may be shared: the load is
printed, CPU seconds move less with it than wall seconds.

    python benchmarks/startup.py                 # N = 8192, 5 pairs
    python benchmarks/startup.py --pairs 9 --samples 16384
    python benchmarks/startup.py --imports       # also where the CLI's import time goes
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "benchmarks" / "ishigami" / "ishigami.toml"
MODEL = BOOK.parent / "ishigami_model.py"
RESAMPLES, CONF = 100, 0.95

#: the SALib script (argv: model file, N, seed, output .npz)
SALIB = r"""
import importlib.util, sys
import numpy as np
import xarray as xr
from SALib.analyze import sobol as analyze
from SALib.sample import sobol as sample

spec = importlib.util.spec_from_file_location("ishigami_model", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
n, seed = int(sys.argv[2]), int(sys.argv[3])
problem = {"num_vars": 3, "names": ["x1", "x2", "x3"], "bounds": [[-np.pi, np.pi]] * 3}
x = sample.sample(problem, n, calc_second_order=False, seed=seed)
inputs = xr.Dataset({name: ("sample", x[:, j]) for j, name in enumerate(problem["names"])})
y = module.model(inputs)["y"].values
si = analyze.analyze(problem, y, calc_second_order=False, num_resamples=RESAMPLES,
                     conf_level=CONF, seed=seed)
np.savez(sys.argv[4], x=x, y=y, **{k: np.asarray(v) for k, v in si.items()})
""".replace("RESAMPLES", str(RESAMPLES)).replace("CONF", repr(CONF))


def child(cmd: list[str]) -> dict:
    """Run ``cmd`` in a fresh process; its wall time, CPU time and peak RSS (MiB)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(proc.pid, 0)  # the child's own resource usage
    wall = time.perf_counter() - start
    err = proc.stderr.read().decode() if proc.stderr else ""
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(cmd[:4])} ... failed:\n{err[-3000:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime,
            "rss": usage.ru_maxrss / 1024}


def in_process(samples: int, seed: int, pairs: int, tmp: Path) -> tuple[list, list]:
    """mc_tco.run and the SALib script's work, alternated in this process (warm)."""
    import importlib.util

    import numpy as np
    import xarray as xr
    from SALib.analyze import sobol as analyze
    from SALib.sample import sobol as sample

    import mc_tco
    from mc_tco.book import load_book
    from mc_tco.results.store import lazy_dask_check

    spec = importlib.util.spec_from_file_location("ishigami_bench", MODEL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    problem = {"num_vars": 3, "names": ["x1", "x2", "x3"], "bounds": [[-np.pi, np.pi]] * 3}

    def salib() -> None:
        x = sample.sample(problem, samples, calc_second_order=False, seed=seed)
        inputs = xr.Dataset({n: ("sample", x[:, j]) for j, n in enumerate(problem["names"])})
        y = module.model(inputs)["y"].values
        analyze.analyze(problem, y, calc_second_order=False, num_resamples=RESAMPLES,
                        conf_level=CONF, seed=seed)

    book = load_book(BOOK)

    def ours() -> None:
        mc_tco.run(book, samples=samples, seed=seed, out=tmp / "in_process.nc").close()

    ours_t: list[tuple[float, float]] = []
    salib_t: list[tuple[float, float]] = []
    with lazy_dask_check():  # as the mc-tco command runs
        ours()
        salib()  # warm both
        for _ in range(pairs):
            for f, times in ((ours, ours_t), (salib, salib_t)):
                t, c = time.perf_counter(), time.process_time()
                f()
                times.append((time.perf_counter() - t, time.process_time() - c))
    return ours_t, salib_t


def imports(cli: list[str], salib: list[str]) -> None:
    """Where the import time goes: ``-X importtime`` of the CLI's run and of the SALib
    script, self time per top-level package."""
    for label, cmd in (("mc-tco run", cli), ("SALib script", salib)):
        _imports(label, [cmd[0], "-X", "importtime", *cmd[1:]])


def _imports(label: str, cmd: list[str]) -> None:
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    own: dict[str, int] = {}
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, _, name = line.split(":", 1)[1].split("|")
        top = name.strip().split(".")[0]
        own[top] = own.get(top, 0) + int(self_us)
    total = sum(own.values())
    print(f"\n{label}: imports {total / 1e6:.2f} s (self time per top-level package)")
    for top, us in sorted(own.items(), key=lambda kv: -kv[1])[:8]:
        print(f"  {top:24s} {us / 1e6:6.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=8192, help="base sample size N")
    ap.add_argument("--pairs", type=int, default=5, help="alternated pairs of each kind")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--imports", action="store_true", help="also the import breakdown")
    args = ap.parse_args()
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
          f"python {sys.version.split()[0]}; Ishigami book, N = {args.samples:,}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        script = tmp / "salib_job.py"
        script.write_text(SALIB)
        cli = [sys.executable, "-m", "mc_tco", "run", str(BOOK), "-n", str(args.samples),
               "--seed", str(args.seed), "-o", str(tmp / "cli.nc"), "-q"]
        sal = [sys.executable, str(script), str(MODEL), str(args.samples), str(args.seed),
               str(tmp / "salib.npz")]
        child(cli)  # the first run after an edit compiles .pyc files: not timed
        child(sal)
        runs: dict[str, list[dict]] = {"mc-tco run": [], "SALib script": []}
        for _ in range(args.pairs):
            runs["mc-tco run"].append(child(cli))
            runs["SALib script"].append(child(sal))
        ours, salib = in_process(args.samples, args.seed, args.pairs, tmp)
        if args.imports:
            imports(cli, sal)
    med = {k: {f: statistics.median(r[f] for r in v) for f in ("wall", "cpu", "rss")}
           for k, v in runs.items()}
    print(f"\nfresh processes, median of {args.pairs} alternated pairs:")
    print(f"  {'':14s} {'wall s':>7s} {'cpu s':>7s} {'peak MiB':>9s}   wall s of each")
    for k, m in med.items():
        each = " ".join(f"{r['wall']:.2f}" for r in runs[k])
        print(f"  {k:14s} {m['wall']:7.2f} {m['cpu']:7.2f} {m['rss']:9.0f}   {each}")
    c, s = med["mc-tco run"], med["SALib script"]
    print(f"  CLI / SALib script: wall {c['wall'] / s['wall']:.2f}x, "
          f"cpu {c['cpu'] / s['cpu']:.2f}x, peak RSS {c['rss'] / s['rss']:.2f}x")
    o, a = (statistics.median(w for w, _ in ours), statistics.median(w for w, _ in salib))
    oc, ac = (statistics.median(c for _, c in ours), statistics.median(c for _, c in salib))
    print(f"\nin this process (imports done), median of {args.pairs} alternated pairs:")
    print(f"  mc_tco.run (with its results file) {o:.3f} s wall, {oc:.3f} s cpu; SALib "
          f"sample + model + analyze {a:.3f} s, {ac:.3f} s cpu: {o / a:.2f}x wall, "
          f"{oc / ac:.2f}x cpu")
    print(f"  start-up (CLI wall - in-process run) {c['wall'] - o:.2f} s; "
          f"SALib script's {s['wall'] - a:.2f} s")
    print(f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
