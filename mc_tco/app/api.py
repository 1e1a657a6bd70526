"""The explorer's JSON API as plain functions (no HTTP): :mod:`mc_tco.app.server` routes
requests here, and the tests call them directly.

Requests are stateless: each carries the book text as loaded plus the user's edits, so two
browser tabs never share state. Runs are cached by (text, samples, seed).
"""

from __future__ import annotations

import functools
import math
from pathlib import Path

import numpy as np
import xarray as xr

from mc_tco.app import bridge
from mc_tco.app.edit import apply_edits, source_prompt
from mc_tco.app.ranking import ranking as rank_inputs
from mc_tco.app.runs import Cancelled, RunCache, check_model
from mc_tco.report.words.input_grid import input_grid_note
from mc_tco.results.points import nearest_point, scale_of

__all__ = [
    "Cancelled",
    "RunCache",
    "answer",
    "book_state",
    "check_edits",
    "check_model",
    "checked_book",
    "edited_text",
    "error_json",
    "pdf",
    "results_json",
    "save_book",
]

PDF_POINTS = 80


def _num(x) -> float | None:
    x = float(x)
    return float(f"{x:.12g}") if math.isfinite(x) else None


def pdf(inp) -> dict:
    """A small picture of an input's distribution: density (or mass) on a grid.

    Returns
    -------
    dict
        ``{"kind": "pdf" | "pmf" | "constant", "x": [...], "y": [...]}``, x in the input's
        unit, y a density (1/unit) or probabilities; from the frozen scipy distribution.
    """
    if inp.is_constant:
        return {"kind": "constant", "x": [inp.value], "y": [1.0]}
    if inp.is_grid:  # [grid.<input>]: its values, each run in turn (not a distribution)
        return {"kind": "pmf", "x": [_num(v) for v in inp.grid_values],
                "y": [1.0] * inp.grid_values.size}
    dist = inp.dist
    if inp.family == "discrete":
        xs = np.asarray(dist.xk, dtype=float)
        return {"kind": "pmf", "x": [_num(v) for v in xs], "y": [_num(v) for v in dist.pk]}
    lo, hi = (float(v) for v in dist.ppf([0.001, 0.999]))
    a, b = inp.support()
    lo, hi = max(lo, a), min(hi, b)
    if inp.family == "loguniform" or (inp.family == "lognormal" and lo > 0):
        x = np.geomspace(lo, hi, PDF_POINTS)
    else:
        x = np.linspace(lo, hi, PDF_POINTS)
    with np.errstate(all="ignore"):
        y = np.nan_to_num(dist.pdf(x), posinf=0.0)
    q = [float(v) for v in dist.ppf([0.05, 0.5, 0.95])]
    return {"kind": "pdf", "x": [_num(v) for v in x], "y": [_num(v) for v in y],
            "q": [_num(v) for v in q]}


def _input_json(inp) -> dict:
    params = {k: v for k, v in inp.params.items()   # an open side (inf) is an empty field
              if not k.startswith("_") and not (isinstance(v, float) and math.isinf(v))}
    return {"name": inp.name, "family": inp.family, "params": params, "unit": inp.unit,
            "source": inp.source, "group": inp.group or "other",
            "description": inp.description, "describe": inp.describe(), "pdf": pdf(inp)}


def book_state(text: str, path: str, started_model: str,
               started_file: Path | None = None) -> dict:
    """Load a book's text for the editor: its inputs by group, the families, the model.

    Raises
    ------
    BookError, McTcoError
        The CLI's one-line message when the book cannot be used.
    """
    book = bridge.loads_book(text, path)
    check_model(book, started_model, started_file)
    bridge.check_book(book)
    groups: dict[str, list] = {}
    for inp in book.inputs.values():
        groups.setdefault(inp.group or "other", []).append(_input_json(inp))
    return {"name": book.name, "path": path, "text": text, "model": book.model or "",
            "groups": [{"group": g, "inputs": v} for g, v in groups.items()],
            "families": bridge.families()}


def error_json(exc: Exception, edits: dict) -> dict:
    """Where a check's error is for the page: ``{"message", "input", "field"}``."""
    where = getattr(exc, "where", None) or ""
    parts = where.split(".")
    name = parts[1] if len(parts) > 1 and parts[0] == "inputs" else None
    field = parts[2] if len(parts) > 2 and name else None
    if name is None and len(edits) == 1:
        name = next(iter(edits))
    return {"message": str(exc), "input": name, "field": field}


@functools.lru_cache(maxsize=8)
def _as_loaded(text: str, path: str):
    """The book ``text`` as loaded, parsed once (read here, never checked: a check
    converts its units in place)."""
    return bridge.loads_book(text, path)


