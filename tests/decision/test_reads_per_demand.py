"""Issue 26: the memo on a large results file reads the file a demand (or a block of
samples) at a time, never a whole per-sample variable.

On a 2^18-sample file a sample x demand x strategy variable is 552 MB; one read whole (and
copied, as a demand added from the stored rows is joined to it) put the memo over 1.5 GB.
Here the memo of the session's small file is built with every read of the file counted:
no read may return more than one demand of a variable for every sample (``sample x
strategy``, or ``sample x demand`` of one strategy), nor more than the stored inputs
(``sample x input``), whichever is larger. The small file is read as a large one would be
(``LOAD_BELOW_BYTES`` = 0: below it ``evpi_along`` loads the target on purpose).
"""

from __future__ import annotations

import numpy as np
import pytest

from mc_tco.results.io import open_results


@pytest.fixture
def reads(monkeypatch):
    """The largest read of each variable (bytes), of the file and of its joined and
    evaluated parts, while the fixture is in use."""
    import mc_tco.decision.information as information
    import mc_tco.engine.at_points as at_points
    from mc_tco.results import h5file

    seen: dict[str, int] = {}

    def counted(cls, method, name_of):
        orig = getattr(cls, method)

        def wrapper(self, key):
            out = orig(self, key)
            name = name_of(self)
            seen[name] = max(seen.get(name, 0), np.asarray(out).nbytes)
            return out

        monkeypatch.setattr(cls, method, wrapper)

    counted(h5file._CheckedArray, "_getitem", lambda a: a.variable_name)
    counted(at_points._Evaluated, "_raw", lambda a: f"evaluated {a.output}")
    counted(at_points._Joined, "_raw", lambda a: "joined")
    monkeypatch.setattr(information, "LOAD_BELOW_BYTES", 0)
    return seen


def _bound(ds) -> int:
    n = ds.sizes["sample"]
    per_demand = n * ds.sizes["strategy"] * 8
    return max(per_demand, n * ds.sizes["input"] * 8, n * (ds.sizes["demand"] + 3) * 8)


def test_memo_reads_no_whole_variable(result_files, reads, no_png):
    """At a demand off the grid (800B): the file's variables are read through the joins
    with the added demand's, and the added demand's evaluated on the stored rows."""
    from mc_tco.report.memo import build_memo

    with open_results(result_files["default"]) as ds:
        whole = ds["saving"].nbytes
        bound = _bound(ds)
        assert bound * 4 < whole  # the bound tells a whole read from a per-demand one
        per_sample = {k for k, v in ds.variables.items() if "sample" in v.dims}
        build_memo(ds, demand=8e11, created="2026-01-01")
    assert {"saving", "input_value", "joined", "evaluated cash_path"} <= set(reads)
    over = {k: v for k, v in reads.items()
            if v > bound and (k in per_sample or " " in k or k == "joined")}
    assert not over, f"reads above {bound:,} bytes (a whole variable is {whole:,}): {over}"
