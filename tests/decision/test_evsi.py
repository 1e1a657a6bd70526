"""EVSI by regression on a summary statistic (Strong et al. 2015) against the normal-normal
closed form, and the pilot's cost and bounds on a small run."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from mc_tco.decision.evsi import Pilot, evsi, pilot_value


def _closed_form(m: float, s: float, noise_var: float) -> float:
    """EVSI of "act (NB = theta) or not (0)", theta ~ N(m, s^2), data mean ~ N(theta,
    noise_var): the preposterior mean is N(m, tau^2), tau^2 = s^4 / (s^2 + noise_var), and
    EVSI = E[max(0, mu')] - max(0, m) = m Phi(m/tau) + tau phi(m/tau) - max(0, m)."""
    tau = s**2 / np.sqrt(s**2 + noise_var) if noise_var < np.inf else 0.0
    if tau == 0:
        return 0.0
    return m * stats.norm.cdf(m / tau) + tau * stats.norm.pdf(m / tau) - max(0.0, m)


@pytest.mark.parametrize("noise_var", [0.0, 0.5, 4.0])
def test_evsi_matches_the_normal_normal_closed_form(noise_var):
    rng = np.random.default_rng(11)
    n, m, s = 8192, -0.2, 1.0
    theta = m + s * rng.standard_normal(n)
    nb = np.column_stack([np.zeros(n), theta])
    xbar = theta + np.sqrt(noise_var) * rng.standard_normal(n)
    got = evsi(xbar, nb, np.arange(n) % 8, 8)
    want = _closed_form(m, s, noise_var)
    assert got.lower - 0.01 <= want <= got.upper + 0.01
    assert got.value == pytest.approx(want, abs=0.015)


def test_evsi_of_pure_noise_is_zero_and_never_exceeds_perfect_information():
    rng = np.random.default_rng(5)
    n = 4096
    theta = -0.2 + rng.standard_normal(n)
    nb = np.column_stack([np.zeros(n), theta])
    noise_only = rng.standard_normal(n)  # data that say nothing about theta
    assert evsi(noise_only, nb).value == pytest.approx(0.0, abs=0.01)
    noisy = evsi(theta + rng.standard_normal(n), nb).value
    assert noisy < evsi(theta, nb).value


def test_pilot_costs_its_rent_and_team_and_is_worth_at_most_perfect_measurement(default_run):
    ds = default_run
    pv = pilot_value(ds, 1e12, Pilot(weeks=2), among=("api", "buy", "rent", "reserved"))
    iv = ds["input_value"]
    const = ds.mc_tco.constants

    def col(name):
        if name in map(str, ds["input"].values):
            return iv.sel(input=name).values
        return np.full(ds.sizes["sample"], float(const[name]))

    rent = np.mean(col("gpus_per_node") * col("gpu_rent_per_hour") * 24 * 7 * 2)
    team = np.mean(col("staff_fte") * col("staff_cost_per_fte") * 2 / 52)
    assert pv.rent == pytest.approx(rent) and pv.team == pytest.approx(team)
    assert pv.cost == pytest.approx(rent + team)
    assert 0 <= pv.worth.value <= pv.ceiling.value + max(pv.worth.half, 1e-9)
    assert pv.run_it == (pv.worth.lower > pv.cost)
