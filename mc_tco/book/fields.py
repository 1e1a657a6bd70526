"""The book's tables and fields, each parsed and checked with the fix in its message."""

from __future__ import annotations

import contextlib
import math
import re
from pathlib import Path
from typing import Any

import numpy as np

from mc_tco.book.built import checked_distribution
from mc_tco.book.types import (
    _ANALYSIS_FIELDS,
    _GRID_FIELDS,
    _INPUT_META,
    _MAX_GRID,
    REPAIRS,
    RESERVED,
    Grid,
    Input,
)
from mc_tco.book.where import _closest, _fields_hint, _locate
from mc_tco.distributions.empirical import Sample, read_column
from mc_tco.distributions.families import (
    FAMILIES,
    LIST_FIELDS,
    STRING_FIELDS,
    FieldProblem,
)
from mc_tco.errors import a_or_an


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
            points = np.geomspace(start, stop, num)
        else:
            points = np.linspace(start, stop, num)
        grid = Grid(dim, points, unit, spacing, description)
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


def _input(name: str, spec, text: str, err, folder: Path | None = None) -> Input:
    """One ``[inputs.<name>]`` table; ``folder`` is where an empirical input's file is
    looked for (the book's folder; the working directory when None)."""
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
            f"unknown field '{extra[0]}' for {a_or_an(family)} input; it takes "
            + _fields_hint(fam),
            extra[0],
        )
    required = list(fam.required)
    if fam.alternatives:
        chosen = [alt for alt in fam.alternatives if any(k in spec for k in alt)]
        if len(chosen) != 1:
            raise err(
                where,
                f"{a_or_an(family)} input takes either "
                + " or ".join("(" + ", ".join(a) + ")" for a in fam.alternatives)
                + f", e.g. {fam.example}",
            )
        required += list(chosen[0])
        if "ci" in spec and "low" not in chosen[0]:
            raise err(f"{where}.ci",
                      f"ci goes with low/high, not with {'/'.join(chosen[0])}; remove ci", "ci")
    for key in required:
        if key not in spec:
            raise err(
                where, f"missing field '{key}' for {a_or_an(family)} input; e.g. {fam.example}"
            )
    def parse(key):
        if key in STRING_FIELDS:
            value = spec[key]
            if not isinstance(value, str) or not value.strip():
                raise err(f"{where}.{key}",
                          f"{key} must be a non-empty string in quotes, got {_show(value)}", key)
            return value
        if key in LIST_FIELDS:
            return _number_list(spec[key], where, key, err)
        open_side = {"low": -math.inf, "high": math.inf}.get(key)
        if family != "truncnormal":
            open_side = None
        if open_side is not None and spec[key] == open_side:
            return open_side  # a one-sided truncnormal: low = -inf or high = inf
        if key in ("low", "high") and isinstance(spec[key], float) and math.isinf(spec[key]):
            side = "below" if key == "low" else "above"
            raise err(f"{where}.{key}",
                      f"{key} must be a finite number, got {spec[key]}; for no bound {side} "
                      f"use dist = \"truncnormal\" and leave {key} out", key)
        return _number(spec[key], where, key, err)

    params: dict[str, Any] = {key: parse(key) for key in required}
    for key, default in fam.optional.items():
        if key == "ci" and fam.alternatives and "low" not in required:
            continue  # ci belongs to the (low, high) form (the interval entry)
        params[key] = parse(key) if key in spec else default
    try:
        if family == "empirical":  # read as data (csv), never executed
            path = Path(params["file"])
            params["_data"] = Sample(read_column(
                path if folder is None or path.is_absolute() else folder / path,
                params["column"], shown=params["file"]))
        dist = checked_distribution(family, params)
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


