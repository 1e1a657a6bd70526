"""The memo written once for the memo's tests."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.results.io import open_results


@pytest.fixture(scope="session")
def compared_memo(result_files, tmp_path_factory):
    """``mc-tco memo A --compare B`` on small runs (512 samples): the folder, the output and
    both results files; shared by the modules that read the written memo (read-only)."""
    a, b = result_files["default"], result_files["article"]
    out = tmp_path_factory.mktemp("memo") / "memo_compared"
    res = CliRunner().invoke(main, ["memo", str(a), "--compare", str(b), "--out-dir", str(out)])
    assert res.exit_code == 0, res.output
    return out, res, open_results(a), open_results(b)
