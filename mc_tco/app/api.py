"""The explorer's JSON API as plain functions (no HTTP): :mod:`mc_tco.app.server` routes
requests here, and the tests call them directly.

Requests are stateless: each carries the book text as loaded plus the user's edits, so two
browser tabs never share state. Runs are cached by (text, samples, seed).
"""

from __future__ import annotations

import hashlib
import math
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np
import xarray as xr

from mc_tco.app import bridge
from mc_tco.app.edit import apply_edits, source_prompt
from mc_tco.report.words.input_grid import input_grid_note
from mc_tco.results.points import nearest_point, scale_of
from mc_tco.results.ranking import rank_order

__all__ = [
    "Cancelled",
    "RunCache",
    "answer",
    "book_state",
    "check_edits",
    "check_model",
    "pdf",
    "results_json",
    "save_book",
]

PDF_POINTS = 80


class Cancelled(Exception):
    """A run stopped because the user asked, or a newer request replaced it."""


def check_model(book, started_model: str, started_file: Path | None = None) -> None:
    """Refuse a book whose model is neither the TCO model nor the app's own.

    A book opened in the browser names Python code to run; only the model the user chose
    when starting the app (``started_model``, the model of its book, defined in
    ``started_file`` when given: the same name found in another file is refused) or the
    TCO model shipped with mc_tco may run: not any other function importable from mc_tco.
    """
    model = book.model or bridge.DEFAULT_MODEL
    if model == bridge.DEFAULT_MODEL:
        return
    if model == started_model:
        found = bridge.model_file(book) if started_file is not None else None
        if started_file is None or found == started_file:
            return
        raise bridge.BookError(
            book.path, "book.model",
            f"'{model}' is the app's model name, but for this book it is "
            f"{found or 'not found'}, not the app's {started_file}; open the book from "
            "the folder of the app's model, or run it with 'mc-tco run' if you trust it",
        )
    raise bridge.BookError(
        book.path, "book.model",
        f"'{model}' is not allowed in the app: a book opened in the browser may only name "
        f"the app's model ({started_model}) or the TCO model ({bridge.DEFAULT_MODEL}); "
        "run it with 'mc-tco run' if you trust its code",
    )


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


def _error_json(exc: Exception, edits: dict) -> dict:
    where = getattr(exc, "where", None) or ""
    parts = where.split(".")
    name = parts[1] if len(parts) > 1 and parts[0] == "inputs" else None
    field = parts[2] if len(parts) > 2 and name else None
    if name is None and len(edits) == 1:
        name = next(iter(edits))
    return {"message": str(exc), "input": name, "field": field}


def edited_text(text: str, path: str, edits: dict) -> str:
    """The book text with ``edits`` applied, each changed input's source a prompt.

    An input edited back to its loaded family and parameters is left as it was.
    """
    base = bridge.loads_book(text, path)
    edits = {k: v for k, v in edits.items() if k in base.inputs}
    trial = bridge.loads_book(apply_edits(text, edits, path, {}), path)
    changed = {k: v for k, v in edits.items()
               if (trial.inputs[k].family, trial.inputs[k].params)
               != (base.inputs[k].family, base.inputs[k].params)}
    prompts = {k: source_prompt(base.inputs[k].describe(), base.inputs[k].source)
               for k in changed}
    return apply_edits(text, changed, path, prompts)


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
        new = edited_text(text, path, edits)
        book = bridge.loads_book(new, path)
        check_model(book, started_model, started_file)
        bridge.check_book(book)
    except bridge.McTcoError as exc:
        return {"ok": False, "error": _error_json(exc, edits)}
    return {"ok": True, "text": new,
            "inputs": {k: _input_json(book.inputs[k]) for k in edits if k in book.inputs}}


class RunCache:
    """Quick runs by (book text, samples, seed); the newest request of a tab wins.

    A tab's new request cancels its previous run (at the next chunk), so typing does not
    queue runs; other tabs are not affected.
    """

    def __init__(self, size: int = 8):
        self.size = size
        self.runs: OrderedDict[str, xr.Dataset] = OrderedDict()
        self.latest: dict[str, object] = {}
        self.lock = threading.Lock()
        self.cpu = threading.Semaphore(2)

    @staticmethod
    def key(text: str, samples: int, seed: int) -> str:
        """The cache key of a run: the book's text, its samples and seed."""
        return hashlib.sha256(f"{samples}:{seed}:{text}".encode()).hexdigest()

    def get(self, text: str, path: str, samples: int, seed: int, session: str = "",
            started_model: str = bridge.DEFAULT_MODEL,
            started_file: Path | None = None) -> xr.Dataset:
        """The results of the book ``text`` at ``samples`` and ``seed``: cached, or run now."""
        key = self.key(text, samples, seed)
        with self.lock:
            if key in self.runs:
                self.runs.move_to_end(key)
                return self.runs[key]
            token = object()
            if session:
                self.latest[session] = token
        book = bridge.loads_book(text, path)
        check_model(book, started_model, started_file)

        def progress(done, total):
            if session and self.latest.get(session) is not token:
                raise Cancelled("a newer change replaced this run")

        with self.cpu:
            progress(0, 1)
            ds = bridge.quick_run(book, samples, seed, progress=progress)
        with self.lock:
            self.runs[key] = ds
            while len(self.runs) > self.size:
                self.runs.popitem(last=False)
        return ds


