"""The boxes of scenario discovery and their shares (see :mod:`mc_tco.decision.prim`).

A :class:`Box` is one interval per input, ``lower <= x < upper`` (``-inf``/``inf``:
unrestricted). Its *coverage* is the share of all winning scenarios inside it, its
*density* the share of its scenarios that win, its *mass* the share of all scenarios
inside it (Bryant & Lempert 2010). :class:`Step` is a box of a peeling trajectory;
:class:`FoundBox` a box PRIM chose, pasted and pruned, with its shares on all scenarios.

With the run's scramble of each scenario (``replicate=``, base sample ``g`` belongs to
scramble ``g % R``), :func:`box_share_intervals` gives each found box's coverage, density
and mass, and :class:`Discovery` the share of winners, a randomized-QMC interval over the
``R`` scrambles (:func:`mc_tco.uncertainty.scrambles.proportion`, Wilson's where a scramble has no
case); :meth:`FoundBox.density_ci` and its siblings return it, Wilson's only without the
scrambles (a file run with ``--ci bootstrap`` or ``asymptotic``). It measures the Monte
Carlo error of the shares of *this* box, not the noise of the box's choice, which was
fitted to the same scenarios.

References
----------
Bryant, B. P. & Lempert, R. J. (2010). Thinking inside the box: a participatory,
computer-assisted approach to scenario discovery. Technological Forecasting and Social
Change 77(1), 34-49.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mc_tco.uncertainty.scrambles import proportion, wilson_interval

__all__ = ["Box", "FoundBox", "Step", "box_share_intervals"]


@dataclass
class Box:
    """Bounds per input: ``lower <= x < upper`` is inside (``-inf``/``inf``: unrestricted)."""

    lower: np.ndarray
    upper: np.ndarray

    @classmethod
    def everything(cls, p: int) -> Box:
        """The box of all ``p`` inputs unrestricted (every bound infinite)."""
        return cls(np.full(p, -np.inf), np.full(p, np.inf))

    def copy(self) -> Box:
        """A copy with its own bound arrays."""
        return Box(self.lower.copy(), self.upper.copy())

    def contains(self, x: np.ndarray) -> np.ndarray:
        """Which rows of ``x`` (n, p) lie in the box, (n,) bool."""
        return np.all((x >= self.lower) & (x < self.upper), axis=1)

    @property
    def restricted(self) -> np.ndarray:
        """Which inputs the box restricts (a finite lower or upper bound)."""
        return np.isfinite(self.lower) | np.isfinite(self.upper)


class _BoxShares:
    """Coverage, density, mass and restrictions of a box from its counts."""

    box: Box
    n_in: int
    wins_in: int
    n: int
    wins: int

    @property
    def coverage(self) -> float:
        return self.wins_in / self.wins if self.wins else float("nan")

    @property
    def density(self) -> float:
        return self.wins_in / self.n_in if self.n_in else float("nan")

    @property
    def mass(self) -> float:
        return self.n_in / self.n

    @property
    def n_restricted(self) -> int:
        return int(self.box.restricted.sum())


@dataclass
class Step(_BoxShares):
    """One box of a peeling trajectory with its statistics on the data it was fitted to."""

    box: Box
    n_in: int
    wins_in: int
    n: int
    wins: int


@dataclass
class FoundBox(_BoxShares):
    """A box chosen, pasted and pruned, with its statistics on all ``n`` scenarios."""

    box: Box
    inputs: list[str]
    n_in: int
    wins_in: int
    n: int
    wins: int
    new_wins: int
    qp: dict[str, float]
    trajectory: list[Step]
    chosen: int
    conf_level: float = 0.95
    #: randomized-QMC intervals of the shares (only with ``replicate=``), see
    #: :func:`box_share_intervals`
    shares_rqmc: dict | None = None

    @property
    def coverage_new(self) -> float:
        """Share of all winners inside this box and in no earlier box."""
        return self.new_wins / self.wins

    def _ci(self, name: str, k: int, n: int) -> tuple[float, float]:
        """The interval of share ``name``: over the scrambles when known
        (:attr:`shares_rqmc`), else Wilson's on the count ``k`` of ``n``."""
        if self.shares_rqmc:
            lo, hi = self.shares_rqmc[name]["ci"]
            return float(lo), float(hi)
        lo, hi = wilson_interval(k, n, self.conf_level)
        return float(lo), float(hi)

    def density_ci(self) -> tuple[float, float]:
        """Interval of the share of the box's scenarios that win."""
        return self._ci("density", self.wins_in, self.n_in)

    def coverage_ci(self) -> tuple[float, float]:
        """Interval of the share of all winning scenarios inside the box."""
        return self._ci("coverage", self.wins_in, self.wins)

    def mass_ci(self) -> tuple[float, float]:
        """Interval of the share of all scenarios inside the box."""
        return self._ci("mass", self.n_in, self.n)

    @property
    def ci_method(self) -> str:
        """How the shares' intervals were made, as the memo's methods name it."""
        if self.shares_rqmc:
            return (f"randomized-QMC t interval over {self.shares_rqmc['replicates']} "
                    "scrambles (Wilson's on the pooled count where it falls back)")
        return "Wilson score"

    def rules(self) -> dict[str, list[float | None]]:
        """``{input: [low, high]}`` for the restricted inputs; None where a side is open."""
        out = {}
        for j in np.flatnonzero(self.box.restricted):
            lo, hi = self.box.lower[j], self.box.upper[j]
            out[self.inputs[j]] = [float(lo) if np.isfinite(lo) else None,
                                   float(hi) if np.isfinite(hi) else None]
        return out

    def to_dict(self) -> dict:
        """The box's numbers for ``--json``: bounds, shares and their intervals."""
        lo, hi = self.density_ci()
        return {
            "rules": self.rules(),
            "coverage": self.coverage,
            "coverage_ci": list(self.coverage_ci()),
            "density": self.density,
            "density_ci": [lo, hi],
            "density_ci_level": self.conf_level,
            "ci_method": self.ci_method,
            "mass": self.mass,
            "mass_ci": list(self.mass_ci()),
            "n_restricted": self.n_restricted,
            "scenarios_in_box": self.n_in,
            "winners_in_box": self.wins_in,
            "coverage_new": self.coverage_new,
            "quasi_p_values": self.qp,
            "trajectory": [
                {"coverage": s.coverage, "density": s.density, "mass": s.mass,
                 "n_restricted": s.n_restricted}
                for s in self.trajectory
            ],
            "chosen_step": self.chosen,
            **({"shares_rqmc": self.shares_rqmc} if self.shares_rqmc else {}),
        }


