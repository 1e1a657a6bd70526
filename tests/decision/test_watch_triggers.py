"""Triggers a person can watch (issue 24, point 6): setting each watched quantity just
below and just above its threshold, through the book's inputs mapped by hand from
MODEL.md, and running the model flips the recommendation."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from mc_tco.decision.stored_rows import stored_rows
from mc_tco.decision.triggers import WATCHED, recommendation, watch_trigger
from mc_tco.models.tco import model


def _columns(ds):
    names = list(map(str, ds["input"].values))
    const = ds.mc_tco.constants
    from mc_tco.models.tco_inputs import INPUTS

    return {k: (ds["input_value"].sel(input=k).values if k in names
                else np.full(ds.sizes["sample"], float(const[k]))) for k in INPUTS}


def _by_hand(x, demand, key, v):
    """The inputs that set quantity ``key`` to ``v`` (MODEL.md's equations, written anew)."""
    x = dict(x)
    if key == "invoice_price":
        h, o = x["api_cache_hit_rate"], x["output_share"]
        blend = x["api_price_level"] * ((1 - o) * (h * x["price_input_cache_hit"] + (1 - h)
                * x["price_input_cache_miss"]) + o * x["price_output"]) * (
            1 - x["api_offpeak_share"] * x["api_offpeak_discount"])
        x["api_price_level"] = x["api_price_level"] * v / blend
    elif key == "tokens_per_gpu_hour":
        def work(o, h):
            return (1 - o) * (h * x["work_cache_hit"] + 1 - h) + o * x["work_output"]

        mix = work(x["reference_output_share"], x["reference_cache_hit_rate"]) / work(
            x["output_share"], x["self_cache_hit_ratio"] * x["api_cache_hit_rate"])
        x["throughput_multiple"] = x["reference_tokens_per_gpu_hour"] * mix / v
    elif key == "cache_hit_share":
        x["api_cache_hit_rate"] = np.full_like(x["api_cache_hit_rate"], v)
    elif key == "monthly_volume":
        x["demand_realization"] = np.full_like(x["demand_realization"], v / demand)
    else:
        x["node_price"] = np.full_like(x["node_price"], v)
    return x


def _recommend(x, demand):
    inputs = xr.Dataset({k: ("sample", v) for k, v in x.items()},
                        coords={"demand": [demand]}, attrs={"outputs": ["npv"]})
    return recommendation(model(inputs)["npv"].values[:, 0])[0]


#: where each quantity flips the answer in the session's default run: at 100B every one
#: (the hybrid, best on average by a few hundred dollars, gives way to the API); at 3T the
#: server quote (the hybrid gives way to reserving)
CASES = [(1e11, tuple(WATCHED)), (3e12, ("server_quote",))]


@pytest.mark.parametrize(("demand", "keys"), CASES)
def test_each_threshold_flips_the_recommendation_just_above_and_below(default_run, demand,
                                                                      keys):
    ds = default_run
    rows, x = stored_rows(ds), _columns(ds)
    found = 0
    for key in keys:
        t = watch_trigger(rows, demand, key, scrambles=False)
        if not t.found:
            continue
        found += 1
        # just outside the bracket the flip was found in: 0.1% of it beyond either end
        w = t.bracket[1] - t.bracket[0]
        lo, hi = t.bracket[0] - 1e-3 * w, t.bracket[1] + 1e-3 * w
        below, above = _recommend(_by_hand(x, demand, key, lo), demand), _recommend(
            _by_hand(x, demand, key, hi), demand)
        assert below != above, key
        assert {below, above} == {t.here, t.beyond}, key
        assert (above == t.beyond) == t.rising, key
    assert found == len(keys)


def test_a_threshold_has_its_scrambles_interval_and_volume_does_not_depend_on_the_plan(
        default_run):
    rows = stored_rows(default_run)
    a = watch_trigger(rows, 5e11, "monthly_volume")
    b = watch_trigger(rows, 1e11, "monthly_volume", scrambles=False)
    assert a.found and a.lower < a.threshold < a.upper
    # the model sees demand only through demand x demand_realization (x ramp and growth)
    assert abs(b.threshold - a.threshold) <= (a.bracket[1] - a.bracket[0]) + (
        b.bracket[1] - b.bracket[0])


def test_jobs_at_one_value_share_their_rows_and_get_what_their_rows_alone_give(default_run):
    from mc_tco.decision.stored_rows import Rows
    from mc_tco.decision.triggers import _recs, watched_inputs

    rows = stored_rows(default_run)
    n, demand, key = rows.n, 1e11, "server_quote"
    every, even, head = np.arange(n), np.arange(0, n, 2), np.arange(n // 3)[::-1]
    v = [2e5, 4e5]  # node prices (USD), one flip apart or not: the sharing is what counts
    jobs = [(every, v[0]), (even, v[0]), (head, v[0]), (even, v[1]), (head[:50], v[1])]

    def alone(idx, value):  # each job in a model call of its own
        part = rows.subset(idx)
        x = part.with_inputs(watched_inputs(part, demand, key, value))
        return recommendation(Rows(x).evaluate(demand, None, ("npv",))["npv"])[0]

    sizes = []
    evaluate = Rows.evaluate

    def counted(self, *args, **kw):
        sizes.append(self.n)
        return evaluate(self, *args, **kw)

    Rows.evaluate = counted
    try:
        got = _recs(rows, demand, key, jobs)
    finally:
        Rows.evaluate = evaluate
    assert sizes == [n + np.union1d(even, head[:50]).size]  # one call, each row once a value
    assert got == [alone(i, value) for i, value in jobs]
    # the NPVs themselves: the shared call's rows are the ones a call of their own gives
    part = rows.subset(head)
    own = Rows(part.with_inputs(watched_inputs(part, demand, key, v[0]))).evaluate(demand)
    full = Rows(rows.with_inputs(watched_inputs(rows, demand, key, v[0]))).evaluate(demand)
    np.testing.assert_array_equal(full["npv"][head], own["npv"])


def test_the_recommendation_here_is_read_once_and_is_the_stored_rows_one(default_run):
    from mc_tco.decision.triggers import watch_triggers

    rows = stored_rows(default_run)
    here = recommendation(rows.evaluate(1e11)["npv"])[0]
    got = watch_triggers(default_run, 1e11, ("server_quote", "monthly_volume"), rows=rows,
                         scrambles=False)
    assert [t.current for t in got] == [here, here]


def test_stored_rows_are_evaluated_a_chunk_at_a_time_to_the_same_numbers(default_run,
                                                                         monkeypatch):
    """The re-evaluations stack the rows once per trigger value (9 x the rows); the model
    takes them CHUNK at a time, so its month-by-month arrays stay bounded: the numbers are
    those of one call."""
    import mc_tco.engine.at_points as at_points

    rows = stored_rows(default_run)
    fixed = [{"api_price_level": v} for v in (0.5, 1.0, 2.0)]
    whole = rows.evaluate_each(5e11, fixed, ("npv", "saving"))
    monkeypatch.setattr(at_points, "CHUNK", 100)  # 3 x 512 rows: 16 chunks
    chunked = rows.evaluate_each(5e11, fixed, ("npv", "saving"))
    for a, b in zip(whole, chunked, strict=True):
        for name in ("npv", "saving"):
            assert a[name].shape == (rows.n, 6)
            np.testing.assert_array_equal(a[name], b[name])
