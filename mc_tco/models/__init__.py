"""Models: plain functions ``model(inputs: xr.Dataset) -> xr.Dataset``.

``inputs`` holds one variable per book input along ``sample`` (constants included, as the
same value on every row) and the book's grid as coordinates (e.g. ``demand``). The model
returns a Dataset whose variables have a ``sample`` dim of the same length and any of the
grid and model dims. Nothing else is required: a user's own function named in a book as
``model = "my_module:my_function"`` runs the same way.

A model may carry a :class:`ModelSpec` as ``model.spec``: the inputs it needs with their
units and allowed ranges (a book is then checked against it), its default grid, targets
and report points. The TCO model of :mod:`mc_tco.models.tco` does.
"""


from mc_tco.models.checks import (
    check_analysis,
    check_book,
    check_grid,
    check_outputs,
    check_samples,
    check_targets,
)
from mc_tco.models.loading import (
    DEFAULT_MODEL,
    model_facts,
    model_file,
    model_source_hash,
    own_model_file,
    resolve_model,
)
from mc_tco.models.spec import InputRule, ModelSpec, spec_of

__all__ = [
    "DEFAULT_MODEL",
    "InputRule",
    "ModelSpec",
    "check_analysis",
    "check_book",
    "check_grid",
    "check_outputs",
    "check_samples",
    "check_targets",
    "model_facts",
    "model_file",
    "model_source_hash",
    "own_model_file",
    "resolve_model",
    "spec_of",
]
