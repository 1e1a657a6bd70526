"""Sensitivity analysis: Sobol' indices (independent inputs) and Shapley effects (dependent)."""
