"""The catalogue of broken books (tests/bad_books/), and bad options, through the CLI.

Each book is a good book with one mistake an analyst makes. Its first lines record what
``mc-tco run`` must say::

    # expect: <the problem and the fix>
    # where: <the input, field or model it names>
    # line: <the line the message points at, or none>
    # mistake: <what the analyst did>
    # details: <optional: the number of lines the message lists below it>

Every one must give one line on stderr that starts with the file (and the line, when TOML
gives it), names the input and says the fix; exit code 2; no traceback; nothing written
(an existing results file keeps its bytes, no backup, no temporary file, no folder). A
book written for an earlier version of the model gets a list below that line (one line per
change, indented: ``# details``), and no other book does.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from mc_tco.cli import main
from tests.paths import ARTICLE_BOOK, BAD_BOOKS, DEFAULT_BOOK

BOOKS = sorted(BAD_BOOKS.glob("*.toml"))
MC_TCO = str(Path(sys.executable).with_name("mc-tco"))


def _previous_results() -> bytes:
    """The bytes of a (tiny) results file of an earlier run: --out accepts only those."""
    import tempfile

    import xarray as xr

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "previous.nc"
        xr.Dataset({"saving": ("sample", [1.0, 2.0])},
                   attrs={"mc_tco_version": "0", "book_sha256": "0"}).to_netcdf(
            path, engine="h5netcdf")
        return path.read_bytes()


PREVIOUS = _previous_results()


def expectation(path: Path) -> dict[str, str]:
    """The ``# key: value`` header of a catalogue book."""
    head = path.read_bytes().decode("utf-8", errors="replace").splitlines()[:5]
    exp = dict(line[2:].split(": ", 1) for line in head[:4] if line.startswith("# "))
    assert set(exp) == {"expect", "where", "line", "mistake"}, path
    if head[4:] and head[4].startswith("# details: "):
        exp["details"] = head[4].removeprefix("# details: ")
    return exp


def check_one_line_error(exit_code: int, stdout: str, stderr: str, path: Path, exp: dict):
    assert exit_code == 2, stderr
    assert stdout == ""
    assert "Traceback" not in stderr
    # before it executes a book's own model file, a command names it (tests/models/test_trust.py)
    lines = [line for line in stderr.splitlines()
             if not line.startswith("mc-tco: running the model file ")]
    details = int(exp.get("details", 0))
    assert len(lines) == 1 + details, stderr
    assert all(line.startswith("  ") and line[2:3].strip() for line in lines[1:]), stderr
    msg = lines[0]
    if exp["line"] == "none":
        assert msg.startswith(f"mc-tco: error: {path}: "), msg
    else:
        assert msg.startswith(f"mc-tco: error: {path}:{exp['line']}: "), msg
    assert exp["expect"] in msg, msg
    assert exp["where"] in msg, msg


def test_the_catalogue_is_complete():
    names = {p.stem for p in BOOKS}
    # the mistakes the issue lists, one file each
    assert {
        "syntax_error", "unknown_family", "missing_field", "extra_field", "string_for_number",
        "nan_value", "inf_value", "negative_price", "low_ge_high", "mode_outside",
        "weights_not_one", "negative_weight", "duplicate_input", "empty",
        "missing_model_input", "unknown_model_input", "model_not_importable",
        "model_not_callable", "model_wrong_dims", "model_returns_nan", "grid_start_ge_stop",
        "version_1_book", "version_2_book",
    } <= names
    assert len(BOOKS) >= 80
    for p in BOOKS:
        expectation(p)


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_bad_book(path, tmp_path, monkeypatch):
    exp = expectation(path)
    monkeypatch.chdir(tmp_path)  # the default results/ folder must not appear either
    out = tmp_path / "out.nc"
    out.write_bytes(PREVIOUS)
    res = CliRunner().invoke(main, ["run", str(path), "--samples", "64", "--out", str(out)])
    check_one_line_error(res.exit_code, res.stdout, res.stderr, path, exp)
    assert sorted(tmp_path.iterdir()) == [out]  # no .bak, no temporary file, no folder
    assert out.read_bytes() == PREVIOUS


