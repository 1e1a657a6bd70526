"""The Ishigami function, a user's own model for ``benchmarks/startup.py``.

y = sin(x1) + a sin(x2)^2 + b x3^4 sin(x1), a = 7, b = 0.1, x_i ~ U(-pi, pi)
(Ishigami and Homma 1990): V = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2.
"""

import numpy as np
import xarray as xr

A, B = 7.0, 0.1


def model(inputs: xr.Dataset) -> xr.Dataset:
    """The Ishigami function of ``inputs.x1``, ``x2``, ``x3`` as the target ``y``."""
    x1, x2, x3 = inputs.x1, inputs.x2, inputs.x3
    return xr.Dataset({"y": np.sin(x1) + A * np.sin(x2) ** 2 + B * x3**4 * np.sin(x1)})
