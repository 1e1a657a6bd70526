"""The terminal's payback table reads the hybrid over the scenarios where it buys a
server, as the memo does, with the share that buys none beside it: a median over every
scenario said "0" at 500B, where 58% of the hybrid's scenarios are the API itself."""

from __future__ import annotations

import numpy as np

from mc_tco.report.terminal import _payback_lines
from mc_tco.results.io import open_results


def test_the_hybrids_payback_is_read_where_it_buys_a_server(result_files):
    ds = open_results(result_files["default"])
    lines = "\n".join(_payback_lines(ds)).splitlines()
    header = next(line for line in lines if line.startswith("demand (tokens/month)"))
    columns = header.split()[2:]
    assert "500B" in columns
    k = columns.index("500B")
    bought = next(line for line in lines if line.startswith("hybrid, where it buys a server"))
    none = next(line for line in lines if line.startswith("hybrid: share with no server"))
    d = float(ds["demand"].sel(demand=5e11, method="nearest"))
    pay = ds["payback_months"].sel(demand=d, strategy="hybrid").values
    held = ds["hybrid_nodes"].sel(demand=d).values > 0
    median_held = np.quantile(pay[held], 0.5)
    cells = bought[len("hybrid, where it buys a server"):].split()
    # a cell is "M" or "M (lo-hi)": the 500B one is the k-th median
    medians = [c for c in cells if not c.startswith("(")]
    assert abs(float(medians[k]) - median_held) <= 1.0
    assert float(medians[k]) > 0  # (the mixture's median was the API's 0)
    shares = none[len("hybrid: share with no server"):].split()
    shares = [c for c in shares if c.endswith("%")]
    assert abs(float(shares[k].rstrip("%")) / 100 - (~held).mean()) < 0.001
    # buy's row is over every scenario, as before
    assert any(line.startswith("buy ") for line in lines)
