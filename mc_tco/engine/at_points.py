"""The model's outputs of a results file's own scenarios at grid points it does not hold.

A results file keeps every base sample's input values (``input_value``, sample x input)
and the book it was run from (``book_text``): the model evaluated on those rows at other
points of a grid dim gives exactly the outputs a run whose grid held those points would
have stored for its base rows (same book, seed and samples: the design does not depend on
the grid). :func:`evaluate_stored` does it; it never evaluates the design's other rows, so
no Sobol' index comes out of it.
"""

from __future__ import annotations

import weakref
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import xarray as xr
from xarray.backends import BackendArray
from xarray.core import indexing

from mc_tco.book import loads_book
from mc_tco.errors import McTcoError, ModelError, OptionError
from mc_tco.models import resolve_model

__all__ = ["CHUNK", "evaluate_stored", "joined", "stored_output"]


#: base rows evaluated at once by :func:`evaluate_stored`: the model's month-by-month
#: arrays (rows x points x month x strategy) of one chunk stay a few tens of MB, whatever
#: the file's sample size
CHUNK = 8192


def evaluate_stored(ds: xr.Dataset, dim: str, points: Sequence[float],
                    outputs: Iterable[str] | None = None, *,
                    samples: np.ndarray | None = None, chunk: int = CHUNK) -> xr.Dataset:
    """The model outputs of ``ds``'s stored samples with grid dim ``dim`` at ``points``.

    Parameters
    ----------
    ds : xr.Dataset
        A results file of ``mc-tco run`` that kept every output (``input_value``); it may be
        lazy (:func:`mc_tco.results.io.open_results`): only the rows evaluated are read.
    dim : str
        The grid dim whose points are replaced (``"demand"``).
    points : sequence of float
        The points to evaluate, in the dim's unit. They are also the model's report points
        of that dim (``inputs.attrs["report"]``), so per-report-point outputs (the TCO
        model's ``cash_path`` and ``cash_by_year``) come at them too.
    outputs : iterable of str, optional
        The outputs to ask the model for (default: all it gives).
    samples : ndarray of int, optional
        Positions of the samples to evaluate (default: all of them).
    chunk : int
        Rows per model call (the model is row by row: the numbers do not depend on it).

    Returns
    -------
    xr.Dataset
        The model's outputs (in memory) over ``sample`` (the file's sample coordinate of
        the rows evaluated) and ``dim`` = ``points``; the other grid dims as the file holds
        them.

    Raises
    ------
    ModelError
        When the model file changed since the run (its SHA-256 differs from the file's
        ``model_sha256``: the stored scenarios would be evaluated by another model), or the
        model fails.
    """
    from mc_tco.engine.reproduce import check_model_unchanged

    run = ds.mc_tco.run
    book = loads_book(run.book_text, run.book_path or "<book>")
    check_model_unchanged(ds, book, run.book_path or "the results file")
    model = resolve_model(book, announce=False)
    names = [str(v) for v in ds["input"].values]
    rows = (np.arange(ds.sizes["sample"]) if samples is None
            else np.asarray(samples, dtype=np.int64).reshape(-1))
    coords: dict[str, Any] = {}
    for d in book.grid or {}:
        if d in ds.coords and d != dim:
            coords[d] = xr.Variable(d, ds[d].values, {"units": ds[d].attrs.get("units", "")})
    coords[dim] = xr.Variable(dim, np.asarray(points, dtype=float),
                              {"units": ds[dim].attrs.get("units", "")})
    report = {k: list(v) for k, v in ds.mc_tco.report.items()}
    report[dim] = [float(p) for p in points]
    attrs: dict[str, Any] = {"report": report}
    if outputs is not None:
        attrs["outputs"] = sorted(outputs)
    stored = ds["input_value"].transpose("sample", "input").variable
    first: xr.Dataset | None = None
    filled: dict[str, np.ndarray] = {}
    for start in range(0, max(rows.size, 1), max(1, int(chunk))):
        idx = rows[start:start + chunk]
        values = np.asarray(stored[idx].values, dtype=float) if idx.size else \
            np.empty((0, len(names)))
        data = {}
        for name, inp in book.inputs.items():
            if name in names:
                column = values[:, names.index(name)]
            elif inp.is_grid:  # a grid input: the value of the view (ds.mc_tco.at_input_grid)
                if name not in ds.coords or ds[name].ndim != 0:
                    raise OptionError(f"{name} is a grid dimension of the results: choose one "
                                      f"of its values first (--at {name}=VALUE)")
                column = np.full(idx.size, float(ds[name]))
            else:
                column = np.full(idx.size, inp.value)
            data[name] = xr.Variable("sample", np.asarray(column, dtype=float),
                                     {"units": inp.unit})
        inputs = xr.Dataset(data, coords=coords, attrs=attrs)
        try:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                part = model(inputs)
        except McTcoError as exc:
            raise ModelError(f"{run.book_path}: {exc}") from exc
        if idx.size == rows.size:  # one chunk: the model's own outputs
            first = part
            break
        if first is None:
            first = part
            filled = {k: np.empty(_full_shape(v, rows.size), dtype=v.dtype)
                      for k, v in part.data_vars.items() if "sample" in v.dims}
        for k, target in filled.items():
            v = part[k].transpose(*first[k].dims)
            axis = v.dims.index("sample")
            target[(slice(None),) * axis + (slice(start, start + idx.size),)] = v.values
    assert first is not None
    out = first
    if filled:
        out = xr.Dataset({k: xr.Variable(first[k].dims, filled[k], first[k].attrs)
                          if k in filled else first[k].variable for k in first.data_vars},
                         coords={k: c.variable for k, c in first.coords.items()
                                 if "sample" not in c.dims}).assign_attrs(first.attrs)
    sample = ds["sample"].values[rows] if "sample" in ds.coords else rows
    return out.assign_coords(sample=sample)


