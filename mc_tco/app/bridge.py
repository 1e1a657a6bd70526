"""The app's only door into the engine: every call into mc_tco's library goes through here.

The explorer holds no model logic: it loads and checks books, runs them and writes results
and memos with the same library functions as the CLI. Keeping those imports in this one
module lets the engine move its functions without touching the rest of :mod:`mc_tco.app`.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.app.input_values import InputValues
from mc_tco.errors import BookError, McTcoError
from mc_tco.report.fmt import pct_ci as fmt_pct_ci  # noqa: F401  (the API writes shares as the memo)
from mc_tco.report.fmt import tokens as fmt_tokens  # noqa: F401

__all__ = [
    "DEFAULT_BOOK",
    "DEFAULT_MODEL",
    "BookError",
    "McTcoError",
    "base_run",
    "build_distribution",
    "check_book",
    "default_permutations",
    "default_samples",
    "families",
    "full_run",
    "grid_dim",
    "indicator_ranks",
    "load_book",
    "loads_book",
    "memo_answer",
    "min_events",
    "model_file",
    "quick_run",
    "rough_permutations",
    "shapley_ranking",
    "with_ranking",
]

DEFAULT_BOOK = "distributions/deepseek-v4.1-flash.toml"
DEFAULT_MODEL = "mc_tco.models.tco:model"


def load_book(path: str | Path):
    """A checked :class:`mc_tco.book.Book` read from ``path`` (raises BookError)."""
    from mc_tco.book import load_book as _load

    return _load(path)


def loads_book(text: str, path: str):
    """A book parsed from ``text``; ``path`` names it in messages (raises BookError)."""
    from mc_tco.book import loads_book as _loads

    return _loads(text, path)


def model_file(book) -> Path | None:
    """The absolute path of the file defining ``book``'s model (None: not found)."""
    from mc_tco.models.loading import model_file as _model_file

    return _model_file(book)


def families() -> dict[str, dict[str, Any]]:
    """The distribution families and their fields, for the editor's forms.

    Returns
    -------
    dict
        ``{family: {"required": [...], "optional": {field: default}, "alternatives":
        [[...], ...], "example": str}}``.
    """
    from mc_tco.distributions.families import FAMILIES

    return {
        name: {
            "required": list(f.required),
            # a non-finite default (a truncnormal's open side) is an empty field: left out
            "optional": {k: v if not isinstance(v, float) or math.isfinite(v) else ""
                         for k, v in f.optional.items()},
            "alternatives": [list(a) for a in f.alternatives],
            "example": f.example,
        }
        for name, f in FAMILIES.items()
    }


def list_fields() -> frozenset[str]:
    """Fields that hold lists of numbers (``values``, ``weights``)."""
    from mc_tco.distributions.families import LIST_FIELDS

    return LIST_FIELDS


def build_distribution(family: str, params: dict):
    """The frozen scipy distribution of ``family`` (None for a constant)."""
    from mc_tco.distributions.families import build_distribution as _build

    return _build(family, params)


def check_book(book) -> None:
    """Check ``book`` against its model as ``mc-tco inputs`` does (raises McTcoError)."""
    from mc_tco.engine import plan_run

    plan_run(book, samples=16, resamples=0)


def default_samples() -> int:
    """The base sample size of ``mc-tco run`` without ``--samples``."""
    from mc_tco.engine import DEFAULT_SAMPLES

    return int(DEFAULT_SAMPLES)


def min_events() -> int:
    """Fewest wins (and losses) for the indicator's Sobol' indices to be ranked (memo)."""
    from mc_tco.decision.shares import MIN_EVENTS

    return int(MIN_EVENTS)


def indicator_ranks(wins: int, n: int, st, conf) -> bool:
    """Whether an indicator's indices ``st`` (the ranking index: ST, or the Shapley
    effects with correlations; half-widths ``conf``) rank the inputs, by the CLI's and the
    memo's rule: enough wins and losses, and the top index above its own error
    (:func:`mc_tco.decision.indices.ranking`)."""
    from mc_tco.decision.indices import above_its_error
    from mc_tco.decision.shares import rare_indicator

    return not rare_indicator(wins, n, min_events()) and above_its_error(st, conf)


