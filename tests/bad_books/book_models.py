"""Model functions named by the broken books of this folder (and by the book fuzz).

A book in this folder names them as ``model = "book_models:<function>"``: ``resolve_model``
imports modules from the book's folder. ``total`` is a valid model; the others break one
rule of the model contract each (see ``mc_tco.models``).
"""

import numpy as np
import xarray as xr

#: not a function: a book naming it gets "is a int, not a function"
NOT_CALLABLE = 3


def _sum(inputs: xr.Dataset) -> xr.DataArray:
    total = sum(inputs[name] for name in inputs.data_vars)
    for dim in inputs.coords:  # broadcast over the book's grid
        if dim in inputs.dims:
            total = total + 0 * inputs[dim]
    return total


def total(inputs: xr.Dataset) -> xr.Dataset:
    """A valid model: the sum of the inputs (over the book's grid, if any)."""
    return xr.Dataset({"total": _sum(inputs)})


def wrong_dims(inputs: xr.Dataset) -> xr.Dataset:
    """Returns its target without the ``sample`` dim (a mean over samples)."""
    return xr.Dataset({"total": _sum(inputs).mean("sample")})


def wrong_length(inputs: xr.Dataset) -> xr.Dataset:
    """Returns one value too few along ``sample``."""
    return xr.Dataset({"total": _sum(inputs).isel(sample=slice(1, None))})


def returns_nan(inputs: xr.Dataset) -> xr.Dataset:
    """NaN where ``x`` is above 0.9: log of a negative number."""
    return xr.Dataset({"total": np.log(0.9 - inputs["x"]) + 0 * inputs["y"]})


def returns_array(inputs: xr.Dataset):
    """Returns a bare numpy array instead of a Dataset."""
    return _sum(inputs).values


def raises(inputs: xr.Dataset) -> xr.Dataset:
    """Looks up an input the book does not have."""
    return xr.Dataset({"total": inputs["price"] * inputs["volume"]})

