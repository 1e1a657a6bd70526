"""A book written for an earlier version of the model is refused with one error that lists
every change: one line per removed or renamed input and what replaced it, one line of the
new inputs it lacks with the values that give the earlier version's answer (issue 23).

The version-2 default book is ``tests/bad_books/version_2_book.toml``: ``git show
main:distributions/deepseek-v4.1-flash.toml`` below the catalogue's five header lines.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mc_tco.book import loads_book
from mc_tco.cli import main
from mc_tco.engine import plan_run
from mc_tco.errors import BookError, McTcoError
from tests.paths import BAD_BOOKS, DEFAULT_BOOK

V2_BOOK = BAD_BOOKS / "version_2_book.toml"
MC_TCO = str(Path(sys.executable).with_name("mc-tco"))

#: every new input of version 3 at its neutral value, in the model's input order (by hand
#: from MODEL.md's inputs section; the event months at 1000, past any horizon)
ALL_NEW = (
    "api_price_cut_size = 0, api_price_cut_month = 1000, api_offpeak_share = 0, "
    "api_offpeak_discount = 0, reference_output_share = 0.216, "
    "reference_cache_hit_rate = 0.563, work_cache_hit = 1, work_output = 1, "
    "self_cache_hit_ratio = 1, scale_efficiency_single_node = 1, scale_full_nodes = 16, "
    "peak_to_average = 1, peak_hours_share = 0.3, spare_fraction = 0, "
    "demand_realization = 1, cancel_month = 1000, stop_month = 1000, reserved_discount = 0.5, "
    "reserved_term_months = 12, owned_resale_fraction = 0, network_capex_fraction = 0, "
    "colocation_per_kw_month = 0, tax_rate = 0, tax_depreciation_years = 5, "
    "bonus_depreciation = 0"
)
HOW = ('as [inputs.NAME] with dist = "constant" and value = V (distributions/ has the shipped '
       "books for this version):")


def v2_refusal(path: str) -> str:
    """What ``mc-tco`` prints on stderr for the version-2 default book at ``path``."""
    return (
        f"mc-tco: error: {path}:140: inputs.hybrid_utilization: the book is written for an "
        "earlier version of the model (1 input removed or renamed, 25 new ones missing); "
        f"change it as listed below, each new input {HOW}\n"
        "  [inputs.hybrid_utilization] removed: the hybrid's load follows from "
        "peak_to_average, peak_hours_share and its marginal rule\n"
        "  add the new inputs with these values to keep the earlier version's answer: "
        f"{ALL_NEW}\n"
    )


def _drop(text: str, name: str) -> str:
    """``text`` without the table ``[inputs.name]`` (up to the next blank line)."""
    start = text.index(f"[inputs.{name}]\n")
    end = text.index("\n\n", start) + 2
    return text[:start] + text[end:]


def _refusal(text: str, path: str = "b.toml") -> BookError:
    with pytest.raises(BookError) as info:
        plan_run(loads_book(text, path), samples=16, resamples=0)
    return info.value


@pytest.mark.parametrize("command", ["run", "inputs"])
def test_the_version_2_default_book_is_refused_with_every_change(command, tmp_path,
                                                                monkeypatch):
    monkeypatch.chdir(tmp_path)  # the default results/ folder must not appear either
    out = tmp_path / "x.nc"
    args = [command, str(V2_BOOK)] + (["-n", "64", "--out", str(out)] if command == "run"
                                      else [])
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr == v2_refusal(str(V2_BOOK))
    assert "Traceback" not in res.output
    assert list(tmp_path.iterdir()) == []  # no results file, no results/ folder


@pytest.mark.slow
def test_the_installed_command_prints_the_same_lines(tmp_path):
    proc = subprocess.run([MC_TCO, "run", str(V2_BOOK), "-n", "64", "--out", "x.nc"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == v2_refusal(str(V2_BOOK))
    assert list(tmp_path.iterdir()) == []


def test_the_book_body_is_the_version_2_default_book():
    # the refusal is tested on the book version 2 shipped, not on a book made to fail
    text = V2_BOOK.read_text(encoding="utf-8")
    head, _, body = text.partition("\n# The default assumption book:")
    assert len(head.splitlines()) == 5 and "for version 2 of the cost model" in body
    assert body.count("[inputs.") == 36 and "[inputs.hybrid_utilization]" in body


def test_an_incomplete_book_gets_the_same_listing_of_what_it_lacks():
    text = DEFAULT_BOOK.read_text(encoding="utf-8")
    for name in ("tax_rate", "api_offpeak_share", "spare_fraction"):
        text = _drop(text, name)
    err = _refusal(text)
    assert str(err) == (
        "b.toml: inputs: the book lacks 3 inputs that the current version of the model "
        f"added; add each {HOW}\n"
        "  add the new inputs with these values to keep the earlier version's answer: "
        "api_offpeak_share = 0, spare_fraction = 0, tax_rate = 0"
    )
    assert err.details == ("add the new inputs with these values to keep the earlier "
                           "version's answer: api_offpeak_share = 0, spare_fraction = 0, "
                           "tax_rate = 0",)


def test_one_missing_new_input_and_one_old_one():
    text = _drop(_drop(DEFAULT_BOOK.read_text(encoding="utf-8"), "cancel_month"), "pue")
    assert str(_refusal(text)).splitlines() == [
        f"b.toml: inputs: the book lacks 1 input that the current version of the model added; "
        f"add each {HOW}",
        "  add the new inputs with these values to keep the earlier version's answer: "
        "cancel_month = 1000",
        "  and add pue, which has no neutral value: give it a dist",
    ]


def test_a_complete_book_with_a_removed_input_gets_only_its_line():
    text = DEFAULT_BOOK.read_text(encoding="utf-8")
    text += '\n[inputs.hybrid_utilization]\ndist = "constant"\nvalue = 0.9\n'
    line = text.splitlines().index("[inputs.hybrid_utilization]") + 1
    assert str(_refusal(text)).splitlines() == [
        f"b.toml:{line}: inputs.hybrid_utilization: the book is written for an earlier version "
        f"of the model (1 input removed or renamed); change it as listed below, each new "
        f"input {HOW}",
        "  [inputs.hybrid_utilization] removed: the hybrid's load follows from "
        "peak_to_average, peak_hours_share and its marginal rule",
    ]


def test_a_version_1_book_names_each_rename_and_not_twice_what_replaces_it():
    text = DEFAULT_BOOK.read_text(encoding="utf-8")
    text = text.replace("[inputs.horizon_years]", "[inputs.amortization_years]")
    text = text.replace("[inputs.reference_tokens_per_gpu_hour]",
                        "[inputs.reference_revenue_per_gpu_hour]")
    text = _drop(text, "learning_months")  # an input with no neutral value
    text += '\n[inputs.valley_price_factor]\ndist = "constant"\nvalue = 0.5\n'
    lines = str(_refusal(text, "v1.toml")).splitlines()
    assert lines[0].startswith("v1.toml:")
    assert "(3 inputs removed or renamed)" in lines[0]
    throughput = ("removed: throughput is now reference_tokens_per_gpu_hour, tokens one GPU of "
                  "DeepSeek's stack serves an hour (about 8.3e8; 3.98e8 at the article's "
                  "point), independent of the API price")
    assert lines[1:] == [  # in the book's order; horizon_years and the reference are said
        f"  [inputs.reference_revenue_per_gpu_hour] {throughput}",
        "  [inputs.amortization_years] renamed horizon_years (the months of cash flows; the "
        "article's 4)",
        f"  [inputs.valley_price_factor] {throughput}",
        "  and add learning_months, which has no neutral value: give it a dist",
    ]


def test_a_misspelt_new_input_gets_the_rename_message_not_the_listing():
    text = DEFAULT_BOOK.read_text(encoding="utf-8").replace(
        "[inputs.spare_fraction]", "[inputs.spare_fractoin]")
    err = _refusal(text)
    assert err.details == ()
    assert "the model needs input 'spare_fraction' and the book has 'spare_fractoin' " \
           "instead; rename [inputs.spare_fractoin] to [inputs.spare_fraction]" in str(err)


def test_the_shipped_books_pass():
    for path in (DEFAULT_BOOK, DEFAULT_BOOK.with_name("article.toml")):
        plan_run(loads_book(path.read_text(encoding="utf-8"), str(path)), samples=16,
                 resamples=0)


def test_details_are_lines_of_their_own_and_each_one_line():
    err = McTcoError("what is wrong", ["first\nchange", "second"])
    assert str(err) == "what is wrong\n  first\\nchange\n  second"
    assert err.headline == "what is wrong" and err.details == ("first\\nchange", "second")
    assert "\n" not in str(McTcoError("one\nline"))  # without details: one line, as before


def test_a_rerun_keeps_the_list_on_its_lines():
    from mc_tco.cli.rerun import _failure_is_an_error

    @_failure_is_an_error
    def fails(results=None):
        raise BookError("b.toml", "inputs.x", "the book is old:", 3, ["[inputs.x] removed"])

    import click

    res = CliRunner().invoke(click.command()(click.option("--results")(fails)),
                             ["--results", "r.nc"])
    assert res.exit_code == 2
    assert res.stderr == ("mc-tco: error: r.nc: the rerun failed: BookError: b.toml:3: "
                          "inputs.x: the book is old:\n  [inputs.x] removed\n")
