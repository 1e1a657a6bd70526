"""Test functions of sensitivity analysis with known Sobol' indices.

Each function takes points of the unit cube, ``u`` with shape ``(..., D)``, and maps every
column through its input's distribution itself (as the engine maps the design through each
input's ``ppf``), so any design on ``[0, 1]^D`` (:class:`mc_tco.design.SaltelliDesign`,
SALib's sample on the unit cube) can feed it. Each :class:`TestFunction` carries its
first-order and total indices: analytic where a closed form exists (Ishigami, Sobol' G,
linear), otherwise reference values from a very large randomized-QMC run with their stated
error (Borehole, see :data:`BOREHOLE_REFERENCE`).

References
----------
Ishigami, T., Homma, T. (1990). An importance quantification technique in uncertainty
analysis for computer models. Proceedings of ISUMA '90, 398-403.

Homma, T., Saltelli, A. (1996). Importance measures in global sensitivity analysis of
nonlinear models. Reliability Engineering & System Safety 52, 1-17.

Sobol', I. M. (1998). On quasi-Monte Carlo integrations. Mathematics and Computers in
Simulation 47, 103-112.

Saltelli, A., Annoni, P., Azzini, I., Campolongo, F., Ratto, M., Tarantola, S. (2010).
Variance based sensitivity analysis of model output. Computer Physics Communications 181,
259-270 (section 4: the G function with ``a = [0, 1, 4.5, 9, 99, 99, 99, 99]``).

Saltelli, A., Ratto, M., Andres, T., et al. (2008). Global Sensitivity Analysis. The
Primer. Wiley (section 1.2.3: for ``y = sum b_i x_i`` with independent inputs,
``S_i = b_i^2 var(x_i) / sum_j b_j^2 var(x_j)``).

Harper, W. V., Gupta, S. K. (1983). Sensitivity/uncertainty analysis of a borehole
scenario comparing Latin hypercube sampling and deterministic sensitivity approaches.
Office of Nuclear Waste Isolation, Battelle, BMI/ONWI-516.

Morris, M. D., Mitchell, T. J., Ylvisaker, D. (1993). Bayesian design and analysis of
computer experiments: use of derivatives in surface prediction. Technometrics 35, 243-255
(the Borehole function with all eight inputs uniform).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

import numpy as np
from numpy.typing import ArrayLike

__all__ = [
    "BOREHOLE_REFERENCE",
    "SOBOL_G_A",
    "TestFunction",
    "borehole",
    "ishigami",
    "linear",
    "sobol_g",
]

#: the G function's coefficients of Saltelli et al. (2010), section 4
SOBOL_G_A = (0.0, 1.0, 4.5, 9.0, 99.0, 99.0, 99.0, 99.0)

#: coefficients of the default linear test model (one of them zero: an index of exactly 0)
LINEAR_B = (4.0, 2.0, 1.0, 0.5, 0.1, 0.0)


@dataclass(frozen=True)
class TestFunction:
    """A test function on the unit cube with its Sobol' indices.

    Attributes
    ----------
    name : str
        Short name (``"ishigami"``, ``"sobol_g"``, ``"linear"``, ``"borehole"``).
    names : tuple of str
        Input names, in column order.
    evaluate : callable
        ``evaluate(u)`` with ``u`` of shape ``(..., D)`` in ``[0, 1]``; returns ``(...)``.
    s1, st : ndarray, shape (D,)
        First-order and total Sobol' indices (dimensionless).
    exact : bool
        True when ``s1``/``st`` are analytic; False for reference values from a large run.
    error : float
        Bound on the error of ``s1``/``st`` (0 for analytic values; for reference values
        the 95% randomized-QMC half-width of the reference run, rounded up).
    source : str
        Where the indices come from.
    """

    __test__ = False  # not a pytest test class despite the name

    name: str
    names: tuple[str, ...]
    evaluate: Callable[[np.ndarray], np.ndarray]
    s1: np.ndarray
    st: np.ndarray
    exact: bool
    error: float
    source: str

    @property
    def dim(self) -> int:
        """Number of inputs ``D``."""
        return len(self.names)

    def __call__(self, u: np.ndarray) -> np.ndarray:
        """The function at the unit-cube points ``u`` (rows of inputs)."""
        return self.evaluate(u)


# ---------------------------------------------------------------------------- Ishigami


def ishigami(a: float = 7.0, b: float = 0.1) -> TestFunction:
    """The Ishigami function ``sin x1 + a sin^2 x2 + b x3^4 sin x1``, ``x_i ~ U(-pi, pi)``.

    Partial variances (Homma & Saltelli 1996; Saltelli et al. 2008, section 4.6):
    ``V1 = (1 + b pi^4 / 5)^2 / 2``, ``V2 = a^2 / 8``, ``V13 = b^2 pi^8 (1/18 - 1/50)``,
    all other terms zero. ``S1_3 = 0`` while ``ST_3 = V13 / V > 0``.
    """
    v1 = 0.5 * (1 + b * np.pi**4 / 5) ** 2
    v2 = a**2 / 8
    v13 = b**2 * np.pi**8 * (1 / 18 - 1 / 50)
    v = v1 + v2 + v13

    def evaluate(u: ArrayLike) -> np.ndarray:
        x = np.pi * (2 * np.asarray(u, dtype=float) - 1)
        s1 = np.sin(x[..., 0])
        return s1 + a * np.sin(x[..., 1]) ** 2 + b * x[..., 2] ** 4 * s1

    return TestFunction(
        "ishigami", ("x1", "x2", "x3"), evaluate,
        np.array([v1, v2, 0.0]) / v, np.array([v1 + v13, v2, v13]) / v, True, 0.0,
        f"analytic, Homma & Saltelli (1996), a = {a}, b = {b}",
    )


# ---------------------------------------------------------------------------- Sobol' G


def sobol_g(a: ArrayLike = SOBOL_G_A) -> TestFunction:
    """Sobol's G function ``prod_i (|4 x_i - 2| + a_i) / (1 + a_i)``, ``x_i ~ U(0, 1)``.

    ``V_i = 1 / (3 (1 + a_i)^2)``, ``V = prod_i (1 + V_i) - 1``,
    ``S1_i = V_i / V``, ``ST_i = V_i prod_{j != i} (1 + V_j) / V`` (Sobol' 1998;
    Saltelli et al. 2010, section 4). Small ``a_i`` is an important input; ``a_i = 99``
    gives indices of about 1e-4.
    """
    a = np.asarray(a, dtype=float)
    vi = 1 / (3 * (1 + a) ** 2)
    v = np.prod(1 + vi) - 1

    def evaluate(u: ArrayLike) -> np.ndarray:
        u = np.asarray(u, dtype=float)
        return np.prod((np.abs(4 * u - 2) + a) / (1 + a), axis=-1)

    return TestFunction(
        "sobol_g", tuple(f"x{i + 1}" for i in range(len(a))), evaluate,
        vi / v, vi * np.prod(1 + vi) / (1 + vi) / v, True, 0.0,
        f"analytic, Sobol' (1998), Saltelli et al. (2010), a = {a.tolist()}",
    )


# ---------------------------------------------------------------------------- linear


def linear(b: ArrayLike = LINEAR_B) -> TestFunction:
    """The linear model ``sum_i b_i x_i`` with independent ``x_i ~ U(0, 1)``.

    Additive, so ``S1_i = ST_i = b_i^2 / sum_j b_j^2`` (equal input variances; Saltelli
    et al. 2008, section 1.2.3). The default has an input with ``b = 0`` (index exactly 0)
    and one with an index of 5e-4.
    """
    b = np.asarray(b, dtype=float)
    s = b**2 / np.sum(b**2)

    def evaluate(u: ArrayLike) -> np.ndarray:
        return np.asarray(u, dtype=float) @ b

    return TestFunction(
        "linear", tuple(f"x{i + 1}" for i in range(len(b))), evaluate, s, s.copy(), True,
        0.0, f"analytic, Saltelli et al. (2008), b = {b.tolist()}",
    )


# ---------------------------------------------------------------------------- Borehole

#: the eight Borehole inputs, all uniform (Morris et al. 1993): name, low, high, unit
BOREHOLE_INPUTS = (
    ("rw", 0.05, 0.15, "m"),  # radius of the borehole
    ("r", 100.0, 50_000.0, "m"),  # radius of influence
    ("Tu", 63_070.0, 115_600.0, "m2/yr"),  # transmissivity of the upper aquifer
    ("Hu", 990.0, 1110.0, "m"),  # potentiometric head of the upper aquifer
    ("Tl", 63.1, 116.0, "m2/yr"),  # transmissivity of the lower aquifer
    ("Hl", 700.0, 820.0, "m"),  # potentiometric head of the lower aquifer
    ("L", 1120.0, 1680.0, "m"),  # length of the borehole
    ("Kw", 9855.0, 12_045.0, "m/yr"),  # hydraulic conductivity of the borehole
)

class _Reference(TypedDict):
    """Reference indices of a test function without a closed form, and their error bound."""

    s1: np.ndarray
    st: np.ndarray
    error: float


#: Borehole indices from ``benchmarks/borehole_reference.py``: 16 independent scrambles of
#: 2^21 base samples each (Saltelli design, ``saltelli`` estimator, pooled); the largest
#: 95% randomized-QMC half-width over all 16 indices was 4.5e-6 (S1 and ST of rw).
BOREHOLE_REFERENCE: _Reference = {
    "s1": np.array([8.2891762742e-01, 1.1074080453e-06, -1.6652104625e-12, 4.1385184446e-02,
                    5.2915310839e-06, 4.1385245395e-02, 3.9341794548e-02, 9.5216118724e-03]),
    "st": np.array([8.6683039492e-01, 2.3218963377e-06, 1.0683300108e-11, 5.4109366784e-02,
                    1.0727157671e-05, 5.4109365299e-02, 5.2077073493e-02, 1.2730719433e-02]),
    "error": 5e-6,
}


def borehole() -> TestFunction:
    """The Borehole function: water flow through a borehole, m^3/yr (Harper & Gupta 1983).

    ``2 pi Tu (Hu - Hl) / (ln(r/rw) (1 + 2 L Tu / (ln(r/rw) rw^2 Kw) + Tu / Tl))`` with the
    eight inputs uniform on the ranges of :data:`BOREHOLE_INPUTS` (Morris et al. 1993).
    No closed form for its indices: ``s1``/``st`` are :data:`BOREHOLE_REFERENCE`.
    """
    low = np.array([i[1] for i in BOREHOLE_INPUTS])
    width = np.array([i[2] - i[1] for i in BOREHOLE_INPUTS])

    def evaluate(u: ArrayLike) -> np.ndarray:
        x = low + width * np.asarray(u, dtype=float)
        rw, r, tu, hu, tl, hl, length, kw = np.moveaxis(x, -1, 0)
        log_ratio = np.log(r / rw)
        return (2 * np.pi * tu * (hu - hl)) / (
            log_ratio * (1 + 2 * length * tu / (log_ratio * rw**2 * kw) + tu / tl)
        )

    ref = BOREHOLE_REFERENCE
    return TestFunction(
        "borehole", tuple(i[0] for i in BOREHOLE_INPUTS), evaluate,
        ref["s1"].copy(), ref["st"].copy(), False, ref["error"],
        "reference run, benchmarks/borehole_reference.py (16 x 2^21 scrambled Sobol')",
    )
