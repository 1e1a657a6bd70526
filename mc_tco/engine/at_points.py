"""The model's outputs of a results file's own scenarios at grid points it does not hold.

A results file keeps every base sample's input values (``input_value``, sample x input)
and the book it was run from (``book_text``): the model evaluated on those rows at other
points of a grid dim gives exactly the outputs a run whose grid held those points would
have stored for its base rows (same book, seed and samples: the design does not depend on
the grid). :func:`evaluate_stored` does it; it never evaluates the design's other rows, so
no Sobol' index comes out of it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import xarray as xr

from mc_tco.book import loads_book
from mc_tco.errors import McTcoError, ModelError, OptionError
from mc_tco.models import resolve_model

__all__ = ["evaluate_stored"]


def evaluate_stored(ds: xr.Dataset, dim: str, points: Sequence[float],
                    outputs: Iterable[str] | None = None) -> xr.Dataset:
    """The model outputs of ``ds``'s stored samples with grid dim ``dim`` at ``points``.

    Parameters
    ----------
    ds : xr.Dataset
        A results file of ``mc-tco run`` that kept every output (``input_value``).
    dim : str
        The grid dim whose points are replaced (``"demand"``).
    points : sequence of float
        The points to evaluate, in the dim's unit. They are also the model's report points
        of that dim (``inputs.attrs["report"]``), so per-report-point outputs (the TCO
        model's ``cash_path`` and ``cash_by_year``) come at them too.
    outputs : iterable of str, optional
        The outputs to ask the model for (default: all it gives).

    Returns
    -------
    xr.Dataset
        The model's outputs over ``sample`` (the file's sample coordinate) and ``dim`` =
        ``points``; the other grid dims as the file holds them.

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
    values = ds["input_value"].values
    n = ds.sizes["sample"]
    data = {}
    for name, inp in book.inputs.items():
        if name in names:
            column = values[:, names.index(name)]
        elif inp.is_grid:  # a grid input: the value of the view (ds.mc_tco.at_input_grid)
            if name not in ds.coords or ds[name].ndim != 0:
                raise OptionError(f"{name} is a grid dimension of the results: choose one of "
                                  f"its values first (--at {name}=VALUE)")
            column = np.full(n, float(ds[name]))
        else:
            column = np.full(n, inp.value)
        data[name] = xr.Variable("sample", np.asarray(column, dtype=float), {"units": inp.unit})
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
    inputs = xr.Dataset(data, coords=coords, attrs=attrs)
    try:
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = model(inputs)
    except McTcoError as exc:
        raise ModelError(f"{run.book_path}: {exc}") from exc
    return out.assign_coords(sample=ds["sample"].values)
