"""Property-based fuzz of the book loader: any TOML document loads or says what to fix.

Every generated document either loads into a book whose distributions give finite, ordered
values everywhere the design can sample, or raises the project's own :class:`McTcoError`
with a one-line message that starts with the file name; never another exception. The
documents are random TOML structures, random edits of the shipped books (wrong types,
NaN / inf, huge and subnormal numbers, swapped bounds, missing and extra keys, unicode
names, nested tables, other families) and character-level damage of the book text.

Derandomized (the same examples on every run) so CI is stable; sized to run in well under
a minute on 2 cores. ``MC_TCO_FUZZ_SCALE=20 pytest tests/book/test_fuzz_books.py`` tries 20
times as many fresh (random) examples, for a longer hunt outside CI.
"""

from __future__ import annotations

import collections
import datetime
import json
import math
import os
import re
import sys
import tomllib

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, currently_in_test_context, given, settings
from hypothesis import event as _event
from hypothesis import strategies as st

from mc_tco.book import Book, loads_book
from mc_tco.distributions.families import FAMILIES
from mc_tco.engine import execute, plan_run
from mc_tco.errors import BookError, McTcoError
from mc_tco.report.terminal import inputs_table, run_table
from tests.paths import ARTICLE_BOOK, BAD_BOOKS, DEFAULT_BOOK

#: the path given to the loader: its folder holds book_models.py (a harmless model)
PATH = str(BAD_BOOKS / "fuzz.toml")

#: > 1: that many times the examples, drawn afresh (not derandomized)
SCALE = int(os.environ.get("MC_TCO_FUZZ_SCALE", "1"))
FUZZ = settings(
    derandomize=SCALE == 1,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate, Phase.shrink],  # no slow "explain" phase
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

#: the least share of each running fuzz test's examples that must load and run, well
#: below what the derandomized examples reach (random 8-25 loaded of 250, edited 15
#: and 4 of 40, families 53-57 and 24-39 of 400: which examples a run reaches depends on
#: what ran before in the process, e.g. warnings already shown; a CI run of the whole suite
#: reached 8 loaded and 1 run of 250 random documents, one run of the test alone 17 and 6).
#: Each bound still fails a loader that refuses everything, the failure it is there to
#: catch; random documents rarely make a runnable book, so that a planner or a run refuses
#: everything is caught by the edited and families fuzzers' bounds, not the random one's.
MINIMUM = {"random": {"loaded": 0.02, "ran": 0.0},
           "edited": {"loaded": 0.20, "ran": 0.025},
           "families": {"loaded": 0.08, "ran": 0.03}}

