"""`execute(on_stage=...)` says each stage of a run as it ends, with its seconds (issue 26:
``mc-tco report`` prints them while it runs); small runs of a user's model."""

from __future__ import annotations

import time

import pytest

from mc_tco.book import load_book
from mc_tco.engine import execute, plan_run

MODEL = '''
import xarray as xr


def model(inputs):
    return xr.Dataset({"y": inputs.x1 + 2 * inputs.x2 - inputs.x3})
'''


def _book(tmp_path, correlated: bool):
    (tmp_path / "stage_model.py").write_text(MODEL)
    inputs = "".join(f'[inputs.{v}]\ndist = "uniform"\nlow = 0\nhigh = 1\n'
                     for v in ("x1", "x2", "x3"))
    pair = '[[correlation]]\nbetween = ["x2", "x3"]\nspearman = 0.5\n' if correlated else ""
    path = tmp_path / "stages.toml"
    path.write_text('[book]\nmodel = "stage_model:model"\n[analysis]\ntargets = ["y"]\n'
                    + inputs + pair)
    return load_book(path)


@pytest.mark.parametrize(("correlated", "family", "expected"), [
    (False, True, ["family check", "sampling", "summaries"]),
    # (the Shapley pass runs beside the run's tail: said once it is joined, before the
    # file is completed)
    (True, False, ["sampling", "independence check", "Shapley effects", "summaries"]),
])
def test_each_stage_is_said_once_in_order_as_it_ends(tmp_path, correlated, family, expected):
    said: list[tuple[str, float, float]] = []
    plan = plan_run(_book(tmp_path, correlated), samples=64, family_check=family,
                    shapley_permutations=16)
    start = time.monotonic()
    with execute(plan, out=tmp_path / "r.nc",
                 on_stage=lambda name, s: said.append((name, s, time.monotonic()))) as ds:
        wall = time.monotonic() - start
        assert "y" in ds
    assert [name for name, _, _ in said] == expected
    # said as it ends: each line's seconds fit between the start and the moment it was said
    assert all(0 <= s <= at - start for _, s, at in said)
    ends = [at for _, _, at in said]
    assert ends == sorted(ends)
    # stages do not overlap, but the Shapley pass, which runs beside the tail
    assert sum(s for name, s, _ in said if name != "Shapley effects") <= wall


def test_no_stage_is_said_for_a_run_that_fails(tmp_path):
    # the one-row calls that size the chunk pass; the first chunk's rows fail
    fail = "    if inputs.sizes['sample'] > 1:\n        raise ValueError('no')\n    return"
    (tmp_path / "stage_model.py").write_text(MODEL.replace("    return", fail))
    (tmp_path / "bad.toml").write_text(
        '[book]\nmodel = "stage_model:model"\n[analysis]\ntargets = ["y"]\n'
        + "".join(f'[inputs.{v}]\ndist = "uniform"\nlow = 0\nhigh = 1\n'
                  for v in ("x1", "x2", "x3")))
    said: list[str] = []
    plan = plan_run(load_book(tmp_path / "bad.toml"), samples=64, chunk_size=256)
    with pytest.raises(Exception, match="raised ValueError: no"):
        execute(plan, out=tmp_path / "r.nc", on_stage=lambda name, s: said.append(name))
    assert said == []


def test_a_small_models_chunk_grows_unless_asked_for(tmp_path):
    """fit_chunk doubles a chunk not asked for while it stays small and leaves 4 chunks:
    y has 8 bytes a row, 5 rows a base sample (x 4 overhead): 160 bytes a sample."""
    from mc_tco.engine.evaluate import MIN_CHUNKS, fit_chunk, sample_bytes

    book = _book(tmp_path, correlated=False)
    plan = plan_run(book, samples=8192)
    assert plan.chunk_auto and plan.chunk_size == 256 and sample_bytes(plan) == 8 * 5
    fitted = fit_chunk(plan)
    assert fitted.chunk_size == 8192 // MIN_CHUNKS and not fitted.chunk_auto
    assert fit_chunk(fitted).chunk_size == fitted.chunk_size  # fitted once
    assert fit_chunk(plan_run(book, samples=8192, chunk_size=256)).chunk_size == 256
    assert fit_chunk(plan_run(book, samples=512)).chunk_size == 256  # 4 chunks of 128: no


def test_the_grown_chunk_is_stored_and_changes_only_the_last_bits(tmp_path):
    import json

    import numpy as np

    book = _book(tmp_path, correlated=False)
    with execute(plan_run(book, samples=2048, seed=4), out=tmp_path / "a.nc") as grown:
        assert json.loads(grown.attrs["run_options"])["chunk_size"] == 512  # rerun: the same
        with execute(plan_run(book, samples=2048, seed=4, chunk_size=256),
                     out=tmp_path / "b.nc") as small:
            for name in ("S1", "ST", "S1_conf", "ST_conf"):  # the sums' order
                np.testing.assert_allclose(grown[name], small[name], rtol=0, atol=1e-12)
            for name in ("y", "input_value", "target_mean", "target_quantile", "p_positive"):
                np.testing.assert_array_equal(grown[name], small[name])


