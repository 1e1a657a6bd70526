"""The explorer's JSON API without a browser: book edits, checks, runs, saving, security."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import numpy as np
import pytest

from mc_tco.app import api
from mc_tco.app.edit import apply_edits, toml_value
from mc_tco.book import load_book, loads_book
from mc_tco.engine import run
from tests.paths import DEFAULT_BOOK

MODEL = "mc_tco.models.tco:model"
PATH = str(DEFAULT_BOOK)
TEXT = DEFAULT_BOOK.read_text(encoding="utf-8")
CHEAP = {"node_price": {"dist": "uniform", "fields": {"low": "10000", "high": "20000"}}}


def test_edit_replaces_only_the_changed_fields_and_asks_for_a_source():
    new = api.edited_text(TEXT, PATH, CHEAP)
    old_lines, new_lines = TEXT.splitlines(), new.splitlines()
    changed = [(a, b) for a, b in zip(old_lines, new_lines, strict=True) if a != b]
    assert [b for _, b in changed][:2] == ["low = 10000", "high = 20000"]
    assert changed[2][1].startswith('source = "assumption: TODO why this value?')
    assert len(changed) == 3  # comments and every other line kept byte for byte
    book = loads_book(new, PATH)
    assert book.inputs["node_price"].params == {"low": 10000.0, "high": 20000.0}
    assert "uniform(low=400000, high=550000)" in book.inputs["node_price"].source


def test_edit_to_another_family_drops_the_old_fields_and_keeps_comments():
    text = TEXT.replace("low = 400000\n", "low = 400000  # vendor quote\n", 1)
    edits = {"node_price": {"dist": "pert", "fields": {"min": "3e5", "mode": "4e5",
                                                      "max": "5e5", "shape": "4"}}}
    new = api.edited_text(text, PATH, edits)
    inp = loads_book(new, PATH).inputs["node_price"]
    assert (inp.family, inp.params["mode"]) == ("pert", 4e5)
    assert "high = 550000" not in new and "# ---" in new
    # an edit back to the loaded values changes nothing, source included
    same = {"node_price": {"dist": "uniform", "fields": {"low": "400000", "high": "550000"}}}
    assert api.edited_text(TEXT, PATH, same) == TEXT


def test_the_checked_book_is_the_edited_text_with_an_input_edited_back_left_as_it_was():
    same = {"node_price": {"dist": "uniform", "fields": {"low": "400000", "high": "550000"}}}
    other = next(k for k, v in loads_book(TEXT, PATH).inputs.items()
                 if v.family == "uniform" and k != "node_price")
    lo, hi = (loads_book(TEXT, PATH).inputs[other].params[f] for f in ("low", "high"))
    moved = {other: {"dist": "uniform", "fields": {"low": str(lo), "high": str(hi * 2)}}}
    for edits, changed in (({**same, **moved}, [other]), (moved, [other]), (same, [])):
        new, book = api.checked_book(TEXT, PATH, edits, MODEL)
        assert book.text == new == api.edited_text(TEXT, PATH, edits)
        prompts = {k for k, v in book.inputs.items() if v.source.startswith("assumption: TODO")}
        assert prompts == set(changed)
        assert book.inputs[other].params["high"] == (hi * 2 if changed else hi)


def test_toml_value_writes_numbers_as_typed_and_the_rest_as_strings():
    assert toml_value("4e5") == "4e5"
    assert toml_value("400_000") == "400_000"
    assert toml_value("3, 4, 5", list_field=True) == "[3, 4, 5]"
    assert toml_value("abc") == '"abc"'
    assert toml_value('a" = 1\n[x]') == '"a\\" = 1\\n[x]"'  # no TOML injection
    assert toml_value("  ") is None


@pytest.mark.parametrize(("fields", "field", "message"), [
    ({"low": "600000", "high": "550000"}, "low", "low (600000) must be below high (550000)"),
    ({"low": "abc", "high": "550000"}, "low", "low must be a number, got the string 'abc'"),
    ({"high": "550000"}, None, "missing field 'low'"),
    ({"low": "-5", "high": "10"}, None, "reaches outside what the model allows"),
])
def test_invalid_values_give_the_cli_message(fields, field, message, tmp_path):
    edits = {"node_price": {"dist": "uniform", "fields": fields}}
    res = api.check_edits(TEXT, PATH, edits, MODEL)
    assert not res["ok"]
    err = res["error"]
    assert (err["input"], err["field"]) == ("node_price", field)
    assert message in err["message"] and "\n" not in err["message"]
    # the same message the CLI gives for that book
    bad = tmp_path / "bad.toml"
    bad.write_text(apply_edits(TEXT, edits, PATH, {}), encoding="utf-8")
    from click.testing import CliRunner

    from mc_tco.cli import main

    out = CliRunner().invoke(main, ["inputs", str(bad)])
    assert out.exit_code == 2
    assert err["message"].split(": ", 1)[1] == out.output.strip().split(": ", 3)[3]


def test_a_book_naming_other_code_is_refused():
    text = TEXT.replace('model = "mc_tco.models.tco:model"', 'model = "os:system"')
    with pytest.raises(api.bridge.BookError, match="'os:system' is not allowed in the app"):
        api.book_state(text, "mail.toml", MODEL)
    res = api.check_edits(text, "mail.toml", {}, MODEL)
    assert not res["ok"] and "not allowed" in res["error"]["message"]
    with pytest.raises(api.bridge.BookError, match="not allowed"):
        api.RunCache().get(text, "mail.toml", 256, 0, started_model=MODEL)
    api.check_model(loads_book(TEXT, PATH), "my_model:run")  # the TCO model: allowed


@pytest.mark.slow
def test_quick_run_equals_the_engine_and_answers(default_book):
    cache = api.RunCache()
    # the first answer (base rows without the break-even search), then with it
    first = cache.get(TEXT, PATH, 256, 4, session="a", stage="answer")
    assert "ST" not in first and "breakeven_demand" not in first
    assert api.answer(first, 1e12)["ranking"] is None  # the ranking follows
    base = cache.get(TEXT, PATH, 256, 4, session="a", stage="base")
    assert "ST" not in base and cache.cached(TEXT, 256, 4, "answer")
    ds = cache.get(TEXT, PATH, 256, 4, session="a")
    assert cache.get(TEXT, PATH, 256, 4, session="a") is ds  # cached
    assert cache.get(TEXT, PATH, 256, 4, session="a", stage="answer") is ds  # the fullest
    # the page's quick run skips the independence check (not shown), not the Shapley pass
    ref = run(load_book(DEFAULT_BOOK), samples=256, seed=4, independence_check=False)
    np.testing.assert_array_equal(ds["p_positive"].values, ref["p_positive"].values)
    np.testing.assert_array_equal(ds["shapley"].values, ref["shapley"].values)
    # the earlier stages are the same base rows: the same numbers
    for name in ("p_positive", "p_positive_ci", "target_quantile", "cost"):
        np.testing.assert_array_equal(first[name].values, ds[name].values, err_msg=name)
    for name in ("breakeven_demand", "breakeven_demand_p_never"):
        np.testing.assert_array_equal(base[name].values, ds[name].values, err_msg=name)
    assert api.answer(first, 1e12)["sentence"] == api.answer(ds, 1e12)["sentence"]
    res = api.results_json(ds)
    json.dumps(res, allow_nan=False)
    assert res["baseline"] == ["api"]
    # every strategy of cost model version 3 but the baseline, reserved too, in the file's
    # order (the page draws each in the memo's colour)
    assert res["strategies"] == ["buy", "rent", "reserved", "owned", "hybrid"]
    assert set(res["p"]) == set(res["strategies"])
    i = res["grid"].index(1e12)
    assert res["p"]["buy"]["p"][i] == float(ref["p_positive"].sel(
        target="saving>0", strategy="buy", demand=1e12))
    ans = api.answer(ds, 1e12)
    assert ans["demand"] == 1e12 and "beats the API in" in ans["sentence"]
    assert len(ans["ranking"]["buy"]["rows"]) == 8
    # ranked as `mc-tco run` ranks them: by Shapley effect (correlated inputs), so titled
    rk = ans["ranking"]["buy"]
    assert rk["index"] == "shapley" and rk["title"].startswith("Top inputs by Shapley effect")
    cli = ds.mc_tco.ranking(rk["target"], **ds.mc_tco.shapley_point(demand=1e12,
                                                                    strategy="buy"))
    assert [r[0] for r in rk["rows"]] == [str(v) for v in cli["input"].values[:8]]


def test_the_break_even_stage_reuses_the_answers_rows(monkeypatch):
    """Stage "base" after stage "answer" hands the answer's rows to the bridge (only the
    break-even demands are computed again: tests/app/test_input_values.py)."""
    cache = api.RunCache()
    seen = []
    orig = api.bridge.base_run

    def base_run(book, samples, seed, breakeven=True, answer=None):
        seen.append((breakeven, answer))
        return orig(book, samples, seed, breakeven, answer)

    monkeypatch.setattr(api.bridge, "base_run", base_run)
    first = cache.get(TEXT, PATH, 64, 2, session="a", stage="answer")
    cache.get(TEXT, PATH, 64, 2, session="a", stage="base")
    assert [b for b, _ in seen] == [False, True]
    assert seen[0][1] is None and seen[1][1] is first


def test_a_newer_request_of_the_same_tab_cancels_the_older():
    cache = api.RunCache()
    calls = []

    def progress_hook(done, total):
        calls.append(done)
        cache.latest["tab"] = object()  # a newer request arrived meanwhile

    # the default book ranks by Shapley effects: its ranking stage is the Shapley rows
    orig = api.bridge.shapley_ranking

    def ranking(book, rows, samples, seed, at=None, progress=None, **kw):
        return orig(book, rows, samples, seed, at, progress=lambda d, t: (
            progress_hook(d, t), progress(d, t)), **kw)

    api.bridge.shapley_ranking, saved = ranking, api.bridge.shapley_ranking
    try:
        with pytest.raises(api.Cancelled):
            cache.get(TEXT, PATH, 512, 0, session="tab", demand=5e11)
    finally:
        api.bridge.shapley_ranking = saved
    assert calls and not cache.ranks  # stopped at its first block: nothing kept


def test_save_never_overwrites_without_asking(tmp_path):
    dest = tmp_path / "mine.toml"
    out = api.save_book(TEXT, PATH, CHEAP, str(dest), overwrite=False)
    assert out["saved"] == str(dest) and dest.read_text(encoding="utf-8") == out["text"]
    dest.write_text("# mine\n", encoding="utf-8")
    assert api.save_book(TEXT, PATH, CHEAP, str(dest), overwrite=False) == {"exists": str(dest)}
    assert dest.read_text(encoding="utf-8") == "# mine\n"
    api.save_book(TEXT, PATH, CHEAP, str(dest), overwrite=True)
    assert "low = 10000" in dest.read_text(encoding="utf-8")
    with pytest.raises(api.bridge.BookError, match=r"end the name in \.toml"):
        api.save_book(TEXT, PATH, CHEAP, str(tmp_path / "x.txt"), overwrite=False)
    with pytest.raises(api.bridge.BookError, match="does not exist"):
        api.save_book(TEXT, PATH, CHEAP, str(tmp_path / "no" / "x.toml"), overwrite=False)
    bad = {"node_price": {"dist": "uniform", "fields": {"low": "9", "high": "1"}}}
    with pytest.raises(api.bridge.BookError, match="must be below"):
        api.save_book(TEXT, PATH, bad, str(tmp_path / "bad.toml"), overwrite=False)
    assert not (tmp_path / "bad.toml").exists()


def test_pdf_matches_scipy(default_book):
    inp = default_book.inputs["node_price"]
    pic = api.pdf(inp)
    assert pic["kind"] == "pdf"
    np.testing.assert_allclose(pic["y"], inp.dist.pdf(np.array(pic["x"])), rtol=1e-9)
    assert api.pdf(default_book.inputs["gpus_per_node"])["kind"] == "constant"


def test_a_one_sided_truncnormal_reaches_the_editor_as_strict_json():
    """The open side (high = inf) is an empty field, never Infinity (the server's JSON
    has ``allow_nan=False``); the families' defaults likewise."""
    old = 'dist = "uniform"\nlow = 400000\nhigh = 550000'
    assert old in TEXT
    text = TEXT.replace(old, 'dist = "truncnormal"\nmean = 475000\nsd = 40000\nlow = 400000')
    state = api.book_state(text, "one-sided.toml", MODEL)
    json.dumps(state, allow_nan=False)
    node = next(i for g in state["groups"] for i in g["inputs"] if i["name"] == "node_price")
    assert node["params"] == {"mean": 475000, "sd": 40000, "low": 400000}
    fams = json.loads(json.dumps(api.bridge.families(), allow_nan=False))
    assert fams["truncnormal"]["optional"] == {"low": "", "high": ""}
    assert fams["gamma"]["alternatives"] == [["shape", "scale"], ["low", "high"]]