SUBPROCESS = ["syntax_error", "not_utf8", "missing_model_input", "model_returns_nan"]


@pytest.mark.slow
def test_bad_books_in_real_processes(tmp_path):
    """A few of the catalogue through the installed ``mc-tco`` (started side by side)."""
    procs = {}
    for name in SUBPROCESS:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "out.nc").write_bytes(PREVIOUS)
        procs[name] = subprocess.Popen(
            [MC_TCO, "run", str(BAD_BOOKS / f"{name}.toml"), "-n", "64", "--out", "out.nc"],
            cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
    for name, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=120)
        path = BAD_BOOKS / f"{name}.toml"
        check_one_line_error(proc.returncode, stdout, stderr, path, expectation(path))
        folder = tmp_path / name
        assert sorted(folder.iterdir()) == [folder / "out.nc"], name
        assert (folder / "out.nc").read_bytes() == PREVIOUS


def test_inputs_command_reports_the_same_errors():
    for name in ("low_ge_high", "missing_model_input"):
        path = BAD_BOOKS / f"{name}.toml"
        res = CliRunner().invoke(main, ["inputs", str(path)])
        check_one_line_error(res.exit_code, res.stdout, res.stderr, path, expectation(path))
    # a book's own model file is not executed by inputs: run reports its mistakes
    res = CliRunner().invoke(main, ["inputs", str(BAD_BOOKS / "model_not_callable.toml")])
    assert res.exit_code == 0, res.output
    assert "book_models.py" in res.stdout.splitlines()[-1]


# ------------------------------------------------------------------------ books as files


@pytest.mark.parametrize(
    ("make", "fragment"),
    [
        (lambda d: (d / "b.toml").write_bytes(b""), "the book has no inputs"),
        (lambda d: (d / "b.toml").mkdir(), "is a folder; give the path of a .toml book"),
        (lambda d: None, "no such file"),
    ],
    ids=["zero_bytes", "folder", "missing"],
)
def test_book_path_problems(make, fragment, tmp_path):
    make(tmp_path)
    book = tmp_path / "b.toml"
    res = CliRunner().invoke(main, ["run", str(book), "--out", str(tmp_path / "x.nc")])
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.startswith(f"mc-tco: error: {book}") and fragment in res.stderr
    assert len(res.stderr.splitlines()) == 1
    assert not (tmp_path / "x.nc").exists()


# ------------------------------------------------------------------------ options


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--samples", "1000"], "--samples must be a power of two >= 64"),
        (["--samples", "1000"], "try 512 or 1024"),
        (["--samples", "8"], "--samples must be a power of two >= 64 (the Sobol' design"),
        (["--samples", "0"], "got 0; try 64"),
        (["--samples", "16"], "got 16; try 64"),
        (["--samples", "8", "--ci", "bootstrap"], "must be a power of two >= 16 (the Sobol' "
         "design keeps its balance only then), got 8; try 16"),
        (["--samples", "-64"], "got -64"),
        (["--seed", "-1"], "--seed must be a whole number from 0 to 9223372036854775807 "
                           "(2^63 - 1), got -1"),
        (["--bootstrap", "1"], "--bootstrap must be 0 (none) or 2..100000 resamples, got 1"),
        (["--bootstrap", "-5"], "--bootstrap must be 0 (none) or 2..100000"),
        (["--conf-level", "1.5"], "--conf-level must lie strictly between 0 and 1, got 1.5"),
        (["--conf-level", "95"], "--conf-level must lie strictly between 0 and 1, got 95"),
        (["--chunk-size", "100"], "--chunk-size must be a multiple of 256 base samples, a "
         "power-of-two part of it holding whole scrambles (8), or at least the largest "
         "--samples of the run, 8192; got 100"),
        # a part of 256 that splits the scrambles
        (["--chunk-size", "4"], "holding whole scrambles (8), or at least the largest"),
        # issue 10: a chunk that fits --samples but not the doublings was a bare ValueError
        (["-n", "64", "--chunk-size", "100", "--target-halfwidth", "0.1"],
         "--chunk-size must be a multiple of 256 base samples, a power-of-two part of it "
         "holding whole scrambles (8), or at least the largest --samples of the run, 4096; "
         "got 100"),
        (["--max-samples", "1000", "--target-halfwidth", "0.1"],
         "--max-samples must be a power of two"),
        (["--max-samples", "1024"], "--max-samples 1024 only limits a --target-halfwidth run"),
        (["--chunk-size", "0"], "--chunk-size must be a multiple of 256"),
    ],
)
def test_bad_options(args, fragment, tmp_path):
    out = tmp_path / "x.nc"
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), *args, "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert res.stdout == "" and "Traceback" not in res.stderr
    assert res.stderr.splitlines() == [f"mc-tco: error: {res.stderr[15:].rstrip()}"]
    assert fragment in res.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["--samples", "lots"], ["--seed", "1.5"], ["--bogus"]])
