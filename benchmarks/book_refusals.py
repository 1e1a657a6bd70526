"""How long the books that used to break the parser or the machine take to be refused.

Each is timed in this process against loading the default book (the reference), and the
ratio printed: a 3,000-input book, 900 unknown inputs (checked against the TCO model), a
50 MB ``source`` string, arrays nested 1,000 deep, inline tables nested 5,000 deep. Before
issue 21 the 3,000-input book took 79 s and 484 MB to be refused, and the nesting gave a
RecursionError traceback.

    python benchmarks/book_refusals.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from mc_tco.book import loads_book
from mc_tco.errors import BookError
from mc_tco.models import check_book
from mc_tco.models.tco import SPEC

BOOK = Path(__file__).resolve().parents[1] / "distributions" / "deepseek-v4.1-flash.toml"


def _extra(text: str, n: int) -> str:
    return text + "".join(f'\n[inputs.extra_{i}]\ndist = "uniform"\nlow = 0\nhigh = 1\n'
                          for i in range(n))


def _median(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def _refused(text: str, check: bool = False):
    def go():
        try:
            book = loads_book(text, "b.toml")
            if check:
                check_book(book, SPEC)
        except BookError:
            return
        raise AssertionError("not refused")
    return go


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    text = BOOK.read_text()
    reference = _median(lambda: loads_book(text, "b.toml"), args.repeats)
    cases = {
        "3,000 inputs": _refused(_extra(text, 3000)),
        "900 unknown inputs": _refused(_extra(text, 900), check=True),
        "50 MB source": _refused(text.replace('source = "', 'source = "' + "x" * 50_000_000,
                                              1)),
        "arrays 1,000 deep": _refused(text + "\nx = " + "[" * 1000 + "]" * 1000 + "\n"),
        "inline tables 5,000 deep": _refused(text + "\nx = " + "{a = " * 5000 + "1"
                                             + "}" * 5000 + "\n"),
    }
    print(f"loading the default book (reference): {reference * 1e3:.1f} ms")
    for name, fn in cases.items():
        t = _median(fn, args.repeats)
        print(f"{name:>26}: refused in {t * 1e3:8.1f} ms = {t / reference:6.1f}x the reference")


if __name__ == "__main__":
    main()
