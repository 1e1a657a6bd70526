"""Faults while results are written: a full disk, two runs to one --out, a seed that
cannot be stored. Each ends in one line (or a wait), the previous file's bytes intact, no
backup overwritten, no temporary or lock file left; every run that exits 0 has its
results on disk."""

from __future__ import annotations

import errno
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import h5py
import pytest
import xarray as xr
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.errors import OptionError
from mc_tco.results import io, store, temp_files
from mc_tco.results.io import write_results
from tests.paths import ARTICLE_BOOK

MC_TCO = str(Path(sys.executable).with_name("mc-tco"))
RUN = ["run", str(ARTICLE_BOOK), "-n", "64", "--bootstrap", "0", "-q"]


def clutter(folder: Path, keep: set[str]) -> list[str]:
    """Names in ``folder`` other than ``keep``: temporary files, lock files, backups."""
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


@pytest.fixture
def previous(tmp_path) -> tuple[Path, bytes]:
    out = tmp_path / "x.nc"
    res = CliRunner().invoke(main, [*RUN, "--out", str(out)])
    assert res.exit_code == 0, res.output
    return out, out.read_bytes()


def test_sizes_below_a_gb_are_in_mb():
    assert io.format_bytes(0) == "0.0 MB"
    assert io.format_bytes(12_345_678) == "12.3 MB"
    assert io.format_bytes(2.5e9) == "2.5 GB"


# ------------------------------------------------------------------ a full disk