def _full_shape(da: xr.DataArray, n: int) -> tuple[int, ...]:
    """``da``'s shape with ``n`` samples."""
    return tuple(n if d == "sample" else size for d, size in zip(da.dims, da.shape,
                                                                    strict=True))


def _outer(key: tuple, shape: tuple[int, ...]) -> list[Any]:
    """An outer indexer's key as positions per axis (an int where the axis is dropped)."""
    return [k if isinstance(k, int | np.integer) else np.arange(n)[k]
            for k, n in zip(key, shape, strict=True)]


def _take(values: np.ndarray, key: list[Any]) -> np.ndarray:
    """``values`` indexed by ``key`` (positions or ints per axis), one axis at a time."""
    out = values
    axis = 0
    for k in key:
        out = np.take(out, k, axis=axis)
        if not isinstance(k, int | np.integer):
            axis += 1
    return out


class _Joined(BackendArray):
    """Variables joined along one axis, read lazily: each read asks each part for only the
    positions it holds (a lazy part stays on disk but for them)."""

    def __init__(self, parts: list[xr.Variable], axis: int, order: np.ndarray):
        sizes = np.array([p.shape[axis] for p in parts])
        ends = np.cumsum(sizes)
        combined = np.asarray(order, dtype=np.int64)  # position -> index among the parts
        self.part_of = np.searchsorted(ends, combined, side="right")
        self.index_in = combined - (ends - sizes)[self.part_of]
        self.parts, self.axis = parts, axis
        shape = list(parts[0].shape)
        shape[axis] = combined.size
        self.shape = tuple(shape)
        self.dtype = np.result_type(*[p.dtype for p in parts])

    def __getitem__(self, key: Any) -> Any:
        return indexing.explicit_indexing_adapter(key, self.shape,
                                                  indexing.IndexingSupport.OUTER, self._raw)

    def _raw(self, key: tuple) -> np.ndarray:
        k = key[self.axis]
        scalar = isinstance(k, int | np.integer)
        pos = np.atleast_1d(np.arange(self.shape[self.axis])[k])
        at = self.axis - sum(isinstance(j, int | np.integer) for j in key[:self.axis])
        shape = [pos.size if a == self.axis else np.arange(n)[j].size
                 for a, (j, n) in enumerate(zip(key, self.shape, strict=True))
                 if a == self.axis or not isinstance(j, int | np.integer)]
        out = np.empty(shape, dtype=self.dtype)
        # each part is read a block of another axis at a time (the first one kept, the
        # samples), so that a part read whole is never held beside the result
        b = next((a for a, j in enumerate(key) if a != self.axis
                  and not isinstance(j, int | np.integer)), None)
        # (axis of the key, axis of the result, its positions, first place in the result)
        blocks: list[tuple[int, int, np.ndarray, int] | None] = [None]
        if b is not None:
            ob = b - sum(isinstance(j, int | np.integer) for j in key[:b])
            along = np.arange(self.shape[b])[key[b]]
            row = max(1, out.nbytes // max(1, out.shape[ob]))
            step = max(1, JOIN_BLOCK_BYTES // row)
            blocks = [(b, ob, along[s:s + step], s)
                      for s in range(0, max(along.size, 1), step)]
        for i, part in enumerate(self.parts):
            mine = np.flatnonzero(self.part_of[pos] == i)
            if not mine.size:
                continue
            sub = list(key)
            sub[self.axis] = self.index_in[pos[mine]]
            for block in blocks:
                where: list[Any] = [slice(None)] * out.ndim
                where[at] = mine
                if block is not None:
                    kb, rb, rows, start = block
                    sub[kb] = rows
                    where[rb] = slice(start, start + rows.size)
                out[tuple(where)] = np.asarray(part[tuple(sub)].values)
        return out[(slice(None),) * at + (0,)] if scalar else out


def joined(parts: list[xr.Variable], dim: str, order: np.ndarray) -> xr.Variable:
    """``parts`` (same dims, ``dim`` of any length) joined along ``dim``, lazily: position
    ``p`` of the result is position ``order[p]`` of the parts laid end to end. Reading a
    selection reads only that selection of each part (nothing is loaded to join them)."""
    first = parts[0]
    axis = first.dims.index(dim)
    parts = [p.transpose(*first.dims) for p in parts]
    out = xr.Variable(first.dims, indexing.LazilyIndexedArray(_Joined(parts, axis, order)))
    out.attrs.update(parts[0].attrs)
    return out


#: bytes of the result a :func:`joined` variable reads of each part at once
JOIN_BLOCK_BYTES = 32 * 2**20

#: the whole arrays of :func:`stored_output` variables kept for their next read, newest
#: last: instance id -> array (dropped with the instance); at most :data:`CACHE_BYTES`
_KEPT: OrderedDict[int, np.ndarray] = OrderedDict()
#: bytes of whole evaluated arrays kept (a variable larger than half of it, e.g. the
#: month-by-month cash of 2^18 rows, is evaluated anew on the samples of each read)
CACHE_BYTES = 192 * 2**20


class _Evaluated(BackendArray):
    """One model output on the stored rows at points of a grid dim, evaluated when read:
    only the samples and points asked for, :data:`CHUNK` rows at a time. A read of every
    sample of a variable small enough evaluates it whole and keeps it (:data:`_KEPT`)."""

    def __init__(self, ds: xr.Dataset, dim: str, along: str, points: Sequence[float],
                 output: str, dims: tuple[str, ...], shape: tuple[int, ...], dtype: Any,
                 chunk: int):
        self.ds, self.dim, self.along = ds, dim, along
        self.points, self.output = list(points), output
        self.dims, self.shape, self.dtype, self.chunk = dims, shape, np.dtype(dtype), chunk

    def __getitem__(self, key: Any) -> Any:
        return indexing.explicit_indexing_adapter(key, self.shape,
                                                  indexing.IndexingSupport.OUTER, self._raw)

    def _raw(self, key: tuple) -> np.ndarray:
        pos = _outer(key, self.shape)
        s = self.dims.index("sample")
        whole = _KEPT.get(id(self))
        nbytes = int(np.prod(self.shape)) * self.dtype.itemsize
        if whole is None and 2 * nbytes <= CACHE_BYTES and np.atleast_1d(pos[s]).size == \
                self.shape[s]:
            whole = self._evaluate(tuple(np.arange(n) for n in self.shape))
            _KEPT[id(self)] = whole
            weakref.finalize(self, _KEPT.pop, id(self), None)
            while sum(a.nbytes for a in _KEPT.values()) > CACHE_BYTES:
                _KEPT.popitem(last=False)
        if whole is not None:
            _KEPT.move_to_end(id(self))
            return _take(whole, pos)
        return self._evaluate(tuple(key))

    def _evaluate(self, key: tuple) -> np.ndarray:
        pos = _outer(key, self.shape)
        s, d = self.dims.index("sample"), self.dims.index(self.along)
        dropped = [isinstance(k, int | np.integer) for k in pos]
        keep = list(pos)
        keep[s], keep[d] = np.atleast_1d(pos[s]), np.atleast_1d(pos[d])
        rows: np.ndarray = keep[s]
        pts: np.ndarray = keep[d]
        per_chunk = [np.arange(n) if a in (s, d) else keep[a]
                     for a, n in enumerate(self.shape)]
        pieces = []
        for start in range(0, max(rows.size, 1), self.chunk):
            out = evaluate_stored(self.ds, self.dim, [self.points[i] for i in pts],
                                  outputs=[self.output], samples=rows[start:start + self.chunk],
                                  chunk=self.chunk)
            vals = out[self.output].transpose(*self.dims).values
            per_chunk[d] = np.arange(vals.shape[d])
            per_chunk[s] = np.arange(vals.shape[s])
            pieces.append(_take(vals, per_chunk))

        def after(axis: int) -> int:  # the axis's place once the other ints are dropped
            return axis - sum(dropped[a] for a in range(axis) if a not in (s, d))

        full = np.concatenate(pieces, axis=after(s)) if len(pieces) > 1 else pieces[0]
        index: list = [slice(None)] * full.ndim
        for axis in (s, d):
            if dropped[axis]:
                index[after(axis)] = 0
        return full[tuple(index)]


def stored_output(ds: xr.Dataset, dim: str, points: Sequence[float], output: str,
                  template: xr.Variable, along: str | None = None,
                  chunk: int = CHUNK) -> xr.Variable:
    """Output ``output`` of the model on ``ds``'s stored rows with grid dim ``dim`` at
    ``points`` (:func:`evaluate_stored`), as a lazy variable shaped as ``template`` (the
    file's variable) with its axis ``along`` (default ``dim``; ``cash_demand`` for a
    per-report-demand output) holding the points: each read evaluates the model on the
    samples it asks for only, :data:`CHUNK` at a time, so a month-by-month output is never
    held for every sample at once."""
    along = along or dim
    shape = tuple(len(points) if d == along else n
                  for d, n in zip(template.dims, template.shape, strict=True))
    arr = _Evaluated(ds, dim, along, points, output, tuple(map(str, template.dims)), shape,
                     template.dtype, chunk)
    out = xr.Variable(template.dims, indexing.LazilyIndexedArray(arr))
    out.attrs.update(template.attrs)
    return out