# ------------------------------------------------------------------------ TOML writer

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def _str(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _key(k: str) -> str:
    return k if _BARE.match(k) else _str(k)


def _value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _str(v)
    if isinstance(v, datetime.date | datetime.time):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def to_toml(data: dict, path: tuple[str, ...] = ()) -> str:
    """A TOML document for ``data`` (sub-tables as [headers], others inline)."""
    lines = []
    if path:
        lines.append("[" + ".".join(_key(p) for p in path) + "]")
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    for k, v in data.items():
        if k not in tables:
            lines.append(f"{_key(k)} = {_value(v)}")
    text = "\n".join(lines) + "\n"
    for k, v in tables.items():
        text += "\n" + to_toml(v, (*path, k))
    return text


# ------------------------------------------------------------------------ strategies

SHIPPED = {p.name: tomllib.loads(p.read_text()) for p in (DEFAULT_BOOK, ARTICLE_BOOK)}
FIELDS = sorted(
    {f for fam in FAMILIES.values() for f in (*fam.required, *fam.optional)}
    | {f for fam in FAMILIES.values() for alt in fam.alternatives for f in alt}
    | {"dist", "unit", "source", "group", "description"}
)
GRID_FIELDS = ["start", "stop", "num", "spacing", "unit", "include", "values", "description"]
#: model paths the fuzz may name: never an arbitrary importable function
MODELS = [
    "mc_tco.models.tco:model",
    "book_models:total",
    "book_models:wrong_dims",
    "book_models:NOT_CALLABLE",
    "book_models:no_such_function",
    "no_such_module_xyz:model",
    "mc_tco.models.tco:INPUTS",
    "not a model path",
    "",
]
_MODEL_FORM = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")

names = st.one_of(
    st.sampled_from(["x", "y", "demand", "sample", "input", "node_price", "utilization"]),
    st.text(min_size=0, max_size=6),  # unicode, spaces, dots, empty
)
special_numbers = st.sampled_from(
    [0, -0.0, 1, -1, 0.5, 1.5, 1e308, -1e308, 1e-300, 5e-324, 2**63 - 1, -(2**63),
     10**400, -(10**30), math.nan, math.inf, -math.inf, 1e16, 0.1]
)
numbers = st.one_of(
    special_numbers,
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(min_value=-(10**20), max_value=10**20),
)
scalars = st.one_of(
    numbers,
    st.text(max_size=8),
    st.booleans(),
    st.dates(),
    st.sampled_from([*FAMILIES, "log", "linear", "uniformm", "saving", "buy", "400,000"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(names, inner, max_size=3)
    ),
    max_leaves=6,
)


def _input_tables():
    field = st.one_of(st.sampled_from(FIELDS), names)
    return st.dictionaries(field, st.one_of(numbers, values), max_size=6)


def _sanitize(data):
    """Replace a book.model that could import an arbitrary module by a safe one."""
    book = data.get("book")
    model = book.get("model") if isinstance(book, dict) else None
    if isinstance(model, str) and model not in MODELS and _MODEL_FORM.fullmatch(model):
        book["model"] = "no_such_module_xyz:model"
    return data


random_books = st.fixed_dictionaries(
    {},
    optional={
        "book": st.fixed_dictionaries(
            {}, optional={"name": values, "model": st.one_of(st.sampled_from(MODELS), values),
                          "description": values}
        ),
        "grid": st.dictionaries(
            names,
            st.one_of(st.dictionaries(st.sampled_from(GRID_FIELDS), values, max_size=5), values),
            max_size=2,
        ),
        "analysis": st.dictionaries(
            st.sampled_from(["targets", "report", "focus", "distributions", "other"]),
            values, max_size=3,
        ),
        "inputs": st.one_of(
            st.dictionaries(
                names,
                st.one_of(
                    st.fixed_dictionaries({"dist": st.sampled_from(list(FAMILIES))}).flatmap(
                        lambda d: st.dictionaries(
                            st.sampled_from(FIELDS), numbers, max_size=5
                        ).map(lambda rest, d=d: {**rest, **d})
                    ),
                    _input_tables(),
                    values,
                ),
                max_size=4,
            ),
            values,
        ),
    },
).map(lambda d: _sanitize(d))


#: plain names, including the engine's own dims and non-ASCII identifiers
idents = st.one_of(
    st.sampled_from(["x", "y", "z", "demand", "sample", "input", "target", "quantile",
                     "ci_bound", "total", "é", "ℌ", "strategy"]),
    st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,5}", fullmatch=True),
    st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True),
)
plausible = st.one_of(
    st.integers(-3, 12),
    st.floats(-10, 10),
    st.sampled_from([0.0, 1.0, 0.5, 1e-9, 1e9, 1e13, 0.999999, 1.000001]),
    special_numbers,
)


#: numbers of every magnitude a double holds, to push scipy to its limits
magnitudes = st.builds(
    lambda m, e: m * 10.0**e,
    st.floats(0.1, 10),
    st.one_of(st.integers(-5, 15), st.integers(-300, 300)),
)


