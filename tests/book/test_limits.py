"""Books that would break the parser or the machine get one line at once (item 7): deep
nesting (a RecursionError traceback), a huge field or file (printed in full), thousands of
inputs (79 s and 484 MB to be refused), and unknown inputs named all at once."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from mc_tco.book import limits, load_book, loads_book
from mc_tco.cli import main
from mc_tco.errors import BookError
from mc_tco.models import check_book
from mc_tco.models.tco import SPEC
from tests.paths import DEFAULT_BOOK

TEXT = DEFAULT_BOOK.read_text(encoding="utf-8")
ANALYSIS = '[analysis]\ntargets = ["saving"]\n'
assert ANALYSIS in TEXT
ANALYSIS_LINE = TEXT[: TEXT.index(ANALYSIS)].count("\n") + 1
#: the start of utilization's source in the default book
UTIL_SOURCE = 'source = "assumption (MODEL.md; nothing better found): highest sustained load'
assert TEXT.count(UTIL_SOURCE) == 1


def _with(line: str) -> str:
    """The default book with ``line`` added to its [analysis] table (at ANALYSIS_LINE + 2)."""
    return TEXT.replace(ANALYSIS, ANALYSIS + line + "\n", 1)


def _refused(text: str, name: str = "b.toml") -> BookError:
    with pytest.raises(BookError) as exc:
        loads_book(text, name)
    assert "\n" not in str(exc.value)
    return exc.value


@pytest.mark.parametrize("value", ["[" * 1000 + "]" * 1000,
                                   "{a=" * 5000 + "1" + "}" * 5000,
                                   "[" * 33 + "]" * 33])
def test_deep_nesting_is_one_line_with_its_line(value):
    exc = _refused(_with(f"x = {value}"))
    assert str(exc) == (f"b.toml:{ANALYSIS_LINE + 2}: arrays or inline tables nested more "
                        "than 32 deep; a book needs two or three levels, e.g. "
                        "report = { demand = [1e11, 5e11] }")


def test_the_parsers_recursion_is_caught_if_the_scan_misses_it(monkeypatch):
    import mc_tco.book.load as load

    monkeypatch.setattr(load, "nesting_too_deep", lambda text: None)
    exc = _refused(_with("x = " + "[" * 5000 + "]" * 5000))
    assert str(exc).startswith("b.toml: arrays or inline tables nested more than 32 deep")


def test_brackets_in_strings_and_comments_are_not_nesting():
    deep = "[" * 40 + "{" * 40
    text = TEXT.replace('group = "throughput"', f'group = "throughput"  # {deep}', 1)
    text = text.replace(UTIL_SOURCE,
                        UTIL_SOURCE.replace('"', f'"{deep} \\" {deep} ', 1), 1)
    text = text.replace(ANALYSIS, ANALYSIS + f"# {deep}\n", 1)
    text = text.replace('[book]\n', f"[book]\n# '''\n# {deep}\n", 1)
    text = text.replace('name = "DeepSeek', f"# 'C:\\\\' {deep}\nname = \"DeepSeek", 1)
    book = loads_book(text.replace('description = """', f'description = """{deep}\\\n', 1))
    assert book.inputs["utilization"].source.startswith(deep)
    assert limits.nesting_too_deep("x = 'C:\\' # [[[[\ny = [1]", 2) is None
    assert limits.nesting_too_deep('x = """\n[[[[\n"""\ny = [[1]]', 2) is None
    assert limits.nesting_too_deep("x = [[[1]]]", 2) == 1


def test_a_huge_source_is_refused_before_it_is_read_or_printed(tmp_path, monkeypatch):
    big = TEXT.replace(UTIL_SOURCE,
                       UTIL_SOURCE.replace('"', '"' + "x" * 50_000_000, 1), 1)
    exc = _refused(big)
    size = f"{len(big.encode('utf-8')):,}"
    assert size.startswith("50,0")
    assert str(exc) == (f"b.toml: the book is {size} bytes; a book is at most 1,000,000 "
                        "bytes (1 MB): keep long notes and data in files of their own and "
                        "name them in source")
    path = tmp_path / "big.toml"
    path.write_text(big, encoding="utf-8")

    def no_reading(*args, **kwargs):
        raise AssertionError("a book past the size limit was read")

    monkeypatch.setattr(Path, "read_text", no_reading)
    with pytest.raises(BookError, match=rf"big\.toml: the book is {size} bytes"):
        load_book(path)


def test_a_long_field_names_the_field_and_its_line():
    exc = _refused(TEXT.replace(UTIL_SOURCE,
                                UTIL_SOURCE.replace('"', '"' + "x" * 20_000, 1), 1))
    line = TEXT[: TEXT.index(UTIL_SOURCE)].count("\n") + 1
    assert str(exc).startswith(f"b.toml:{line}: inputs.utilization.source: a text of 20,")
    assert "a field holds at most 10,000" in str(exc)
    exc = _refused(_with("report = { demand = [" + "1e11, " * 100_001 + "] }"))
    assert "analysis.report.demand: a list of 100,001 items; a list holds at most 100,000" \
        in str(exc)
    exc = _refused(TEXT + "\n[inputs." + "x" * 101 + "]\ndist = \"constant\"\nvalue = 1\n")
    assert "inputs: a name of 101 characters ('xxxxxxxxxxxxxxxxxxxx...'); names are at most " \
           "100 characters" in str(exc)


def _extra_inputs(n: int) -> str:
    return TEXT + "".join(f'\n[inputs.extra_{i}]\ndist = "uniform"\nlow = 0\nhigh = 1\n'
                          for i in range(n))


def test_thousands_of_inputs_are_refused_at_once():
    exc = _refused(_extra_inputs(3000))
    assert str(exc).endswith("inputs: the book has 3,060 inputs; a book has at most 1,000 "
                             "(the model runs N x (inputs + 2) times)")


@pytest.mark.slow
def test_unknown_inputs_are_named_at_once_with_their_count():
    book = loads_book(_extra_inputs(900), "b.toml")
    with pytest.raises(BookError) as exc:
        check_book(book, SPEC)
    line = TEXT.count("\n") + 2
    assert str(exc.value).startswith(
        f"b.toml:{line}: inputs.extra_0: the model does not use 900 of the book's inputs: "
        "'extra_0', 'extra_1', 'extra_2', 'extra_3', 'extra_4' and 895 more; remove them or "
        "rename them (the model's inputs: price_input_cache_hit, ")
    one = loads_book(_extra_inputs(1), "b.toml")  # one: with "did you mean"
    with pytest.raises(BookError, match="the model does not use an input 'extra_0'; remove"):
        check_book(one, SPEC)


@pytest.mark.slow
def test_a_big_book_of_inputs_has_every_line_right():
    book = loads_book(_extra_inputs(900), "b.toml")
    assert book.inputs["extra_899"].line == TEXT.count("\n") + 2 + 5 * 899


def test_the_cli_says_one_line(tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text(_with("x = " + "[" * 1000 + "]" * 1000), encoding="utf-8")
    for command in ("inputs", "run"):
        res = CliRunner().invoke(main, [command, str(path)])
        assert res.exit_code == 2 and res.stdout == ""
        assert res.stderr == (f"mc-tco: error: {path}:{ANALYSIS_LINE + 2}: arrays or inline "
                              "tables nested more than 32 deep; a book needs two or three "
                              "levels, e.g. report = { demand = [1e11, 5e11] }\n")
