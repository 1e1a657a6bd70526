"""Assumption books: hand-written TOML files that put a distribution on every model input.

A book has these tables::

    [book]                      name, description, model = "module:function" (optional)
    [grid.<dim>]                start, stop, num, spacing = "log" | "linear", unit
                                (or values = [...]); include = [...] adds exact points
    [analysis]                  targets, report, focus, distributions (all optional)
    [inputs.<name>]             dist = "<family>", the family's fields, unit, source, group
    [[correlation]]             between = [a, b], spearman = r (or kendall = tau), source
                                (optional, any number; pairs not listed are independent)

:func:`load_book` reads one and checks everything it can without the model: TOML syntax,
families, fields, types, ranges. The error names the file, the line when it can be found,
the input and the fix. The checks that need the model (inputs it requires, allowed ranges)
are in :mod:`mc_tco.models`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .copula import CorrelationError, CorrelationMatrix, check_correlation_matrix
from .distributions import (
    FAMILIES,
    LIST_FIELDS,
    SCALED_FIELDS,
    U_MIN,
    FieldProblem,
    build_distribution,
    ppf,
)
from .errors import BookError

__all__ = ["DEFAULT_BOOK", "Book", "Grid", "Input", "find_default_book", "load_book", "loads_book"]

_TOP_LEVEL = {"book", "grid", "analysis", "inputs", "correlation"}
_BOOK_FIELDS = {"name", "description", "model"}
_GRID_FIELDS = {"start", "stop", "num", "spacing", "unit", "include", "values", "description"}
_ANALYSIS_FIELDS = {"targets", "report", "focus", "distributions", "repair_correlations"}
_CORRELATION_FIELDS = {"between", "spearman", "kendall", "source"}
#: values of ``[analysis] repair_correlations``
REPAIRS = ("nearest",)
_INPUT_META = {"dist", "unit", "source", "group", "description"}
_MAX_GRID = 100_000
#: dims of the results file that the engine makes; a grid dim or an input cannot take them
RESERVED = ("sample", "input", "input_2", "target", "quantile", "ci_bound")


@dataclass(frozen=True)
class Input:
    """One input of a book: its family, parameters, frozen distribution and provenance.

    ``dist`` is a frozen ``scipy.stats`` distribution, or None for a constant, whose
    value is ``params["value"]``.
    """

    name: str
    family: str
    params: dict[str, Any]
    unit: str = ""
    source: str = ""
    group: str = ""
    description: str = ""
    dist: Any = None
    line: int | None = None
    #: how the book's unit was converted to the model's, e.g. "given in month, converted to
    #: year (/ 12)"; "" when the book used the model's unit
    unit_note: str = ""

    def in_unit(self, unit: str, factor: float = 1.0, note: str = "") -> Input:
        """This input in ``unit``: every field in the input's unit multiplied by ``factor``.

        ``factor`` must be positive (a change of scale, never of sign).
        """
        if factor == 1.0:
            return dataclasses.replace(self, unit=unit, unit_note=note)
        params = {
            k: ([x * factor for x in v] if isinstance(v, list) else v * factor)
            if k in SCALED_FIELDS else v
            for k, v in self.params.items()
        }
        dist = build_distribution(self.family, params)
        return dataclasses.replace(self, params=params, unit=unit, unit_note=note, dist=dist)

    @property
    def is_constant(self) -> bool:
        return self.family == "constant"

    @property
    def value(self) -> float:
        """The value of a constant input."""
        return float(self.params["value"])

    def ppf(self, u: np.ndarray) -> np.ndarray:
        """Map unit-cube coordinates ``u`` to values of this input.

        ``u`` is clipped to ``[U_MIN, 1 - U_MIN]`` (below the resolution of the Sobol'
        points), so a design point at exactly 0 maps to a finite value; the values are
        clipped to the support (scipy's truncnorm can overshoot it by rounding).
        """
        if self.is_constant:
            return np.full(np.shape(u), self.value)
        u = np.clip(np.asarray(u, dtype=float), U_MIN, 1 - U_MIN)
        lo, hi = self.support()
        return np.clip(ppf(self.dist, u), lo, hi)

    def quantiles(self, q) -> np.ndarray:
        """Quantiles of the input's distribution at probabilities ``q``."""
        q = np.asarray(q, dtype=float)
        if self.is_constant:
            return np.full(np.shape(q), self.value)
        return ppf(self.dist, q)

    def support(self) -> tuple[float, float]:
        """The smallest and largest value the input can take (may be infinite)."""
        if self.is_constant:
            return self.value, self.value
        lo, hi = self.dist.support()
        return float(lo), float(hi)

    @property
    def is_assumption(self) -> bool:
        """True when the source says the value is an analyst's assumption (or is missing)."""
        return not self.source or self.source.lower().startswith("assumption")

    def describe(self) -> str:
        """The family with its parameters, e.g. ``pert(min=0.4, mode=0.6, max=0.8)``."""
        if self.is_constant:
            return f"constant {self.value:g}"
        args = ", ".join(
            f"{k}={_fmt_param(v)}" for k, v in self.params.items() if not k.startswith("_")
        )
        return f"{self.family}({args})"


def _fmt_param(v) -> str:
    if isinstance(v, list | tuple):
        return "[" + ", ".join(f"{x:g}" for x in v) + "]"
    return f"{v:g}"


@dataclass(frozen=True, eq=False)
class Grid:
    """One grid dimension of the outcome, e.g. ``demand`` in tokens/month.

    Two grids are equal when every field is and their values are the same array
    (a dataclass's own ``==`` would compare the arrays elementwise and raise).
    """

    dim: str
    values: np.ndarray
    unit: str = ""
    spacing: str = "log"
    description: str = ""

    def with_points(self, points) -> Grid:
        """The grid with ``points`` added (points within 1e-9 relative replace grid points)."""
        values = list(self.values)
        for p in points:
            p = float(p)
            close = [i for i, v in enumerate(values) if abs(v - p) <= 1e-9 * max(abs(p), 1e-300)]
            if close:
                values[close[0]] = p
            else:
                values.append(p)
        return Grid(self.dim, np.array(sorted(values)), self.unit, self.spacing, self.description)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Grid):
            return NotImplemented
        return (self.dim, self.unit, self.spacing, self.description) == (
            other.dim, other.unit, other.spacing, other.description
        ) and np.array_equal(self.values, other.values)

    def __hash__(self) -> int:
        return hash((self.dim, self.unit, self.spacing, self.description,
                     np.asarray(self.values, dtype=float).tobytes()))