def _req(url, body=None, token=None, host=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["X-Mc-Tco-Token"] = token
    if host:
        headers["Host"] = host
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_server_needs_the_token_and_a_local_host(app_server):
    app, url, _ = app_server
    assert _req(url + "/api/book")[0] == 403
    assert _req(url + "/api/book", token=app.token, host="evil.example:80")[0] == 403
    status, state = _req(url + "/api/book", token=app.token)
    assert status == 200 and state["samples"] == 1024
    page = urllib.request.urlopen(url + "/", timeout=10).read().decode()
    assert app.token in page and "http" not in page.replace("http://www.w3.org", "")
    status, err = _req(url + "/api/check", {"text": state["text"], "path": state["path"],
                                            "edits": {"node_price": {"dist": "uniform",
                                                      "fields": {"low": "9", "high": "1"}}}},
                       token=app.token)
    assert status == 200 and "must be below" in err["error"]["message"]


def test_full_run_cancels_and_writes_nothing(app_server, monkeypatch):
    import time

    app, _url, folder = app_server
    monkeypatch.chdir(folder)
    job = app.full({"path": str(folder / "book.toml"), "seed": 0})
    app.cancel({"id": job["id"]})
    for _ in range(600):
        state = app.job({"id": job["id"]})
        if state["status"] != "running":
            break
        time.sleep(0.05)
    assert state["status"] == "cancelled", state
    assert not list((folder / "results").glob("*.nc")) if (folder / "results").exists() else True


def test_answer_ranks_correlated_inputs_by_shapley_effects(default_run):
    """A full run of a correlated book has Shapley effects; the page ranks by them (per-input
    Sobol' indices are not shares of the variance when inputs are correlated), and says so."""
    ds = default_run
    assert "shapley" in ds and ds.mc_tco.correlations
    ans = api.answer(ds, 1e12)
    rk = ans["ranking"]["buy"]
    assert rk["index"] == "shapley" and ans["conf_level"] == ds.attrs["conf_level"]
    effects = ds["shapley"].sel(target=rk["target"], strategy="buy", demand=1e12)
    top = effects.sortby(effects, ascending=False)["input"].values[:8]
    assert [row[0] for row in rk["rows"]] == [str(x) for x in top]
    assert rk["rows"][0][1] == pytest.approx(float(effects.max()))
    assert all(row[3] is None for row in rk["rows"])  # no S1 tick under a Shapley bar
    assert rk["at"] == pytest.approx(1e12)
    quick = api.answer(ds.drop_vars(["shapley", "shapley_conf"]), 1e12)
    assert quick["ranking"]["buy"]["index"] == "ST"
    # a demand the run did not estimate them at (--shapley-at report): the nearest one,
    # named in the answer for the caption, never a row of NaN
    d = float(ds.demand.sel(demand=7e11, method="nearest"))
    assert not np.isfinite(ds["shapley"].sel(demand=d)).any()
    far = api.answer(ds, d)["ranking"]["buy"]
    assert far["index"] == "shapley" and far["at"] == pytest.approx(5e11)
    assert all(row[1] is not None for row in far["rows"])


def test_target_chance_is_the_accessors(tmp_path, result_files):
    from mc_tco.app.chance import target_chance
    from mc_tco.errors import OptionError
    from mc_tco.results.io import open_results

    ds = open_results(result_files["default"])
    got = target_chance(ds, 5e11, "10k")
    assert got["target"] == "saving" and got["unit"] == "USD/month" and "api" not in got["rows"]
    for s, cell in got["rows"].items():
        ref = ds.mc_tco.p_exceeds("saving", 1e4, strategy=s, demand=5e11)
        assert cell["p"] == float(ref["p"]) and cell["events"] == int(ref["events"])
        assert [cell["lo"], cell["hi"]] == [float(v) for v in ref["p_ci"].values]
    with pytest.raises(OptionError, match="threshold lots: not a number"):
        target_chance(ds, 5e11, "lots")


def test_the_seed_and_samples_must_be_whole_numbers(app_server):
    from mc_tco.app.endpoints import _whole
    from mc_tco.errors import McTcoError

    app, _, _ = app_server
    assert [_whole(v, "seed", 0, 0) for v in (None, "", "3", 3, 3.0, "12")] == [0, 0, 3, 3, 3, 12]
    for bad in (-1, "-1", 2.7, "2.7", "abc", True):
        with pytest.raises(McTcoError, match=f"seed {bad}: must be a whole number >= 0"):
            app.preview({"text": TEXT, "path": PATH, "seed": bad})
    with pytest.raises(McTcoError, match="samples 0: must be a whole number >= 1"):
        app.run({"text": TEXT, "path": PATH, "samples": 0})


def test_status_says_what_uses_the_cores(app_server):
    from mc_tco.app.endpoints import Job

    app, _, _ = app_server
    assert app.status({}) == {"full_run": None, "quick_runs": 0}
    app.jobs["x"] = Job("x", "b.toml", done=1024, total=8192)
    try:
        got = app.status({})["full_run"]
        assert (got["done"], got["total"]) == (1024, 8192)
    finally:
        app.jobs.pop("x")


def test_the_first_page_reopens_a_book_saved_from_it(app_server, tmp_path):
    app, _, folder = app_server
    saved = folder / "mine-edited.toml"
    saved.write_text(api.edited_text(TEXT, PATH, CHEAP), encoding="utf-8")
    state = app.initial({"path": str(saved)})
    assert state["path"] == str(saved) and "low = 10000" in state["text"]
    outside = tmp_path / "elsewhere.toml"
    outside.write_text(TEXT, encoding="utf-8")
    with pytest.raises(api.bridge.BookError, match="outside the app's folder"):
        app.initial({"path": str(outside)})


def test_a_utilisation_above_1_names_the_bound_not_percent():
    edits = {"utilization": {"dist": "pert", "fields": {"min": "0.6", "mode": "0.75",
                                                        "max": "1.5"}}}
    err = api.check_edits(TEXT, PATH, edits, MODEL)["error"]
    assert err["input"] == "utilization"
    assert err["message"].endswith("utilization must be in (0, 1] and 1.5 is above its upper "
                                   "bound 1; narrow the range")
    assert "percent" not in err["message"] and "(1)" not in err["message"]
