"""Uncertainty of a run's outputs: intervals from the spread across independent scrambles
(:mod:`.scrambles`) and the quantiles, means and probabilities of outputs over samples with
those intervals, as numpy kernels and xarray functions (:mod:`.statistics`)."""