def test_unparseable_options_are_usage_errors(args, tmp_path):
    # click's own usage message (usage line, hint, error), exit 2, no traceback
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), *args, "--out",
                                    str(tmp_path / "x.nc")])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "Error:" in res.stderr and args[0] in res.stderr
    assert list(tmp_path.iterdir()) == []


def _run_out(out: Path, cwd: Path, as_user: bool = False):
    """``mc-tco run`` writing ``out``; ``as_user``: without root's right to write anywhere."""
    cmd = [MC_TCO, "run", str(ARTICLE_BOOK), "--samples", "64", "-q", "--out", str(out)]
    if as_user and os.geteuid() == 0:
        # root ignores file modes through CAP_DAC_OVERRIDE; drop it for the child
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root without setpriv: cannot make a folder read-only")
        cmd = [setpriv, "--bounding-set=-dac_override", *cmd]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=120)


def test_out_is_a_folder(tmp_path):
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "64", "--out", str(tmp_path)])
    assert res.exit_code == 2
    assert res.stderr == (
        f"mc-tco: error: --out {tmp_path}: is a folder; give a file name ending in .nc\n"
    )


def test_out_below_a_file(tmp_path):
    (tmp_path / "results").write_text("not a folder")
    out = tmp_path / "results" / "deep" / "x.nc"
    res = CliRunner().invoke(main, ["run", str(ARTICLE_BOOK), "-n", "64", "--out", str(out)])
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr == (
        f"mc-tco: error: --out {out}: cannot create folder {out.parent} "
        f"({tmp_path / 'results'} is a file); choose another --out\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"]


@pytest.mark.slow
def test_out_in_a_read_only_folder(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    out = ro / "sub" / "x.nc"
    try:
        res = _run_out(out, tmp_path, as_user=True)
    finally:
        ro.chmod(0o755)
    assert res.returncode == 2, res.stderr
    assert res.stderr == (
        f"mc-tco: error: --out {out}: folder {ro} is not writable; choose another --out\n"
    )
    assert list(ro.iterdir()) == []


@pytest.mark.slow
def test_out_read_only_file(tmp_path):
    out = tmp_path / "x.nc"
    out.write_bytes(PREVIOUS)
    out.chmod(0o444)
    res = _run_out(out, tmp_path, as_user=True)
    assert res.returncode == 2, res.stderr
    assert res.stderr == (
        f"mc-tco: error: --out {out}: the file is read-only; choose another --out\n"
    )
    assert out.read_bytes() == PREVIOUS
    assert sorted(tmp_path.iterdir()) == [out]


def test_default_book_default_out_needs_no_options(tmp_path):
    # the options' defaults are valid: the shortest command works (a small run here)
    res = CliRunner().invoke(main, ["run", str(DEFAULT_BOOK), "-n", "64", "-q", "--out",
                                    str(tmp_path / "x.nc")])
    assert res.exit_code == 0, res.output