def _edited(text: str, path: str, edits: dict) -> tuple[str, object | None]:
    """``(edited text, its book as loaded, unchecked)``: :func:`edited_text`'s text, and
    the book parsed from it when that parse was needed anyway (None: parse it).

    The book is parsed once: with every edit and its source prompt (the prompt changes
    the ``source`` alone, so each input's family and parameters are those of the edit);
    an input edited back to its loaded family and parameters is then left as it was, and
    only then is the text without it built (its book left to the caller).
    """
    base = _as_loaded(text, path)
    edits = {k: v for k, v in edits.items() if k in base.inputs}
    if not edits:
        return apply_edits(text, {}, path, {}), None
    prompts = {k: source_prompt(base.inputs[k].describe(), base.inputs[k].source)
               for k in edits}
    new = apply_edits(text, edits, path, prompts)
    trial = bridge.loads_book(new, path)
    changed = {k: v for k, v in edits.items()
               if (trial.inputs[k].family, trial.inputs[k].params)
               != (base.inputs[k].family, base.inputs[k].params)}
    if len(changed) == len(edits):
        return new, trial
    return apply_edits(text, changed, path, {k: prompts[k] for k in changed}), None


def edited_text(text: str, path: str, edits: dict) -> str:
    """The book text with ``edits`` applied, each changed input's source a prompt.

    An input edited back to its loaded family and parameters is left as it was.
    """
    return _edited(text, path, edits)[0]


def checked_book(text: str, path: str, edits: dict, started_model: str,
                 started_file: Path | None = None):
    """``(edited text, its book checked as the CLI checks it)``; raises the CLI's
    McTcoError (:func:`error_json` says where for the page)."""
    new, book = _edited(text, path, edits)
    if book is None:
        book = bridge.loads_book(new, path)
    check_model(book, started_model, started_file)
    bridge.check_book(book)
    return new, book


def check_edits(text: str, path: str, edits: dict, started_model: str,
                started_file: Path | None = None) -> dict:
    """Apply ``edits`` to the book and check it as the CLI would; nothing is run.

    Returns
    -------
    dict
        ``{"ok": True, "text": edited book, "inputs": {name: input json}}`` or
        ``{"ok": False, "error": {"message", "input", "field"}}`` with the CLI's message.
    """
    try:
        new, book = checked_book(text, path, edits, started_model, started_file)
    except bridge.McTcoError as exc:
        return {"ok": False, "error": error_json(exc, edits)}
    return {"ok": True, "text": new, "book": book,
            "inputs": {k: _input_json(book.inputs[k]) for k in edits if k in book.inputs}}


def _by_strategy(da: xr.DataArray, *dims) -> dict[str, np.ndarray]:
    """``da``'s values per strategy, each with the dims ``dims`` in that order (one
    transpose, then numpy: a ``sel`` per strategy and cell was most of the JSON's time)."""
    values = da.transpose("strategy", *dims).values
    return dict(zip(da["strategy"].values.tolist(), values, strict=True))


def _strategies(ds: xr.Dataset, indicator: str) -> tuple[list[str], list[str]]:
    """(strategies compared with the baseline, baselines): a baseline's indicator is NaN or
    its saving is zero in every scenario."""
    p = _by_strategy(ds["p_positive"].sel(target=indicator), ...)
    compared, base = [], []
    for s, col in p.items():
        if np.all(np.isnan(col)) or (np.all(col == 0) and "saving" in ds
                                     and bool((ds["saving"].sel(strategy=s) == 0).all())):
            base.append(s)
        else:
            compared.append(s)
    return compared, base