@pytest.mark.parametrize("correlated", [False, True])
def test_the_sampling_progress_hears_nothing_done_as_the_samples_start(tmp_path, correlated):
    """``progress(0, N)`` comes after the family check, before the first chunk (and each
    pass starts with its own ``progress(0, total)``): the terminal's time left counts from
    there (the article's run in ``mc-tco report`` said ~270 s left of a 9 s stage, its
    family check counted as sampling time). The Shapley pass comes after the samples (it
    runs beside the run's tail), so it never interrupts their progress."""
    calls: list[tuple[str, int, int]] = []

    def recorder(name):
        return lambda done, total: calls.append((name, done, total))

    plan = plan_run(_book(tmp_path, correlated), samples=256, family_check=True,
                    shapley_permutations=16, chunk_size=64)
    with execute(plan, out=tmp_path / "r.nc", progress=recorder("sampling"),
                 family_progress=recorder("family"), shapley_progress=recorder("shapley")):
        pass
    names = [name for name, _, _ in calls]
    family = [(d, t) for name, d, t in calls if name == "family"]
    assert family[0] == (0, family[0][1]) and family[-1][0] == family[-1][1] > 0
    first = names.index("sampling")
    assert calls[first] == ("sampling", 0, 256)
    assert set(names[:first]) == {"family"}
    sampled = [i for i, name in enumerate(names) if name == "sampling"]
    assert set(names[first:sampled[-1] + 1]) == {"sampling"}
    assert set(names[sampled[-1] + 1:]) == ({"shapley"} if correlated else set())
    if correlated:  # the Shapley pass too says nothing done as it starts
        shapley = [(d, t) for name, d, t in calls if name == "shapley"]
        assert shapley[0] == (0, shapley[-1][1]) and shapley[-1][0] == shapley[-1][1]
    done = [d for name, d, _ in calls if name == "sampling"]
    assert done == sorted(done) and done[-1] == 256 and done.count(0) == 1


def test_the_shapley_pass_beside_the_tail_gives_the_same_effects(tmp_path):
    """The Shapley pass runs beside the run's tail (threads) or before the sampling (one
    thread, ``synchronous``, the order before issue 26): the same effects, the same file
    but for the order of its work.

    The outputs are equal to the last bit; the indices within 1e-12 (relative): in a
    test worker that had run other modules first, two of the effects once came out one
    ulp apart (0.6487967287242932 against ...34), the same two every time in that
    worker's state and never in a fresh process (a fresh ``mc-tco run`` gives the same
    file as before this change, variable for variable)."""
    import numpy as np

    plan = plan_run(_book(tmp_path, True), samples=256, shapley_permutations=32, seed=3)
    with execute(plan, out=tmp_path / "beside.nc") as beside, \
            execute(plan, out=tmp_path / "before.nc", scheduler="synchronous") as before:
        for name in ("p_positive", "y"):
            np.testing.assert_array_equal(beside[name].values, before[name].values,
                                          err_msg=name)
        for name in ("shapley", "shapley_conf", "S1", "ST"):
            np.testing.assert_allclose(beside[name].values, before[name].values, rtol=1e-12,
                                       atol=1e-15, err_msg=name)
        assert beside.attrs["shapley_method"] == before.attrs["shapley_method"]
        assert beside.attrs["shapley_evaluations"] == before.attrs["shapley_evaluations"]
        # the file completed in two writes (the summaries while the pass beside ends, then
        # its effects) is the one-write file: variables, their attrs and storage, the attrs
        assert set(beside.variables) == set(before.variables)
        stored = ("compression", "compression_opts", "shuffle", "fletcher32", "chunksizes")
        for name in before.variables:
            assert beside[name].attrs == before[name].attrs, name
            assert beside[name].dims == before[name].dims, name
            assert ({k: beside[name].encoding.get(k) for k in stored}
                    == {k: before[name].encoding.get(k) for k in stored}), name
        differ = {k for k in before.attrs if str(before.attrs[k]) != str(beside.attrs.get(k))}
        assert set(beside.attrs) == set(before.attrs)
        assert differ - {"created"} == {"scheduler"}  # (created: to the second)