@dataclass
class Book:
    """An assumption book, loaded and checked (see :func:`load_book`)."""

    path: str
    text: str
    name: str
    description: str = ""
    model: str | None = None
    grid: dict[str, Grid] = field(default_factory=dict)
    analysis: dict[str, Any] = field(default_factory=dict)
    inputs: dict[str, Input] = field(default_factory=dict)
    #: the ``[[correlation]]`` tables as written (between, spearman or kendall, source)
    correlations: list[dict[str, Any]] = field(default_factory=list)
    #: their validated matrix over the uncertain inputs; None when there are none
    correlation: CorrelationMatrix | None = None

    def __repr__(self) -> str:
        """Short: a notebook shows the name, the file and what is in it, not the TOML."""
        n, k = len(self.inputs), len(self.uncertain)
        grid = ", ".join(f"{d}: {g.values.size}" for d, g in self.grid.items())
        return (f"<Book {self.name!r} from {self.path!r}: {n} inputs ({k} uncertain)"
                + (f", grid {grid}" if grid else "")
                + (f", {len(self.correlations)} correlation{'s' * (len(self.correlations) > 1)}"
                   if self.correlations else "")
                + (f", model {self.model}" if self.model else "") + ">")

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()

    @property
    def uncertain(self) -> list[Input]:
        """The sampled inputs, in book order (the order of the Sobol design's columns)."""
        return [i for i in self.inputs.values() if not i.is_constant]

    @property
    def constants(self) -> list[Input]:
        return [i for i in self.inputs.values() if i.is_constant]

    @property
    def stem(self) -> str:
        return Path(self.path).stem if self.path else "book"

    def error(self, where: str | None, message: str, field_name: str | None = None) -> BookError:
        """A :class:`BookError` for this book, located at ``where`` (e.g. ``inputs.x.low``)."""
        return BookError(self.path, where, message, _locate(self.text, where, field_name))


#: the book ``mc-tco run`` and ``mc-tco inputs`` read without an argument
DEFAULT_BOOK = "distributions/deepseek-v4.1-flash.toml"