def results_json(ds: xr.Dataset, elapsed: float | None = None, summary: bool = False
                 ) -> dict:
    """What the right-hand side draws, from a run's dataset (any model with a grid dim).

    ``summary``: the labels, grid, report points and focus alone (no ``p``, ``fan``,
    ``breakeven``), for the ranking stage: the other stages draw those.

    Returns
    -------
    dict
        ``grid`` (the first grid dim's values), ``p`` (P(target > 0) with its interval per
        strategy), ``fan`` (quantiles of the target), ``breakeven`` (CDF on the grid and
        P(never)), ``report`` (report points), ``n``, ``seed`` and labels.
    """
    targets = [str(t) for t in ds["target"].values]
    target = next(t for t in targets if not t.endswith(">0"))
    indicator = next((t for t in targets if t == f"{target}>0"), targets[-1])
    dim = bridge.grid_dim(ds)
    grid = ds[dim].values.astype(float)
    strategies, baseline = _strategies(ds, indicator)
    out = {"dim": dim, "unit": ds[dim].attrs.get("units", ""), "grid": grid.tolist(),
           "target": target, "target_unit": ds[target].attrs.get("units", "")
           if target in ds else "", "indicator_label": ds.mc_tco.run.indicator_label,
           "strategies": strategies, "baseline": baseline, "n": int(ds.sizes["sample"]),
           "seed": ds.mc_tco.run.seed, "elapsed": elapsed,
           "book_sha256": ds.mc_tco.run.book_sha256,
           "note": input_grid_note(ds, "mc-tco run shows them all")}  # [grid.<input>]
    report = ds.mc_tco.report.get(dim) or []
    out["report"] = [nearest_point(grid, r, scale_of(dim)) for r in report]
    focus = ds.mc_tco.focus.get(dim)
    out["focus"] = float(focus) if focus is not None else (out["report"] or [grid[0]])[0]
    if summary:
        return out
    p = _by_strategy(ds["p_positive"].sel(target=indicator), dim)
    ci = _by_strategy(ds["p_positive_ci"].sel(target=indicator), "ci_bound", dim)
    lower, upper = (list(ds["ci_bound"].values).index(b) for b in ("lower", "upper"))
    out["p"] = {s: {"p": [_num(v) for v in p[s]], "lo": [_num(v) for v in ci[s][lower]],
                    "hi": [_num(v) for v in ci[s][upper]]}
                for s in strategies}
    tq = ds["target_quantile"].sel(target=target)
    fan = _by_strategy(tq, "quantile", dim)
    out["fan"] = {"quantiles": tq["quantile"].values.tolist(),
                  "values": {s: [[_num(v) for v in row] for row in fan[s]]
                             for s in strategies}}
    if "breakeven_demand" in ds:
        be = ds["breakeven_demand"]
        cdf = {}
        for s in strategies:
            vals = np.sort(be.sel(strategy=s).values.astype(float))
            vals = vals[~np.isnan(vals)]
            cdf[s] = {"cdf": (np.searchsorted(vals, grid, side="right") / max(len(vals), 1))
                      .tolist(),
                      "p_never": _num(ds["breakeven_demand_p_never"].sel(strategy=s)),
                      "median": _num(np.median(vals)) if len(vals) else None}
        out["breakeven"] = cdf
    return out


def _nearest(ds: xr.Dataset, dim: str, value: float) -> float:
    return nearest_point(ds[dim].values, value, scale_of(dim))


def answer(ds: xr.Dataset, demand: float, top: int = 8, results: dict | None = None,
           sentence: bool = True) -> dict:
    """The answer at one point of the grid: the memo's sentence and, per strategy, the
    inputs ranked as the CLI ranks them (:func:`mc_tco.app.ranking.ranking`: by Shapley
    effect when the book's inputs are correlated, else by ST); ``ranking`` is None for
    results of the base rows alone (:func:`mc_tco.app.bridge.base_run`). ``results``:
    :func:`results_json` of ``ds`` when already made. ``sentence=False``: the ranking
    alone (``sentence`` None; ``results`` may be the summary).
    """
    r = results if results is not None else results_json(ds)
    dim = r["dim"]
    d = _nearest(ds, dim, demand)
    text = bridge.memo_answer(ds, d) if dim == "demand" and sentence else None
    if text is None and sentence:
        parts = []
        for s in r["strategies"]:
            i = r["grid"].index(d)
            parts.append(f"{s} {r['indicator_label']} in "
                         + bridge.fmt_pct_ci(r["p"][s]["p"][i], r["p"][s]["lo"][i],
                                             r["p"][s]["hi"][i]) + " of scenarios")
        text = f"At {dim} {bridge.fmt_tokens(d)}: " + "; ".join(parts) + "."
    text = text.replace("**", "") if text is not None else None
    # the ranking needs its index (the design rows' ST, or the Shapley effects): a first
    # answer from the base rows has neither
    ranking = ({s: rank_inputs(ds, dim, d, s, r["target"], top) for s in r["strategies"]}
               if "ST" in ds or "shapley" in ds else None)
    conf = ds.mc_tco.run.conf_level
    return {"demand": d, "sentence": text, "ranking": ranking, "conf_level": conf}


def save_book(text: str, path: str, edits: dict, dest: str, overwrite: bool) -> dict:
    """Write the edited book to ``dest`` (a .toml path the user gave).

    Returns ``{"saved": dest, "text": ...}``, or ``{"exists": dest}`` when ``dest`` exists
    and ``overwrite`` is false (the page then asks).

    Raises
    ------
    BookError
        When the edited book is invalid or ``dest`` cannot be written.
    """
    new = edited_text(text, path, edits)
    bridge.loads_book(new, dest)  # never write a book the CLI would refuse
    target = Path(dest).expanduser()
    if target.suffix != ".toml":
        raise bridge.BookError(dest, None, "a book is a .toml file; end the name in .toml")
    if target.is_dir():
        raise bridge.BookError(dest, None, "is a folder; give the path of a .toml file")
    if not target.parent.is_dir():
        raise bridge.BookError(dest, None, f"folder {target.parent} does not exist; create it "
                               "or choose another path")
    if target.exists() and not overwrite:
        return {"exists": dest}
    tmp = target.with_name(f".{target.name}.app.tmp")
    try:
        tmp.write_text(new, encoding="utf-8")
        tmp.replace(target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise bridge.BookError(dest, None, f"cannot be written ({exc.strerror}); choose "
                               "another path") from None
    return {"saved": dest, "text": new}
