"""The TCO model re-evaluated on a results file's stored base rows, some inputs changed.

A results file keeps every base sample's sampled inputs (``input_value``) and the book's
constants; the model is fast (about 10 ms for 1,000 rows at one demand). The reason
(:mod:`mc_tco.decision.reason`), the triggers (:mod:`mc_tco.decision.triggers`) and the
pilot (:mod:`mc_tco.decision.evsi`) ask "what if this input were that": they re-run the
model on the same rows with the input replaced, the others as stored. With unchanged
inputs the stored outputs come back to rounding (a test pins it).

An input fixed this way is *set*, not *learnt*: the inputs the book correlates with it keep
their stored values (an intervention, not a conditional). For the triggers that is the
question asked: "with the invoice price at $x, the rest as uncertain as today".
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import xarray as xr

from mc_tco.errors import OptionError
from mc_tco.models.kernels import rows
from mc_tco.uncertainty.intervals import replicate_of

__all__ = ["Rows", "stored_rows"]


class Rows:
    """The stored base rows of a results file as model inputs (one array per input).

    Parameters
    ----------
    x : mapping of str to ndarray
        Every input of :data:`mc_tco.models.tco_inputs.INPUTS`, shape (n,).
    replicate : ndarray of int, optional
        The scramble of each row (``g % R``), when the run had ``R`` scrambles.
    replicates : int, optional
        ``R``.
    """

    def __init__(self, x: Mapping[str, np.ndarray], replicate: np.ndarray | None = None,
                 replicates: int | None = None):
        self.x = {k: np.asarray(v, dtype=float).reshape(-1) for k, v in x.items()}
        self.replicate = replicate
        self.replicates = replicates

    @property
    def n(self) -> int:
        """The number of rows."""
        return int(self.x["node_price"].size)

    def subset(self, idx: np.ndarray) -> Rows:
        """The rows ``idx`` (their scramble labels dropped)."""
        return Rows({k: v[idx] for k, v in self.x.items()})

    def scrambles(self) -> list[Rows]:
        """The rows of each scramble, in order (empty without scrambles)."""
        if self.replicate is None or not self.replicates:
            return []
        return [self.subset(np.flatnonzero(self.replicate == r))
                for r in range(self.replicates)]

    def with_inputs(self, fixed: Mapping[str, float | np.ndarray]) -> dict[str, np.ndarray]:
        """The input columns with ``fixed`` replaced (a scalar or one value per row)."""
        x = dict(self.x)
        for k, v in fixed.items():
            if k not in x:
                raise KeyError(k)
            x[k] = np.broadcast_to(np.asarray(v, dtype=float), (self.n,)).copy()
        return x

    def evaluate(self, demand: float, fixed: Mapping[str, float | np.ndarray] | None = None,
                 outputs: tuple[str, ...] = ("npv",)) -> dict[str, np.ndarray]:
        """The model's ``outputs`` at ``demand`` on these rows, ``fixed`` inputs replaced.

        Returns
        -------
        dict of str to ndarray
            Each output with the demand dim dropped: (n, strategy) for ``npv`` and
            ``saving`` (strategies in :data:`mc_tco.models.tco.STRATEGIES` order), (n,
            component) for ``cost_component``, (n,) for per-sample outputs.
        """
        from mc_tco.engine.at_points import CHUNK
        from mc_tco.models.tco import model

        x = self.with_inputs(fixed or {})
        parts: dict[str, list[np.ndarray]] = {k: [] for k in outputs}
        # the model's month-by-month arrays are (rows x month x strategy): CHUNK rows at a
        # time bound them (the model is row by row: the numbers do not depend on it)
        for start in range(0, max(self.n, 1), CHUNK):
            data = {k: ("sample", v[start:start + CHUNK]) for k, v in x.items()}
            inputs = xr.Dataset(data, coords={"demand": [float(demand)]},
                                attrs={"outputs": list(outputs)})
            out = model(inputs)
            for k in outputs:
                parts[k].append(out[k].values[:, 0] if "demand" in out[k].dims
                                else out[k].values)
        return {k: v[0] if len(v) == 1 else np.concatenate(v) for k, v in parts.items()}

    def evaluate_each(self, demand: float, fixed: list[Mapping[str, float | np.ndarray]],
                      outputs: tuple[str, ...] = ("npv",)) -> list[dict[str, np.ndarray]]:
        """:meth:`evaluate` for each of several replacements, in one model call (the rows
        stacked once per replacement: the call's fixed cost is paid once)."""
        if not fixed:
            return []
        k = len(fixed)
        cols = [self.with_inputs(f) for f in fixed]
        stacked = Rows({name: np.concatenate([c[name] for c in cols]) for name in self.x})
        out = stacked.evaluate(demand, None, outputs)
        return [{name: v[i * self.n:(i + 1) * self.n] for name, v in out.items()}
                for i in range(k)]

    def factors(self, fixed: Mapping[str, float | np.ndarray] | None = None
                ) -> dict[str, np.ndarray]:
        """Per-row quantities of the model a person can measure, from its own row factors
        (:func:`mc_tco.models.kernels.rows.row_factors`): ``invoice_per_mtok`` (the blended
        price billed today, USD/Mtok: list prices times ``api_price_level``, off-peak
        discount in) and ``tokens_per_gpu_hour`` (one of our GPUs at full load in month 0,
        our token mix: ``reference_tokens_per_gpu_hour * mix / throughput_multiple``)."""
        x = self.with_inputs(fixed or {})
        _, S = rows.row_factors(x)
        return {"invoice_per_mtok": S[:, rows.BLEND],
                "tokens_per_gpu_hour": S[:, rows.CAP0] / (
                    x["gpus_per_node"] * rows.HOURS_PER_MONTH)}


def stored_rows(ds: xr.Dataset, path: str = "results") -> Rows:
    """The base rows of a results file of the TCO model (:class:`Rows`), with their
    scramble labels when the run had scrambles.

    Raises
    ------
    OptionError
        When the file lacks an input of the model (neither sampled nor constant).
    """
    from mc_tco.models.tco_inputs import INPUTS

    names = list(map(str, ds["input"].values))
    values = np.asarray(ds["input_value"].values, dtype=float)
    axis = ds["input_value"].dims.index("input")
    constants = ds.mc_tco.constants
    n = ds.sizes["sample"]
    x = {}
    for k in INPUTS:
        if k in names:
            x[k] = np.take(values, names.index(k), axis=axis)
        elif k in constants:
            x[k] = np.full(n, float(constants[k]))
        else:
            raise OptionError(f"{path}: input {k} is neither sampled nor a constant of the "
                              "book: not a results file of the TCO model version 3")
    r = ds.mc_tco.run.replicates
    sample = ds["sample"].values if "sample" in ds.coords else np.arange(n)
    return Rows(x, replicate_of(sample, r) if r else None, r or None)
