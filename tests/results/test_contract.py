"""The results file's contract: schema, generated docs, accessor and grid points."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import mc_tco
from mc_tco.errors import OptionError
from mc_tco.results import SCHEMA_VERSION, match_point, parse_amount
from mc_tco.results.schema import markdown, problems
from tests.paths import ARTICLE_BOOK, ROOT


@pytest.fixture(scope="module")
def ds():
    return mc_tco.run(str(ARTICLE_BOOK), samples=256)


def test_docs_results_md_is_generated_from_the_schema():
    text = (ROOT / "docs" / "results.md").read_text()
    assert text == markdown(), (
        "docs/results.md drifted from mc_tco/results/schema.py; regenerate it with "
        "python -c \"from mc_tco.results.schema import markdown; print(markdown(), end='')\""
        " > docs/results.md"
    )


def test_a_run_meets_its_contract(ds):
    assert problems(ds) == []
    assert ds.attrs["schema_version"] == SCHEMA_VERSION
    assert ds.mc_tco.schema_version == SCHEMA_VERSION


def test_the_contract_catches_a_missing_variable(ds):
    assert problems(ds.drop_vars("p_positive")) == ["variable p_positive is missing"]


def test_p_beats_is_p_positive_with_its_interval(ds):
    p = ds.mc_tco.p_beats("buy")
    np.testing.assert_array_equal(
        p["p"].values, ds.p_positive.sel(target="saving>0", strategy="buy").values)
    np.testing.assert_array_equal(
        p["upper"].values,
        ds.p_positive_ci.sel(target="saving>0", strategy="buy", ci_bound="upper").values)
    assert p.attrs["ci_prob"] == 0.95
    at = ds.mc_tco.p_beats("buy", demand="500B")
    assert at["p"].item() == ds.p_positive.sel(target="saving>0", strategy="buy",
                                               demand=5e11).item()


def test_ranking_is_sorted_by_st_with_half_widths(ds):
    r = ds.mc_tco.ranking("saving", demand=5e11, strategy="buy")
    st = r.ST.values
    assert list(st) == sorted(st, reverse=True)
    assert set(r.input.values) == set(ds.input.values)
    assert "ST_conf" in r
    with pytest.raises(OptionError, match="choose a point"):
        ds.mc_tco.ranking("saving", strategy="buy")


def test_bands_are_the_stored_quantiles(ds):
    b = ds.mc_tco.bands("saving", strategy="buy", demand="1T")
    np.testing.assert_array_equal(
        b.values, ds.target_quantile.sel(target="saving", strategy="buy", demand=1e12).values)


def test_options_parse_run_options(ds):
    assert ds.mc_tco.options["samples"] == 256
    assert ds.mc_tco.targets == ["saving"]
    assert ds.mc_tco.focus["strategy"] == "buy"


@pytest.mark.parametrize("text, value", [
    ("500B", 5e11), ("1.26T", 1.26e12), ("5e11", 5e11), (" 3 t ", 3e12), ("100k", 1e5),
    (7.5, 7.5),
])
def test_parse_amount(text, value):
    assert parse_amount(text) == pytest.approx(value, rel=1e-15)


def test_one_matcher_one_tolerance():
    """A grid point is named by its value or by its value as printed (3 digits)."""
    grid = np.logspace(9, 13, 41)
    # the printed 1.26T finds 1.2589e12, and so does the exact value
    assert match_point(grid, "1.26T") == grid[31]
    assert match_point(grid, 1.2589254117941673e12) == grid[31]
    assert match_point(grid, "1.58T") == grid[32]  # 1.5849e12, 0.3% away
    assert match_point(grid, "1T") == grid[30]
    with pytest.raises(OptionError, match=r"not a grid point; the nearest are 3\.981e"):
        match_point(grid, "400B")  # 3.981e11 prints as 398B: not the same point
    with pytest.raises(OptionError, match="outside the grid"):
        match_point(grid, "1e15")
    with pytest.raises(OptionError, match="not a number"):
        match_point(grid, "lots")


def test_wilson_matches_scipy():
    from mc_tco.uncertainty.statistics import wilson_interval

    for k, n in [(0, 50), (3, 50), (25, 50), (50, 50), (7, 1000)]:
        lo, hi = wilson_interval(np.array(k), n, 0.9)
        ref = stats.binomtest(k, n).proportion_ci(0.9, method="wilson")
        assert lo == pytest.approx(ref.low, abs=1e-12)
        assert hi == pytest.approx(ref.high, abs=1e-12)


def test_one_nan_rule_for_shares_and_quantiles():
    """NaN samples are not applicable: out of numerator and denominator everywhere."""
    import xarray as xr

    from mc_tco.uncertainty.statistics import p_positive, quantiles_with_never

    x = xr.DataArray([np.nan, np.nan, 1.0, -1.0, np.inf, np.inf], dims="sample")
    p, ci = p_positive(x)
    assert p.item() == pytest.approx(3 / 4)  # 1, inf, inf of the 4 applicable
    q = quantiles_with_never(x, quantiles=(0.25, 0.5))
    assert q["p_never"].item() == pytest.approx(2 / 4)
    np.testing.assert_array_equal(q["quantiles"].values, [-1.0, 1.0])  # NaN not "never"
    lo, hi = ci.values
    ref = stats.binomtest(3, 4).proportion_ci(0.95, method="wilson")
    assert (lo, hi) == pytest.approx((ref.low, ref.high))
    allnan = xr.DataArray([np.nan, np.nan], dims="sample")
    assert np.isnan(p_positive(allnan)[0].item())
    assert np.isnan(quantiles_with_never(allnan)["p_never"].item())