def _valid_params(draw, family: str) -> dict:
    """Fields that pass the family's checks, at any magnitude (scipy's limits are fuzzed)."""
    scale = draw(st.one_of(st.just(1.0), magnitudes))
    sign = draw(st.sampled_from([1, -1]))
    lo = sign * draw(magnitudes) if draw(st.booleans()) else draw(st.floats(-10, 10))
    width = scale * draw(st.floats(1e-6, 10))
    a, b = sorted([lo, lo + width])
    pos = draw(magnitudes)
    match family:
        case "constant":
            return {"value": lo}
        case "uniform" | "truncnormal" if family == "uniform":
            return {"low": a, "high": b}
        case "loguniform":
            return {"low": pos, "high": pos * draw(st.floats(1.001, 1e6))}
        case "triangular" | "pert":
            p = {"min": a, "mode": a + (b - a) * draw(st.floats(0, 1)), "max": b}
            if family == "pert" and draw(st.booleans()):
                p["shape"] = draw(magnitudes)
            return p
        case "normal":
            if draw(st.booleans()):
                return {"low": a, "high": b, "ci": draw(st.floats(1e-6, 1 - 1e-6))}
            return {"mean": lo, "sd": pos}
        case "truncnormal":
            side = draw(st.sampled_from(["both", "low", "high"]))
            p = {"mean": lo, "sd": pos, "low": a, "high": b}
            if side != "both":
                del p["high" if side == "low" else "low"]
            return p
        case "lognormal":
            if draw(st.booleans()):
                return {"median": pos, "sigma": draw(st.one_of(magnitudes, st.floats(0.01, 3)))}
            if draw(st.booleans()):
                return {"mean": pos, "sd": pos * draw(st.one_of(magnitudes, st.floats(0.01, 3)))}
            return {"low": pos, "high": pos * draw(st.floats(1.001, 1e6)),
                    "ci": draw(st.floats(1e-6, 1 - 1e-6))}
        case "beta":
            p = {"a": draw(magnitudes), "b": draw(magnitudes)}
            if draw(st.booleans()):
                p.update(low=a, high=b)
            return p
        case "discrete":
            n = draw(st.integers(1, 4))
            vals = draw(st.lists(st.one_of(magnitudes, plausible), min_size=n, max_size=n,
                                 unique=True))
            return {"values": vals, "weights": [1 / n] * n}
        case "exponential":
            p = {"scale": pos}
            if draw(st.booleans()):
                p["loc"] = lo
            return p
        case "gamma" | "weibull" | "loglogistic":
            loc = lo if draw(st.booleans()) else 0.0
            if draw(st.booleans()):
                p = {"shape": draw(st.one_of(magnitudes, st.floats(0.05, 20))), "scale": pos}
            else:
                low = loc + pos
                p = {"low": low, "high": loc + pos * draw(st.floats(1.01, 1e3)),
                     "ci": draw(st.floats(0.5, 0.99))}
            if loc or draw(st.booleans()):
                p["loc"] = loc
            return p
        case "gumbel" | "gumbel_min":
            if draw(st.booleans()):
                return {"low": a, "high": b, "ci": draw(st.floats(1e-6, 1 - 1e-6))}
            return {"loc": lo, "scale": pos}
        case "student_t":
            p = {"df": draw(st.one_of(magnitudes, st.floats(0.5, 50)))}
            if draw(st.booleans()):
                p.update(loc=lo, scale=pos)
            return p
        case "empirical":  # bad_books/fuzz_data.csv: x numbers, y a word in row 3
            return {"file": draw(st.sampled_from(["fuzz_data.csv"] * 3 + ["no_such.csv"])),
                    "column": draw(st.sampled_from(["x", "x", "y", "z"]))}
    raise AssertionError(family)


@st.composite
def family_inputs(draw):
    """An input table of a real family: valid fields at any magnitude, or random numbers."""
    family = draw(st.sampled_from(list(FAMILIES)))
    if draw(st.integers(0, 9)) < 8:
        spec = {"dist": family, **_valid_params(draw, family)}
    else:
        fam = FAMILIES[family]
        keys = list(fam.required)
        if fam.alternatives:
            keys += list(draw(st.sampled_from(fam.alternatives)))
        keys += [k for k in fam.optional if draw(st.booleans())]
        spec = {"dist": family}
        for k in keys:
            if k in ("values", "weights"):
                n = draw(st.integers(0, 4))
                spec[k] = draw(st.lists(plausible, min_size=n, max_size=n))
            else:
                spec[k] = draw(plausible)
    if draw(st.integers(0, 19)) == 0:  # now and then one wrong field or type
        spec[draw(st.sampled_from(FIELDS))] = draw(values)
    return spec