def find_default_book() -> Path:
    """The default book: in ``distributions/`` of the working directory, else next to the
    package (the repository a checkout or an editable install runs from).

    Raises
    ------
    BookError
        When neither exists, saying where it was looked for and what to do.
    """
    candidates = [Path(DEFAULT_BOOK), Path(__file__).resolve().parents[1] / DEFAULT_BOOK]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise BookError(
        DEFAULT_BOOK,
        None,
        "the default book is not here nor next to the mc_tco package ("
        + ", ".join(str(c) for c in candidates)
        + "); give a book's path, e.g. mc-tco run path/to/book.toml",
    )


def load_book(path: str | Path) -> Book:
    """Read and check an assumption book.

    Parameters
    ----------
    path : str or Path
        A TOML file (see the module docstring for its tables).

    Returns
    -------
    Book

    Raises
    ------
    BookError
        With a one-line message naming the file, the line, the input and the fix.
    """
    p = Path(path)
    if str(path) == DEFAULT_BOOK and not p.exists():
        p = path = find_default_book()
    if p.is_dir():
        raise BookError(str(path), None, "is a folder; give the path of a .toml book")
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        hint = ""
        shipped = sorted(Path("distributions").glob("*.toml"))
        if shipped:
            hint = "; books here: " + ", ".join(str(s) for s in shipped)
        raise BookError(str(path), None, "no such file" + hint) from None
    except UnicodeDecodeError as exc:
        line = exc.object[: exc.start].count(b"\n") + 1
        raise BookError(
            str(path),
            None,
            f"is not UTF-8 text (byte {exc.object[exc.start]:#04x}: {exc.reason}); save the "
            "file as UTF-8 in your editor",
            line,
        ) from None
    except OSError as exc:
        raise BookError(str(path), None, f"cannot be read ({exc.strerror})") from None
    return loads_book(text, str(path))


def loads_book(text: str, path: str = "<book>") -> Book:
    """Parse and check a book from its TOML ``text``; ``path`` is used in messages.

    A UTF-8 byte order mark (Windows editors write one) is dropped.
    """
    text = text.removeprefix("\ufeff")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        msg = str(exc)
        m = re.search(r"\(at line (\d+), column (\d+)\)", msg)
        line = int(m.group(1)) if m else None
        what = re.sub(r"\s*\(at line \d+, column \d+\)", "", msg) if m else msg
        where = f"column {m.group(2)}" if m else None
        fix = "check quotes, brackets and 'key = value' on this line"
        bad_line = text.splitlines()[line - 1] if line and line <= len(text.splitlines()) else ""
        if "Unescaped '\\'" in what or ("\\" in bad_line and '"' in bad_line):
            fix = ("a backslash in \"...\" starts an escape; write a Windows path in single "
                   "quotes, e.g. source = 'C:\\finance\\prices.xlsx', or use / or \\\\")
        raise BookError(path, where, f"TOML syntax error: {what}; {fix}", line) from None
    return _from_dict(data, text, path)


def _from_dict(data: dict, text: str, path: str) -> Book:
    def err(where, message, field_name=None):
        return BookError(path, where, message, _locate(text, where, field_name))

    unknown = sorted(set(data) - _TOP_LEVEL)
    if unknown:
        raise err(
            unknown[0],
            f"unknown table or key '{unknown[0]}'; a book has [book], [grid.<dim>], "
            "[analysis], [inputs.<name>] and [[correlation]]",
        )
    meta = _table(data, "book", err)
    _no_unknown(meta, _BOOK_FIELDS, "book", err)
    book_name = _string(meta, "name", "book", err, default=Path(path).stem)
    description = _string(meta, "description", "book", err, default="")
    model = _string(meta, "model", "book", err, default=None)
    if model is not None and not re.fullmatch(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*", model):
        raise err(
            "book.model",
            f"'{model}' is not of the form 'module:function' "
            "(e.g. 'mc_tco.models.tco:model' or 'my_model:run')",
            "model",
        )

    grids = {}
    for dim, spec in _table(data, "grid", err).items():
        grids[dim] = _grid(dim, spec, err)

    analysis = _analysis(_table(data, "analysis", err), err)

    raw_inputs = _table(data, "inputs", err)
    if not raw_inputs:
        raise err(
            None,
            "the book has no inputs; add at least one [inputs.<name>] table with a 'dist' field",
        )
    inputs = {}
    for name, spec in raw_inputs.items():
        inputs[name] = _input(name, spec, text, err)
        if name in grids:
            raise err(
                f"inputs.{name}",
                f"'{name}' is both an input and a grid dimension ([grid.{name}]); rename one",
            )
    correlations, matrix = _correlations(data.get("correlation", []), inputs, analysis, text,
                                         path)
    return Book(
        path=path,
        text=text,
        name=book_name,
        description=description,
        model=model,
        grid=grids,
        analysis=analysis,
        inputs=inputs,
        correlations=correlations,
        correlation=matrix,
    )


# ---------------------------------------------------------------------------- pieces


def _table(data: dict, key: str, err) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise err(key, f"'{key}' must be a table ([{key}] or [{key}.<name>]), not a value")
    return value


def _no_unknown(table: dict, allowed: set, where: str, err) -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        raise err(
            f"{where}.{extra[0]}",
            f"unknown field '{extra[0]}'; allowed here: {', '.join(sorted(allowed))}",
            extra[0],
        )


def _string(table: dict, key: str, where: str, err, default):
    if key not in table:
        return default
    value = table[key]
    if not isinstance(value, str):
        raise err(
            f"{where}.{key}", f"must be a string in quotes, got {_show(value)}", key
        )
    return value


def _show(value) -> str:
    if isinstance(value, str):
        return f"the string '{value}'"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, int) and abs(value) >= 10**20:
        return f"a {len(str(abs(value)))}-digit integer"
    return repr(value)


