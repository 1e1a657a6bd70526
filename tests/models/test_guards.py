"""The TCO model called directly (as a notebook does, bypassing the book checks).

Impossible sampled values are rejected with the input, the sample and the value, by the
same InputRules that check a book; a NaN in any output names the sample's input values.
"""

import numpy as np
import pytest
import xarray as xr

from mc_tco.errors import BookError, ModelError
from mc_tco.models import InputRule, check_analysis, check_samples, tco

from .test_tco import ARTICLE_POINT, inputs_of


def three_samples(**changes) -> xr.Dataset:
    """Three samples of the article's point; ``changes`` sets input -> value of sample 2."""
    points = [dict(ARTICLE_POINT) for _ in range(3)]
    points[2].update(changes)
    return inputs_of(points, [1e11, 5e11])


@pytest.mark.parametrize(
    ("name", "value", "fragment"),
    [
        ("utilization", 1.3, "utilization must be in (0, 1]"),
        ("utilization", 0.0, "utilization must be in (0, 1]"),
        ("utilization", -0.2, "utilization must be in (0, 1]"),
        ("output_share", 1.2, "output_share must be in [0, 1]"),
        ("api_cache_hit_rate", -0.1, "api_cache_hit_rate must be in [0, 1]"),
        ("kv_unique_fraction", 1.5, "kv_unique_fraction must be in [0, 1]"),
        ("peak_to_average", 0.5, "peak_to_average must be >= 1"),
        ("tax_rate", 1.0, "tax_rate must be in [0, 1)"),
        ("cancel_month", -1.0, "cancel_month must be >= 0"),
        ("throughput_final_ratio", 0.0, "throughput_final_ratio must be in (0, 1]"),
        ("learning_months", 0.0, "learning_months must be > 0"),
        ("ramp_months", 0.5, "ramp_months must be >= 1"),
        ("setup_months", -1.0, "setup_months must be >= 0"),
        ("node_annual_depreciation", 1.2, "node_annual_depreciation must be in [0, 1]"),
        ("demand_annual_growth", -1.0, "demand_annual_growth must be in (-1, 10]"),
        ("price_output", -0.42, "price_output must be >= 0"),
        ("node_price", -475000.0, "node_price must be > 0"),
        ("gpu_rent_per_hour", -7.1, "gpu_rent_per_hour must be >= 0"),
        ("electricity_price", -0.1, "electricity_price must be >= 0"),
        ("pue", 0.9, "pue must be >= 1"),
        ("storage_overhead", 0.5, "storage_overhead must be >= 1"),
        ("discount_rate", -0.05, "discount_rate must be in [0, 1]"),
        ("api_price_annual_change", -1.0, "api_price_annual_change must be in (-1, 10]"),
        ("horizon_years", 0.0, "horizon_years must be in [0.0833333, 30]"),
        ("horizon_years", 31.0, "horizon_years must be in [0.0833333, 30]"),
        ("staff_fte", np.nan, "staff_fte must be >= 0"),
        ("sovereignty_value", np.inf, "sovereignty_value must be any finite value"),
    ],
)
def test_impossible_sample_names_input_sample_and_value(name, value, fragment):
    with pytest.raises(ModelError) as info:
        tco.model(three_samples(**{name: value}))
    msg = str(info.value)
    assert f"input '{name}' is {value:g} at sample 2" in msg, msg
    assert fragment in msg, msg
    assert "\n" not in msg


def test_the_sample_coordinate_is_named_when_there_is_one():
    ds = three_samples(utilization=1.3).assign_coords(sample=[100, 101, 102])
    with pytest.raises(ModelError, match=r"'utilization' is 1.3 at sample 102;"):
        tco.model(ds)


def test_missing_input_is_named():
    ds = three_samples().drop_vars(["pue", "node_price"])
    with pytest.raises(ModelError, match=r"the inputs lack 'node_price' .* and 1 more \(pue\)"):
        tco.model(ds)


def test_valid_samples_pass_and_the_rules_are_the_books_rules():
    out = tco.model(three_samples(utilization=1.0, output_share=0.0, pue=1.0))
    assert np.isfinite(out.saving).all()
    # one mechanism: the model's check is the InputRules of its spec, as check_book's is
    assert tco.model.spec.inputs is tco.INPUTS
    rule = InputRule("1", 0.0, 1.0, low_open=True)
    np.testing.assert_array_equal(
        rule.contains([0.0, 1e-300, 0.5, 1.0, 1.0 + 1e-15, np.nan, np.inf]),
        [False, True, True, True, False, False, False],
    )
    check_samples(three_samples(), tco.SPEC)  # no error


def test_nan_output_names_the_samples_input_values():
    # every value is allowed input by input, but a node of 1e308 USD with ten times its
    # price in network, after tax, is inf - inf: the cost of buy is NaN
    ds = three_samples(node_price=1e308, network_capex_fraction=10.0, tax_rate=0.25)
    with pytest.raises(ModelError) as info:
        tco.model(ds)
    msg = str(info.value)
    assert "output 'cost' is NaN at sample 2, demand 1e+11, strategy buy" in msg, msg
    assert "node_price=1e+308" in msg and "network_capex_fraction=10" in msg
    assert "utilization=1" in msg and "tax_rate=0.25" in msg


def test_a_report_dim_refusal_lists_dims_that_are_not_text(default_book):
    """xarray's dims may be any hashable: the refusal of a report dim the targets lack
    names them (it raised a TypeError from ", ".join on an integer dim)."""
    out = xr.Dataset({"saving": (("sample", 7), np.zeros((2, 3)))})
    with pytest.raises(BookError, match=r"their dimensions: 7$"):
        check_analysis(default_book, out, ["saving"], {"demand": [1e11]}, {}, [])


def test_the_api_breakeven_is_nan_by_design_and_not_flagged():
    out = tco.model(three_samples())
    assert np.isnan(out.breakeven_demand.sel(strategy="api")).all()
    assert np.isfinite(out.breakeven_demand.sel(strategy="buy")).all()