@st.composite
def family_books(draw):
    """Books of the harmless model ``book_models:total`` with fuzzed inputs and grid."""
    return to_toml(draw(family_book_data()))


@st.composite
def family_book_data(draw):
    """The tables of a :func:`family_books` book."""
    data = {"book": {"name": draw(st.text(max_size=10)), "model": "book_models:total"}}
    if draw(st.integers(0, 2)) == 0:
        grid = {}
        if draw(st.booleans()):
            grid["values"] = draw(st.lists(st.one_of(plausible, magnitudes), max_size=4))
        else:
            a, b = sorted(draw(st.lists(st.one_of(magnitudes, plausible), min_size=2,
                                        max_size=2)))
            grid.update(start=a, stop=b, num=draw(st.one_of(st.integers(1, 30), plausible)))
            if draw(st.booleans()):
                grid["spacing"] = draw(st.sampled_from(["log", "linear", "linear", "cubic"]))
        if draw(st.booleans()):
            grid["include"] = draw(st.lists(st.one_of(plausible, magnitudes), max_size=2))
        data["grid"] = {draw(idents): grid}
    data["analysis"] = {
        "targets": draw(st.sampled_from([["total"]] * 8 + [["total", "nope"], []]))
    }
    if draw(st.integers(0, 3)) == 0:
        data["analysis"]["distributions"] = draw(st.sampled_from([["total"], ["nope"]]))
    if draw(st.booleans()) and "grid" in data:
        dim = next(iter(data["grid"]))
        data["analysis"][draw(st.sampled_from(["report", "focus"]))] = (
            {dim: draw(st.lists(plausible, min_size=1, max_size=2))}
            if draw(st.booleans())
            else {dim: draw(plausible)}
        )
    data["inputs"] = draw(st.dictionaries(idents, family_inputs(), min_size=1, max_size=3))
    return data


@st.composite
def random_documents(draw):
    """Random TOML structures; half of them a well-formed book, half of these with one of
    its tables replaced by a random one (random structures alone never load: the test
    would only ever see refusals)."""
    rand = draw(random_books)
    if draw(st.booleans()):
        return to_toml(rand)
    data = draw(family_book_data())
    key = draw(st.sampled_from(["book", "grid", "analysis", "inputs", None, None, None, None]))
    if key in rand:
        data[key] = rand[key]
    return to_toml(data)


def _subtable(data: dict, key: str) -> dict:
    """``data[key]``, made a table if it is missing or was replaced by a value."""
    if not isinstance(data.get(key), dict):
        data[key] = {}
    return data[key]


