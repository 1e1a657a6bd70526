"""The two shipped books are written for version 3 of the model (MODEL.md, "The two
assumption books"): every input with unit, group and a source, the model's joint guard over
the whole support, the article's book at the article's point with the new inputs neutral,
the default book's choices stated where MODEL.md leaves them to the book."""

from __future__ import annotations

import re

import pytest

from mc_tco.book import load_book
from mc_tco.models.tco_inputs import INPUTS, NEUTRAL
from tests.paths import ARTICLE_BOOK, DEFAULT_BOOK

BOOKS = [DEFAULT_BOOK, ARTICLE_BOOK]
#: a source is the article's, MODEL.md's, a neutral value, an assumption, or a quote with
#: the address it was read at
_KIND = re.compile(r"(article|assumption|neutral: |MODEL\.md)")
_ADDRESS = re.compile(r"\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(com|org|cc|dev|ai|fyi|cloud|space|co)\b")


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_every_input_has_unit_group_and_a_source(path):
    book = load_book(path)
    assert list(book.inputs) == [n for n in book.inputs if n in INPUTS]
    assert set(book.inputs) == set(INPUTS)
    for inp in book.inputs.values():
        assert inp.unit == INPUTS[inp.name].unit, inp.name  # written in the model's units
        assert inp.group and inp.source, inp.name
        assert _KIND.match(inp.source) or _ADDRESS.search(inp.source), (inp.name, inp.source)


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_the_load_profile_guard_holds_over_the_whole_support(path):
    # MODEL.md: peak_hours_share * peak_to_average < 1 (the off-peak level stays positive);
    # both inputs are bounded and independent, so the largest product is the bounds'
    book = load_book(path)
    share_hi = book.inputs["peak_hours_share"].support()[1]
    peak_hi = book.inputs["peak_to_average"].support()[1]
    assert share_hi * peak_hi < 1, (share_hi, peak_hi)
    assert not any({"peak_hours_share", "peak_to_average"} & set(c["between"])
                   for c in book.correlations)


def test_the_article_book_has_every_new_input_at_its_neutral_value():
    book = load_book(ARTICLE_BOOK)
    for name, value in NEUTRAL.items():
        inp = book.inputs[name]
        assert inp.is_constant and inp.value == value, name
        assert inp.source == "neutral: gives version 2's model back (MODEL.md version 3)"
    uncertain = {i.name: (i.family, i.params) for i in book.uncertain}
    assert uncertain == {  # the ranges MODEL.md lists for article.toml
        "node_price": ("uniform", {"low": 400000, "high": 550000}),
        "throughput_multiple": ("uniform", {"low": 10, "high": 20}),
        "kv_kb_per_token": ("uniform", {"low": 5, "high": 15}),
        "kv_ttl_days": ("uniform", {"low": 3, "high": 7}),
        "ssd_price_per_tb": ("uniform", {"low": 354, "high": 820}),
        "staff_fte": ("uniform", {"low": 1, "high": 2}),
        "staff_cost_per_fte": ("uniform", {"low": 150000, "high": 250000}),
        "regulatory_premium": ("uniform", {"low": 0.0, "high": 0.1}),
    }
    point = {"reference_tokens_per_gpu_hour": 3.98e8, "throughput_final_ratio": 1,
             "utilization": 1, "api_price_level": 1, "output_share": 0.05,
             "api_cache_hit_rate": 0.8, "ramp_months": 1, "setup_months": 0,
             "node_annual_depreciation": 1, "discount_rate": 0, "horizon_years": 4,
             "maintenance_fraction": 0, "node_power_kw": 14, "pue": 1.3,
             "electricity_price": 0.1, "kv_unique_fraction": 1, "storage_overhead": 1}
    assert {n: book.inputs[n].value for n in point} == point  # MODEL.md's article point


def test_the_default_book_prices_the_stop_not_a_premium_and_says_it_is_a_us_company():
    book = load_book(DEFAULT_BOOK)
    assert book.name == "DeepSeek-V4.1-Flash, mid-size company"
    # MODEL.md: books price regulation and lock-in by stop_month or the premium, not both
    assert not book.inputs["stop_month"].is_constant
    assert book.inputs["regulatory_premium"].value == 0
    # bonus depreciation 1 is the US rule since 2025: the book says the company is a US one
    bonus = book.inputs["bonus_depreciation"]
    assert bonus.value == 1
    assert bonus.source.startswith("the US rule since 2025, for a company assumed to be a "
                                   "US one")
    assert "assumed to be a US one" in " ".join(book.description.split())
