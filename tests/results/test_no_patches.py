"""Importing and using mc_tco leaves h5netcdf and xarray as they were (issue 22 item 8).

mc_tco reads and writes results files through classes of its own (an h5netcdf File
subclass, an xarray backend: mc_tco.results.h5file); the ``mc-tco`` command's lazy dask check is a
context
that puts xarray's cache entry back when it ends. Checked in a fresh interpreter: this
session's imports and runs are not a clean slate.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from tests.paths import ARTICLE_BOOK

SCRIPT = textwrap.dedent("""
    import sys
    import h5netcdf.dimensions
    import xarray.backends.h5netcdf_ as xh
    import xarray.namedarray.pycompat as pc
    import xarray.namedarray.utils as nu

    def state():
        # xarray fills its cache as it meets array types: its entries must be its own
        cache = pc._cached_duck_array_modules
        return (h5netcdf.dimensions.Dimension.__dict__["size"],
                {k: type(v) for k, v in cache.items() if type(v) is not pc.DuckArrayModule},
                xh.H5NetCDFArrayWrapper.__dict__["_getitem"], nu.is_dask_collection)

    before = state()
    import mc_tco
    import mc_tco.results.store, mc_tco.results.io, mc_tco.engine, mc_tco.cli  # noqa: E401
    assert state() == before, "changed by import"
    out = sys.argv[1]
    with mc_tco.results.store.lazy_dask_check():  # as the mc-tco command runs
        assert type(pc._cached_duck_array_modules["dask"]) is not pc.DuckArrayModule
        assert nu.is_dask_collection is not before[3]
        mc_tco.run(sys.argv[2], samples=64, out=out).close()
    assert state() == before, "changed by the dask check"
    mc_tco.run(sys.argv[2], samples=64).close()  # no dask check
    ds = mc_tco.open_results(out)
    ds["saving"].values
    ds.close()
    assert state() == before, "changed by a run, open_results or the dask check"
    print("unchanged")
""")


@pytest.mark.slow
def test_import_and_use_leave_h5netcdf_and_xarray_unchanged(tmp_path):
    res = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "r.nc"),
                          str(ARTICLE_BOOK)], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    assert res.stdout.strip().endswith("unchanged")
