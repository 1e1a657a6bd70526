"""``mc-tco memo`` on a user's own model: the generic memo (issue 11, item 10)."""

from __future__ import annotations

import re
import textwrap

import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.report.fmt import fmt_value
from mc_tco.results.io import open_results, write_results

OPTION_MODEL = '''
import xarray as xr
from mc_tco.models import ModelSpec

OPTIONS = ["status quo", "a", "b"]

def run(inputs):
    x, y, z = inputs["x"], inputs["y"], inputs["z"]
    option = xr.DataArray(OPTIONS, dims="option")
    scale = inputs["volume"]
    value = xr.concat([0 * x, scale * (x - 0.5) + 0.1 * z, scale * (y - 0.3) * x], dim=option)
    return xr.Dataset({"value": value.transpose("sample", "option", "volume")})

run.spec = ModelSpec(benefits=("value",), alternatives="option", baseline="status quo")
'''

OPTION_BOOK = '''
[book]
name = "options with a grid"
model = "genmemo_optmodel:run"

[analysis]
targets = ["value"]
focus = { option = "a", volume = 2 }

[grid.volume]
values = [1, 2, 4]

[inputs.x]
dist = "uniform"
low = 0
high = 1

[inputs.y]
dist = "uniform"
low = 0
high = 1

[inputs.z]
dist = "uniform"
low = -1
high = 1
'''

PLAIN_MODEL = '''
import xarray as xr

def run(inputs):
    """Acting pays 1 where a > 0.7 and b < 0.4, else costs 1; c plays no part."""
    win = (inputs.a > 0.7) & (inputs.b < 0.4)
    return xr.Dataset({"margin": xr.where(win, 1.0, -1.0) + 0 * inputs.c})
'''

PLAIN_BOOK = '''
[book]
name = "a plain model"
model = "genmemo_plain:run"

[analysis]
targets = ["margin"]

[inputs.a]
dist = "uniform"
low = 0
high = 1

[inputs.b]
dist = "uniform"
low = 0
high = 1

[inputs.c]
dist = "uniform"
low = 0
high = 1
'''


TWO_MODEL = '''
import xarray as xr
from mc_tco.models import ModelSpec

OPTIONS = ["keep", "upgrade", "replace"]

def run(inputs):
    x, y, z = inputs["x"], inputs["y"], inputs["z"]
    option = xr.DataArray(OPTIONS, dims="option")
    scale = inputs["volume"]
    value = xr.concat([0 * x, scale * (x - 0.5) + 0.1 * z, scale * (y - 0.3) * x], dim=option)
    cash = xr.concat([0 * x, 2 * (y - 0.4) - 0.2 * x, z - 0.1], dim=option)  # no volume
    return xr.Dataset({"value": value.transpose("sample", "option", "volume"),
                       "cash": cash.transpose("sample", "option")})

run.spec = ModelSpec(benefits=("value", "cash"), alternatives="option", baseline="keep")
'''

#: two targets, the second one (without the grid dim) named the focus target; shapes that
#: the family check moves
TWO_BOOK = '''
[book]
name = "two targets"
model = "genmemo_twomodel:run"

[analysis]
targets = ["value", "cash"]
focus = { target = "cash", option = "upgrade", volume = 2 }

[grid.volume]
values = [1, 2, 4]

[inputs.x]
dist = "triangular"
min = 0
mode = 0.2
max = 1

[inputs.y]
dist = "uniform"
low = 0
high = 1

[inputs.z]
dist = "pert"
min = -1
mode = 0.5
max = 1
'''


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


@pytest.fixture(scope="module")
def option_memo(tmp_path_factory):
    folder = tmp_path_factory.mktemp("generic_memo")
    (folder / "genmemo_optmodel.py").write_text(textwrap.dedent(OPTION_MODEL))
    (folder / "book.toml").write_text(OPTION_BOOK)
    nc = folder / "options.nc"
    r = invoke("run", folder / "book.toml", "-n", "256", "-q", "-o", nc)
    assert r.exit_code == 0, r.output
    r = invoke("memo", nc)
    assert r.exit_code == 0, r.output
    return nc, folder / "options", r.output


@pytest.fixture(scope="module")
def plain_results(tmp_path_factory):
    folder = tmp_path_factory.mktemp("generic_plain")
    (folder / "genmemo_plain.py").write_text(textwrap.dedent(PLAIN_MODEL))
    (folder / "plain.toml").write_text(PLAIN_BOOK)
    nc = folder / "plain.nc"
    r = invoke("run", folder / "plain.toml", "-n", "512", "-q", "-o", nc)
    assert r.exit_code == 0, r.output
    return folder, nc