def _mutate(data: dict, draw) -> dict:
    """Apply one random edit to a parsed book (mostly to the numbers, sometimes structure)."""
    inputs = data["inputs"]
    name = draw(st.sampled_from(sorted(inputs)))
    spec = inputs[name]
    op = draw(
        st.sampled_from(
            ["number"] * 6 + ["swap"] * 3 + ["family", "set", "delete", "rename", "drop_input",
                                            "add_input", "grid", "analysis", "book", "top",
                                            "nest"]
        )
    )
    numeric = [k for k, v in spec.items() if isinstance(v, int | float)]
    if op == "number" and numeric:
        spec[draw(st.sampled_from(numeric))] = draw(plausible)
    elif op == "set":
        key = draw(st.one_of(st.sampled_from(sorted(spec)), st.sampled_from(FIELDS)))
        spec[key] = draw(st.one_of(numbers, values))
    elif op == "delete":
        del spec[draw(st.sampled_from(sorted(spec)))]
    elif op == "swap":
        pairs = [(a, b) for a, b in [("low", "high"), ("min", "max"), ("min", "mode"),
                                     ("mode", "max"), ("values", "weights")]
                 if a in spec and b in spec]
        if pairs:
            a, b = draw(st.sampled_from(pairs))
            spec[a], spec[b] = spec[b], spec[a]
        elif "value" in spec:
            spec["value"] = -spec["value"] if isinstance(spec["value"], int | float) else 0
    elif op == "rename":
        inputs[draw(names)] = inputs.pop(name)
    elif op == "family":
        inputs[name] = {**draw(family_inputs()), "unit": spec.get("unit", "")}
    elif op == "drop_input":
        del inputs[name]
    elif op == "add_input":
        inputs[draw(names)] = draw(st.one_of(family_inputs(), values))
    elif op == "grid":
        grid = _subtable(_subtable(data, "grid"), "demand")
        grid[draw(st.sampled_from(GRID_FIELDS))] = draw(st.one_of(plausible, values))
    elif op == "analysis":
        key = draw(st.sampled_from(["targets", "report", "focus", "distributions", "bad"]))
        _subtable(data, "analysis")[key] = draw(
            st.one_of(
                values,
                st.just({"demand": [1e11, 5e11], "strategy": ["buy", "nope"]}),
                st.just({"demnd": [1e11]}),
                st.just({"demand": 5e11, "strategy": "nope"}),
                st.just({"strategy": "owned"}),
                st.just(["saving", "cost"]),
                st.just(["nodes"]),
                st.just(["breakeven_demand", "gpu_share"]),
            )
        )
    elif op == "book":
        key = draw(st.sampled_from(["name", "model", "description", "other"]))
        _subtable(data, "book")[key] = draw(st.one_of(st.sampled_from(MODELS), values))
    elif op == "top":
        data[draw(st.sampled_from(["book", "grid", "analysis", "inputs", "input"]))] = draw(
            values
        )
    elif op == "nest":
        key = draw(st.sampled_from(sorted(spec)))
        spec[key] = {"value": spec[key], draw(names): draw(values)}
    return data


@st.composite
def mutated_books(draw):
    base = SHIPPED[draw(st.sampled_from(sorted(SHIPPED)))]
    data = json.loads(json.dumps(base))  # a deep copy (the books hold no dates)
    for _ in range(draw(st.integers(1, 2))):
        if not isinstance(data.get("inputs"), dict) or not data["inputs"]:
            break
        if not all(isinstance(v, dict) for v in data["inputs"].values()):
            break
        data = _mutate(data, draw)
    return to_toml(_sanitize(data))


def _edges(rule) -> list[float]:
    """Values at and next to the bounds of a model's InputRule, and extremes inside it."""
    vals = [0.0, 1.0, 1e-300, 1e300, -1e300]
    for bound, inward in ((rule.low, math.inf), (rule.high, -math.inf)):
        if math.isfinite(bound):
            vals += [bound, float(np.nextafter(bound, inward)), bound + 1e-9 * np.sign(inward)]
    return [float(v) for v in vals if rule.contains(v)]


@st.composite
def edge_books(draw):
    """The default book with a few inputs at the edges of what the TCO model allows."""
    from mc_tco.models.tco import INPUTS

    data = json.loads(json.dumps(SHIPPED[DEFAULT_BOOK.name]))
    for name in draw(st.lists(st.sampled_from(sorted(INPUTS)), min_size=1, max_size=4,
                              unique=True)):
        a, b = sorted(draw(st.lists(st.sampled_from(_edges(INPUTS[name])), min_size=2,
                                    max_size=2)))
        if a == b or draw(st.booleans()):
            spec = {"dist": "constant", "value": a}
        else:
            spec = {"dist": draw(st.sampled_from(["uniform", "pert"])), "low": a, "high": b}
            if spec["dist"] == "pert":
                spec = {"dist": "pert", "min": a, "mode": a + (b - a) * draw(st.floats(0, 1)),
                        "max": b}
        data["inputs"][name] = {**spec, "unit": INPUTS[name].unit}
    return to_toml(data)


