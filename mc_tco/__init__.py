"""mc_tco: Monte Carlo uncertainty and Sobol sensitivity for the self-hosting TCO decision."""

__version__ = "0.1.0"
