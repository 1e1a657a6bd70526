"""The base-row store (mc_tco.results.store): collected writes give the file xarray would write."""

from __future__ import annotations

import h5py
import numpy as np
import pytest
import xarray as xr

from mc_tco.results import store as store_module
from mc_tco.results.store import BaseStore


def _part(start: int, stop: int, rng, transpose: bool = False) -> xr.Dataset:
    """Base rows of samples ``start .. stop-1`` shaped like a model's output."""
    n = stop - start
    demand = np.logspace(9, 12, 7)
    saving = xr.DataArray(rng.normal(size=(n, 7, 3)), dims=("sample", "demand", "strategy"),
                          attrs={"units": "USD/month", "long_name": "saving"})
    months = xr.DataArray(np.floor(rng.uniform(0, 3, size=(n, 7, 3))) * 12.0,
                          dims=("sample", "demand", "strategy"), attrs={"units": "month"})
    if transpose:  # a later chunk may come in another dim order
        saving = saving.transpose("demand", "sample", "strategy")
    return xr.Dataset(
        {"saving": saving, "payback_months": months,
         "price": ("sample", rng.uniform(1, 2, n), {"units": "USD/Mtok"}),
         "count": ("sample", rng.integers(0, 9, n))},
        coords={"sample": np.arange(start, stop), "demand": ("demand", demand,
                                                             {"units": "tokens/month"}),
                "strategy": ["api", "buy", "rent"]},
        attrs={"note": "base rows"},
    )


def _write(path, parts, chunk_size, samples=None, **kw) -> BaseStore:
    store = BaseStore.create(path, parts[0], chunk_size, ["demand"], samples=samples, **kw)
    for part in parts[1:]:
        store.append(part)
    store.close()
    return store


def test_collected_writes_give_the_file_to_netcdf_writes(tmp_path):
    """Writes of several chunks at once, a short last chunk, a chunk in another dim order:
    the same variables, dims, dtypes, attrs and values as ``to_netcdf`` of the whole."""
    rng = np.random.default_rng(1)
    bounds = [(0, 8), (8, 16), (16, 24), (24, 32), (32, 40), (40, 45)]
    parts = [_part(s, e, rng, transpose=(i == 2)) for i, (s, e) in enumerate(bounds)]
    # a sample takes 360 bytes: a 6000-byte buffer writes every 16 samples
    store = _write(tmp_path / "s.nc", parts, 8, samples=64, buffer_bytes=6000)
    assert store.rows == 16 and store.size == 45
    whole = xr.concat([p.transpose("sample", ...) for p in parts], dim="sample",
                      data_vars="all", coords="minimal", compat="override")
    whole.to_netcdf(tmp_path / "ref.nc", engine="h5netcdf", unlimited_dims=["sample"])
    with xr.open_dataset(tmp_path / "s.nc", engine="h5netcdf") as ours, \
            xr.open_dataset(tmp_path / "ref.nc", engine="h5netcdf") as ref:
        assert ours.identical(ref)
        for name in ref.variables:
            assert ours[name].identical(ref[name]), name
            assert ours[name].dtype == ref[name].dtype
    with store.open() as lazy:  # lazily: a block read is that block only
        assert lazy["saving"].chunks is None  # xarray's lazy indexing, not dask
        np.testing.assert_array_equal(lazy["saving"].isel(demand=slice(4, 7)).values,
                                      whole["saving"].isel(demand=slice(4, 7)).values)
        np.testing.assert_array_equal(lazy["saving"].values, whole["saving"].values)


def test_hdf5_chunks_and_compression(tmp_path):
    """An HDF5 chunk holds whole writes of samples (at most the run's samples and
    CHUNK_BYTES) by GRID_BLOCK grid points; only what shrinks a lot is gzipped."""
    rng = np.random.default_rng(2)
    parts = [_part(s, s + 8, rng) for s in range(0, 64, 8)]
    _write(tmp_path / "a.nc", parts, 8, samples=64, buffer_bytes=2**20)
    with h5py.File(tmp_path / "a.nc", "r") as f:
        assert f["saving"].chunks == (64, 4, 3)  # capped by the run's 64 samples
        assert f["saving"].compression is None  # random numbers: stored raw
        assert f["payback_months"].compression == "gzip"  # three values: gzipped
        assert f["price"].chunks == (64,)
        assert f["sample"].shape == (64,) and f["saving"].maxshape[0] is None
    _write(tmp_path / "b.nc", parts[:4], 8, samples=64, buffer_bytes=6000)
    with h5py.File(tmp_path / "b.nc", "r") as f:
        assert f["saving"].chunks == (16, 4, 3)  # one write of 16 samples
    # a wide row: one evaluation chunk of samples per HDF5 chunk, whatever the buffer
    assert store_module._extent(8, 64, store_module.CHUNK_BYTES) == 8
    assert store_module._extent(256, 2048, 160) == 2048
    assert store_module._extent(256, 100, 160) == 100  # a run smaller than one chunk