@st.composite
def damaged_text(draw):
    """The text of a shipped book with a few characters deleted, inserted or replaced."""
    text = draw(st.sampled_from([DEFAULT_BOOK, ARTICLE_BOOK])).read_text()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["delete", "insert", "replace"]))
        ch = draw(st.sampled_from([*"[]{}=\"'.,#\n -_0e", "nan", "inf", "é", "\x00"]))
        if edit == "delete":
            text = text[:i] + text[i + draw(st.integers(1, 20)):]
        elif edit == "insert":
            text = text[:i] + ch + text[i:]
        else:
            text = text[:i] + ch + text[i + 1:]
    return text


# ------------------------------------------------------------------------ the property

#: every unit-cube coordinate the design can produce, from 0 to the largest Sobol' point
U = np.concatenate([[0.0, 2.0**-30, 1e-9], np.linspace(0, 1, 33)[1:-1], [1 - 2.0**-30]])


def check_loaded(book: Book) -> None:
    """A loaded book is usable: finite ordered input values, grids, a printable table."""
    for inp in book.inputs.values():
        if inp.is_grid:  # set per grid value, not sampled: finite, increasing values
            v = np.asarray(inp.params["values"], dtype=float)
            assert v.size >= 1 and np.all(np.isfinite(v)), (inp.name, v)
            assert np.all(np.diff(v) > 0), (inp.name, v)
            assert isinstance(inp.describe(), str)
            continue
        x = inp.ppf(U)
        assert np.all(np.isfinite(x)), (inp.name, inp.describe(), x)
        assert np.all(np.diff(x) >= 0), (inp.name, inp.describe(), x)
        lo, hi = inp.support()
        assert lo <= x.min() and x.max() <= hi, (inp.name, lo, hi)
        assert isinstance(inp.describe(), str)
    for g in book.grid.values():
        assert g.values.size >= 1 and np.all(np.isfinite(g.values))
        assert np.all(np.diff(g.values) > 0)
    assert isinstance(inputs_table(book), str)


def check_error(exc: McTcoError, path: str = PATH) -> None:
    msg = str(exc)
    event(f"{type(exc).__name__}: {_kind(msg)}")
    lines = msg.splitlines()
    # one line; only the refusal of a book of another model version lists its changes below
    assert msg and lines[1:] == [f"  {d}" for d in getattr(exc, "details", ())], msg
    assert len(lines) == 1 or "version of the model" in lines[0], msg
    assert msg.startswith(path), msg


#: what happened to the examples of the current fuzz test ("loaded", "planned", "ran",
#: the kinds of error), counted across its examples (:func:`share_that_ran`)
COUNTS: collections.Counter = collections.Counter()


def event(text: str) -> None:
    """Count ``text`` in :data:`COUNTS` and in hypothesis' statistics."""
    COUNTS[text] += 1
    if currently_in_test_context():
        _event(text)


def _kind(msg: str) -> str:
    """The kind of an error message, for hypothesis' statistics (no numbers or names)."""
    words = msg.split(": ", 2)[-1]
    return re.sub(r"'[^']*'|\([^)]*\)|[-+]?\d[\d.e+-]*|\[.*", "_", words)[:60]


def load_and_plan(text: str):
    """Load ``text`` and plan a run; returns the plan, or None after a McTcoError."""
    try:
        book = loads_book(text, PATH)
    except McTcoError as exc:
        check_error(exc)
        return None
    check_loaded(book)
    event("loaded")
    try:
        plan = plan_run(book, samples=16, resamples=0)
        event("planned")
        return plan
    except McTcoError as exc:
        check_error(exc)
        return None


def run_small(plan) -> None:
    """Evaluate a planned book on 16 samples and print its summary: McTcoError or fine."""
    try:
        ds = execute(plan)
    except McTcoError as exc:
        check_error(exc)
        return
    assert isinstance(run_table(ds, path="x.nc", elapsed=0.0), str)
    event("ran")


def load_plan_run(text: str) -> None:
    """One example of a fuzz test that runs: load, plan and run ``text`` (or our error)."""
    event("example")
    plan = load_and_plan(text)
    if plan is not None:
        run_small(plan)


