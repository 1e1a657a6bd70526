"""The derived reason: a synthetic gap whose reason is known, the refusal of an "even
without" sentence the counterfactual contradicts, and the model's removals against its own
stored components."""

from __future__ import annotations

import numpy as np
import pytest

from mc_tco.decision.reason import Reason, derive, reason
from mc_tco.decision.stored_rows import stored_rows
from mc_tco.models.tco import COMPONENTS
from mc_tco.report.words.why import even_without

#: a toy option against the API: costs by name, the inputs that zero them
TOY = {"staff": (("staff",), {"staff": 0.0}), "servers": (("hardware",), {"servers": 0.0}),
       "storage": (("storage",), {"storage": 0.0})}


def _toy(costs: dict[str, float], bill: float = 100.0, n: int = 201):
    """gap = API bill - sum of costs, with a spread around it (median = the sum)."""
    spread = np.linspace(-5, 5, n)

    def gap_without(fixed):
        c = {**costs, **fixed}
        return bill - sum(c.values()) + spread

    return gap_without({}), gap_without


def _reason(costs):
    base, f = _toy(costs)
    single, decisive, alone, joint = derive(base, f, TOY)
    return Reason("buy", "api", 1.0, float(np.median(base)), 0.0, single, decisive, alone,
                  joint)


def test_a_cost_that_decides_alone_is_named_and_its_even_without_is_refused():
    r = _reason({"staff": 60.0, "servers": 50.0, "storage": 5.0})  # gap -15
    assert not r.wins and r.decisive == ("staff", "servers") and r.alone
    assert r.removals["staff"].value == pytest.approx(45.0)
    assert not r.holds_without("staff") and even_without(r, "staff") == ""
    assert r.holds_without("storage")  # -10 without storage: still loses
    assert "Even without KV-cache storage" in even_without(r, "storage")
    assert "-$120 a year" in even_without(r, "storage")  # 12 x -10, recomputed


def test_costs_that_decide_only_together_are_found_in_order():
    r = _reason({"staff": 15.0, "servers": 12.0, "storage": 10.0, "other": 83.0})  # gap -20
    assert not r.alone and r.decisive == ("staff", "servers")
    assert r.joint is not None and r.joint.value == pytest.approx(7.0)
    assert all(r.holds_without(k) for k in TOY)  # none flips alone
    assert even_without(r, "staff").startswith("Even without engineers")


def test_a_winner_keeps_winning_without_its_costs():
    r = _reason({"staff": 10.0, "servers": 10.0, "storage": 10.0})  # gap +70
    assert r.wins and r.decisive == () and r.holds_without("staff")
    assert "still beats" in even_without(r, "staff")


def test_removals_equal_the_stored_components_where_tax_does_not_interfere(default_run):
    """With the tax rate at 0 (and buy's fleet set by demand alone), re-evaluating buy
    with a cost's input zeroed saves exactly that stored component: the map of
    REMOVALS is right."""
    ds, d = default_run, 5e11
    rows = stored_rows(ds)
    stored = rows.evaluate(d, None, ("saving",))["saving"]
    assert np.allclose(stored, ds["saving"].sel(demand=d).values, rtol=1e-9, atol=1e-6)
    notax = {"tax_rate": 0.0}
    base = rows.evaluate(d, notax, ("saving", "cost_component"))
    for key, comp in [("staff", "staff"), ("power", "power"), ("colocation", "colocation"),
                      ("storage", "storage"), ("network", "network"), ("upkeep", "upkeep")]:
        from mc_tco.decision.reason import REMOVALS

        without = rows.evaluate(d, {**notax, **REMOVALS[key][1]}, ("saving",))["saving"]
        gain = without[:, 1] - base["saving"][:, 1]
        assert np.allclose(gain, base["cost_component"][:, COMPONENTS.index(comp)],
                           rtol=1e-8, atol=1e-6), key


def test_reason_on_a_run_prints_only_what_its_counterfactual_bears_out(default_run):
    r = reason(default_run, 5e11, "buy")
    rows = stored_rows(default_run)
    s = rows.evaluate(5e11, {"staff_fte": 0.0}, ("saving",))["saving"][:, 1]
    assert r.stat == "mean" and r.removals["staff"].value == pytest.approx(float(s.mean()))
    m = reason(default_run, 5e11, "buy", stat="median")
    assert m.removals["staff"].value == pytest.approx(float(np.quantile(
        s, 0.5, method="inverted_cdf")))
    assert sum(r.components.values()) == pytest.approx(
        float(default_run["cost"].sel(demand=5e11, strategy="buy").mean()))
    for k in r.removals:
        assert (even_without(r, k) != "") == r.holds_without(k)


def test_the_verdict_is_the_decision_rules_mean_not_the_median():
    """A skewed gap: most scenarios lose a little, a few win much. The rule (expected NPV)
    says the option wins; the median scenario says it loses. The reason reads the mean by
    default, so its verdict and what decides agree with the recommendation."""
    gap = np.r_[np.full(90, -10.0), np.full(10, 200.0)]  # mean +11, median -10
    base = gap.copy()

    def without(fixed):
        return base + (5.0 if fixed else 0.0)

    removals = {"staff": (("staff",), {"staff": 0.0})}
    single, decisive, _, _ = derive(base, without, removals)
    assert single["staff"].value == pytest.approx(16.0) and single["staff"].wins
    assert decisive == ()  # a winner: nothing it could lose flips it
    single_m, decisive_m, _, _ = derive(base, without, removals, stat="median")
    assert single_m["staff"].value == pytest.approx(-5.0) and not single_m["staff"].wins
    assert decisive_m == ()  # still losing without staff: nothing decides the median
    with pytest.raises(ValueError, match="stat must be one of"):
        derive(base, without, removals, stat="mode")