def _number(value, where: str, key: str, err) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        hint = _number_hint(value, key) if isinstance(value, str) else ""
        raise err(f"{where}.{key}", f"{key} must be a number, got {_show(value)}{hint}", key)
    try:
        value = float(value)
    except OverflowError:  # a TOML integer beyond the float range
        value = math.inf if value > 0 else -math.inf
    if not math.isfinite(value):
        raise err(f"{where}.{key}", f"{key} must be a finite number, got {value}", key)
    return value


def _number_hint(text: str, key: str) -> str:
    """How to write the string ``text`` as a TOML number: ``"0,028"`` (a decimal comma) ->
    0.028, ``"1,500"`` (thousands) -> 1500, ``"10%"`` -> 0.1, ``"400_000"`` -> 400000."""
    s = text.strip().replace("_", "").replace(" ", "")
    m = re.fullmatch(r"([-+]?\d+(?:[.,]\d+)?)%", s)
    if m:
        v = float(m.group(1).replace(",", "."))
        return (f"; write {key} = {v / 100:g} ({text.strip()} as a fraction, no quotes; "
                'or keep the number and write unit = "%")')
    if re.fullmatch(r"[-+]?[1-9]\d{0,2}(,\d{3})+", s):  # thousands separators
        v = float(s.replace(",", ""))
        shown = f"{int(v)}" if abs(v) < 1e15 else f"{v:g}"
        if re.fullmatch(r"[-+]?\d+,\d{3}", s):  # "1,500": thousands or a decimal comma
            alt = float(s.replace(",", "."))
            return (f"; write {key} = {shown} (no quotes), or {key} = {alt:g} if the comma "
                    "is a decimal point")
        return f"; write {key} = {shown} (no quotes)"
    if re.fullmatch(r"[-+]?\d*,\d+", s):  # a decimal comma: "0,028"
        return (f"; write {key} = {float(s.replace(',', '.')):g} (a decimal point, not a "
                "comma, and no quotes)")
    with contextlib.suppress(ValueError):
        return f"; write {key} = {float(s):g} (no quotes)"
    return f"; write it without quotes, e.g. {key} = 400000"


