"""How a run was made, read once from a results file's attributes (``ds.mc_tco.run``).

:class:`RunInfo` is the typed record every reader uses instead of ``ds.attrs``: each field
is one attribute of :data:`mc_tco.results.schema.ATTRS` (or a value derived from a few),
and an attribute a file lacks gets the schema's default
(:func:`mc_tco.results.schema.default`), not a guess at the reading site.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mc_tco.errors import OptionError
from mc_tco.results.schema import DEFAULT_MODEL, LEGACY_OPTIONS, VERSION_ATTRS, default

__all__ = ["RunInfo", "json_attr"]


def json_attr(attrs, name: str) -> Any:
    """The JSON attribute ``name`` parsed, or its schema default when absent.

    Raises
    ------
    OptionError
        When the attribute is not JSON.
    """
    text = attrs.get(name)
    if text is None:
        return default(name)
    try:
        return json.loads(text)
    except (TypeError, json.JSONDecodeError):
        raise OptionError(f"the results' {name} attribute is not JSON") from None


def _get(attrs, name: str) -> Any:
    return attrs[name] if name in attrs else default(name)


def _opt_int(attrs, name: str) -> int | None:
    return int(attrs[name]) if name in attrs else None


@dataclass(frozen=True)
class RunInfo:
    """How the run was made: the book, the model, the design and the intervals.

    Built by :meth:`from_attrs` (``ds.mc_tco.run``); a field's default for a file that
    lacks its attribute is the schema's.
    """

    schema_version: int
    book_name: str
    book_path: str
    book_sha256: str
    #: the book's text, None when the file does not store it (it cannot be rerun)
    book_text: str | None
    #: ``module:function``; None when the file does not say (see :attr:`is_tco_model`)
    model: str | None
    model_file: str
    #: '' for a file written before the model's SHA-256 was recorded (not checked)
    model_sha256: str
    seed: int
    #: base samples N (the size of dim ``sample`` when the attribute is missing)
    samples: int
    rows_per_sample: int
    model_runs: int
    #: interval method of the Sobol' indices: rqmc, asymptotic or bootstrap
    ci: str
    #: independent scrambles whose spread makes the intervals (> 1 only with ci rqmc)
    scrambles: int
    conf_level: float
    ci_method: str
    estimator: str
    sobol_estimators: str
    keep_samples: str
    indicator_label: str
    #: ``run_options`` as stored (JSON text); None for a file written before it
    run_options: str | None
    #: the per-option attrs of a file written before ``run_options``, by run() keyword
    legacy_options: dict[str, Any] = field(default_factory=dict)
    #: package -> version (``mc_tco_version`` ...), those the file records, in order
    versions: dict[str, str] = field(default_factory=dict)
    created: str = ""
    #: model runs of the Shapley effects; None when the run made none
    shapley_evaluations: int | None = None
    groups_independent: bool = False
    independence_check_samples: int = 0
    #: whether the adaptive run met its target; None when it was not adaptive
    converged: bool | None = None
    family_check_seconds: float = float("nan")
    #: whether the file has the TCO model's output ``saving`` (for :attr:`is_tco_model`)
    has_saving: bool = False

    @classmethod
    def from_attrs(cls, attrs, sizes=None, variables=()) -> RunInfo:
        """The record of a results file's ``attrs`` (``sizes``: its dim sizes, for the
        default of ``samples``; ``variables``: its variable names)."""
        sizes = sizes or {}
        ci = str(_get(attrs, "ci"))
        scrambles = int(_get(attrs, "replicates") or 1) if ci == "rqmc" else 1
        shapley = _opt_int(attrs, "shapley_evaluations")
        converged = _opt_int(attrs, "converged")
        return cls(
            schema_version=int(_get(attrs, "schema_version")),
            book_name=str(_get(attrs, "book_name")),
            book_path=str(_get(attrs, "book_path")),
            book_sha256=str(_get(attrs, "book_sha256")),
            book_text=str(attrs["book_text"]) if "book_text" in attrs else None,
            model=str(attrs["model"]) if "model" in attrs else None,
            model_file=str(_get(attrs, "model_file")),
            model_sha256=str(_get(attrs, "model_sha256") or ""),
            seed=int(_get(attrs, "seed")),
            samples=int(attrs["samples"]) if "samples" in attrs else int(
                sizes.get("sample", 0)),
            rows_per_sample=int(_get(attrs, "rows_per_sample")),
            model_runs=int(_get(attrs, "model_runs")),
            ci=ci,
            scrambles=scrambles,
            conf_level=float(_get(attrs, "conf_level")),
            ci_method=str(_get(attrs, "ci_method")),
            estimator=str(_get(attrs, "estimator")),
            sobol_estimators=str(_get(attrs, "sobol_estimators")),
            keep_samples=str(_get(attrs, "keep_samples") or default("keep_samples")),
            indicator_label=str(_get(attrs, "indicator_label")),
            run_options=str(attrs["run_options"]) if "run_options" in attrs else None,
            legacy_options={k: attrs[a] for k, a in LEGACY_OPTIONS.items() if a in attrs},
            versions={k: str(attrs[k]) for k in VERSION_ATTRS if k in attrs},
            created=str(_get(attrs, "created")),
            shapley_evaluations=shapley,
            groups_independent=bool(_get(attrs, "groups_independent")),
            independence_check_samples=int(_get(attrs, "independence_check_samples")),
            converged=None if converged is None else bool(converged),
            family_check_seconds=float(_get(attrs, "family_check_seconds")),
            has_saving="saving" in variables,
        )

    @property
    def options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`mc_tco.run` that made the file (``run_options``
        parsed; {} for a file written before it: see :attr:`legacy_options`).

        Raises
        ------
        OptionError
            When ``run_options`` is not JSON.
        """
        if self.run_options is None:
            return default("run_options")
        return json_attr({"run_options": self.run_options}, "run_options")

    @property
    def replicates(self) -> int | None:
        """:attr:`scrambles` when the intervals are the spread across them (rqmc), else
        None (one design: Wilson, bootstrap or asymptotic intervals)."""
        return self.scrambles if self.scrambles > 1 else None

    @property
    def is_tco_model(self) -> bool:
        """A run of the TCO model (a file that does not name its model: one with the TCO
        model's output ``saving``)."""
        return self.model == DEFAULT_MODEL or (self.model is None and self.has_saving)

    @property
    def mc_tco_version(self) -> str:
        """The mc_tco that wrote the file ('?' when it does not say)."""
        return self.versions.get("mc_tco_version", default("mc_tco_version"))
