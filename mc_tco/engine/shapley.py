"""Shapley effects of a run's inputs: the ranking that stays meaningful under correlation.

One vectorised pass of :func:`mc_tco.sensitivity.shapley.shapley_effects` (random
permutations, Song, Nelson & Staum 2016, exact conditional sampling from the book's
Gaussian copula) gives the effect of every input on every target and its indicator at
the report points (or every grid point). The model is called through the engine's own
input Dataset and checks, on blocks of rows, asked for the targets only.

Cost and precision
------------------
``n_var + n_perm (1 + (D - 1)(n_inner - 1))`` model rows (``n_outer = 1``, ``n_inner =
3``, the first inner draw of every set the permutation's outer row: :mod:`the estimator
<mc_tco.sensitivity.shapley>`; ``n_var = 4 n_perm``). ``n_perm`` is half the base sample,
from 64 to 4096 (:func:`~.plan.shapley_permutations_for`; ``shapley_permutations``
overrides it): at the default 8192 samples and the default book's 46 uncertain inputs
(cost model v3), ``16384 + 4096 x (1 + 45 x 2) = 389,120`` rows (with fresh inner draws
``16384 + 4096 x 45 x 3 = 569,344``; the run itself: ``8192 x 48 = 393,216``), run on
the driver's threads (``workers``); the inputs' ppf runs once per distinct normal
score (:func:`~mc_tco.sensitivity.shapley.draws._to_inputs`, a tenth of the rows). The model
runs them at the report points, claim points and focus only (:func:`shapley_grid`,
``--shapley-at report``, the default): 6 of the default book's 46 demands. That cut the
pass from about 17 CPU seconds (every demand) to about 6, with the same numbers at those
demands; ``--shapley-at grid`` estimates every grid point.

95% half-widths at the focus point: 0.011 on average (0.028 at most) for the saving and
0.023 (0.043) for its indicator; median 0.008 over every cell of the saving. They scale
as ``1 / sqrt(n_perm)``. Fewer permutations would not keep the default book's ranking
settled: at the focus point the indicator's top three (0.17-0.20, +-0.04) stand clear of
the fourth (0.064 +- 0.037) by 0.03 at 4096 permutations, and would overlap it at 2048
(half-widths x 1.4).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.engine.evaluate import _call_model, _input_dataset, _targets_array, _targets_into
from mc_tco.engine.plan import Plan, report_grid
from mc_tco.interrupt import check
from mc_tco.results.ranking import INDEX_MEANING, VARIANCE_SHARE
from mc_tco.sensitivity.shapley import evaluation_count, shapley_effects

__all__ = ["SHAPLEY_SIZES", "shapley_dataset", "shapley_grid", "shapley_rows"]

#: the estimator's sizes besides the permutations (Song et al.'s recommended n_outer, n_inner)
SHAPLEY_SIZES = {"n_outer": 1, "n_inner": 3}
#: joint draws for Var(Y) per permutation (16384 at 4096 permutations): the delta-method
#: term of Var(Y)'s error stays below the permutations' for the largest effects
VAR_PER_PERMUTATION = 4


def _sizes(plan: Plan) -> dict:
    n = plan.shapley_permutations
    return {"n_perm": n, "n_var": VAR_PER_PERMUTATION * n, **SHAPLEY_SIZES}
#: rows per model call (bounded memory: rows x output cells x 8 bytes)
MAX_ROWS = 2**14

Progress = Callable[[int, int], None]


def shapley_grid(plan: Plan) -> dict[str, np.ndarray]:
    """The grid points the Shapley pass evaluates, for the grid dims it restricts:
    :func:`~.plan.report_grid` with ``plan.shapley_at == "report"`` (the TCO model's 47
    demands become 6, for the same permutations and the same half-widths), ``{}`` with
    ``"grid"``."""
    return {} if plan.shapley_at == "grid" else report_grid(plan)


def shapley_rows(plan: Plan) -> int:
    """Model rows the Shapley effects of ``plan`` cost."""
    return evaluation_count(len(plan.factors), **_sizes(plan))


def shapley_dataset(plan: Plan, cells: tuple[Hashable, ...],
                    progress: Progress | None = None, workers: int = 1,
                    at: dict[str, np.ndarray] | None = None) -> xr.Dataset:
    """Shapley effects and half-widths of every input on every target cell.

    Parameters
    ----------
    plan : Plan
        With the book (its correlation, if any), targets, seed and
        ``shapley_permutations``.
    cells : tuple of str
        The targets' dims besides ``sample`` and ``target``, in the order of the run's
        summaries (grid and model dims).
    progress : callable, optional
        ``progress(0, total)`` as the pass starts, then ``progress(done, total)`` in
        model rows.
    workers : int
        Threads evaluating blocks of rows at once; the numbers do not depend on it.
    at : dict, optional
        The grid points to estimate at, ``{dim: values}`` (default :func:`shapley_grid`):
        the same draws, so the same numbers at those points (the browser app's ranking
        at the page's demand alone).

    Returns
    -------
    xr.Dataset
        ``shapley`` and ``shapley_conf`` (target, input, *cells), dimensionless, NaN where
        the target does not vary; attrs say the method and cost.
    """
    total = shapley_rows(plan)
    done = 0
    if progress is not None:  # the pass starts now: a time left counts from here
        progress(0, total)
    coords: dict[Hashable, Any] = {}

    lock = threading.Lock()
    sub = shapley_grid(plan) if at is None else {k: np.asarray(v, dtype=float)
                                                  for k, v in at.items()}

    def evaluate(x: np.ndarray) -> np.ndarray:  # called from up to ``workers`` threads
        nonlocal done
        check()  # Ctrl-C between blocks
        out = _call_model(plan, _input_dataset(plan, x, plan.targets, sub), check=False)
        if coords:  # in one copy where it can (the engine's own _targets_into)
            y = np.empty((x.shape[0], *coords["shape"]))
            _targets_into(plan, out, cells, y.reshape(x.shape[0], 1, 2 * len(plan.targets), -1))
        else:
            stacked, _ = _targets_array(plan, out, cells)
            y = stacked.values
        with lock:
            if not coords:
                coords["target"] = stacked["target"].values
                coords.update({c: stacked.coords[c].values for c in cells
                               if c in stacked.coords})
                coords["shape"] = stacked.shape[1:]
            done += x.shape[0]
            if progress is not None:
                progress(done, total)
        return y.reshape(x.shape[0], -1)

    corr = plan.book.correlation
    res = shapley_effects(
        evaluate, [inp.ppf for inp in plan.book.uncertain],
        None if corr is None else corr.used, seed=plan.seed, conf_level=plan.conf_level,
        max_rows=MAX_ROWS, workers=workers, **_sizes(plan),
    )
    shape = coords.pop("shape")
    d = len(plan.factors)
    dims = ("target", "input", *cells)

    def arrange(a: np.ndarray) -> np.ndarray:  # (K, D) -> (target, input, *cells)
        return np.moveaxis(a.reshape(*shape, d), -1, 1)

    method = (f"random permutations (Song, Nelson & Staum 2016), {plan.shapley_permutations} "
              f"permutations, n_inner {SHAPLEY_SIZES['n_inner']} (the first the "
              "permutation's outer draw, shared by its sets), "
              f"Var(Y) from {VAR_PER_PERMUTATION * plan.shapley_permutations} joint "
              "draws, exact conditional "
              "sampling from the Gaussian copula; normal-approximation half-widths over "
              "the i.i.d. permutations")
    ds = xr.Dataset(
        {
            "shapley": (dims, arrange(res["shapley"]), {
                "units": "1", "long_name": "Shapley effect (share of the variance; the "
                "inputs' effects sum to 1)", "method": method, INDEX_MEANING: VARIANCE_SHARE}),
            "shapley_conf": (dims, arrange(res["shapley_conf"]), {
                "units": "1", "long_name": "half-width of the Shapley effect's interval",
                "ci_prob": plan.conf_level, "method": method, INDEX_MEANING: VARIANCE_SHARE}),
        },
        coords={"input": plan.factors, **coords},
    )
    if sub:  # the other grid points: NaN, "not estimated there"
        where = "; ".join(f"{dim} = " + ", ".join(f"{v:.6g}" for v in vals)
                          for dim, vals in sub.items())
        ds = ds.reindex({dim: plan.grid[dim].values for dim in sub})
        for name in ("shapley", "shapley_conf"):
            ds[name].attrs["computed_at"] = (
                f"{where} only " + ("(the report points, claim points and focus; NaN "
                                    "elsewhere: rerun with --shapley-at grid for every point)"
                                    if at is None else "(NaN elsewhere)"))
    ds.attrs.update(shapley_evaluations=int(res["evaluations"]) * plan.grid_points,
                    shapley_method=method)
    return ds
