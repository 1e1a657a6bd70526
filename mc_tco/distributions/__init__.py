"""Distributions of the inputs: the families (frozen ``scipy.stats`` with the book's
parameters, :mod:`.families`; the common ones' ``ppf`` without importing scipy.stats,
:mod:`.frozen`), their fast ppf kernels (:mod:`.beta_ppf`) and the Gaussian copula that
correlates them on the unit-cube design (:mod:`.copula`)."""

from mc_tco.distributions.families import FAMILIES, U_MIN, Family, build_distribution

__all__ = ["FAMILIES", "U_MIN", "Family", "build_distribution"]
