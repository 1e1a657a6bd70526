"""Value of information: what is it worth to learn an assumption before deciding?

The decision picks one option ``d`` (e.g. api, buy, rent) with net benefit ``NB_d``; with
the current uncertainty one picks the option with the highest expected net benefit. Then

* **EVPI** ``= E[max_d NB_d] - max_d E[NB_d]``, the expected gain from learning every
  input before deciding (Raiffa & Schlaifer 1961), and
* **EVPPI(x)** ``= E_x[max_d E[NB_d | x]] - max_d E[NB_d]``, the gain from learning only
  the inputs ``x`` (one input or a group).

Both are in the unit of the net benefit (USD/month for ``-cost``; USD for an NPV).

The net benefit of the TCO model is ``-cost[d]``; subtracting the API's cost from every
option (a per-sample constant) changes neither EVPI nor EVPPI, so the estimators work on the
incremental net benefit ``saving[d] = cost[api] - cost[d]`` that the results file stores
(and on ``npv`` for the net present value). The API's cost, the largest source of variance,
then drops out of every regression.

EVPPI is estimated on the stored samples alone by non-parametric regression (Strong,
Oakley & Brennan 2014): regress the incremental net benefit of each option against the best
option on ``x`` (see :mod:`mc_tco.decision.regression`: a P-spline for one input, a
penalised multivariate polynomial for a group), then average ``max(0, max_d g_d(x_i))``
over the samples. The single-input case is the regression counterpart of Strong & Oakley
(2013), whose ordered-sample estimator it replaces because a smoother wastes fewer samples
than bins. No new model runs are needed.

Monte Carlo error: EVPI's is the standard error of the mean of ``max_d NB_d - NB_{d*}``.
EVPPI's combines (in quadrature) the spread of EVPPI over draws of the fitted curves from
the regression posterior (Strong et al. 2014, sec. 3.3) and the standard error of the outer
mean over the samples. The regression estimator is biased upwards by the noise of the fit
(``E max >= max E``); the GCV smoothing keeps that bias below the reported error in the
tests (an irrelevant input gets EVPPI ~ 0 within its error).

The ``voiage`` package (PyPI 0.2.1, the only version installable here) was evaluated and not
used: its default regression is ordinary *linear* regression, which returns EVPPI = 0 for
an input that acts through ``x^2`` (true value 0.42 in our test); it reports no Monte Carlo
error, draws its subsample from numpy's global random state, is marked "Pre-Alpha", and pins
``xarray<2025`` and ``scipy<1.17``, which conflict with this project's versions.

References
----------
Raiffa, H. & Schlaifer, R. (1961). Applied Statistical Decision Theory. Harvard.
Strong, M. & Oakley, J. E. (2013). An efficient method for computing single-parameter
partial expected value of perfect information. Medical Decision Making 33(6), 755-766.
Strong, M., Oakley, J. E. & Brennan, A. (2014). Estimating multiparameter partial expected
value of perfect information from a probabilistic sensitivity analysis sample: a
nonparametric regression approach. Medical Decision Making 34(3), 311-326.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import xarray as xr

from .data import DecisionData, decision_data, point_text
from .regression import fit_smoother

__all__ = [
    "VoiResult",
    "evpi",
    "evpi_by_demand",
    "evppi",
    "value_of_information",
]

#: draws of the fitted curves for the Monte Carlo error of EVPPI
DRAWS = 200


def evpi(nb: np.ndarray) -> tuple[float, float]:
    """EVPI and its standard error from net benefits ``nb`` of shape (n, D).

    Returns
    -------
    (float, float)
        ``E[max_d NB_d] - max_d E[NB_d]`` and the standard error of that mean.
    """
    nb = np.asarray(nb, dtype=float)
    n = nb.shape[0]
    best = int(np.argmax(nb.mean(axis=0)))
    loss = nb.max(axis=1) - nb[:, best]
    se = float(loss.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
    return float(loss.mean()), se


def evppi(
    x: np.ndarray, nb: np.ndarray, *, draws: int = DRAWS, rng=None
) -> tuple[float, float, str]:
    """EVPPI of the inputs ``x`` by non-parametric regression (Strong et al. 2014).

    Parameters
    ----------
    x : ndarray, (n,) or (n, p)
        The inputs of interest at the samples.
    nb : ndarray, (n, D)
        Net benefit of each of the ``D`` options at the same samples.
    draws : int
        Draws of the fitted curves for the Monte Carlo error (0: outer-mean error only).
    rng : int or numpy.random.Generator, optional
        Seed of the draws.

    Returns
    -------
    (float, float, str)
        EVPPI, its standard error, and the smoother used.
    """
    rng = np.random.default_rng(rng)
    nb = np.asarray(nb, dtype=float)
    n = nb.shape[0]
    means = nb.mean(axis=0)
    best = int(np.argmax(means))
    inc = np.delete(nb - nb[:, [best]], best, axis=1)  # (n, D-1), each with mean <= 0
    if inc.shape[1] == 0 or not np.any(inc > 0):
        # no sample where another option beats the best one: E[inc | x] <= 0, nothing to learn
        return 0.0, 0.0, "none (one option is best in every sample)"
    fit = fit_smoother(x, inc)
    gain = np.maximum(fit.fitted.max(axis=1), 0.0)
    value = float(gain.mean())
    var_outer = float(gain.var(ddof=1) / n)
    var_fit = 0.0
    if draws:
        sims = fit.draws(draws, rng)  # (draws, n, D-1)
        values = np.maximum(sims.max(axis=2), 0.0).mean(axis=1)
        var_fit = float(values.var(ddof=1))
    return value, float(np.sqrt(var_outer + var_fit)), fit.method


@dataclass
class VoiResult:
    """EVPI and EVPPI at one decision point; values in ``unit``.

    ``evppi`` and ``evppi_groups`` map a name to ``(value, standard error)``; ``methods``
    maps the same names to the smoother used.
    """

    data: DecisionData
    evpi: float
    evpi_se: float
    expected: dict[str, float]
    best: str
    evppi: dict[str, tuple[float, float]] = field(default_factory=dict)
    evppi_groups: dict[str, tuple[float, float]] = field(default_factory=dict)
    group_members: dict[str, list[str]] = field(default_factory=dict)
    methods: dict[str, str] = field(default_factory=dict)
    z: float = 1.959963984540054

    @property
    def unit(self) -> str:
        return self.data.unit

    def ranked(self, groups: bool = False) -> list[tuple[str, float, float]]:
        """``(name, value, standard error)`` sorted by value, largest first."""
        table = self.evppi_groups if groups else self.evppi
        return sorted(((k, v, s) for k, (v, s) in table.items()), key=lambda r: -r[1])

    def to_dict(self) -> dict:
        """The JSON form: values, standard errors and 95% half-widths."""
        return {
            "unit": self.unit,
            "options": list(self.data.options),
            "expected_net_benefit": self.expected,
            "best_option": self.best,
            "evpi": self.evpi,
            "evpi_se": self.evpi_se,
            "evppi": {k: v for k, (v, _) in self.evppi.items()},
            "evppi_se": {k: s for k, (_, s) in self.evppi.items()},
            "evppi_groups": {k: v for k, (v, _) in self.evppi_groups.items()},
            "evppi_groups_se": {k: s for k, (_, s) in self.evppi_groups.items()},
            "evppi_group_members": self.group_members,
            "evppi_methods": self.methods,
            "se_note": "standard errors; a 95% interval is value ± 1.96 se",
        }


def value_of_information(
    ds: xr.Dataset,
    *,
    at: dict | None = None,
    among: list[str] | None = None,
    target: str | None = None,
    inputs: list[str] | None = None,
    groups: dict[str, list[str]] | None = None,
    draws: int = DRAWS,
    seed: int = 0,
    path: str | None = None,
) -> VoiResult:
    """EVPI and per-input and per-group EVPPI at one point of a results file.

    Parameters
    ----------
    ds : xr.Dataset
        A results file (``mc_tco.io.open_results``): needs ``input_value`` (sample, input)
        and the target (sample, ...).
    at : dict, optional
        The grid point, e.g. ``{"demand": 5e11}`` (default: the file's focus point).
    among : list of str, optional
        Options (strategies) to decide among; default every strategy but ``owned``.
    target : str, optional
        The incremental net benefit, e.g. ``saving`` (USD/month, the default) or ``npv``
        (USD). For a model without a ``strategy`` dim the decision is "act if the expected
        target is positive".
    inputs : list of str, optional
        Inputs whose EVPPI is estimated (default all).
    groups : dict, optional
        Groups of inputs (default: the book's groups, the ``input_group`` coordinate).
    draws, seed : int
        Posterior draws for the EVPPI error and their seed.
    path : str, optional
        The file name, for error messages.

    Returns
    -------
    VoiResult
    """
    data = decision_data(ds, at=at, among=among, target=target, path=path)
    nb = data.net_benefit
    value, se = evpi(nb)
    expected = dict(zip(data.options, map(float, nb.mean(axis=0)), strict=True))
    best = max(expected, key=expected.get)
    out = VoiResult(data, value, se, expected, best)
    names = data.check_inputs(inputs) if inputs else list(data.inputs)
    rng = np.random.default_rng(seed)
    for name in names:
        j = data.inputs.index(name)
        v, s, method = evppi(data.x[:, j], nb, draws=draws, rng=rng)
        out.evppi[name] = (v, s)
        out.methods[name] = method
    if groups is None:
        groups = data.groups()
    for gname, members in groups.items():
        members = data.check_inputs(members)
        if len(members) == 1 and members[0] in out.evppi:  # the same estimate, not a redraw
            out.evppi_groups[gname] = out.evppi[members[0]]
            out.group_members[gname] = members
            out.methods[f"group:{gname}"] = out.methods[members[0]]
            continue
        cols = [data.inputs.index(m) for m in members]
        v, s, method = evppi(data.x[:, cols], nb, draws=draws, rng=rng)
        out.evppi_groups[gname] = (v, s)
        out.group_members[gname] = members
        out.methods[f"group:{gname}"] = method
    return out


def evpi_by_demand(
    ds: xr.Dataset,
    *,
    among: list[str] | None = None,
    target: str | None = None,
    path: str | None = None,
) -> xr.DataArray:
    """EVPI at every demand of a results file.

    Returns
    -------
    xr.DataArray
        EVPI over ``demand`` in the target's unit (USD/month for ``saving``), with the
        coordinate ``evpi_se`` (its standard error) and ``best_option`` (the option with
        the highest expected net benefit at that demand). It peaks where the decision is
        hardest: where two options are close on average and the uncertainty can reverse
        their order.
    """
    if "demand" not in ds.dims:
        from ..errors import OptionError

        raise OptionError(f"{path or 'the results'}: no 'demand' dim; EVPI vs demand needs one")
    values, ses, bests = [], [], []
    for d in ds["demand"].values:
        data = decision_data(ds, at={"demand": float(d)}, among=among, target=target, path=path)
        nb = data.net_benefit
        v, s = evpi(nb)
        values.append(v)
        ses.append(s)
        bests.append(data.options[int(np.argmax(nb.mean(axis=0)))])
    return xr.DataArray(
        np.array(values),
        dims="demand",
        coords={
            "demand": ds["demand"],
            "evpi_se": ("demand", np.array(ses)),
            "best_option": ("demand", np.array(bests, dtype=object).astype(str)),
        },
        name="evpi",
        attrs={
            "units": data.unit,
            "long_name": "expected value of perfect information",
            "options": ", ".join(data.options),
            "target": data.target,
            "where": point_text(data.point, ds, skip=("demand",)),
        },
    )