def _row(md: str, first: str) -> list[str]:
    """The cells of the first Markdown table row that starts with ``first``."""
    for line in md.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0] == first:
            return cells
    raise AssertionError(f"no row {first!r}")


def _percents(cell: str) -> list[float]:
    return [float(v) for v in re.findall(r"(\d+(?:\.\d+)?)%?", cell)]


def test_memo_of_a_model_with_options_and_a_grid(option_memo):
    _, out, output = option_memo
    # 4 of its own and the cumulative curves and scatter (memo/sections_curves.py)
    assert "wrote" in output and "6 figures, 4 CSV tables" in output
    files = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert {"memo.md", "memo.html", "summary.md", "summary.html", "p_positive.csv",
            "quantiles.csv", "sobol_indices.csv", "tornado.csv", "figures/p_positive.png",
            "figures/bands.png", "figures/tornado.png", "figures/evpi.png",
            "figures/cumulative_curves.png", "figures/scatter_top_inputs.png"} <= files
    md = (out / "memo.md").read_text()
    for title in ("## The answer", "## How wide is the range of value?",
                  "## What drives the answer?", "## Under which conditions does a pay off?",
                  "## What is it worth to know more before deciding?", "## Provenance"):
        assert title in md, title
    assert "At volume 2" in md
    assert "not a results file" not in md
    # the ranking: every input, x first (value of a = volume (x - 0.5) + 0.1 z)
    assert _row(md, "1")[1] == "x"
    assert {_row(md, str(k))[1] for k in (1, 2, 3)} == {"x", "y", "z"}
    # PRIM finds x > 0.5 for a; the value of information names the options
    assert re.search(r"x > 0\.[45]\d*", md)
    assert "choosing among status quo, a, b" in md
    assert "Regenerate this memo with: `mc-tco memo " in md
    html = (out / "memo.html").read_text()
    assert "data:image/png;base64," in html and "<h2" in html


def test_generic_memo_numbers_equal_the_dataset(option_memo):
    nc, out, _ = option_memo
    md = (out / "memo.md").read_text()
    ds = open_results(nc)
    for option in ("status quo", "a", "b"):
        p = ds.mc_tco.p_beats(option, "value", volume=2)
        label = f"{option} (baseline)" if option == "status quo" else option
        printed = _percents(_row(md, label)[1])
        want = [100 * float(p[k]) for k in ("p", "lower", "upper")]
        assert printed == pytest.approx(want, abs=0.051), option
    # the best on average is the option with the highest stored mean
    means = ds["target_mean"].sel(target="value", volume=2.0)
    best = str(means["option"].values[int(np.argmax(means.values))])
    assert f"**{best}** is best on average" in md
    # the median of b and its interval, the ST of x
    q = float(ds["target_quantile"].sel(target="value", volume=2.0, option="b", quantile=0.5))
    lo, hi = ds["target_quantile_ci"].sel(target="value", volume=2.0, option="b",
                                          quantile=0.5).values
    bands = md.split("## How wide")[1]
    assert _row(bands, "b")[3] == f"{fmt_value(q)} ({fmt_value(lo)} to {fmt_value(hi)})"
    st = ds.mc_tco.ranking("value", volume=2, option="a")
    assert f"{float(st['ST'].sel(input='x')):.3f} ± {float(st['ST_conf'].sel(input='x')):.3f}" \
        in _row(md, "1")[3]
    csv = (out / "p_positive.csv").read_text().splitlines()
    assert set(csv[0].split(",")) >= {"target", "option", "volume", "p", "lower", "upper"}
    assert len(csv) == 1 + 3 * 3


def test_generic_memo_at_another_grid_point_and_bad_at(option_memo, tmp_path, no_png):
    nc, _, _ = option_memo
    r = invoke("memo", nc, "--at", "volume=4", "-o", tmp_path / "m4", "-q")
    assert r.exit_code == 0, r.output
    md = (tmp_path / "m4" / "memo.md").read_text()
    assert "At volume 4" in md and "--at=volume=4" in md
    p = open_results(nc).mc_tco.p_beats("a", "value", volume=4)
    assert _percents(_row(md, "a")[1])[0] == pytest.approx(100 * float(p["p"]), abs=0.051)
    for args, fragment in [(["--at", "volume=3"], "volume"),
                           (["--at", "colour=red"], "has no dim 'colour'"),
                           (["--demand", "5e11"], "has no dim 'demand'"),
                           (["--compare", nc], "drop --compare")]:
        r = invoke("memo", nc, *args, "-o", tmp_path / "bad")
        assert r.exit_code == 2, (args, r.output)
        assert fragment in r.output and len(r.output.strip().splitlines()) == 1, r.output
        assert not (tmp_path / "bad").exists()


