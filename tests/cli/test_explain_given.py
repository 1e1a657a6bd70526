"""``mc-tco explain RESULTS --given CONDITION``: the conditional answer of
:meth:`ds.mc_tco.given` in words and JSON, and its one-line refusals (issue 25 item 4)."""

from __future__ import annotations

import json

import numpy as np
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.results.io import open_results


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_explain_given_prints_and_writes_the_conditional_answer(result_files, tmp_path):
    path = result_files["default"]
    js = tmp_path / "given.json"
    r = invoke("explain", path, "--given", "api_price_annual_change>-0.05", "--given",
               "node_price in p0..p80", "--min-rows", "50", "--demand", "500B",
               "--json", js)
    assert r.exit_code == 0, r.output
    ds = open_results(path)
    x = ds["input_value"]
    keep = ((x.sel(input="api_price_annual_change") > -0.05)
            & (x.sel(input="node_price") <= float(x.sel(input="node_price").quantile(0.8))))
    first = r.output.splitlines()[0]
    assert first.startswith("Given api_price_annual_change > -0.05 and ")
    assert f": {int(keep.sum()):,} of 512 scenarios at demand = 500B" in first
    assert "PRIM" not in r.output and "EVPI" not in r.output  # --given alone: its view only
    payload = json.loads(js.read_text())["given"]
    assert payload["rows_given"] == int(keep.sum())
    buy = next(c for c in payload["results"] if c["strategy"] == "buy")
    y = ds["saving"].sel(demand=5e11, strategy="buy").values[keep.values]
    assert abs(buy["p"] - (y > 0).mean()) < 1e-12
    assert buy["lower"] <= buy["p"] <= buy["upper"]
    assert buy["bands"]["0.5"] == float(np.quantile(y, 0.5, method="inverted_cdf"))
    assert [line for line in r.output.splitlines() if line.strip().startswith("buy ")]


def test_explain_given_refuses_in_one_line(result_files):
    path = result_files["default"]
    for given, message in [("node_price>p99", "holds in only"),
                           ("node_pric>3", "did you mean 'node_price'")]:
        r = invoke("explain", path, "--given", given)
        assert r.exit_code == 2 and message in r.output, r.output
        assert len(r.output.strip().splitlines()) == 1


def test_explain_help_teaches_given():
    r = invoke("explain", "--help")
    assert "--given" in r.output and "p10..p50" in r.output and "A<NAME<B" in r.output
