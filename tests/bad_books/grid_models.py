"""A model that declares the range of its grid dim (named by the grid_* books here)."""

import xarray as xr


def _sum(inputs: xr.Dataset) -> xr.DataArray:
    return sum(inputs[name] for name in inputs.data_vars)


def positive_volume(inputs: xr.Dataset) -> xr.Dataset:
    """A valid model over a ``volume`` grid that declares volume > 0 (its ``spec``)."""
    return xr.Dataset({"total": _sum(inputs) * inputs["volume"]})


def _positive_volume_spec():
    import math

    from mc_tco.models import InputRule, ModelSpec

    return ModelSpec(grid_rules={
        "volume": InputRule("units/month", 0.0, math.inf, "monthly volume", low_open=True)
    })


positive_volume.spec = _positive_volume_spec()