def _grid(dim: str, spec, err) -> Grid:
    where = f"grid.{dim}"
    if not isinstance(spec, dict):
        raise err(where, f"[grid.{dim}] must be a table with start, stop, num, spacing")
    if not dim.isidentifier():
        raise err(where, f"grid dimension '{dim}' must be a plain name (letters, digits, _)")
    if dim in RESERVED:
        raise err(
            where,
            f"'{dim}' is a dimension of the results file; name the grid otherwise "
            f"(reserved: {', '.join(RESERVED)})",
        )
    _no_unknown(spec, _GRID_FIELDS, where, err)
    unit = _string(spec, "unit", where, err, default="")
    description = _string(spec, "description", where, err, default="")
    if "values" in spec:
        clash = sorted({"start", "stop", "num", "spacing"} & set(spec))
        if clash:
            raise err(
                f"{where}.{clash[0]}",
                f"give either values = [...] or start/stop/num, not both ('{clash[0]}')",
                clash[0],
            )
        values = _number_list(spec["values"], where, "values", err)
        if not values:
            raise err(f"{where}.values", "values must list at least one point", "values")
        grid = Grid(dim, np.array(sorted(set(values))), unit, "values", description)
    else:
        missing = [k for k in ("start", "stop", "num") if k not in spec]
        if missing:
            raise err(
                where,
                f"missing field '{missing[0]}'; a grid needs start, stop and num "
                "(or values = [...])",
            )
        start = _number(spec["start"], where, "start", err)
        stop = _number(spec["stop"], where, "stop", err)
        num = spec["num"]
        if isinstance(num, bool) or not isinstance(num, int):
            raise err(f"{where}.num", f"num must be a whole number, got {_show(num)}", "num")
        if not 1 <= num <= _MAX_GRID:
            raise err(f"{where}.num", f"num ({num}) must lie in 1..{_MAX_GRID}", "num")
        spacing = _string(spec, "spacing", where, err, default="log")
        if spacing not in ("log", "linear"):
            raise err(
                f"{where}.spacing",
                f"spacing must be \"log\" or \"linear\", got '{spacing}'",
                "spacing",
            )
        if start >= stop:
            raise err(
                f"{where}.start",
                f"start ({start:g}) must be below stop ({stop:g}); swap them",
                "start",
            )
        if spacing == "log":
            if start <= 0:
                raise err(
                    f"{where}.start",
                    f"a log-spaced grid needs start > 0, got {start:g}; "
                    'use spacing = "linear" or a positive start',
                    "start",
                )
            values = np.geomspace(start, stop, num)
        else:
            values = np.linspace(start, stop, num)
        grid = Grid(dim, values, unit, spacing, description)
    if "include" in spec:
        grid = grid.with_points(_number_list(spec["include"], where, "include", err))
    return grid


def _number_list(value, where: str, key: str, err) -> list[float]:
    if not isinstance(value, list):
        raise err(f"{where}.{key}", f"{key} must be a list of numbers, got {_show(value)}", key)
    return [_number(v, where, key, err) for v in value]


def _analysis(spec: dict, err) -> dict:
    _no_unknown(spec, _ANALYSIS_FIELDS, "analysis", err)
    out: dict[str, Any] = {}
    for key in ("targets", "distributions"):
        if key in spec:
            value = spec[key]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise err(
                    f"analysis.{key}",
                    f"{key} must be a list of output names in quotes, e.g. {key} = [\"saving\"]",
                    key,
                )
            if key == "targets" and not value:
                raise err("analysis.targets", "targets must name at least one output", key)
            out[key] = list(value)
    if "report" in spec:
        report = spec["report"]
        if not isinstance(report, dict):
            raise err(
                "analysis.report",
                "report must be a table of dimension = [points], "
                'e.g. report = { demand = [1e11, 5e11], strategy = ["buy"] }',
                "report",
            )
        out["report"] = {}
        for dim, pts in report.items():
            if not isinstance(pts, list) or not pts:
                raise err(
                    f"analysis.report.{dim}", f"report.{dim} must be a non-empty list", "report"
                )
            if all(isinstance(v, str) for v in pts):
                out["report"][dim] = list(pts)
            else:
                out["report"][dim] = _number_list(pts, "analysis.report", dim, err)
    if "repair_correlations" in spec:
        repair = spec["repair_correlations"]
        if repair not in REPAIRS:
            raise err(
                "analysis.repair_correlations",
                f"repair_correlations must be \"nearest\" (Higham's nearest valid "
                f"correlation matrix), got {_show(repair)}; or leave it out",
                "repair_correlations",
            )
        out["repair_correlations"] = repair
    if "focus" in spec:
        focus = spec["focus"]
        if not isinstance(focus, dict):
            raise err(
                "analysis.focus",
                'focus must be a table, e.g. focus = { demand = 5e11, strategy = "buy" }',
                "focus",
            )
        out["focus"] = {
            k: (v if isinstance(v, str) else _number(v, "analysis.focus", k, err))
            for k, v in focus.items()
        }
    return out


