"""A chunk's base rows hold nothing but themselves: a model output that is a view (here of
its own inputs, hence of the chunk's design rows) is copied, the model's own arrays kept."""

from __future__ import annotations

import textwrap

import numpy as np

MODEL = '''
import xarray as xr


def model(inputs):
    """A target made by the model, and an echo of an input (a view of the inputs)."""
    return xr.Dataset({"y": inputs["a"] * inputs["b"] + 1.0, "echo": inputs["a"]})
'''


def test_base_rows_copy_views_only(tmp_path):
    from mc_tco.book import load_book
    from mc_tco.engine.evaluate import evaluate_chunk
    from mc_tco.engine.plan import plan_run

    (tmp_path / "echo_model.py").write_text(MODEL)
    path = tmp_path / "echo.toml"
    path.write_text(textwrap.dedent("""
        [book]
        name = "echo"
        model = "echo_model:model"
        [analysis]
        targets = ["y"]
        [inputs.a]
        dist = "uniform"
        low = 1
        high = 2
        [inputs.b]
        dist = "uniform"
        low = -1
        high = 1
        """))
    plan = plan_run(load_book(path), samples=64)
    base, _, _ = evaluate_chunk(plan, 0, 64)
    for name in ("y", "echo", "input_value"):
        assert np.asarray(base[name].values).base is None, name  # owns its memory
    np.testing.assert_array_equal(base["echo"].values, base["input_value"].values[:, 0])