def test_an_error_of_the_shapley_pass_beside_the_tail_is_the_runs(tmp_path, monkeypatch):
    """A Shapley pass that fails beside the tail fails the run: its error raised, no
    results file left (the temporary file removed)."""
    from mc_tco.engine import shapley
    from mc_tco.errors import ModelError

    def failing(*args, **kwargs):
        raise ModelError("stages.toml: the Shapley rows failed")

    monkeypatch.setattr(shapley, "shapley_dataset", failing)
    plan = plan_run(_book(tmp_path, True), samples=64, shapley_permutations=16)
    with pytest.raises(ModelError, match="Shapley rows failed"):
        execute(plan, out=tmp_path / "r.nc")
    assert not list(tmp_path.glob("r.nc*"))


def test_an_error_of_the_tail_stops_the_shapley_pass_beside_it(tmp_path, monkeypatch):
    """An error of the run's tail (here its independence check) stops the Shapley pass at
    its next block instead of waiting for all of it; the tail's error is raised."""
    import importlib
    import threading

    from mc_tco.engine import shapley

    engine_run = importlib.import_module("mc_tco.engine.run")
    started = threading.Event()
    blocks: list[int] = []

    def slow(done, total):  # the Shapley pass's progress: a block every 50 ms
        blocks.append(done)
        started.set()
        time.sleep(0.05)

    def failing(*args, **kwargs):
        started.wait(10)
        raise RuntimeError("the tail failed")

    monkeypatch.setattr(engine_run, "_independence", failing)
    monkeypatch.setattr(shapley, "MAX_ROWS", 64)  # blocks of 64 rows: 72 of them
    plan = plan_run(_book(tmp_path, True), samples=64, shapley_permutations=512)
    total = shapley.shapley_rows(plan)
    assert total // 64 >= 70
    with pytest.raises(RuntimeError, match="the tail failed"):
        execute(plan, out=tmp_path / "r.nc", shapley_progress=slow)
    assert blocks and blocks[-1] < total / 2  # stopped, not run out
    assert not list(tmp_path.glob("r.nc*"))


def test_the_summaries_are_written_while_the_shapley_pass_beside_ends(tmp_path):
    """With the Shapley pass beside the tail, the file is completed in two writes: the
    summaries while the pass ends (the main thread only waits for it there), then its
    effects; the pass's last progress call sees the summaries already in the file."""
    import h5py

    seen: list[bool] = []

    def written() -> bool:
        for path in tmp_path.glob(".r.nc.*.tmp"):
            try:
                with h5py.File(path, "r") as f:
                    return "p_positive" in f and "shapley" not in f
            except OSError:  # (being written this moment)
                pass
        return False

    def last_block(done, total):
        if done == total:  # the last block: wait (2 s at most) for the summaries' write
            deadline = time.monotonic() + 2
            while not written() and time.monotonic() < deadline:
                time.sleep(0.01)
            seen.append(written())

    plan = plan_run(_book(tmp_path, True), samples=64, shapley_permutations=16)
    with execute(plan, out=tmp_path / "r.nc", shapley_progress=last_block) as ds:
        assert "shapley" in ds and "p_positive" in ds
    assert seen == [True]


def test_the_summaries_read_the_kept_targets_of_base_rows_too_large_to_keep(tmp_path,
                                                                             monkeypatch):
    """Base rows too large to keep in memory (the default run's 290 MB) keep their targets
    alone while those are small (its 19 MB): the summaries and the independence check read
    them instead of opening the file; the same file as read back from it."""
    import importlib

    import numpy as np

    from mc_tco.results.store import BaseStore

    engine_run = importlib.import_module("mc_tco.engine.run")
    real_open, opened = BaseStore.open, []

    def counted(self):
        opened.append(self.path)
        return real_open(self)

    monkeypatch.setattr(BaseStore, "open", counted)
    plan = plan_run(_book(tmp_path, True), samples=256, shapley_permutations=16, seed=5)
    files = {}
    # 40 bytes a base row (y, three inputs' values, the sample), 16 of them for y: with
    # KEEP 6000 the 256 rows are too large to keep (10 kB), their targets are not (4 kB)
    for keep, opens in ((0, 1), (6000, 0)):
        monkeypatch.setattr(engine_run, "KEEP", keep)
        files[keep] = tmp_path / f"keep{keep}.nc"
        before = len(opened)
        with execute(plan, out=files[keep]):
            pass
        assert len(opened) - before == opens, keep
    import xarray as xr

    with xr.open_dataset(files[0], engine="h5netcdf") as read, \
            xr.open_dataset(files[6000], engine="h5netcdf") as kept:
        assert set(read.variables) == set(kept.variables)
        for name in read.variables:  # (the indices within 1e-12: see the test above)
            if name in ("shapley", "shapley_conf", "S1", "ST"):
                np.testing.assert_allclose(kept[name].values, read[name].values, rtol=1e-12,
                                           atol=1e-15, err_msg=name)
            else:
                np.testing.assert_array_equal(kept[name].values, read[name].values,
                                              err_msg=name)
