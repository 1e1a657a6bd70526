"""Cost of the TCO model's guards (check_samples, check_outputs) against the bare model.

Evaluates the model on the design rows of 256 base samples of the default book (one
chunk), alternating guarded and unguarded calls in the same process, and prints the
median times and their ratio.

    python benchmarks/model_guards.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from mc_tco.book import load_book
from mc_tco.engine import plan_run
from mc_tco.engine.evaluate import _input_dataset, design_values
from mc_tco.models import tco

BOOK = Path(__file__).resolve().parents[1] / "distributions" / "deepseek-v4.1-flash.toml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    plan = plan_run(load_book(BOOK), samples=256, resamples=0)
    rows = design_values(plan, 0, 256)
    inputs = _input_dataset(plan, rows.reshape(-1, rows.shape[-1]))
    guards = (tco.check_samples, tco.check_outputs)

    def timed(guarded: bool) -> float:
        if not guarded:
            tco.check_samples = tco.check_outputs = lambda *a, **k: None
        try:
            start = time.perf_counter()
            tco.model(inputs)
            return time.perf_counter() - start
        finally:
            tco.check_samples, tco.check_outputs = guards

    timed(True), timed(False)  # warm up
    with_guards, without = [], []
    for _ in range(args.repeats):
        with_guards.append(timed(True))
        without.append(timed(False))
    a, b = statistics.median(with_guards), statistics.median(without)
    print(f"{inputs.sizes['sample']} model rows x {inputs.sizes['demand']} demands")
    print(f"model with guards    {1e3 * a:8.1f} ms (median of {args.repeats})")
    print(f"model without guards {1e3 * b:8.1f} ms")
    print(f"ratio                {a / b:8.3f}")


if __name__ == "__main__":
    main()
