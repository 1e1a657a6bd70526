"""Issue 22 item 2: one way to say a number. mc_tco.report.fmt is the only formatting module;
every unit boundary is rounded before its unit is chosen; app.js meets the same cases."""

from __future__ import annotations

import ast
import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mc_tco.report import fmt
from tests.paths import ROOT

CASES = json.loads((ROOT / "tests" / "fmt_cases.json").read_text())
PY = {"tokens": fmt.tokens, "money3": lambda x: fmt.money(x, digits=3), "pct": fmt.pct}
NAN, INF = math.nan, math.inf


def _shared():
    return [(k, float(x), e) for k, rows in CASES.items() if k != "_" for x, e in rows]


@pytest.mark.parametrize(("kind", "x", "expected"), _shared())
def test_shared_cases(kind, x, expected):
    assert PY[kind](x) == expected


@pytest.mark.parametrize(("call", "expected"), [
    # money, the memo's 2 digits: 999.4 / 999.5 / 999.6 / 1000 at each unit
    (lambda: fmt.money(994), "$990"), (lambda: fmt.money(995), "$1k"),
    (lambda: fmt.money(999.6), "$1k"), (lambda: fmt.money(1000), "$1k"),
    (lambda: fmt.money(994e3), "$990k"), (lambda: fmt.money(999.5e3), "$1M"),
    (lambda: fmt.money(999.6e6), "$1B"), (lambda: fmt.money(999.6e9), "$1T"),
    (lambda: fmt.money(-36_123, "/month"), "-$36k/month"), (lambda: fmt.money(0), "$0"),
    (lambda: fmt.money(NAN), "n/a"), (lambda: fmt.money(INF), "n/a"),
    (lambda: fmt.money(-INF), "n/a"),
    # money in the terminal: whole units from 10, separators from 1,000
    (lambda: fmt.fmt_money(9.94), "9.9"), (lambda: fmt.fmt_money(9.96), "10"),
    (lambda: fmt.fmt_money(999.4), "999"), (lambda: fmt.fmt_money(999.5), "1,000"),
    (lambda: fmt.fmt_money(999.6), "1,000"), (lambda: fmt.fmt_money(1000.0), "1,000"),
    (lambda: fmt.fmt_money(-999.6), "-1,000"), (lambda: fmt.fmt_money(0.0), "0"),
    (lambda: fmt.fmt_money(NAN), "n/a"), (lambda: fmt.fmt_money(-INF), "n/a"),
    # money with fixed decimals (the claims' hourly amounts)
    (lambda: fmt.money(1234.56, " USD/h", symbol="", compact=False, decimals=1),
     "1,234.6 USD/h"),
    (lambda: fmt.money(-0.04, " USD/h", symbol="", compact=False, decimals=1), "-0.0 USD/h"),
    # a value in the terminal: separators from 10,000
    (lambda: fmt.fmt_value(99.94), "99.9"), (lambda: fmt.fmt_value(99.96), "100"),
    (lambda: fmt.fmt_value(999.6), "1000"), (lambda: fmt.fmt_value(9999.4), "9999"),
    (lambda: fmt.fmt_value(9999.6), "10,000"), (lambda: fmt.fmt_value(-41234.0), "-41,234"),
    (lambda: fmt.fmt_value(NAN), "n/a"), (lambda: fmt.fmt_value(INF), "never"),
    (lambda: fmt.fmt_value(-INF), "-inf"),
    (lambda: fmt.fmt_value(999.6e6, "tokens/month"), "1B"),
    # tokens: the bug of issue 22 (1e+03B / 1e+03M)
    (lambda: fmt.fmt_tokens(999.5e9), "1T"), (lambda: fmt.fmt_tokens(999.6e6), "1B"),
    # a compact number with 'k' from 10,000 (input labels)
    (lambda: fmt.number(5000, k_from=1e4), "5,000"),
    (lambda: fmt.number(9999.6, k_from=1e4), "10k"),
    (lambda: fmt.number(173_456, k_from=1e4), "173k"),
    (lambda: fmt.number(-INF), "-inf"), (lambda: fmt.number(NAN), "n/a"),
    # matplotlib's :g for axis ticks (6 digits)
    (lambda: fmt.money(12_500, digits=6), "$12.5k"), (lambda: fmt.number(1e5, 6), "100k"),
    # rounded numbers without a scale
    (lambda: fmt.rounded(999.6, 3), "1,000"), (lambda: fmt.rounded(1234, 3), "1,230"),
    (lambda: fmt.rounded(0.6349), "0.63"), (lambda: fmt.rounded(4.5e10, 2), "45,000,000,000"),
    (lambda: fmt.rounded(-5.5), "-5.5"), (lambda: fmt.rounded(0.0), "0"),
    (lambda: fmt.rounded(NAN), "n/a"),
    # shares and probabilities
    (lambda: fmt.share_of(0.00949), "0.9%"), (lambda: fmt.share_of(0.00951), "1%"),
    (lambda: fmt.share_of(0.01), "1%"), (lambda: fmt.share_of(0.994), "99%"),
    (lambda: fmt.share_of(1.64), "164%"), (lambda: fmt.share_of(0), "0%"),
    (lambda: fmt.share_of(0.0004), "<0.1%"), (lambda: fmt.share_of(0.0005), "0.1%"),
    (lambda: fmt.share_of(NAN), "n/a"),
    (lambda: fmt.prob(0.0099), "below 1%"), (lambda: fmt.prob(0.01), "1%"),
    (lambda: fmt.prob(0.99), "99%"), (lambda: fmt.prob(0.9901), "above 99%"),
    (lambda: fmt.prob(NAN), "n/a"),
    (lambda: fmt.fmt_pct(1.0), "100.0%"), (lambda: fmt.fmt_pct(0.5, 0), "50%"),
    (lambda: fmt.fmt_prob_ci(0.0005, 0.0001, 0.000996), "0.05% (0.01-0.10)"),
    (lambda: fmt.pct_ci(0.231, 0.222, 0.240), "23.1% (95% MC interval 22.2-24.0%)"),
    (lambda: fmt.pct_range(0.231, 0.222, 0.240), "23.1% (22.2-24.0%)"),
    (lambda: fmt.months(1.4), "1 month"), (lambda: fmt.months(INF), "never"),
    (lambda: fmt.users(4520.4), "4,520 heavy users"), (lambda: fmt.users(300, "users"),
                                                         "300 users"),
])
def test_boundaries(call, expected):
    assert call() == expected