def _input(name: str, spec, text: str, err) -> Input:
    where = f"inputs.{name}"
    if not name.isidentifier():
        raise err(where, f"input name '{name}' must be a plain name (letters, digits, _)")
    if name in RESERVED:
        raise err(
            where,
            f"'{name}' is a dimension of the results file; rename the input "
            f"(reserved: {', '.join(RESERVED)})",
        )
    if not isinstance(spec, dict):
        raise err(
            where,
            f"{name} must be a table, e.g. [inputs.{name}] with dist = \"uniform\", low, high",
        )
    if "dist" not in spec:
        raise err(
            where,
            "missing field 'dist'; add dist = \"<family>\" (one of "
            + ", ".join(FAMILIES)
            + ")",
        )
    family = spec["dist"]
    if not isinstance(family, str) or family not in FAMILIES:
        shown = family if isinstance(family, str) else _show(family)
        close = _closest(str(family), FAMILIES)
        hint = f"; did you mean '{close}'?" if close else "."
        raise err(
            f"{where}.dist",
            f"unknown family '{shown}'{hint} Families: {', '.join(FAMILIES)}",
            "dist",
        )
    fam = FAMILIES[family]
    allowed = set(fam.required) | set(fam.optional) | _INPUT_META
    for alt in fam.alternatives:
        allowed |= set(alt)
    extra = sorted(set(spec) - allowed)
    if extra:
        raise err(
            f"{where}.{extra[0]}",
            f"unknown field '{extra[0]}' for a {family} input; it takes "
            + _fields_hint(fam),
            extra[0],
        )
    required = list(fam.required)
    if fam.alternatives:
        chosen = [alt for alt in fam.alternatives if any(k in spec for k in alt)]
        if len(chosen) != 1:
            raise err(
                where,
                f"a {family} input takes either "
                + " or ".join("(" + ", ".join(a) + ")" for a in fam.alternatives)
                + f", e.g. {fam.example}",
            )
        required += list(chosen[0])
        if chosen[0] == ("median", "sigma") and "ci" in spec:
            raise err(f"{where}.ci", "ci goes with low/high, not with median/sigma", "ci")
    for key in required:
        if key not in spec:
            raise err(
                where, f"missing field '{key}' for a {family} input; e.g. {fam.example}"
            )
    def parse(key):
        if key in LIST_FIELDS:
            return _number_list(spec[key], where, key, err)
        return _number(spec[key], where, key, err)

    params: dict[str, Any] = {key: parse(key) for key in required}
    for key, default in fam.optional.items():
        if key == "ci" and "median" in params:
            continue  # ci belongs to the (low, high) form of the lognormal
        params[key] = parse(key) if key in spec else default
    try:
        dist = build_distribution(family, params)
    except FieldProblem as exc:
        raise err(
            f"{where}.{exc.field}" if exc.field else where, str(exc), exc.field
        ) from None
    meta = {k: _string(spec, k, where, err, default="") for k in ("unit", "source", "group")}
    description = _string(spec, "description", where, err, default="")
    return Input(
        name=name,
        family=family,
        params=params,
        unit=meta["unit"],
        source=meta["source"],
        group=meta["group"],
        description=description,
        dist=dist,
        line=_locate(text, where, None),
    )


def _correlations(raw, inputs: dict[str, Input], analysis: dict, text: str, path: str):
    """The ``[[correlation]]`` tables, checked, and their matrix (None without any)."""
    def err(index, message, field_name=None):
        where = "correlation" if index is None else f"correlation {index + 1}"
        return BookError(path, where, message, _locate_correlation(text, index, field_name))

    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        raise err(None, "correlations are tables: write each pair as [[correlation]] "
                  'with between = ["a", "b"], spearman = 0.5 and source = "..."')
    pairs = []
    for index, corr in enumerate(raw):
        extra = sorted(set(corr) - _CORRELATION_FIELDS)
        if extra:
            raise err(index, f"unknown field '{extra[0]}'; a [[correlation]] takes between, "
                      "spearman or kendall, and source", extra[0])
        if "between" not in corr:
            raise err(index, 'missing field \'between\'; add between = ["a", "b"] naming two '
                      "uncertain inputs")
        source = corr.get("source", "")
        if not isinstance(source, str):
            raise err(index, f"source must be a string in quotes, got {_show(source)}",
                      "source")
        pairs.append(dict(corr))
    uncertain = [i.name for i in inputs.values() if not i.is_constant]
    try:
        matrix = check_correlation_matrix(list(inputs), pairs, uncertain,
                                          repair=analysis.get("repair_correlations"))
    except CorrelationError as exc:
        index = exc.index
        if index is None and exc.pair is not None:  # the pair that moved most, if written
            key = set(exc.pair)
            index = next((i for i, c in enumerate(pairs)
                          if isinstance(c.get("between"), list) and set(c["between"]) == key),
                         None)
        raise err(index, exc.reason, exc.field if exc.index is not None else None) from None
    if not pairs:
        return [], None
    written = []
    for corr in pairs:
        kind = "kendall" if "kendall" in corr else "spearman"
        written.append({"between": list(corr["between"]), "kind": kind,
                        "value": float(corr[kind]), "source": corr.get("source", "")})
    return written, matrix


