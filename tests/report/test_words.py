"""The decision analyses are computed once and worded by one renderer per medium; the number
formats and the "too few events" threshold are each defined once."""

from __future__ import annotations

import pytest

from mc_tco.decision.family_findings import BreakevenRow, FamilyFindings, FamilyRow
from mc_tco.report.words.family import family_markdown, family_text


def _row(point, book, alls, singles, flips=(), beyond=()):
    vals = {"book": book, **{f"all:{k}": v for k, v in alls.items()},
            **{label: v for label, _, v in singles}}
    lo, hi = min(vals, key=vals.get), max(vals, key=vals.get)
    moving = max(singles, key=lambda t: abs(t[2] - book)) if singles else None
    return FamilyRow(point, book, alls, tuple(singles), vals[lo], vals[hi], lo, hi, moving,
                     tuple(beyond), tuple(flips))


@pytest.fixture
def summary():
    """A family check as numbers, made by hand: no run, no results file."""
    alls = {"uniform": 0.262, "triangular": 0.352, "pert": 0.477}
    rows = (
        _row({"strategy": "owned", "demand": 1e12}, 0.496, alls,
             [("staff_fte:uniform", "staff_fte", 0.578), ("gpu_price:pert", "gpu_price", 0.45)],
             flips=("staff_fte:uniform",), beyond=("all:uniform", "staff_fte:uniform")),
        _row({"strategy": "rent", "demand": 1e11}, 0.0, dict.fromkeys(alls, 0.0),
             [("staff_fte:uniform", "staff_fte", 0.0)]),
        _row({"strategy": "rent", "demand": 3e12}, 0.0, dict.fromkeys(alls, 0.0),
             [("staff_fte:uniform", "staff_fte", 0.0)]),
    )
    be = (BreakevenRow("breakeven_demand", {"strategy": "owned"}, "book", 3.43e11, 9.71e11,
                       float("inf"), 0.074, "tokens/month"),)
    return FamilyFindings(("staff_fte", "gpu_price"), ("api_price_level",), 5, 1.25,
                         "beats the API", rows, be, {"demand": "tokens/month"})


def test_both_renderers_word_the_same_summary(summary):
    text = family_text(summary)
    md = family_markdown(summary, heading="###")
    assert text.splitlines()[1] == (
        "Family check: 4 variants of the base sample, 2 bounded inputs swapped among uniform, "
        "triangular and")
    assert "(1.2 s); unchanged (unbounded): api_price_level" in text
    assert ("The answer flips with the shape at owned, 1T: P is 49.6% as written, on the other "
            "side of 50%\n(beyond its Monte Carlo error) under staff_fte uniform.") in text
    assert "owned, 1T       49.6%        26.2%           35.2%     47.7%  staff_fte uniform 57.8%" \
        in text
    assert "Largest spread: owned, 1T, from 26.2% (all uniform) to 57.8% (staff_fte uniform)" \
        in text
    assert "2 of 4 variants\nmove it beyond its Monte Carlo interval." in text
    assert "The same under every variant: rent 0% at 100B, 3T." in text
    assert "breakeven_demand[owned]  as written  343B    971B  never   7.4%" in text
    assert md.startswith("### Does the answer depend on the shape of the distributions?\n")
    assert ("**The answer flips with the shape** at owned, 1T: P = 49.6% as written, and "
            "staff_fte uniform put it on the other side of 50%.") in md
    assert "api_price_level kept its unbounded distribution" in md
    assert ("of the single inputs, staff_fte's shape moves it most (staff_fte uniform: 57.8%)"
            in md)
    assert "| owned, 1T | 49.6% | 26.2% | 35.2% | 47.7% | 45.0% - 57.8% |" in md
    assert "| breakeven_demand[owned] | as written | 343B | 971B | never | 7.4% |" in md
    assert "The same under every variant: rent 0% at 100B, 3T." in md


def test_without_a_family_check():
    assert family_text(None) == ""
    assert "family check was not run" in family_markdown(None)


def test_one_threshold_and_one_z():
    from mc_tco.decision import prim, shares
    from mc_tco.report import terminal as text
    from mc_tco.uncertainty.scrambles import MIN_EVENTS, z_value

    assert MIN_EVENTS == 50
    assert prim.MIN_CASES is MIN_EVENTS and text.RARE is MIN_EVENTS
    assert shares.MIN_EVENTS is MIN_EVENTS
    assert z_value(0.95) == pytest.approx(1.959963984540054, abs=1e-15)


@pytest.mark.parametrize(("x", "expected"), [
    (1152.4, "1,152"), (77.1, "77"), (0.884, "0.88"), (0.0, "0"), (-41234.0, "-41,234"),
    (float("nan"), "n/a"), (float("inf"), "n/a"),
])
def test_fmt_money(x, expected):
    from mc_tco.report.fmt import fmt_money

    assert fmt_money(x) == expected


def test_pm_uses_the_normal_quantile():
    from mc_tco.report.words.common import pm

    # no more digits than the half-width supports (issue 24): 2 significant digits of it
    assert pm(1152.0, 100.0) == "1,150 ± 200"
    assert pm(1152.0, 100.0, conf_level=0.9) == "1,150 ± 160"
    assert pm(169323.0, 7260.0 / 1.959963984540054) == "169,300 ± 7,300"