def share_that_ran(fuzz, loaded: float, ran: float) -> dict:
    """Run the hypothesis test ``fuzz`` (all its examples) and assert that at least the
    share ``loaded`` of its examples loaded and ``ran`` ran: a loader or planner that
    refused everything would pass every example's check, but not this."""
    COUNTS.clear()
    fuzz()
    examples = COUNTS["example"]
    assert examples > 0
    for what, minimum in (("loaded", loaded), ("ran", ran)):
        assert COUNTS[what] >= minimum * examples, (
            f"only {COUNTS[what]} of {examples} examples {what} (want {minimum:.1%}); "
            f"the rest: {COUNTS.most_common(6)}")
    return dict(COUNTS)


@settings(FUZZ, max_examples=250 * SCALE)
@given(random_documents())
def fuzz_random_toml(text):
    load_plan_run(text)


@pytest.mark.slow
def test_random_toml_loads_or_raises_our_error():
    share_that_ran(fuzz_random_toml, **MINIMUM["random"])


@pytest.mark.slow
@settings(FUZZ, max_examples=300 * SCALE)
@given(mutated_books())
def test_edited_shipped_books_load_or_raise_our_error(text):
    load_and_plan(text)


@settings(FUZZ, max_examples=40 * SCALE)
@given(mutated_books())
def fuzz_edited_shipped_books(text):
    load_plan_run(text)


@pytest.mark.slow
def test_edited_shipped_books_run_or_raise_our_error():
    share_that_ran(fuzz_edited_shipped_books, **MINIMUM["edited"])


@settings(FUZZ, max_examples=400 * SCALE)
@given(family_books())
def fuzz_distributions_and_grids(text):
    load_plan_run(text)


@pytest.mark.slow
def test_fuzzed_distributions_and_grids_run_or_raise_our_error():
    share_that_ran(fuzz_distributions_and_grids, **MINIMUM["families"])


@pytest.mark.slow
@pytest.mark.parametrize("name", ["random", "edited", "families"])
def test_a_loader_that_refuses_everything_fails_the_fuzz(name, monkeypatch):
    """The shares above are what makes these tests able to fail: every example of a
    loader that refuses every book passes the per-example check, the share does not."""
    def refuse(text, path="<book>"):
        raise BookError(path, None, "refused")

    monkeypatch.setattr(sys.modules[__name__], "loads_book", refuse)
    fuzz = {"random": fuzz_random_toml, "edited": fuzz_edited_shipped_books,
            "families": fuzz_distributions_and_grids}[name]
    with pytest.raises(AssertionError, match=r"only 0 of \d+ examples loaded"):
        share_that_ran(fuzz, **MINIMUM[name])


@pytest.mark.slow
@settings(FUZZ, max_examples=15 * SCALE)
@given(edge_books())
def test_tco_model_at_the_edges_of_its_rules_runs_or_raises_our_error(text):
    """Values the rules allow, however extreme: the run works or names the sample."""
    plan = load_and_plan(text)
    if plan is not None:
        run_small(plan)


@pytest.mark.slow
@settings(FUZZ, max_examples=150 * SCALE)
@given(damaged_text())
def test_damaged_book_text_loads_or_raises_our_error(text):
    load_and_plan(text)


@pytest.mark.parametrize("path", [DEFAULT_BOOK, ARTICLE_BOOK])
def test_the_writer_round_trips_the_shipped_books(path):
    data = tomllib.loads(path.read_text())
    assert tomllib.loads(to_toml(data)) == data
    book = loads_book(to_toml(data), PATH)
    assert set(book.inputs) == set(data["inputs"])


# ------------------------------------------------------------------ what the fuzz found

MODEL = '[book]\nmodel = "book_models:total"\n[analysis]\ntargets = ["total"]\n'


