"""Speed of the base rows' every output at every demand: :func:`mc_tco.models.kernels.grid.grid`
(the demands in the SIMD lanes, :func:`mc_tco.models.kernels.cells.cell_row`) against the
scalar month loop one demand at a time (:func:`mc_tco.models.kernels.cell.cell`, the path
``grid.grid`` took before issue 26's last session), in the same process, on the default
book's draws at its 46 demands; and that both give the same numbers to the last bit.

    python benchmarks/cells_speed.py [--rows 4096] [--repeats 3]

Measured on the AMD EPYC AVX-512 machine of 2026-12-06 (2 cores): 4,096 rows at 46 demands,
the scalar loop 0.86 s, the lanes 0.33 s (2.6x; without the irr 0.61 against 0.20 s).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from bench_timing import best
from numba import njit

from mc_tco.book import load_book
from mc_tco.engine.plan import plan_run
from mc_tco.models import tco
from mc_tco.models.kernels import cell, grid, rows

BOOK = Path(__file__).resolve().parent.parent / "distributions" / "deepseek-v4.1-flash.toml"


@njit(nogil=True)
def scalar(V, S, dems, paths, want_irr, out):
    """``grid.grid`` as it was: ``cell.cell`` at every row and demand."""
    top = 2.0
    for i in range(S.shape[0]):
        top = max(top, S[i, rows.SFULL])
    W = np.zeros((cell.NW, V.shape[2]))
    Z = np.zeros((cell.NZ, 6))
    buf = np.zeros((2, int(np.ceil(top)) + 16))
    none = np.zeros((1, 6))
    no_cash = dems.shape[0] < 0
    for i in range(V.shape[0]):
        for j in range(dems.shape[0]):
            cell.cell(V[i], S[i], dems[j], W, Z, buf, out[i, j], paths, want_irr, none, none,
                      no_cash)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=4096)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    book = load_book(BOOK)
    dems = np.asarray(plan_run(book, samples=64).grid["demand"].values, dtype=float)
    rng = np.random.default_rng(26)
    n = args.rows
    x = {name: (np.full(n, float(inp.value)) if inp.is_constant
                else inp.ppf(rng.uniform(0.001, 0.999, n)))
         for name, inp in book.inputs.items() if not inp.is_grid}
    V, S = rows.row_factors({k: x[k] for k in tco.INPUTS})
    a = np.empty((n, dems.size, cell.NOUT))
    b = np.empty_like(a)
    print(f"{n} rows of the default book at its {dems.size} demands, best of {args.repeats}")
    print(f"{'outputs':<22} {'scalar s':>9} {'lanes s':>9} {'ratio':>6}  same bits")
    for label, paths, irr in (("every output", True, True), ("without the irr", True, False),
                              ("without the paths", False, False)):
        scalar(V[:2], S[:2], dems, paths, irr, a[:2])  # (compiled, or loaded, first)
        grid.grid(V[:2], S[:2], dems, paths, irr, b[:2])
        t_s = best(lambda: scalar(V, S, dems, paths, irr, a), args.repeats)  # noqa: B023
        t_l = best(lambda: grid.grid(V, S, dems, paths, irr, b), args.repeats)  # noqa: B023
        keep = slice(None) if paths else [i for i in range(cell.NOUT)
                                          if not cell.PAY <= i < cell.IRR]
        same = np.array_equal(a[:, :, keep], b[:, :, keep], equal_nan=True)
        print(f"{label:<22} {t_s:9.3f} {t_l:9.3f} {t_s / t_l:6.2f}  {same}")


if __name__ == "__main__":
    main()
