"""Rerun a results file from what it stores, and compare two results files exactly.

A results file carries the book's text (``book_text``), where it came from
(``book_path``), and the keyword arguments of :func:`mc_tco.engine.run` (``run_options``,
JSON): enough to redo the run. :func:`rerun` does it; :func:`compare_results` says
whether every variable matches bit for bit and, if not, where the largest difference is.
The ``created`` attr is the only one two runs of the same book and options differ in
(and ``model_file`` when the rerun finds the same model at another path).

The file also records the SHA-256 of the model file the run executed (``model_sha256``):
:func:`rerun` refuses to execute a model file whose bytes changed since, unless told to
(:func:`check_model_unchanged`).
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from mc_tco.book import loads_book
from mc_tco.engine import plan_run, run
from mc_tco.engine.plan import shapley_permutations_for
from mc_tco.errors import ModelError, OptionError
from mc_tco.models import model_source_hash
from mc_tco.results.schema import DEFAULT_MODEL, VERSION_ATTRS

if TYPE_CHECKING:
    from mc_tco.book import Book
    from mc_tco.engine.schedule import Progress

__all__ = ["Comparison", "check_model_unchanged", "compare_results", "rerun", "stored_options"]



def stored_options(ds: xr.Dataset, source: str = "the results file") -> dict[str, Any]:
    """The keyword arguments of :func:`mc_tco.engine.run` stored in a results file.

    Read from the ``run_options`` attr (JSON), or from the older per-option attrs. An
    option that this version's :func:`run` does not take is an error (rerun with the
    version that wrote the file).

    Raises
    ------
    OptionError
    """
    stored = ds.mc_tco.run
    if stored.run_options is not None:
        try:
            options = json.loads(stored.run_options)
        except json.JSONDecodeError as exc:
            raise OptionError(f"{source}: the run_options attr is not JSON ({exc})") from None
        if not isinstance(options, dict):
            raise OptionError(f"{source}: the run_options attr is not a JSON object")
        if options.get("shapley") and "shapley_at" not in options:
            options["shapley_at"] = "grid"  # files from before --shapley-at had every point
        options.setdefault("sobol_at", "grid")  # and before --sobol-at, every point
    else:
        options = dict(stored.legacy_options)
        for k, v in list(options.items()):
            if isinstance(v, np.generic):
                options[k] = v.item()
        for flag in ("second_order", "by_group"):
            if flag in options:
                options[flag] = bool(options[flag])
        # files from before the randomized-QMC default had one bootstrapped scramble
        options.setdefault("ci", "bootstrap")
        # and no adaptive size; their family check, if any, is in the variables
        options.update(target_halfwidth=None, max_samples=None,
                       family_check="family_check_p_positive" in ds)
        # nor Shapley effects (issue 13)
        options.update(shapley="shapley" in ds, shapley_permutations=shapley_permutations_for(
            int(options.get("samples", 0))), shapley_at="grid" if "shapley" in ds else "report",
            sobol_at="grid")
    known = set(inspect.signature(plan_run).parameters) - {"book"}
    unknown = sorted(set(options) - known)
    if unknown:
        raise OptionError(
            f"{source}: stored option '{unknown[0]}' is not an option of this mc_tco "
            f"({stored.mc_tco_version} wrote the file); rerun with that version"
        )
    return options


def check_model_unchanged(ds: xr.Dataset, book: Book, source: str = "the results file") -> None:
    """Refuse when the model file ``book`` names now differs from the one the run executed.

    Compares the SHA-256 of the file found now (next to the book's stored path, in the
    working directory, or the installed module's; nothing is executed) with the file's
    ``model_sha256`` attr. A file written before that attr existed is not checked.

    Raises
    ------
    ModelError
        When the SHA-256 differs; the message says how to run it anyway.
    """
    stored = ds.mc_tco.run
    recorded = stored.model_sha256
    if not recorded:
        return
    now = model_source_hash(book)
    if now == recorded:
        return
    model = book.model or DEFAULT_MODEL
    found = (f"the model file found now has SHA-256 {now}" if now is not None
             else "no model file is found now")
    raise ModelError(
        f"{source}: model {model}: the run executed {stored.model_file or '?'} with "
        f"SHA-256 {recorded}, {found}; the model changed since the run, so rerun refuses "
        "to run it; pass --accept-model-change to run the model as it is now"
    )


def rerun(ds: xr.Dataset, source: str = "the results file", progress: Progress | None = None,
          accept_model_change: bool = False) -> xr.Dataset:
    """Run the book stored in results ``ds`` again, with the stored options.

    Parameters
    ----------
    ds : xr.Dataset
        A results file's contents (:func:`mc_tco.results.io.open_results`).
    source : str
        The results file's name, for messages.
    progress : callable, optional
        Passed to :func:`mc_tco.engine.run`.
    accept_model_change : bool
        Run the model even when its file's SHA-256 differs from the recorded one
        (:func:`check_model_unchanged`); by default that is refused before the model runs.

    Returns
    -------
    xr.Dataset
        The new results (compare them with :func:`compare_results`).

    Raises
    ------
    McTcoError
        When the file lacks the book, or the stored book or options no longer load (the
        message names the book's stored path), or the model file changed since the run.
    """
    stored = ds.mc_tco.run
    if stored.book_text is None:
        raise OptionError(f"{source}: no book_text attr; the file cannot be rerun")
    book = loads_book(stored.book_text, stored.book_path or source)
    options = stored_options(ds, source)
    if not accept_model_change:
        check_model_unchanged(ds, book, source)
    return run(book, **options, progress=progress)


@dataclass
class Difference:
    """How one variable differs between two results."""

    name: str
    reason: str
    max_abs: float = float("nan")
    max_rel: float = float("nan")


@dataclass
class Comparison:
    """The outcome of :func:`compare_results`."""

    variables: int
    differences: list[Difference] = field(default_factory=list)
    #: attr -> (first, second) for the attrs that differ (``created`` excluded)
    attrs: dict[str, tuple[Any, Any]] = field(default_factory=dict)

    @property
    def equal(self) -> bool:
        """Every variable (data and coordinates) identical, NaN and inf included."""
        return not self.differences

    @property
    def largest(self) -> Difference | None:
        """The numeric difference with the largest absolute value, or None when there is none."""
        numeric = [d for d in self.differences if np.isfinite(d.max_abs)]
        return max(numeric, key=lambda d: d.max_abs) if numeric else None

    def summary(self, first: str = "file", second: str = "rerun") -> str:
        """A few lines for the terminal."""
        if self.equal:
            lines = [f"every variable matches exactly ({self.variables} variables, "
                     "data and coordinates)"]
        else:
            lines = [f"{len(self.differences)} of {self.variables} variables differ: "
                     + ", ".join(d.name for d in self.differences[:12])
                     + (", ..." if len(self.differences) > 12 else "")]
            big = self.largest
            if big is not None:
                lines.append(f"largest difference: {big.name} by {big.max_abs:.3g} "
                             f"(relative {big.max_rel:.3g})")
            other = [d for d in self.differences if not np.isfinite(d.max_abs)]
            lines += [f"{d.name}: {d.reason}" for d in other[:5]]
        versions = {k: v for k, v in self.attrs.items() if k in VERSION_ATTRS}
        if versions:
            lines.append("versions differ: " + ", ".join(
                f"{k.removesuffix('_version')} {a} ({first}) vs {b} ({second})"
                for k, (a, b) in versions.items()))
        return "\n".join(lines)


def _differ(name: str, a: xr.Variable, b: xr.Variable) -> Difference | None:
    if a.dims != b.dims or a.shape != b.shape:
        return Difference(name, f"dims {dict(a.sizes)} vs {dict(b.sizes)}")
    x, y = np.asarray(a.values), np.asarray(b.values)
    if x.dtype.kind in "fc" or y.dtype.kind in "fc":
        x, y = x.astype(float), y.astype(float)
        if np.array_equal(x, y, equal_nan=True):
            return None
        both = np.isfinite(x) & np.isfinite(y)
        same_special = (np.isnan(x) & np.isnan(y)) | (~both & (x == y))
        if not (both | same_special).all():
            return Difference(name, "NaN or inf in different places")
        x, y = x[both], y[both]
        diff = np.abs(x - y)
        scale = np.maximum(np.abs(x), np.abs(y))
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(scale > 0, diff / scale, 0.0)
        return Difference(name, "values", float(diff.max()), float(rel.max()))
    if np.array_equal(x, y):
        return None
    return Difference(name, "labels differ")


def compare_results(first: xr.Dataset, second: xr.Dataset) -> Comparison:
    """Compare two results exactly: every variable, data and coordinates.

    Returns
    -------
    Comparison
        ``equal`` when every variable is identical (NaN where NaN, inf where inf); else the
        differing variables with their largest absolute and relative difference. Attrs
        that differ (but ``created``) are listed too; they do not count as a difference.
    """
    names = sorted(set(first.variables) | set(second.variables), key=str)
    out = Comparison(variables=len(names))
    for name in names:
        if name not in first.variables or name not in second.variables:
            where = "the first" if name not in first.variables else "the second"
            out.differences.append(Difference(str(name), f"missing in {where}"))
            continue
        d = _differ(str(name), first.variables[name], second.variables[name])
        if d is not None:
            out.differences.append(d)
    for key in sorted(set(first.attrs) | set(second.attrs)):
        if key == "created":
            continue
        a, b = first.attrs.get(key), second.attrs.get(key)
        if not np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)):
            out.attrs[key] = (a, b)
    return out