def test_discard_drops_what_is_not_written(tmp_path):
    """A stopped run: the rows collected since the last write are dropped, the file is
    closed (the engine then removes it), and discarding twice is harmless."""
    rng = np.random.default_rng(3)
    store = BaseStore.create(tmp_path / "d.nc", _part(0, 8, rng), 8, ["demand"],
                             buffer_bytes=6000)
    store.append(_part(8, 16, rng))  # 16 samples: written
    store.append(_part(16, 24, rng))  # collected only
    store.discard()
    store.discard()
    assert store.size == 16
    with xr.open_dataset(tmp_path / "d.nc", engine="h5netcdf") as ds:
        assert ds.sizes["sample"] == 16
    store.close()  # nothing left to write


@pytest.mark.parametrize("mode", ["w", "a"])
def test_dump_sizes_dims_once_and_leaves_no_flag(tmp_path, mode):
    """_dump writes as to_netcdf does; h5netcdf's own files are sized as before."""
    import h5netcdf

    rng = np.random.default_rng(4)
    ds = _part(0, 8, rng)
    path = tmp_path / "x.nc"
    if mode == "a":
        ds.to_netcdf(path, engine="h5netcdf", unlimited_dims=["sample"])
        extra = xr.Dataset({"total": ("demand", rng.normal(size=7))},
                           coords={"demand": ds["demand"]}, attrs={"created": "now"})
        store_module._dump(path, "a", extra.drop_vars("demand"), {})
        expected = ds.merge(extra.drop_attrs(deep=False))
        expected.attrs.update(created="now")
    else:
        store_module._dump(path, "w", ds, {}, unlimited_dims=["sample"])
        expected = ds
    with xr.open_dataset(path, engine="h5netcdf") as back:
        assert back.identical(expected)
    with h5netcdf.File(path, "a") as f:
        assert type(f.dimensions["sample"]) is h5netcdf.Dimension


def test_uneven_chunks(tmp_path):
    """Chunks that do not fill the buffer evenly, and one larger than the buffer."""
    rng = np.random.default_rng(5)
    bounds = [(0, 8), (8, 13), (13, 21), (21, 61), (61, 64)]
    parts = [_part(s, e, rng) for s, e in bounds]
    store = _write(tmp_path / "u.nc", parts, 8, samples=64, buffer_bytes=6000)
    assert store.rows == 16 and store.size == 64
    whole = xr.concat(parts, dim="sample", data_vars="all", coords="minimal",
                      compat="override")
    with xr.open_dataset(tmp_path / "u.nc", engine="h5netcdf") as back:
        for name in whole.variables:
            assert back[name].identical(whole[name]), name


def test_xarray_checks_for_dask_arrays_without_importing_dask_array():
    """mc_tco.results.store.lazy_dask_check makes xarray's "is this a dask array?" lazy inside it:
    building Variables does not import dask.array (0.6 s of a cold run), and dask arrays
    are still dask arrays after it is imported (a fresh interpreter: this session may have
    imported dask already)."""
    import subprocess
    import sys

    code = (
        "import sys, numpy as np, xarray as xr, mc_tco.results.store\n"
        "check = mc_tco.results.store.lazy_dask_check(); check.__enter__()\n"
        "v = xr.Variable('x', np.zeros(3)); xr.Dataset({'a': v}).to_dataarray()\n"
        "assert 'dask.array' not in sys.modules, 'dask.array imported'\n"
        "import dask.array as da\n"
        "v = xr.Variable('x', da.zeros(4, chunks=2))\n"
        "assert v.chunks == ((2, 2),), v.chunks\n"
        "assert xr.Dataset({'a': v}).chunk({'x': 1}).a.chunks == ((1, 1, 1, 1),)\n"
        "from xarray.namedarray.pycompat import array_type\n"
        "assert array_type('dask') == (da.Array,)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]


def test_hdf5_write_failures_become_os_errors_and_other_errors_stay():
    """h5py raises a failed write on a full disk as RuntimeError with HDF5's errno in the
    message: it is the OSError the write path turns into one line. Other RuntimeErrors
    (a bug) are not hidden behind a message about the disk."""
    import errno

    message = ("Can't decrement id ref count (file write failed: time = now, filename = "
               "'x', file descriptor = 3, errno = 28, error message = 'No space left')")
    with pytest.raises(OSError) as failed, store_module._hdf5_errors():
        raise RuntimeError(message)
    assert failed.value.errno == errno.ENOSPC
    assert "Can't decrement id ref count" in failed.value.strerror
    with pytest.raises(RuntimeError, match="a bug"), store_module._hdf5_errors():
        raise RuntimeError("a bug")
