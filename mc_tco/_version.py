"""The version of mc_tco, in one place (pyproject reads it; results files record it)."""

__version__ = "0.2.0"