def test_generic_memo_of_a_model_without_grid_or_options(plain_results, tmp_path,
                                                             no_png):
    _, nc = plain_results
    r = invoke("memo", nc, "-o", tmp_path / "m", "-q")
    assert r.exit_code == 0, r.output
    assert r.output == ""
    md = (tmp_path / "m" / "memo.md").read_text()
    ds = open_results(nc)
    p = ds.mc_tco.p_beats(None, "margin")
    printed = _percents(_row(md, "margin")[1])
    assert printed == pytest.approx([100 * float(p[k]) for k in ("p", "lower", "upper")],
                                    abs=0.051)
    # E[margin] = 2 P(win) - 1 < 0: do not act
    assert "**do not act** on average" in md
    assert "## Under which conditions does margin pay off?" in md
    assert re.search(r"a > 0\.[67]\d* and b < 0\.[34]\d*", md)
    assert "choosing among acting and not acting" in md
    assert "At " not in md.split("## The answer")[1].split("\n\n")[1]
    assert not (tmp_path / "m" / "figures" / "p_positive.png").exists()  # no grid to draw


def test_report_on_a_users_book(plain_results, tmp_path, monkeypatch, no_png):
    folder, _ = plain_results
    monkeypatch.chdir(folder)
    r = invoke("report", "plain.toml", "-n", "256", "--results-dir", tmp_path / "res")
    assert r.exit_code == 0, r.output
    assert "[1/2] ran plain.toml" in r.output and "[2/2] wrote" in r.output
    assert (tmp_path / "res" / "plain.nc").is_file()
    md = (tmp_path / "res" / "plain" / "memo.md").read_text()
    assert "# a plain model — a decision memo" in md
    assert "`mc-tco report plain.toml -n 256 --results-dir" in md.replace(
        "--samples 256", "-n 256")


def test_report_gives_each_stage_of_a_run_its_own_progress(plain_results, tmp_path,
                                                           monkeypatch, no_png):
    """The report's runs say their family check, Shapley effects and samples under their
    own labels: the samples' time left counts from their own start (the article's run said
    ~270 s left of a 9 s stage, its family check counted as sampling time)."""
    from mc_tco.report.memo import report as rep

    folder, _ = plain_results
    monkeypatch.chdir(folder)
    real, seen = rep.execute, {}

    class Label:
        def __init__(self, label):
            self.label = label

        def __call__(self, done, total):
            pass

    def spy(plan, **kw):
        seen.update({k: v.label for k, v in kw.items() if k.endswith("progress")})
        return real(plan, **kw)

    monkeypatch.setattr(rep, "execute", spy)
    rep.make_report(samples=256, seed=0, results_dir=tmp_path / "res", books=("plain.toml",),
                    command="mc-tco report plain.toml", say=lambda line: None, progress=Label)
    assert seen == {"progress": "[1/2] plain", "family_progress": "[1/2] plain family check",
                    "shapley_progress": "[1/2] plain Shapley effects"}


def test_a_tco_run_that_kept_only_its_targets_asks_for_keep_samples_all(tmp_path):
    """What a TCO run with --keep-samples targets holds (its attrs and the targets only)."""
    ds = xr.Dataset(
        {"saving": (("sample", "strategy"), np.zeros((4, 2)))},
        coords={"strategy": ["api", "buy"]},
        attrs={"model": "mc_tco.models.tco:model", "keep_samples": "targets",
               "book_path": "distributions/deepseek-v4.1-flash.toml", "samples": 256,
               "seed": 3, "book_sha256": "x"},
    )
    nc = write_results(ds, tmp_path / "t.nc")
    r = invoke("memo", nc, "-o", tmp_path / "m")
    assert r.exit_code == 2
    assert len(r.output.strip().splitlines()) == 1
    assert "--keep-samples targets" in r.output
    assert ("rerun with --keep-samples all: mc-tco run distributions/deepseek-v4.1-flash.toml "
            "-n 256 --seed 3 --keep-samples all") in r.output
    assert "not a results file" not in r.output
    assert not (tmp_path / "m").exists()