def _x(body: str) -> str:
    return MODEL + f"[inputs.x]\n{body}\n"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        # crashed with OverflowError (a TOML integer beyond the float range, fsum overflow)
        (_x('dist = "uniform"\nlow = 0\nhigh = 1' + "0" * 400), "high must be a finite number"),
        (_x('dist = "discrete"\nvalues = [1, 2]\nweights = [1e308, 1e308]'), "weights sum to"),
        # loaded, then fed inf / NaN to the model
        (_x('dist = "uniform"\nlow = -1e308\nhigh = 1e308'), "too extreme for floating point"),
        (_x('dist = "normal"\nmean = 1e308\nsd = 1e308'), "too extreme for floating point"),
        (_x('dist = "lognormal"\nlow = 1e-300\nhigh = 1e300'), "too extreme for floating point"),
        (_x('dist = "truncnormal"\nmean = 0\nsd = 1e-300\nlow = 1\nhigh = 2'), "too extreme"),
        (_x('dist = "beta"\na = 6\nb = 5e-324'), "too extreme for floating point"),
        # scipy's ppf loses its order
        (_x('dist = "beta"\na = 1e13\nb = 1e14'), "a (1e+13) above 1e+06 makes the beta a"),
        (_x('dist = "pert"\nmin = 0\nmode = 0.5\nmax = 1\nshape = 1e15'), "constant in disguise"),
        # a key with a newline broke the one-line message
        (MODEL + '[inputs."a\\nb"]\ndist = "constant"\nvalue = 1\n', "input name 'a\\nb'"),
        # crashed numpy.geomspace / xarray
        ('[grid.d]\nstart = 1\nstop = 0\nnum = 1\n' + _x('dist = "uniform"\nlow = 0\nhigh = 1'),
         "start (1) must be below stop (0)"),
        ("[grid.sample]\nvalues = [1]\n" + _x('dist = "uniform"\nlow = 0\nhigh = 1'),
         "'sample' is a dimension of the results file"),
        ("[grid.x]\nvalues = [1]\n" + _x('dist = "uniform"\nlow = 0\nhigh = 1'),
         "every input is a constant or fixed by a grid ([grid.x]); give another input a "
         "distribution"),
    ],
)
def test_regressions_found_by_the_fuzz(text, fragment):
    with pytest.raises(McTcoError) as info:
        plan_run(loads_book(text, PATH), samples=16, resamples=0)
    check_error(info.value)
    assert fragment in str(info.value)


@pytest.mark.parametrize(
    "body",
    [
        'dist = "truncnormal"\nmean = 0\nsd = 1e9\nlow = 0\nhigh = 1',  # ppf overshot high
        'dist = "beta"\na = 2\nb = 0.5',  # boost warned near u = 1
        'dist = "normal"\nmean = 0\nsd = 1',  # u = 0 gave -inf
    ],
)
def test_regressions_that_now_load(body):
    inp = loads_book(_x(body), PATH).inputs["x"]
    check_loaded(loads_book(_x(body), PATH))
    x = inp.ppf(np.array([0.0, 2.0**-30, 0.5, 1 - 2.0**-30]))
    lo, hi = inp.support()
    assert np.all(np.isfinite(x)) and lo <= x.min() and x.max() <= hi


def test_regression_targets_whose_squares_overflow():
    plan = plan_run(loads_book(_x('dist = "uniform"\nlow = 0\nhigh = 1e154'), PATH), samples=16)
    with pytest.raises(McTcoError, match=r"magnitude below 1e\+140"):
        execute(plan)


@pytest.mark.parametrize("grid", [
    "values = [0, 5e-324]\ninclude = [5e-324]",  # 0 was "close" to 5e-324: [5e-324, 5e-324]
    "values = [1, 1.0000000005, 2]\ninclude = [1.0000000005]",  # the nearest is replaced
])
def test_regression_an_included_point_replaces_only_the_nearest_close_point(grid):
    book = loads_book(f"[grid.g]\n{grid}\n" + _x('dist = "uniform"\nlow = 0\nhigh = 1'), PATH)
    check_loaded(book)
    values = book.grid["g"].values
    assert np.all(np.diff(values) > 0) and len(values) == len(set(values))
    plan_run(book, samples=16, resamples=0)