def test_memo_names_are_the_module():
    from mc_tco.report.memo import fmt as memo_fmt

    for name in ("money", "months", "pct", "pct_ci", "pct_range", "prob", "prob_ci",
                 "share_of", "tokens"):
        assert getattr(memo_fmt, name) is getattr(fmt, name)
    assert memo_fmt.users(5e11) == "5,000 heavy users"
    assert memo_fmt.users(4.537e11, digits=2) == "4,500 heavy users"


_NAME = re.compile(r"usd|money|tokens|pct|percent|users|share|compact")
_SPEC = re.compile(r"""\{[^{}]*:[,_]?\.?\d*[fgde%]\}|:[,_]?\.\d+[fg]["'}]""")
_SUFFIX = re.compile(r"""\(1e(9|12), ["'](B|T)["']\)""")


def second_formatters(path: Path, rel: str) -> list[str]:
    """Functions named like a formatter that format a number themselves, and k/M/B/T
    tables, in one source file."""
    text = path.read_text()
    found = [f"{rel}: {m.group(0)}" for m in _SUFFIX.finditer(text)]
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.FunctionDef) and _NAME.search(node.name):
            body = ast.get_source_segment(text, node) or ""
            if _SPEC.search(body):
                found.append(f"{rel}: def {node.name}")
    return found


# Echoes a book's own numbers (':g') in a refusal; it says no amount, count or share.
_ALLOWED = {"mc_tco/models/book_units.py: def percent_hint"}


def test_no_second_formatter():
    """Money, tokens, percentages and users are formatted in mc_tco/report/fmt.py only."""
    found = []
    for path in sorted((ROOT / "mc_tco").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel != "mc_tco/report/fmt.py":
            found += second_formatters(path, rel)
    assert sorted(set(found) - _ALLOWED) == []


def test_the_check_finds_a_second_formatter(tmp_path):
    copy = tmp_path / "x.py"
    copy.write_text('def _usd(x):\n    return f"{x:,.1f} USD/h"\n\n\n'
                    'def tokens_of(x):\n    return f"{x / 1e9:.3g}B"\n\n\n'
                    "S = ((1e9, 'B'), (1e6, 'M'))\n\n\n"
                    "def share(v):\n    return fmt_pct(v)\n")
    assert second_formatters(copy, "x.py") == ["x.py: (1e9, 'B')", "x.py: def _usd",
                                               "x.py: def tokens_of"]
    assert second_formatters(ROOT / "mc_tco" / "report" / "fmt.py", "fmt.py") != []


_NODE = """
const fs = require("fs");
const src = fs.readFileSync(process.argv[1], "utf8");
const body = src.slice(src.indexOf("// fmt:begin"), src.indexOf("// fmt:end"));
const f = new Function(body + "; return {tokens: fmtTokens, money3: fmtUsd, pct: fmtPct};")();
const cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const num = (x) => (x === "nan" ? NaN : x === "inf" ? Infinity : x === "-inf" ? -Infinity : x);
const bad = [];
for (const [k, rows] of Object.entries(cases)) {
  if (k === "_") continue;
  for (const [x, e] of rows) { const got = f[k](num(x)); if (got !== e) bad.push([k, x, got, e]); }
}
console.log(JSON.stringify(bad));
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_app_js_meets_the_same_cases():
    js = ROOT / "mc_tco" / "app" / "static" / "app.js"
    assert "// fmt:begin" in js.read_text()
    out = subprocess.run(["node", "-e", _NODE, str(js), str(ROOT / "tests" / "fmt_cases.json")],
                         capture_output=True, text=True, check=True, timeout=60)
    assert json.loads(out.stdout) == []