def _strategies(ds: xr.Dataset, indicator: str) -> tuple[list[str], list[str]]:
    """(strategies compared with the baseline, baselines): a baseline's indicator is NaN or
    its saving is zero in every scenario."""
    p = ds["p_positive"].sel(target=indicator)
    compared, base = [], []
    for s in ds["strategy"].values.tolist():
        col = p.sel(strategy=s).values
        if np.all(np.isnan(col)) or (np.all(col == 0) and "saving" in ds
                                     and bool((ds["saving"].sel(strategy=s) == 0).all())):
            base.append(s)
        else:
            compared.append(s)
    return compared, base


def results_json(ds: xr.Dataset, elapsed: float | None = None) -> dict:
    """What the right-hand side draws, from a run's dataset (any model with a grid dim).

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
    dim = str(next(d for d in ds["p_positive"].dims if d not in ("target", "strategy")))
    grid = ds[dim].values.astype(float)
    strategies, baseline = _strategies(ds, indicator)
    out = {"dim": dim, "unit": ds[dim].attrs.get("units", ""), "grid": grid.tolist(),
           "target": target, "target_unit": ds[target].attrs.get("units", "")
           if target in ds else "", "indicator_label": ds.mc_tco.run.indicator_label,
           "strategies": strategies, "baseline": baseline, "n": int(ds.sizes["sample"]),
           "seed": ds.mc_tco.run.seed, "elapsed": elapsed,
           "book_sha256": ds.mc_tco.run.book_sha256,
           "note": input_grid_note(ds, "mc-tco run shows them all")}  # [grid.<input>]
    p = ds["p_positive"].sel(target=indicator)
    ci = ds["p_positive_ci"].sel(target=indicator)
    out["p"] = {s: {"p": [_num(v) for v in p.sel(strategy=s).values],
                    "lo": [_num(v) for v in ci.sel(strategy=s, ci_bound="lower").values],
                    "hi": [_num(v) for v in ci.sel(strategy=s, ci_bound="upper").values]}
                for s in strategies}
    tq = ds["target_quantile"].sel(target=target)
    out["fan"] = {"quantiles": tq["quantile"].values.tolist(),
                  "values": {s: [[_num(v) for v in tq.sel(strategy=s, quantile=q).values]
                                 for q in tq["quantile"].values] for s in strategies}}
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
    report = ds.mc_tco.report.get(dim) or []
    out["report"] = [nearest_point(grid, r, scale_of(dim)) for r in report]
    focus = ds.mc_tco.focus.get(dim)
    out["focus"] = float(focus) if focus is not None else (out["report"] or [grid[0]])[0]
    return out


def _nearest(ds: xr.Dataset, dim: str, value: float) -> float:
    return nearest_point(ds[dim].values, value, scale_of(dim))


def answer(ds: xr.Dataset, demand: float, top: int = 8) -> dict:
    """The answer at one point of the grid: the memo's sentence and the inputs by ST
    (by Shapley effect when the book's inputs are correlated and the run has them).

    The ranking follows the memo: by the indicator ("beats the API") when at least
    ``MIN_EVENTS`` scenarios win and as many lose, else by the target itself.
    """
    r = results_json(ds)
    dim = r["dim"]
    d = _nearest(ds, dim, demand)
    text = bridge.memo_answer(ds, d) if dim == "demand" else None
    if text is None:
        parts = []
        for s in r["strategies"]:
            i = r["grid"].index(d)
            parts.append(f"{s} {r['indicator_label']} in "
                         + bridge.fmt_pct_ci(r["p"][s]["p"][i], r["p"][s]["lo"][i],
                                             r["p"][s]["hi"][i]) + " of scenarios")
        text = f"At {dim} {bridge.fmt_tokens(d)}: " + "; ".join(parts) + "."
    text = text.replace("**", "")
    n = r["n"]
    ranking = {}
    for s in r["strategies"]:
        sel = {dim: d, "strategy": s}
        wins = round(float(ds["p_positive"].sel(target=f"{r['target']}>0", **sel)) * n) \
            if f"{r['target']}>0" in ds["target"].values else 0
        target = r["target"]
        if bridge.indicator_ranks(wins, n, ds["ST"].sel(target=f"{target}>0", **sel).values,
                                  ds["ST_conf"].sel(target=f"{target}>0", **sel).values):
            target = f"{target}>0"
        index = "ST"
        if "shapley" in ds and ds.mc_tco.correlations and target in ds["shapley"]["target"]:
            # correlated inputs: per-input Sobol' indices are not shares of the variance
            # any more; rank by the Shapley effects, as the memo and `explain` do, at the
            # nearest demand where the run estimated them (--shapley-at report)
            index = "shapley"
            sel = ds.mc_tco.shapley_point(**sel)
        st = ds[index].sel(target=target, **sel)
        conf = ds[f"{index}_conf"].sel(target=target, **sel)
        s1 = ds["S1"].sel(target=target, **sel) if index == "ST" else None
        order = rank_order(st.values, top=top)
        names = ds["input"].values
        rare = bridge.rare_note(ds, f"{r['target']}>0", {dim: d, "strategy": s})
        ranking[s] = {"target": target, "wins": wins, "index": index,
                      "rare": None if rare is None else {
                          "events": rare["events"], "rows": rare["rows"],
                          "nearest": rare["nearest_demand"], "note": rare["note"]},
                      "at": _num(sel[dim]), "rows": [
            [str(names[i]), _num(st.values[i]), _num(conf.values[i]),
             None if s1 is None else _num(s1.values[i])]
            for i in order]}
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