def rare_note(ds: xr.Dataset, target: str, point: dict) -> dict | None:
    """Where the indicator ``target`` (``saving>0``) at ``point`` has too few winning (or
    losing) scenarios to rank: its counts and the nearest demand with enough
    (:func:`mc_tco.decision.targets.rare_ranking`); None when it has enough."""
    from mc_tco.decision.targets import rare_ranking

    return rare_ranking(ds, target, point, min_events())


#: base samples per chunk of a quick run: a newer change cancels the run at the next
#: chunk (the chunk size never changes the numbers), so at most ~1/8 of it runs on
QUICK_CHUNK = 128


def quick_run(book, samples: int, seed: int, progress: Callable | None = None) -> xr.Dataset:
    """``mc-tco run BOOK --samples N --seed S`` in memory (same options, same numbers).

    On the machine's threads (the numbers do not depend on the scheduler): the ranking
    the page waits for comes in half the time on an idle 2-core machine; two tabs' runs
    share the cores. With the Shapley effects of a correlated book, as ``mc-tco run``
    (the page ranks its inputs by them, as the CLI does), without its independence check
    (the page does not show it).
    """
    from mc_tco.engine import run

    chunk = QUICK_CHUNK if samples % QUICK_CHUNK == 0 else None
    # (--sobol-at grid: the page ranks at whatever demand its slider is at)
    return run(book, samples=samples, seed=seed, progress=progress, scheduler="threads",
               independence_check=False, chunk_size=chunk,
               sobol_at="grid").mc_tco.at_input_grid()  # (the focus)


def grid_dim(ds: xr.Dataset) -> str:
    """The grid dim the page's slider moves along: the first of P(target > 0)'s dims
    besides the target and the alternatives (``demand`` for the TCO model)."""
    return str(next(d for d in ds["p_positive"].dims if d not in ("target", "strategy")))


def shapley_ranking(book, rows: xr.Dataset, samples: int, seed: int,
                    at: dict[str, float] | None = None, progress: Callable | None = None,
                    have: xr.Dataset | None = None,
                    permutations: int | None = None) -> xr.Dataset | None:
    """The ranking of a quick run whose inputs rank by Shapley effects, without its design
    rows: the Shapley effects at ``at`` (``{grid dim: value}``, the nearest grid point;
    None: where ``mc-tco run`` estimates them, ``--shapley-at report``) with the book's
    correlations, to merge into the base rows with :func:`with_ranking`.

    The same estimator, permutations and seed as ``mc-tco run BOOK --samples N --seed S``
    (:func:`quick_run`), so the same effects and half-widths at that point: the model runs
    the Shapley rows at one grid point instead of the report points, and none of the
    ``N (K + 2)`` Saltelli design rows (their per-input Sobol' indices are "moved one at a
    time" with correlations: they rank nothing). ``rows`` (any stage of
    :func:`base_run` of the same book) give the targets' dims. ``have``: an earlier
    result for the same run (other points), kept. ``permutations``: the estimator's
    random permutations (None: the CLI's for ``samples``; :func:`rough_permutations`: a
    first estimate, its half-widths about twice as wide). The CLI's rule
    (:func:`mc_tco.results.ranking.ranking_rule`) says when: None for a book ranked by ST
    (independent inputs: the design rows are the ranking, :func:`quick_run`) or with
    ``[grid.<input>]`` inputs.
    """
    from mc_tco.engine import plan_run
    from mc_tco.engine.assemble import run_options, with_extra
    from mc_tco.engine.dependence import correlation_dataset
    from mc_tco.engine.evaluate import _targets_array
    from mc_tco.engine.shapley import shapley_dataset
    from mc_tco.results.points import nearest_point, scale_of

    if book.input_grid:
        return None
    plan = plan_run(book, samples=samples, seed=seed, shapley_permutations=permutations,
                    shapley_at="grid" if at else "report")
    if plan.ranking_index != "shapley":
        return None
    points = None
    if at:
        points = {dim: np.array([nearest_point(plan.grid[dim].values, v, scale_of(dim))])
                  for dim, v in at.items()}
    _, cells = _targets_array(plan, rows)
    part = shapley_dataset(plan, cells, progress, workers=max(1, os.cpu_count() or 1),
                           at=points)
    if have is not None and points:  # another point of the same run: keep the others
        filled = have[["shapley", "shapley_conf"]].fillna(part[["shapley", "shapley_conf"]])
        done = have.mc_tco.shapley_points()
        where = "; ".join(f"{dim} = " + ", ".join(f"{v:.6g}" for v in np.union1d(
            done.get(dim, []), vals)) for dim, vals in points.items())
        for name in filled.data_vars:
            filled[name].attrs.update(part[name].attrs, computed_at=f"{where} only (NaN "
                                      "elsewhere)")
        return have.assign(filled)
    part = with_extra(part, correlation_dataset(plan))
    # what reproduces these numbers: mc-tco run with the same options (at a point alone,
    # --shapley-at grid: the same numbers there)
    part.attrs.update(ranking_index=plan.ranking_index,
                      run_options=json.dumps(run_options(plan), default=str))
    return part


