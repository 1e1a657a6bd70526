"""The helper process of a cold kernel cache (:mod:`mc_tco.models.kernels.warm`): the
model's cells' outputs on a few rows, so that their kernels are compiled into the on-disk
cache while the run's own process compiles the npv chain. Apart from :mod:`.kernels` (whose
sources stamp the cache) and from :mod:`.tco` (which starts the helper)."""

from __future__ import annotations

__all__ = ["HELPER_OUTPUTS", "compile_cells"]

#: the outputs whose kernels the helper compiles (every output but the npv's, which the
#: run compiles first, and the break-even demand, which reuses the npv chain)
HELPER_OUTPUTS = ("cost_component", "irr", "payback_months", "nodes", "cash_path",
                  "cash_by_year")


def compile_cells() -> None:
    """The helper process' work: the model's cells' outputs on a few rows of the shipped default
    book at its medians (the same calls, so the same signatures, as a run's)."""
    import numpy as np
    import xarray as xr

    from mc_tco.book import load_book
    from mc_tco.book.shipped import DEFAULT, NEXT_TO_PACKAGE
    from mc_tco.models import tco

    path = NEXT_TO_PACKAGE / DEFAULT
    if not path.is_file():
        return
    book = load_book(path)
    data = {name: ("sample", np.full(2, float(inp.value) if inp.is_constant
                                     else float(inp.ppf(np.array([0.5]))[0])))
            for name, inp in book.inputs.items()}
    inputs = xr.Dataset(data, coords={"demand": np.geomspace(1e9, 1e13, 17)})
    inputs.attrs["outputs"] = list(HELPER_OUTPUTS)
    tco.model(inputs)