def test_the_apps_full_run_writes_the_generic_memo_of_a_users_book(plain_results, tmp_path,
                                                                   monkeypatch, no_png):
    from mc_tco.app import bridge
    from mc_tco.book import load_book

    folder, _ = plain_results
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(bridge, "default_samples", lambda: 256)
    out = bridge.full_run(load_book(folder / "plain.toml"), 0, lambda done, total: None,
                          lambda text: None)
    md = (tmp_path / "results" / "plain" / "memo.md").read_text()
    assert out["memo"].endswith("memo.html") and "**do not act** on average" in md


def test_run_table_has_no_empty_brackets_for_a_grid_dim_without_unit(option_memo):
    """Issue 11 item 13: a grid dim without a unit is headed 'volume', not 'volume ()'."""
    from mc_tco.report.terminal import run_table
    from mc_tco.results.io import open_results

    nc, _, _ = option_memo
    text = run_table(open_results(nc))
    assert "volume" in text and "()" not in text


@pytest.fixture(scope="module")
def two_targets(tmp_path_factory):
    """A two-target book run with --family-check, and its memo (figures not drawn)."""
    import mc_tco.report.memo.figures as F
    from mc_tco.report.memo import build_memo

    folder = tmp_path_factory.mktemp("generic_two")
    (folder / "genmemo_twomodel.py").write_text(textwrap.dedent(TWO_MODEL))
    (folder / "two.toml").write_text(TWO_BOOK)
    nc = folder / "two.nc"
    r = invoke("run", folder / "two.toml", "-n", "256", "-q", "--family-check", "-o", nc)
    assert r.exit_code == 0, r.output
    ds = open_results(nc)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(F, "to_png", lambda fig, dpi=None: b"\x89PNG")
        memo = build_memo(ds, paths={"results": str(nc)})
    return ds, memo.markdown, memo.tables


def _section(md: str, title: str) -> str:
    return md.split(f"## {title}")[1].split("\n## ")[0]


def _rows_of(md: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split("|")]
            for line in md.splitlines() if line.startswith("|") and ":--" not in line
            and "---" not in line]


def test_generic_memo_shows_the_family_check_with_the_files_numbers(two_targets):
    """Issue 11 item 10: the family check of a user's book is in its memo."""
    ds, md, tables = two_targets
    fam = _section(md, "Does the answer depend on the shape of the distributions?")
    assert "the 3 bounded inputs (x, y, z) swapped" in fam
    rows = {(r[0], r[1]): r for r in _rows_of(fam)}
    names = {"book": "as written", "all:uniform": "all uniform",
             "all:triangular": "all triangular", "all:pert": "all PERT"}
    p = ds["family_check_p_positive"].sel(target="cash>0", volume=2.0)
    ci = ds["family_check_p_positive_ci"].sel(target="cash>0", volume=2.0)
    change = ds["family_check_p_positive_change_ci"].sel(target="cash>0", volume=2.0)
    flips = []
    for option in ("upgrade", "replace"):
        for variant, label in names.items():
            cells = rows[(option, label)]
            at = {"option": option, "family_variant": variant}
            want = [100 * float(p.sel(at)), *(100 * float(v) for v in ci.sel(at).values)]
            assert _percents(cells[2]) == pytest.approx(want, abs=0.051), (option, variant)
            if variant == "book":
                continue
            lo, hi = (100 * float(v) for v in change.sel(at).values)
            printed = [float(v) for v in re.findall(r"[-+]?\d+\.\d", cells[3])]
            assert printed == pytest.approx([lo, hi], abs=0.051), (option, variant)
            beyond = lo > 0 or hi < 0
            flip = beyond and (float(p.sel(at)) > 0.5) != (
                float(p.sel(option=option, family_variant="book")) > 0.5)
            assert cells[4] == ("yes, flips" if flip else "yes" if beyond else "no")
            flips += [option] if flip else []
    assert ("keep", "as written") not in rows  # the baseline's target is 0
    # the rule of the TCO memo: the answer depends on the families when a variant flips it
    assert flips  # all uniform turns replace's 74% into 46% (z's PERT mode 0.5 -> 0)
    assert "**The answer depends on the families**: P(cash > 0) for replace" in fam
    assert "For the book's other target **value**:" in fam
    csv = tables["family_check.csv"].splitlines()
    assert set(csv[0].split(",")) >= {"family_variant", "target", "option", "volume", "p",
                                      "lower", "upper", "change_lower", "change_upper",
                                      "fallback", "change_fallback"}
    assert len(csv) == 1 + ds.sizes["family_variant"] * 2 * 3 * 3


def test_generic_memo_without_a_family_check_has_no_family_section(option_memo):
    _, out, _ = option_memo
    assert "shape of the distributions" not in (out / "memo.md").read_text()


