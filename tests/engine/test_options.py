"""Every option checked before any work, with a message naming it (issue 11, items 8, 9, 16)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.engine.options import check_run_options
from mc_tco.errors import OptionError
from tests.paths import ARTICLE_BOOK


def _run(args, tmp_path, book=ARTICLE_BOOK):
    return CliRunner().invoke(main, ["run", str(book), *args])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ci", "bootstrap", "--bootstrap", "0"],
         "--ci bootstrap needs --bootstrap of 2..100000 resamples, got 0; 100 is usual"),
        (["--ci", "bootstrap", "--bootstrap", "1"],
         "--ci bootstrap needs --bootstrap of 2..100000 resamples, got 1"),
        (["--target-halfwidth", "0.05", "--max-samples", "1000"],
         "--max-samples must be a power of two >= 16 (the Sobol' design keeps its balance "
         "only then), got 1000; try 512 or 1024"),
        (["--max-samples", "4096"],
         "--max-samples 4096 only limits a --target-halfwidth run; add --target-halfwidth H"),
        (["-n", "16"],
         "--samples must be a power of two >= 64 (the Sobol' design keeps its balance only "
         "then; --ci rqmc needs 8 base samples for each of its 8 scrambles (--replicates)), "
         "got 16; try 64"),
        (["-n", "32", "--replicates", "8"], "got 32; try 64"),
        (["-n", "1000"], ">= 64 (the Sobol' design keeps its balance only then; --ci rqmc "
         "needs 8 base samples for each of its 8 scrambles (--replicates)), got 1000; try 512 "
         "or 1024"),
        (["-n", "16", "--replicates", "4"], "power of two >= 32 (the Sobol' design keeps its "
         "balance only then; --ci rqmc needs 8 base samples for each of its 4 scrambles "
         "(--replicates)), got 16; try 32"),
        (["-o", "/proc/x.nc"], "--out /proc/x.nc: cannot write there"),
    ],
)
def test_options_refused_before_any_work(args, message, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "64", *args])
    assert res.exit_code == 2, res.output
    assert res.stdout == "" and len(res.stderr.splitlines()) == 1
    assert message in res.stderr
    assert "0 (none)" not in res.stderr
    assert list(tmp_path.iterdir()) == []  # nothing run, nothing written


def test_small_samples_with_fewer_scrambles_are_fine():
    check_run_options(samples=16, ci="rqmc", replicates=2)
    check_run_options(samples=16, ci="asymptotic", replicates=8)
    with pytest.raises(OptionError, match="needs 8 base samples for each of its 8 scrambles"):
        check_run_options(samples=32, ci="rqmc", replicates=8)


def test_out_is_the_book_itself(tmp_path):
    book = tmp_path / "article.toml"
    book.write_bytes(ARTICLE_BOOK.read_bytes())
    res = CliRunner().invoke(main, ["run", str(book), "-n", "64", "-o", str(book)])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"mc-tco: error: --out {book}: is the book itself")
    assert book.read_bytes() == ARTICLE_BOOK.read_bytes()
    assert sorted(tmp_path.iterdir()) == [book]


def test_out_with_a_book_suffix(tmp_path):
    out = tmp_path / "other.toml"
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "64", "-o", str(out)])
    assert res.exit_code == 2
    assert f"--out {out}: a '.toml' file is a book or a note" in res.stderr
    assert f"--out {tmp_path / 'other.nc'}" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_out_is_a_file_mc_tco_did_not_write(tmp_path):
    out = tmp_path / "numbers.nc"
    out.write_bytes(b"someone's data")
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "64", "-o", str(out)])
    assert res.exit_code == 2
    assert "the file exists and is not an mc_tco results file, so it is not replaced" in (
        res.stderr)
    assert out.read_bytes() == b"someone's data"
    assert sorted(tmp_path.iterdir()) == [out]


def test_out_over_a_results_file_is_replaced(tmp_path):
    out = tmp_path / "x.nc"
    for _ in range(2):
        res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "64", "-q",
                                        "--bootstrap", "0", "-o", str(out)])
        assert res.exit_code == 0, res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.nc", "x.nc.bak"]


def test_explain_json_names_json(tmp_path):
    (tmp_path / "file").write_text("not a folder")
    target = tmp_path / "file" / "x.json"
    res = CliRunner().invoke(main, ["explain", str(tmp_path / "r.nc"), "--json", str(target)])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"mc-tco: error: --json {target}: cannot create folder")
    assert "--out" not in res.stderr


def test_the_samples_rule_is_said_once_in_the_help_and_the_error():
    """-n 1000 was refused with "a power of two >= 16; try 512 or 1024", and 16 then with
    "use 64": the error and --help give the one real minimum (issue: hints, item 12)."""
    from mc_tco.engine.options import check_run_options, samples_minimum

    assert samples_minimum() == 64 and samples_minimum("rqmc", 2) == 16
    assert samples_minimum("bootstrap") == samples_minimum("asymptotic") == 16
    for ci in ("bootstrap", "asymptotic"):
        check_run_options(samples=16, ci=ci)  # the minimum of these is accepted
    check_run_options(samples=64)
    res = CliRunner().invoke(main, ["run", "--help"])
    help_text = " ".join(res.stdout.split())
    assert "a power of two >= 64 with --ci rqmc" in help_text
    assert ">= 16 with --ci bootstrap or asymptotic" in help_text


@pytest.mark.parametrize("command", ["report", "app"])
def test_the_other_commands_help_states_the_same_minimum(command):
    res = CliRunner().invoke(main, [command, "--help"])
    assert "a power of two >= 64" in " ".join(res.stdout.split())
