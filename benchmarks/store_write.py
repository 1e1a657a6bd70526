"""Time writing the default run's base rows alone: the old store against mc_tco.results.store.

The default run (default book, default samples) is evaluated once in this process (its 32
chunks of base rows, ~200 MB, kept in memory); then its base rows are written into a
results file the old way (:func:`old_write`: the store before issue 12's rewrite, one
append per evaluation chunk through h5netcdf, HDF5 chunks of one evaluation chunk) and the
new way (:class:`mc_tco.results.store.BaseStore`: chunks collected, each dataset written once per
64 MB), alternately, ``--repeat`` times each, in the same process. Prints wall and CPU
seconds (this process: no other thread runs while writing) of ``create``, the appends and
``close``, the file's size, and the seconds to read the run's target back block by block
as the summaries do. Checks that both files hold the same variables, dims, attrs and values.

    python benchmarks/store_write.py               # ~15 s to evaluate, then the writes
    python benchmarks/store_write.py --repeat 5
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
import zlib
from pathlib import Path

import h5netcdf
import numpy as np
import xarray as xr

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "distributions" / "deepseek-v4.1-flash.toml"


def _old_compressible(values: np.ndarray) -> bool:
    raw = np.ascontiguousarray(values).view(np.uint8).reshape(-1)[: 2**20]
    size = values.dtype.itemsize
    raw = raw[: raw.size // size * size]
    if not raw.size:
        return False
    shuffled = raw.reshape(-1, size).T.tobytes()
    return len(zlib.compress(shuffled, 1)) < 0.5 * len(shuffled)


def old_write(path, parts: list[xr.Dataset], chunk_size: int, grid_dims: list[str]) -> dict:
    """The store before the rewrite: ``to_netcdf`` of the first chunk, then one h5netcdf
    append per chunk (resize the dim, write variable by variable)."""
    times = {}
    t = time.perf_counter(), time.process_time()
    first = parts[0]
    chunks = {"sample": chunk_size, **{d: 4 for d in first.dims if d in grid_dims}}
    encoding = {}
    for name, var in first.variables.items():
        if "sample" not in var.dims:
            continue
        shape = tuple(min(chunks.get(d, n), max(n, 1)) for d, n in var.sizes.items())
        shape = tuple(chunks["sample"] if d == "sample" else c
                      for d, c in zip(var.dims, shape, strict=True))
        enc = {"chunksizes": shape}
        if var.dtype.kind == "f" and _old_compressible(var.values):
            enc.update(compression="gzip", compression_opts=1, shuffle=True)
        encoding[name] = enc
    first.to_netcdf(path, engine="h5netcdf", unlimited_dims=["sample"], encoding=encoding)
    f = h5netcdf.File(path, "a")
    times["create"] = _since(t)
    t = time.perf_counter(), time.process_time()
    size = first.sizes["sample"]
    for part in parts[1:]:
        start, stop = size, size + part.sizes["sample"]
        f.resize_dimension("sample", stop)
        for name in part.variables:
            var = part[name]
            if "sample" not in var.dims:
                continue
            target = f.variables[name]
            values = var.transpose(*target.dimensions).values
            index = tuple(slice(start, stop) if d == "sample" else slice(None)
                          for d in target.dimensions)
            target[index] = np.asarray(values, dtype=target.dtype)
        size = stop
    times["append"] = _since(t)
    t = time.perf_counter(), time.process_time()
    f.close()
    times["close"] = _since(t)
    return times


def new_write(path, parts: list[xr.Dataset], chunk_size: int, grid_dims: list[str]) -> dict:
    from mc_tco.results.store import BaseStore

    samples = sum(p.sizes["sample"] for p in parts)
    times = {}
    t = time.perf_counter(), time.process_time()
    store = BaseStore.create(path, parts[0], chunk_size, grid_dims, samples=samples)
    times["create"] = _since(t)
    t = time.perf_counter(), time.process_time()
    for part in parts[1:]:
        store.append(part)
    times["append"] = _since(t)
    t = time.perf_counter(), time.process_time()
    store.close()
    times["close"] = _since(t)
    return times


def _since(t) -> tuple[float, float]:
    return time.perf_counter() - t[0], time.process_time() - t[1]


def read_back(path, target: str, chunks: dict) -> float:
    """Seconds to read ``target`` block by block along the first grid dim (as summarize)."""
    t = time.perf_counter()
    with xr.open_dataset(path, engine="h5netcdf", chunks=chunks) as ds:
        dim = next(iter(d for d in chunks if d != "sample"))
        step = chunks[dim]
        for i in range(0, ds.sizes[dim], step):
            ds[target].isel({dim: slice(i, i + step)}).load()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import dask.array  # noqa: F401  (imported by any run before it writes; not timed here)

    from mc_tco.book import load_book
    from mc_tco.engine.evaluate import evaluate_chunk, fit_chunk
    from mc_tco.engine.plan import plan_run
    from mc_tco.engine.schedule import evaluate_all

    print(f"{os.cpu_count()} cores, load {os.getloadavg()}", flush=True)
    plan = fit_chunk(plan_run(load_book(BOOK)))
    _, _, shift = evaluate_chunk(plan, *plan.first)
    parts = [base for base, _ in evaluate_all(plan, shift, None, None)]
    grid = list(plan.grid)
    mb = sum(v.nbytes for p in parts for v in p.variables.values() if "sample" in v.dims) / 1e6
    print(f"{len(parts)} chunks of {plan.chunk_size} samples, {mb:.0f} MB of base rows")
    chunks = {"sample": -1, **{d: 4 for d in parts[0].dims if d in grid}}
    with tempfile.TemporaryDirectory() as tmp:
        files = {}
        for i in range(args.repeat):
            for label, write in (("old", old_write), ("new", new_write)):
                path = Path(tmp) / f"{label}.nc"
                path.unlink(missing_ok=True)
                times = write(path, parts, plan.chunk_size, grid)
                total = tuple(sum(v[k] for v in times.values()) for k in (0, 1))
                read = read_back(path, plan.targets[0], chunks)
                print(f"{label} {i + 1}: " + ", ".join(
                    f"{k} {w:.2f} s ({c:.2f} CPU)" for k, (w, c) in times.items())
                    + f"; total {total[0]:.2f} s ({total[1]:.2f} CPU); "
                    f"{path.stat().st_size / 1e6:.0f} MB; read {plan.targets[0]} {read:.2f} s",
                    flush=True)
                files[label] = path
        with xr.open_dataset(files["old"], engine="h5netcdf") as a, \
                xr.open_dataset(files["new"], engine="h5netcdf") as b:
            assert a.identical(b), "the old and new files differ"
            for name in a.variables:
                assert a[name].identical(b[name]), name
        print("old and new files identical (xarray identical, variable by variable)")


if __name__ == "__main__":
    main()
