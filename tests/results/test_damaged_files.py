"""A damaged results file is refused, never read into numbers (issue item 6).

Every numeric variable of a results file carries HDF5's Fletcher-32 checksum. Bytes
flipped inside a variable's stored data leave a file that still opens as HDF5; ``memo``,
``explain``, ``rerun`` and :func:`mc_tco.results.io.open_results` then refuse it in one line
naming the variable, with exit code 2 (``rerun`` too: 1 says only that numbers differ),
and write nothing. A file written before the checksums is still read, with a note.
"""

from __future__ import annotations

import shutil

import h5py
import numpy as np
import pytest
import xarray as xr
from click.testing import CliRunner

from mc_tco.cli import main
from mc_tco.results import reading
from mc_tco.results.io import DamagedFileError, open_results
from tests.paths import DEFAULT_BOOK


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A small run of the default book (the TCO memo, explain's defaults)."""
    path = tmp_path_factory.mktemp("runs") / "r.nc"
    res = CliRunner().invoke(main, ["run", str(DEFAULT_BOOK), "-n", "256", "--bootstrap",
                                    "20", "--seed", "2", "-q", "--out", str(path)])
    assert res.exit_code == 0, res.output
    return path


def _damage(src, dst, name, whole=False):
    """Copy ``src`` to ``dst`` and flip 16 bytes in the middle of the stored data of
    ``name``'s first block (``whole``: zero the block, its checksum too); HDF5 still opens
    the file: its metadata are intact."""
    shutil.copy(src, dst)
    with h5py.File(dst, "r") as f:
        d = f[name]
        if d.chunks is None:
            offset, size = d.id.get_offset(), d.id.get_storage_size()
        else:
            info = d.id.get_chunk_info(0)
            offset, size = info.byte_offset, info.size
    assert size >= 32, (name, size)
    at = offset if whole else offset + size // 2 - 8
    with open(dst, "r+b") as fh:
        fh.seek(at)
        raw = fh.read(size if whole else 16)
        fh.seek(at)
        fh.write(bytes(len(raw)) if whole else bytes(b ^ 0xFF for b in raw))
    with h5py.File(dst, "r") as f:  # still a readable HDF5 file
        assert name in f
    return dst


def _refused(res, path, name):
    assert res.exit_code == 2, res.output
    lines = res.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, res.stderr
    assert lines[0].startswith(f"mc-tco: error: {path}: variable {name}: damaged data"), lines


#: a per-sample output (memo and explain read it), a summary, the demand grid (a coordinate)
DAMAGED = ["saving", "p_positive", "demand"]
#: each checked at open; and the per-sample one checked only when read (a large file)
CASES = pytest.mark.parametrize(("name", "lazy"), [*((n, False) for n in DAMAGED),
                                                   ("saving", True)],
                                ids=[*DAMAGED, "saving_when_read"])


@pytest.fixture
def eager_only_small(monkeypatch):
    """Open as a large file would be: only the small variables checked at open, the
    per-sample ones when a reader reads them."""
    monkeypatch.setattr(reading, "VERIFY_BYTES", 0)
    monkeypatch.setattr(reading, "VERIFY_VARIABLE_BYTES", 2**16)


def test_every_numeric_variable_carries_a_checksum(results):
    with h5py.File(results, "r") as f:
        numeric = {n: d for n, d in f.items() if d.dtype.kind not in "OSU"}
        assert {"saving", "input_value", "sample", "demand", "S1", "p_positive"} <= set(numeric)
        assert [n for n, d in numeric.items() if not d.fletcher32] == []


@pytest.mark.slow
def test_rerun_output_carries_checksums_and_the_same_numbers(results, tmp_path):
    """write_results (rerun --out): checksums on every numeric variable; same values."""
    out = tmp_path / "again.nc"
    res = CliRunner().invoke(main, ["rerun", str(results), "-q", "--out", str(out)])
    assert res.exit_code == 0, res.output
    with h5py.File(out, "r") as f:
        assert [n for n, d in f.items() if d.dtype.kind not in "OSU" and not d.fletcher32] == []
    a, b = open_results(results), open_results(out)
    for name in a.variables:
        xr.testing.assert_identical(a[name], b[name])


@pytest.mark.parametrize("name", DAMAGED)
def test_open_results_refuses_a_damaged_variable(results, tmp_path, name):
    bad = _damage(results, tmp_path / "bad.nc", name)
    with pytest.raises(DamagedFileError, match=rf"^{bad}: variable {name}: damaged data"):
        open_results(bad)


@pytest.mark.parametrize("name", ["p_positive", "demand", "constant_output", "S1",
                                  "correlation_used"])
def test_a_block_zeroed_whole_is_refused(results, tmp_path, name):
    """Zeros pass Fletcher-32 (their checksum is 0); the blocks of the variables without
    samples, a few KB, are also gzip'd, and zeros are no gzip stream."""
    bad = _damage(results, tmp_path / "bad.nc", name, whole=True)
    with pytest.raises(DamagedFileError, match=rf"^{bad}: variable {name}: damaged data"):
        open_results(bad)


def test_a_lazy_read_of_a_damaged_block_is_refused(results, tmp_path, eager_only_small):
    bad = _damage(results, tmp_path / "bad.nc", "saving")
    ds = open_results(bad)  # a large file: the per-sample variables are checked when read
    with pytest.raises(DamagedFileError, match=rf"^{bad}: variable saving: damaged data"):
        ds["saving"].values  # noqa: B018
    with pytest.raises(DamagedFileError, match="variable saving"):
        open_results(bad, load=True)


@CASES
def test_memo_refuses_a_damaged_file(results, tmp_path, no_png, request, name, lazy):
    if lazy:
        request.getfixturevalue("eager_only_small")
    bad = _damage(results, tmp_path / "bad.nc", name)
    out = tmp_path / "memo"
    res = CliRunner().invoke(main, ["memo", str(bad), "-q", "--out-dir", str(out)])
    _refused(res, bad, name)
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.nc"]


@CASES
def test_explain_refuses_a_damaged_file(results, tmp_path, request, name, lazy):
    if lazy:
        request.getfixturevalue("eager_only_small")
    bad = _damage(results, tmp_path / "bad.nc", name)
    out = tmp_path / "explain.json"
    res = CliRunner().invoke(main, ["explain", str(bad), "--draws", "0", "--json", str(out)])
    _refused(res, bad, name)
    assert res.stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.nc"]


@pytest.mark.parametrize("name", DAMAGED)
def test_rerun_refuses_a_damaged_file_with_exit_code_2(results, tmp_path, name):
    bad = _damage(results, tmp_path / "bad.nc", name)
    out = tmp_path / "rerun.nc"
    res = CliRunner().invoke(main, ["rerun", str(bad), "--out", str(out)])
    _refused(res, bad, name)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.nc"]


@pytest.mark.slow
def test_rerun_refuses_a_block_damaged_where_it_reads_it_late(results, tmp_path,
                                                              eager_only_small):
    """The damaged block is met by the comparison, after the rerun: exit code 2, not 1."""
    bad = _damage(results, tmp_path / "bad.nc", "saving")
    res = CliRunner().invoke(main, ["rerun", str(bad), "-q"])
    _refused(res, bad, "saving")


@pytest.mark.slow
def test_rerun_failure_of_any_kind_is_exit_code_2(results, monkeypatch):
    """A failure that is no McTcoError (here an OSError of the comparison) is one line
    and exit code 2, never 1 (which says that the numbers differ)."""
    import mc_tco.engine.reproduce as reproduce

    def broken(a, b):
        raise OSError("Can't synchronously read data (something else)")

    monkeypatch.setattr(reproduce, "compare_results", broken)
    res = CliRunner().invoke(main, ["rerun", str(results), "-q"])
    assert res.exit_code == 2, res.output
    assert res.stderr == (f"mc-tco: error: {results}: the rerun failed: OSError: Can't "
                          "synchronously read data (something else)\n")


@pytest.mark.slow
def test_a_file_without_checksums_is_read_with_a_note(results, tmp_path):
    """A file of an older mc_tco (no checksums): the same numbers, and one note."""
    old = tmp_path / "old.nc"
    with xr.open_dataset(results, engine="h5netcdf") as ds:
        ds = ds.load()
    for var in ds.variables.values():
        var.encoding = {}  # no checksums
    ds.to_netcdf(old, engine="h5netcdf")
    with h5py.File(old, "r") as f:
        assert not f["saving"].fletcher32
    notes = []
    ds = open_results(old, note=notes.append)
    assert len(notes) == 1 and notes[0].startswith(f"{old}: written without checksums")
    np.testing.assert_array_equal(ds["saving"].values, open_results(results)["saving"].values)
    notes.clear()
    open_results(results, note=notes.append)
    assert notes == []
    res = CliRunner().invoke(main, ["explain", str(old), "--draws", "0", "--only", "boxes"])
    assert res.exit_code == 0, res.output
    assert res.stderr.startswith(f"mc-tco: note: {old}: written without checksums")
    assert len(res.stderr.splitlines()) == 1
    # the note's way out: a rerun writes the same numbers with checksums
    new = tmp_path / "new.nc"
    res = CliRunner().invoke(main, ["rerun", str(old), "--out", str(new)])
    assert res.exit_code == 0, res.output
    assert f"rerun {old} --out NEW.nc" in res.stderr
    with h5py.File(new, "r") as f:
        assert f["saving"].fletcher32


def test_write_results_checksums_data_and_coordinates_but_not_a_bare_dim(tmp_path):
    from mc_tco.results.io import write_results

    ds = xr.Dataset({"a": (("x", "y"), np.arange(6.0).reshape(2, 3)),
                     "n": ("y", np.array([1, 2, 3], np.int8))},
                    coords={"y": [10.0, 20.0, 30.0], "label": ("x", ["p", "q"])},
                    attrs={"book_sha256": "0"})
    path = write_results(ds, tmp_path / "w.nc")
    with h5py.File(path, "r") as f:
        assert f["a"].fletcher32 and f["n"].fletcher32 and f["y"].fletcher32
        assert not f["label"].fletcher32  # HDF5 takes no filter on variable-length strings
    notes = []
    back = open_results(path, note=notes.append)
    assert notes == []  # "x", a dim without coordinate, holds no data
    xr.testing.assert_identical(back.drop_attrs(), ds.drop_attrs())


def test_a_damaged_file_names_its_backup(results, tmp_path):
    bad = _damage(results, tmp_path / "bad.nc", "p_positive")
    shutil.copy(results, tmp_path / "bad.nc.bak")
    with pytest.raises(DamagedFileError, match=rf"restore a copy \({bad}.bak is the previous"):
        open_results(bad)
