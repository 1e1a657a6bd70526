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
    (True, False, ["Shapley effects", "sampling", "independence check", "summaries"]),
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
    assert sum(s for _, s, _ in said) <= wall  # stages do not overlap


def test_no_stage_is_said_for_a_run_that_fails(tmp_path):
    # the one-row calls that size the chunk pass; the first chunk's rows fail
    (tmp_path / "stage_model.py").write_text(MODEL.replace(
        "    return", "    if inputs.sizes['sample'] > 1:\n        raise ValueError('no')\n    return"))
    (tmp_path / "bad.toml").write_text(
        '[book]\nmodel = "stage_model:model"\n[analysis]\ntargets = ["y"]\n'
        + "".join(f'[inputs.{v}]\ndist = "uniform"\nlow = 0\nhigh = 1\n'
                  for v in ("x1", "x2", "x3")))
    said: list[str] = []
    plan = plan_run(load_book(tmp_path / "bad.toml"), samples=64, chunk_size=256)
    with pytest.raises(Exception, match="raised ValueError: no"):
        execute(plan, out=tmp_path / "r.nc", on_stage=lambda name, s: said.append(name))
    assert said == []