def default_permutations(samples: int) -> int:
    """The Shapley permutations of ``mc-tco run --samples N`` (half of N, 64 to 4096)."""
    from mc_tco.engine.plan import shapley_permutations_for

    return int(shapley_permutations_for(samples))


def rough_permutations(samples: int) -> int | None:
    """The permutations of the page's first ranking: a quarter of the CLI's for
    ``samples`` (at least 64), so about a quarter of its model rows and twice its
    half-widths; None when that is the CLI's own (small samples)."""
    full = default_permutations(samples)
    rough = max(64, full // 4)
    return rough if rough < full else None


def with_ranking(rows: xr.Dataset, ranking: xr.Dataset) -> xr.Dataset:
    """The base rows ``rows`` (:func:`base_run`) with :func:`shapley_ranking`'s effects
    (any of theirs replaced): the dataset the page ranks from, as a quick run's."""
    from mc_tco.engine.assemble import with_extra

    return with_extra(rows.drop_vars(list(ranking.data_vars), errors="ignore"), ranking)


#: outputs the memo's answer reads beside the targets and distributions (who is cheapest:
#: :func:`mc_tco.decision.shares.cheapest_shares`); a model without them ignores the name
ANSWER_OUTPUTS = ("cost",)


#: the explorer's kept input values (the base rows of every stage and change)
INPUT_VALUES = InputValues()


def _cores_free() -> float:
    """The machine's cores less its load (the 1-minute average of runnable threads)."""
    return (os.cpu_count() or 1) - os.getloadavg()[0]


def base_run(book, samples: int, seed: int, breakeven: bool = True,
             answer: xr.Dataset | None = None) -> xr.Dataset:
    """The base rows of :func:`quick_run` alone and what they give: P(beats the API) with
    its interval, the quantiles, the break-even demands (the model's distributions; not
    with ``breakeven=False``: four fifths of the base rows' time), no Sobol' indices.

    The same rows and the same numbers as the quick run's (the design rows, ``K + 1``
    times as many, and the indices follow in :func:`quick_run`): the page's first answer.
    Only the outputs the answer reads are asked for (:data:`ANSWER_OUTPUTS`: the model
    skips its cash paths), the inputs a change did not touch keep their values
    (:data:`INPUT_VALUES`), and the rows are evaluated in two halves on two threads when
    the machine has a core free (:func:`_cores_free`; the kernels release the GIL), else
    in one call: on the loaded 2-core machine (load 7.5-8.5) the halves took 185 ms of
    wall against 145 for one call, the threads' share of the cores no larger.

    ``answer``: this run's results without the break-even (``breakeven=False``, the
    page's first answer): with ``breakeven``, only the distributions are computed on its
    rows and the summaries made again (the same dataset as without ``answer``, tested;
    the page's break-even chart no longer waits for the answer's rows a second time).
    """
    from mc_tco.engine import plan_run, summarize

    plan = plan_run(book, samples=samples, seed=seed, shapley=False)
    if not breakeven:
        plan = dataclasses.replace(plan, distributions=[])
    if (answer is not None and breakeven and plan.distributions and not plan.book.input_grid
            and "input_value" in answer):
        rows = answer[[k for k in answer.data_vars if "sample" in answer.variables[k].dims]]
        extra = _base_rows(plan, samples, set(plan.targets) | set(plan.distributions))
        base = rows.assign({k: extra[k] for k in plan.distributions})
    else:
        base = _base_rows(plan, samples,
                          set(plan.targets) | set(plan.distributions) | set(ANSWER_OUTPUTS))
    summary = summarize(plan, base, None, "synchronous")
    ds = base.merge(summary, join="exact", compat="override").assign_attrs(summary.attrs)
    return ds.mc_tco.at_input_grid()  # (the focus, as quick_run)


def _base_rows(plan, samples: int, wanted: set[str]) -> xr.Dataset:
    """The outputs ``wanted`` on the base rows of ``plan`` (:func:`base_run`)."""
    from concurrent.futures import ThreadPoolExecutor

    from mc_tco.engine import evaluate_base

    half = samples // 2
    spans = [(0, half), (half, samples)] if half and _cores_free() >= 1 else [(0, samples)]
    with ThreadPoolExecutor(len(spans), thread_name_prefix="base-rows") as pool:
        parts = list(pool.map(lambda span: evaluate_base(plan, span[0], span[1], wanted,
                                                         ppf=INPUT_VALUES), spans))
    return parts[0] if len(parts) == 1 else xr.concat(
        parts, dim="sample", data_vars="all", coords="minimal", compat="override")


def results_path(book) -> Path:
    """Where ``mc-tco run BOOK`` writes its results: ``results/<book stem>.nc``."""
    return Path("results") / f"{book.stem}.nc"


def full_run(
    book, seed: int, progress: Callable[[int, int], None], say: Callable[[str], None]
) -> dict[str, str]:
    """``mc-tco run BOOK --seed S`` then ``mc-tco memo results/<stem>.nc``, as the CLI does.

    Parameters
    ----------
    book : Book
        A book loaded from its file (the results record its path and text).
    seed : int
    progress : callable
        ``progress(done, total)`` in base samples; raising from it cancels the run, and
        then nothing is written (the results file is written atomically).
    say : callable
        Called with a line of news (e.g. "writing the memo").

    Returns
    -------
    dict
        ``{"results": path, "memo": path of memo.html}``.
    """
    from mc_tco.engine import run
    from mc_tco.report.memo import build_memo, default_out_dir, write_memo
    from mc_tco.results.io import check_writable, open_results

    out = results_path(book)
    check_writable(out)
    samples = default_samples()
    say(f"running {book.path}: {samples:,} samples, seed {seed}")
    with run(book, samples=samples, seed=seed, progress=progress, out=out):
        pass
    say(f"wrote {out}; writing the memo")
    memo_dir = default_out_dir(out)
    ds = open_results(out)
    try:
        # the memo at the book's focus, as `mc-tco memo` without --demand
        m = build_memo(ds, command=shlex.join(["mc-tco", "memo", str(out)]),
                       paths={"results": str(out), "compare": ""})
        write_memo(m, memo_dir)
    finally:
        ds.close()
    return {"results": str(out), "memo": str(memo_dir / "memo.html")}


def memo_answer(ds: xr.Dataset, demand: float) -> str | None:
    """The memo's answer paragraph at ``demand`` (a grid point), or None when the memo
    cannot write one for these results (another model)."""
    try:
        from mc_tco.report.memo.answer import answer_paragraph
        from mc_tco.report.memo.context import MemoContext

        return answer_paragraph(MemoContext(ds, float(demand)))
    except (KeyError, ValueError, IndexError, ImportError, AttributeError, McTcoError):
        return None


def warm_up() -> None:
    """Import the memo's modules now, so the first answer on the page is not slow."""
    from mc_tco.report.memo import sections  # noqa: F401