def _locate_correlation(text: str, index: int | None, field_name: str | None) -> int | None:
    """Line of the ``index``-th ``[[correlation]]`` header (or of its ``field_name``)."""
    lines = text.splitlines()
    headers = [i for i, line in enumerate(lines)
               if re.match(r"^\s*\[\[\s*correlation\s*\]\]", line)]
    if not headers:  # correlation = ... as a key, or [correlation] as one table
        pat = re.compile(r"^\s*(\[\s*correlation\s*\]|correlation\s*=)")
        return next((i + 1 for i, line in enumerate(lines) if pat.match(line)), None)
    header = headers[0] if index is None or index >= len(headers) else headers[index]
    if field_name:
        pat = re.compile(rf"^\s*{re.escape(field_name)}\s*=")
        for i in range(header + 1, len(lines)):
            if lines[i].lstrip().startswith("["):
                break
            if pat.match(lines[i]):
                return i + 1
    return header + 1


def _fields_hint(fam) -> str:
    fields = list(fam.required) + [f"{k} = {v:g}" for k, v in fam.optional.items()]
    for alt in fam.alternatives:
        fields.append("(" + ", ".join(alt) + ")")
    return ", ".join(fields) + " and unit, source, group, description"


def _closest(word: str, choices) -> str | None:
    import difflib

    found = difflib.get_close_matches(word.lower(), list(choices), n=1, cutoff=0.6)
    return found[0] if found else None


# ---------------------------------------------------------------------------- lines


def _key(part: str) -> str:
    """Regex of a TOML key, bare or quoted."""
    return rf"""(?:{re.escape(part)}|"{re.escape(part)}"|'{re.escape(part)}')"""


def _locate(text: str, where: str | None, field_name: str | None) -> int | None:
    """Best-effort line number of ``where`` (``inputs.x`` / ``grid.demand`` / ...) in ``text``."""
    if not where or not text:
        return None
    parts = where.split(".")
    lines = text.splitlines()
    header = None
    # [a.b] table header, or "b = {" inline table inside [a]
    for depth in range(len(parts), 0, -1):
        name = r"\s*\.\s*".join(_key(p) for p in parts[:depth])
        pat = re.compile(rf"^\s*\[\s*{name}\s*\]")
        for i, line in enumerate(lines):
            if pat.match(line):
                header = i
                break
        if header is not None:
            break
        if depth >= 2:
            key = _key(parts[depth - 1])
            parent = r"\s*\.\s*".join(_key(p) for p in parts[: depth - 1])
            parent_pat = re.compile(rf"^\s*\[\s*{parent}\s*\]")
            inside = False
            for i, line in enumerate(lines):
                if line.lstrip().startswith("["):
                    inside = bool(parent_pat.match(line))
                    continue
                if inside and re.match(rf"^\s*{key}\s*=", line):
                    return i + 1
    if header is None:
        # a table given only through sub-tables ([input.x] for "input"), or a top-level
        # "key = value" before the first table
        name = r"\s*\.\s*".join(_key(p) for p in parts)
        sub = re.compile(rf"^\s*\[\s*{name}\s*\.")
        key = re.compile(rf"^\s*{name}\s*=") if len(parts) == 1 else None
        before_tables = True
        for i, line in enumerate(lines):
            if sub.match(line):
                return i + 1
            if line.lstrip().startswith("["):
                before_tables = False
            elif before_tables and key is not None and key.match(line):
                return i + 1
        return None
    if field_name:
        pat = re.compile(rf"^\s*{re.escape(field_name)}\s*=")
        for i in range(header + 1, len(lines)):
            if lines[i].lstrip().startswith("["):
                break
            if pat.match(lines[i]):
                return i + 1
    return header + 1