def _no_space(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_full_disk_inside_hdf5_is_one_line_and_keeps_the_previous_file(previous, monkeypatch):
    """The base rows' write fails as HDF5 fails on a full disk (an OSError from h5py):
    one line naming the folder, exit 2, the previous file and no backup, temp or lock."""
    out, before = previous
    monkeypatch.setattr(h5py.Dataset, "__setitem__", _no_space)
    res = CliRunner().invoke(main, [*RUN, "--out", str(out)])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1, res.output
    assert lines[0].startswith(f"mc-tco: error: --out {out}: no space left in {out.parent}: ")
    assert "nothing was written" in lines[0]
    assert out.read_bytes() == before
    assert clutter(out.parent, {"x.nc"}) == []


def test_full_disk_found_by_the_reservation_says_how_much_is_needed(previous, monkeypatch):
    out, before = previous
    calls = []

    def reserve(path, nbytes):
        calls.append(nbytes)
        raise io.NoSpace(5_000_000, 120_000)

    monkeypatch.setattr(io, "reserve", reserve)  # the writer's own reservations
    monkeypatch.setattr(store, "reserve", reserve)  # and the store's, before each block
    res = CliRunner().invoke(main, [*RUN, "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert calls
    assert res.output.strip() == (
        f"mc-tco: error: --out {out}: no space left in {out.parent}: the file needs 5.0 MB "
        "more and 0.1 MB are free; nothing was written; free some space or choose an --out "
        "on a larger disk"
    )
    assert out.read_bytes() == before
    assert clutter(out.parent, {"x.nc"}) == []


def test_write_results_on_a_full_disk(tmp_path, monkeypatch):
    out = tmp_path / "x.nc"
    out.write_bytes(b"previous")
    monkeypatch.setattr(xr.Dataset, "to_netcdf", _no_space)
    with pytest.raises(OptionError, match=rf"no space left in {tmp_path}: the disk filled up"):
        write_results(xr.Dataset({"a": ("x", [1.0])}), out)
    assert out.read_bytes() == b"previous"
    assert clutter(tmp_path, {"x.nc"}) == []


@pytest.fixture
def small_disk(tmp_path):
    """A 20 MB tmpfs (needs root and mount permission)."""
    folder = tmp_path / "disk"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a 20 MB tmpfs here: {done.stderr.strip() or 'not root'}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=False)


def _stopped(pid: int, timeout: float = 120) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        if state == "T":
            return True
        time.sleep(0.01)
    return False


@pytest.mark.slow
@pytest.mark.parametrize("reserve", [True, False], ids=["reserved", "hdf5-meets-it"])
def test_disk_filled_during_a_run(small_disk, reserve):
    """The issue's repro: a 20 MB tmpfs as --out's folder, --keep-samples targets, the
    disk filled while the run writes. It was a traceback and a segmentation fault (exit
    139: HDF5's exit handler closing the file that the failed write left open). Now one
    line, exit 2, the old file intact, no temporary file. ``hdf5-meets-it``: without the
    reservation (a file system with no fallocate) HDF5 itself hits the full disk."""
    out = small_disk / "x.nc"
    args = ["run", str(ARTICLE_BOOK), "-n", "2048", "--keep-samples", "targets",
            "--bootstrap", "0", "-q", "--out", str(out)]
    assert subprocess.run([MC_TCO, *args]).returncode == 0
    before = out.read_bytes()
    # the run stops itself just before it writes the base rows; the disk is filled then
    env = {**os.environ, "MC_TCO_TEST_SIGNAL": "store-write:SIGSTOP"}
    code = ("import sys, mc_tco.results.disk_space as space; space._FALLOCATE = None;"
            " from mc_tco._entry import main; sys.argv[0] = 'mc-tco'; main()")
    cmd = [MC_TCO, *args] if reserve else [sys.executable, "-c", code, *args]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert _stopped(proc.pid), proc.communicate(timeout=60)
        # unbuffered: a buffered file keeps the part of its last write that did not fit
        # and raises ENOSPC again when it closes (whether it does depends on how much
        # space the files before it left, down to the byte)
        with open(small_disk / "filler", "wb", buffering=0) as f, \
                pytest.raises(OSError) as full:
            while True:
                f.write(b"\0" * 2**16)
        assert full.value.errno == errno.ENOSPC
    finally:
        proc.send_signal(signal.SIGCONT)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stderr.decode()[-3000:]
    lines = stderr.decode().strip().splitlines()
    assert len(lines) == 1, stderr.decode()[-3000:]
    assert lines[0].startswith(f"mc-tco: error: --out {out}: no space left in {small_disk}: ")
    assert out.read_bytes() == before
    assert clutter(small_disk, {"x.nc", "filler"}) == []


# ------------------------------------------------------------------ the seed


@pytest.mark.parametrize("seed", [str(2**64), str(2**63), "-1"])
def test_seed_out_of_range_is_refused_up_front(seed, tmp_path):
    out = tmp_path / "x.nc"
    res = CliRunner().invoke(main, [*RUN, "--seed", seed, "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert res.output.strip() == (
        "mc-tco: error: --seed must be a whole number from 0 to 9223372036854775807 "
        f"(2^63 - 1), got {seed}"
    )
    assert list(tmp_path.iterdir()) == []


def test_seed_must_be_whole(tmp_path):
    res = CliRunner().invoke(main, [*RUN, "--seed", "2.7", "--out", str(tmp_path / "x.nc")])
    assert res.exit_code == 2 and "'2.7' is not a valid integer" in res.output


def test_report_refuses_a_seed_out_of_range(tmp_path):
    res = CliRunner().invoke(main, ["report", str(ARTICLE_BOOK), "-n", "64", "--seed",
                                    str(2**64), "--results-dir", str(tmp_path / "r")])
    assert res.exit_code == 2 and "--seed must be a whole number from 0" in res.output
    assert list(tmp_path.iterdir()) == []


def test_the_largest_seed_is_written(tmp_path):
    out = tmp_path / "x.nc"
    res = CliRunner().invoke(main, [*RUN, "--seed", str(2**63 - 1), "--out", str(out)])
    assert res.exit_code == 0, res.output
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        assert int(ds.attrs["seed"]) == 2**63 - 1


# ------------------------------------------------------------------ two runs, one --out


def _start(out: Path, seed: int, *extra: str, env=None) -> subprocess.Popen:
    return subprocess.Popen([MC_TCO, *RUN, "--seed", str(seed), "--out", str(out), *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            env={**os.environ, **(env or {})})


def _read_until(proc: subprocess.Popen, text: bytes, timeout: float = 120) -> bytes:
    seen = b""
    end = time.monotonic() + timeout
    fd = proc.stderr.fileno()
    while text not in seen and time.monotonic() < end:
        if select.select([fd], [], [], 0.1)[0]:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            seen += chunk
    return seen


def _seed(path: Path) -> int:
    with xr.open_dataset(path, engine="h5netcdf") as ds:
        return int(ds.attrs["seed"])


@pytest.mark.slow
def test_a_second_run_to_the_same_out_waits_and_both_are_kept(tmp_path):
    """Two runs at once to one --out both said "wrote"; one run's results were lost. The
    second now waits (saying for whom) and runs after the first: the file holds the
    second's results, the backup the first's."""
    out = tmp_path / "x.nc"
    first = _start(out, 1, env={"MC_TCO_TEST_SIGNAL": "store-write:SIGSTOP"})
    try:
        assert _stopped(first.pid)  # holds the lock, writing
        second = _start(out, 2)
        seen = _read_until(second, b"to finish writing")
        assert f"mc-tco: waiting for process {first.pid} on ".encode() in seen, seen
        assert f"--seed 1 --out {out}".encode() in seen and b"to finish writing" in seen
        assert second.poll() is None
    finally:
        first.send_signal(signal.SIGCONT)
    for proc in (first, second):
        _, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
    assert _seed(out) == 2 and _seed(out.with_name("x.nc.bak")) == 1
    assert clutter(tmp_path, {"x.nc", "x.nc.bak"}) == []


@pytest.mark.slow
def test_no_wait_refuses_while_another_run_writes(tmp_path):
    out = tmp_path / "x.nc"
    first = _start(out, 1, env={"MC_TCO_TEST_SIGNAL": "store-write:SIGSTOP"})
    try:
        assert _stopped(first.pid)
        res = CliRunner().invoke(main, [*RUN, "--out", str(out), "--no-wait"])
        assert res.exit_code == 2, res.output
        line = res.output.strip()
        assert line.startswith(f"mc-tco: error: --out {out}: process {first.pid} on "), line
        assert line.endswith(f"--seed 1 --out {out}, since {line.split('since ')[1][:8]}) is "
                             "writing it; wait for it to end (drop --no-wait), or choose "
                             "another --out"), line
        assert len(line.splitlines()) == 1
    finally:
        first.send_signal(signal.SIGCONT)
    _, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    assert _seed(out) == 1
    assert clutter(tmp_path, {"x.nc"}) == []


def test_lock_is_reentrant_and_leaves_no_file(tmp_path):
    out = tmp_path / "x.nc"
    with io.hold_output(out, wait=False):
        assert (tmp_path / ".x.nc.lock").read_text().startswith(f"process {os.getpid()} on ")
        with io.hold_output(out, wait=False):  # the same process: no deadlock, no refusal
            write_results(xr.Dataset({"a": ("x", [1.0])}), out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.nc"]


def test_lock_left_by_a_killed_run_is_taken_over(tmp_path):
    out = tmp_path / "x.nc"
    (tmp_path / ".x.nc.lock").write_text("process 999999 on gone (mc-tco run, since 09:00:00)\n")
    with io.hold_output(out, wait=False):
        assert (tmp_path / ".x.nc.lock").read_text().startswith(f"process {os.getpid()} ")
    assert list(tmp_path.iterdir()) == []


def test_a_refused_lock_creates_no_folder(tmp_path):
    out = tmp_path / "new" / "deeper" / "x.nc"
    with pytest.raises(RuntimeError), io.hold_output(out):
        raise RuntimeError("the run failed")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_is_an_option_error_and_an_os_error(tmp_path, monkeypatch):
    """One line and exit 2 for the command (OptionError); callers catching OSError (the
    memo's writer) still catch it, with its errno."""
    out = tmp_path / "x.nc"
    monkeypatch.setattr(xr.Dataset, "to_netcdf", _no_space)
    with pytest.raises(OptionError) as failed:
        write_results(xr.Dataset({"a": ("x", [1.0])}), out)
    assert isinstance(failed.value, OSError) and failed.value.errno == errno.ENOSPC


def test_a_backup_that_cannot_be_renamed_does_not_say_nothing_was_written(tmp_path,
                                                                          monkeypatch):
    """The new file is in place once it is renamed; if the backup's rename then fails, the
    message says so, and the next write makes the previous file the backup."""
    out = tmp_path / "x.nc"
    write_results(xr.Dataset({"a": ("x", [1.0])}), out)
    first = out.read_bytes()
    real = os.replace

    def no_backup(src, dst):
        if str(dst).endswith(".bak"):
            raise OSError(errno.EACCES, os.strerror(errno.EACCES))
        real(src, dst)

    monkeypatch.setattr(os, "replace", no_backup)
    with pytest.raises(OptionError, match=rf"^{out}: written, but the previous file could "
                                          r"not be kept as x.nc.bak \(Permission denied\)"):
        write_results(xr.Dataset({"a": ("x", [2.0])}), out)
    monkeypatch.setattr(os, "replace", real)
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        assert float(ds["a"][0]) == 2.0
    monkeypatch.setattr(temp_files, "_alive", lambda pid: False)  # as if the writer had ended
    write_results(xr.Dataset({"a": ("x", [3.0])}), out.with_name("y.nc"), backup=False)
    write_results(xr.Dataset({"a": ("x", [3.0])}), out, backup=False)
    assert out.with_name("x.nc.bak").read_bytes() == first
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.nc", "x.nc.bak", "y.nc"]


def test_exchange_swaps_two_names_or_does_nothing(tmp_path):
    """``renameat2(RENAME_EXCHANGE)``: both names kept, their files swapped; a missing name
    is not an error but "not done" (the caller renames)."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.write_text("new")
    b.write_text("old")
    if not io._exchange(a, b):
        pytest.skip("no renameat2 exchange on this system or file system")
    assert (a.read_text(), b.read_text()) == ("old", "new")
    assert io._exchange(a, tmp_path / "missing") is False
    assert a.read_text() == "old" and not (tmp_path / "missing").exists()


@pytest.mark.parametrize("exchange", [True, False])
def test_replacing_results_swaps_names_instead_of_renaming_over_them(tmp_path, monkeypatch,
                                                                     exchange):
    """A results file that exists is exchanged with the new one, and the backup with the
    previous file (ext4 writes out a file renamed over another inside the rename: 0.1-0.2
    s for a default run's file): its previous contents kept as .bak, the older backup gone,
    no temporary name left; where no exchange can be done, the renames over them give the
    same files."""
    out = tmp_path / "x.nc"
    write_results(xr.Dataset({"a": ("x", [1.0])}), out)
    write_results(xr.Dataset({"a": ("x", [2.0])}), out)  # (a .bak to replace too)
    first = out.read_bytes()
    real = os.replace
    over = []

    def replace(src, dst):
        if Path(dst) in (out, out.with_name("x.nc.bak")):
            over.append(dst)
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    if not exchange:
        monkeypatch.setattr(io, "_exchange", lambda a, b: False)
    else:
        probe = [tmp_path / "p1", tmp_path / "p2"]
        for p in probe:
            p.write_text(p.name)
        done = io._exchange(*probe)
        for p in probe:
            p.unlink()
        if not done:
            pytest.skip("no renameat2 exchange on this system or file system")
    write_results(xr.Dataset({"a": ("x", [3.0])}), out)
    with xr.open_dataset(out, engine="h5netcdf") as ds:
        assert float(ds["a"][0]) == 3.0
    assert out.with_name("x.nc.bak").read_bytes() == first
    assert clutter(tmp_path, {"x.nc", "x.nc.bak"}) == []
    # renamed over x.nc and x.nc.bak only where there is no exchange
    assert over == ([] if exchange else [out, out.with_name("x.nc.bak")])