def test_generic_memo_gives_every_target_its_bands_and_ranking(two_targets):
    """Issue 11 item 10: a two-target book; focus.target puts cash first."""
    ds, md, _ = two_targets
    answer = _section(md, "The answer")
    assert "| alternative | P(cash > 0) | mean cash |" in answer
    assert "| alternative | P(value > 0) |" in answer
    assert "*The book's other target value, at volume 2.*" in answer  # focus volume 2
    bands = _section(md, "How wide are the ranges of cash and value?")
    tables = [t for t in bands.split("\n\n") if t.startswith("| alternative | 5% |")]
    assert len(tables) == 2
    assert bands.index("How far cash spreads") < bands.index("other target **value**")
    for table, target in zip(tables, ("cash", "value"), strict=True):
        q = float(ds["target_quantile"].sel(target=target, volume=2.0, option="replace",
                                            quantile=0.5))
        assert _row(table, "replace")[3].startswith(fmt_value(q)), target
    drivers = _section(md, "What drives the answer?")
    tables = [t for t in drivers.split("\n\n") if t.startswith("| rank | input |")]
    assert len(tables) == 2
    for table, target in zip(tables, ("cash", "value"), strict=True):
        st = ds.mc_tco.ranking(target, volume=2, option="upgrade")
        first = str(st["input"].values[int(np.argmax(st["ST"].values))])
        assert _row(table, "1")[1] == first, target
        assert _row(table, "1")[3] == (f"{float(st['ST'].sel(input=first)):.3f} ± "
                                       f"{float(st['ST_conf'].sel(input=first)):.3f}")
    assert "**value**: Ranked by total Sobol' index ST of value of upgrade at volume 2" \
        in drivers
    assert ("are for **cash**, the focus target (set `[analysis] focus = "
            '{ target = "value" }`') in drivers
    assert "## Under which conditions does upgrade pay off?" in md
    assert "has cash > 0" in _section(md, "Under which conditions does upgrade pay off?")


def test_focus_target_must_be_a_target(tmp_path):
    (tmp_path / "genmemo_twomodel.py").write_text(textwrap.dedent(TWO_MODEL))
    (tmp_path / "two.toml").write_text(TWO_BOOK.replace('target = "cash"',
                                                        'target = "profit"'))
    r = invoke("run", tmp_path / "two.toml", "-n", "64", "-q", "-o", tmp_path / "x.nc")
    assert r.exit_code == 2, r.output
    assert "focus.target = 'profit' is not one of the targets (value, cash)" in r.output
    # the line naming the model file executed first (tests/models/test_trust.py), one error
    lines = r.output.strip().splitlines()
    assert len(lines) <= 2 and lines[-1].startswith("mc-tco: error: ")
    assert all(line.startswith("mc-tco: running the model file ") for line in lines[:-1])


def test_evpi_along_a_users_grid_is_the_definition_and_is_in_the_memo(option_memo):
    """Issue 11 item 10: EVPI along any model's first grid dim (not only 'demand')."""
    from mc_tco.decision.information import evpi_along, value_of_information

    nc, out, _ = option_memo
    ds = open_results(nc)
    curve = evpi_along(ds, "volume")
    assert curve.dims == ("volume",)
    for v in ds["volume"].values:
        nb = ds["value"].sel(volume=v).transpose("sample", "option").values
        # EVPI = E[max_j NB_j] - max_j E[NB_j]
        want = nb.max(axis=1).mean() - nb.mean(axis=0).max()
        assert float(curve.sel(volume=v)) == pytest.approx(want, rel=1e-12)
        point = value_of_information(ds, at={"volume": float(v)}, replicates=None)
        assert float(curve.sel(volume=v)) == pytest.approx(point.evpi, rel=1e-12)
    md = (out / "memo.md").read_text()
    i = int(np.argmax(curve.values))
    assert f"Along volume, EVPI is largest at volume {fmt_value(curve['volume'].values[i])}: " \
        f"{fmt_value(float(curve[i]))} ± " in md
    from mc_tco.errors import OptionError

    with pytest.raises(OptionError, match="no 'colour' dim; EVPI along colour needs one"):
        evpi_along(ds, "colour")


def test_run_ranks_the_focus_target_first(two_targets):
    """The run's table ranks the book's focus target (cash) before the first listed one."""
    from mc_tco.report.terminal import run_table

    ds, _, _ = two_targets
    text = run_table(ds)
    first_cash = text.find("for 'cash")
    first_value = text.find("for 'value")
    assert first_cash != -1 and (first_value == -1 or first_cash < first_value), text
