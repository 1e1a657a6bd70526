"""The stored scenarios evaluated at other demands, chunk by chunk and lazily: the numbers
of one model call over every row, whatever the chunk and whatever is read."""

from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

from mc_tco.engine.at_points import evaluate_stored, joined, stored_output

POINTS = [8e11, 2e12]


@pytest.fixture(scope="module")
def lazy(result_files):
    """The session's default results file, opened lazily (nothing read yet)."""
    from mc_tco.results.io import open_results

    ds = open_results(result_files["default"])
    yield ds
    ds.close()


@pytest.fixture(scope="module")
def whole(lazy):
    """The model on every stored row at :data:`POINTS` in one call."""
    return evaluate_stored(lazy, "demand", POINTS, outputs=["npv", "nodes", "cash_path"],
                           chunk=10**9)


def test_chunks_do_not_change_the_numbers(lazy, whole):
    got = evaluate_stored(lazy, "demand", POINTS, outputs=["npv", "nodes", "cash_path"],
                          chunk=100)  # 512 rows: 6 chunks, the last of 12
    for name in ("npv", "nodes", "cash_path"):
        assert got[name].dims == whole[name].dims
        np.testing.assert_array_equal(got[name].values, whole[name].values, err_msg=name)
    part = evaluate_stored(lazy, "demand", POINTS, outputs=["npv"],
                           samples=np.arange(200, 330), chunk=50)
    np.testing.assert_array_equal(part["npv"].values, whole["npv"].values[200:330])
    np.testing.assert_array_equal(part["sample"].values, lazy["sample"].values[200:330])


SELECTIONS = [{"sample": 7}, {"sample": slice(3, 400, 3), "month": [0, 5, 47],
                              "strategy": 2, "cash_demand": [1, 0]},
              {"sample": [511, 0, 9], "cash_demand": 0, "month": 3}]


@pytest.mark.parametrize("sel", SELECTIONS)
def test_an_output_evaluated_when_read_is_the_models(lazy, whole, sel):
    template = lazy["cash_path"].variable
    got = stored_output(lazy, "demand", POINTS, "cash_path", template, along="cash_demand",
                        chunk=128)
    want = whole["cash_path"].transpose(*template.dims).variable
    assert got.shape == want.shape
    a, b = got.isel(sel).values, want.isel(sel).values
    assert a.shape == b.shape
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("sel", [{}, {"demand": 3}, {"demand": [47, 0, 20]},
                                 {"sample": 5, "demand": slice(10, 40, 7)},
                                 {"strategy": [4, 1], "sample": [2, 3]},
                                 {"sample": slice(500, 3, -2), "demand": [47, 1]}])
@pytest.mark.parametrize("block", [None, 1000])
def test_a_lazy_join_reads_as_the_joined_arrays(lazy, whole, sel, block, monkeypatch):
    """Whole reads and reads a block of samples at a time (``JOIN_BLOCK_BYTES``: 1000
    bytes: a sample or two a block) alike."""
    import mc_tco.engine.at_points as at_points

    if block is not None:
        monkeypatch.setattr(at_points, "JOIN_BLOCK_BYTES", block)
    old = lazy["npv"].variable
    new = whole["npv"].transpose(*old.dims).variable
    grid = lazy["demand"].values
    order = np.argsort(np.r_[grid, POINTS], kind="stable")
    got = joined([old, new], "demand", order)
    want = xr.Variable.concat([xr.Variable(old.dims, old.values), new], dim="demand")[
        {"demand": order}]
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.isel(sel).values, want.isel(sel).values)


def test_a_small_output_read_whole_is_evaluated_once_and_kept(lazy, whole, monkeypatch):
    import mc_tco.engine.at_points as at_points

    calls = []
    real = at_points.evaluate_stored

    def counted(*args, **kw):
        calls.append(kw.get("samples"))
        return real(*args, **kw)

    monkeypatch.setattr(at_points, "evaluate_stored", counted)
    template = lazy["npv"].variable
    got = stored_output(lazy, "demand", POINTS, "npv", template, chunk=10**9)
    want = whole["npv"].transpose(*template.dims).variable
    np.testing.assert_array_equal(got.isel(demand=1, strategy=2).values,
                                  want.isel(demand=1, strategy=2).values)
    assert len(calls) == 1  # every point and strategy evaluated at once
    np.testing.assert_array_equal(got.isel(sample=[4, 2]).values,
                                  want.isel(sample=[4, 2]).values)
    assert len(calls) == 1  # kept: not evaluated again
    monkeypatch.setattr(at_points, "CACHE_BYTES", 0)
    fresh = stored_output(lazy, "demand", POINTS, "npv", template, chunk=10**9)
    np.testing.assert_array_equal(fresh.isel(sample=[4, 2], demand=0).values,
                                  want.isel(sample=[4, 2], demand=0).values)
    assert len(calls) == 2 and sorted(calls[-1]) == [2, 4]  # only the samples read
