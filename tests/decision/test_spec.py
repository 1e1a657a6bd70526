"""A model declares its benefits, alternatives dim and baseline (issue 11, items 4 and 11)."""

from __future__ import annotations

import textwrap

import pytest
from click.testing import CliRunner

from mc_tco.book import loads_book
from mc_tco.cli import main
from mc_tco.decision.data import decision_data, decision_spec
from mc_tco.errors import BookError, OptionError
from mc_tco.models import ModelSpec, check_book, check_targets

MODEL = '''
import numpy as np
import xarray as xr
from mc_tco.models import ModelSpec

OPTIONS = ["status quo", "a", "b"]

def run(inputs):
    x, y = inputs["x"], inputs["y"]
    option = xr.DataArray(OPTIONS, dims="option")
    value = xr.concat([0 * x, x - 0.5, y - 0.3], dim=option)
    return xr.Dataset({"value": value.transpose("sample", "option"),
                       "cost": (1 - value).transpose("sample", "option")})

run.spec = ModelSpec(benefits=("value",), alternatives="option", baseline="status quo")
'''

BOOK = '''
[book]
name = "options"
model = "optmodel:run"

[analysis]
targets = ["{target}"]
focus = {{ option = "a" }}

[inputs.x]
dist = "uniform"
low = 0
high = 1

[inputs.y]
dist = "uniform"
low = 0
high = 1
'''


@pytest.fixture(scope="module")
def option_results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("options")
    (folder / "optmodel.py").write_text(textwrap.dedent(MODEL))
    (folder / "book.toml").write_text(BOOK.format(target="value"))
    out = folder / "r.nc"
    res = CliRunner().invoke(main, ["run", str(folder / "book.toml"), "-n", "256", "-q",
                                    "-o", str(out)])
    assert res.exit_code == 0, res.output
    return folder, out


def test_a_non_benefit_target_in_a_book_is_refused(option_results):
    folder, _ = option_results
    (folder / "cost.toml").write_text(BOOK.format(target="cost"))
    res = CliRunner().invoke(main, ["run", str(folder / "cost.toml"), "-n", "64",
                                    "-o", str(folder / "x.nc")])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"mc-tco: error: {folder / 'cost.toml'}:7: analysis.targets: "
                                 "'cost' is not a benefit of the model")
    assert "targets can be value" in res.stderr
    assert not (folder / "x.nc").exists()


def test_a_model_without_declarations_allows_every_target():
    book = loads_book('[analysis]\ntargets = ["cost"]\n[inputs.x]\ndist = "uniform"\n'
                      'low = 0\nhigh = 1\n', "b.toml")
    assert check_book(book, ModelSpec()) == []
    check_targets(book, ModelSpec())
    with pytest.raises(BookError, match="targets can be saving, npv"):
        check_targets(book, ModelSpec(benefits=("saving", "npv")))


def test_explain_uses_the_declared_alternatives_dim(option_results):
    _, out = option_results
    res = CliRunner().invoke(main, ["explain", str(out), "--strategy", "a", "--draws", "0"])
    assert res.exit_code == 0, res.output
    assert "--at option" not in res.output
    import xarray as xr

    with xr.open_dataset(out, engine="h5netcdf") as ds:
        assert decision_spec(ds).alternatives == "option"
        data = decision_data(ds)
        assert data.options == ["status quo", "a", "b"] and data.alternatives == "option"


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--target", "cost"], "--target cost: not a benefit of the model (higher is better, "
                               "measured against status quo)"),
        (["--target", "cost"], "choose one of value"),
        (["--strategy", "status quo"], "--strategy status quo: 'status quo' is the baseline"),
        (["--strategy", "status quo"], "choose one of a, b"),
    ],
)
def test_explain_refuses_a_cost_target_and_the_baseline(option_results, args, fragment):
    _, out = option_results
    res = CliRunner().invoke(main, ["explain", str(out), *args])
    assert res.exit_code == 2, res.output
    assert res.stdout == "" and len(res.stderr.splitlines()) == 1
    assert fragment in res.stderr


def test_explain_on_a_tco_file(article_run, tmp_path):
    """The TCO declarations, as the results file stores them."""
    ds = article_run.copy()
    ds.attrs.update(benefits='["saving", "npv"]', alternatives="strategy", baseline="api")
    with pytest.raises(OptionError, match=r"--target cost: not a benefit.*choose one of "
                                          r"saving, npv"):
        decision_data(ds, target="cost")
    with pytest.raises(OptionError, match="--target nodes: not a benefit"):
        decision_data(ds, target="nodes")
    from mc_tco.decision.discovery import discover

    with pytest.raises(OptionError, match="--strategy api: the API is the baseline"):
        discover(ds, strategy="api")


def test_an_unknown_target_is_named_as_unknown_first(option_results):
    folder, _ = option_results
    (folder / "profit.toml").write_text(BOOK.format(target="profit"))
    res = CliRunner().invoke(main, ["run", str(folder / "profit.toml"), "-n", "64",
                                    "-o", str(folder / "y.nc")])
    assert res.exit_code == 2
    assert "the model returned no output 'profit'; its outputs are value, cost" in res.stderr