def box_share_intervals(box: Box, x: np.ndarray, y: np.ndarray, replicate, replicates: int,
                        conf_level: float = 0.95) -> dict:
    """Coverage, density and mass of ``box`` with randomized-QMC intervals.

    Each share is a proportion over a subset of the scenarios (coverage: of the winners;
    density: of the box's scenarios; mass: of all), so
    :func:`mc_tco.uncertainty.scrambles.proportion`
    gives the pooled share and its interval over the ``R`` scrambles, or Wilson's on the
    pooled count where a scramble has no case in the subset (``fallback``).

    Returns
    -------
    dict
        ``{"coverage" | "density" | "mass": {"value", "ci", "fallback"}}`` plus
        ``conf_level`` and ``replicates``.
    """
    y = np.asarray(y, dtype=bool)
    replicate = np.asarray(replicate)
    inside = box.contains(np.asarray(x, dtype=float))
    out: dict = {"conf_level": conf_level, "replicates": replicates}
    for name, event, among in (("coverage", inside, y), ("density", y, inside),
                               ("mass", inside, np.ones_like(y))):
        res = proportion(event[among], replicate[among], replicates, conf_level)
        out[name] = {"value": float(res.estimate), "ci": [float(res.lower), float(res.upper)],
                     "fallback": bool(res.fallback)}
    return out
