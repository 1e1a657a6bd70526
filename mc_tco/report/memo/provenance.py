"""The provenance table every memo ends with
(:func:`mc_tco.report.memo.shared.section_provenance`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mc_tco.results.run_info import RunInfo

__all__ = ["provenance_rows"]


def provenance_rows(run: RunInfo, *, results: str, level: str, created: str,
                    model: bool = False, design: str = "",
                    compared_with: str | None = None) -> list[list[str]]:
    """Rows ``[label, value]``: book and its SHA-256, (model,) results file, (the book
    compared with,) samples and model runs, seed, interval level and method, Sobol'
    estimators, versions, date.

    Parameters
    ----------
    run : RunInfo
        How the results file's run was made (``ds.mc_tco.run``).
    results : str
        The results file's name as the user gave it.
    level : str
        The run's interval level, e.g. ``"95%"``.
    created : str
        When the memo was written.
    model : bool
        Add the model's ``module:function`` row (a user's own model).
    design : str
        Words after the model runs, e.g. ``" (Saltelli design)"``.
    compared_with : str, optional
        The row "compared with" (the other book of a comparison), after the results file.
    """
    import matplotlib

    rows = [
        ["book", f"{run.book_name} (`{run.book_path}`)"],
        ["book SHA-256", f"`{run.book_sha256}`"],
        *([["model", f"`{run.model or ''}`"]] if model else []),
        ["results file", f"`{results}`"],
        *([["compared with", compared_with]] if compared_with is not None else []),
        ["samples", f"{run.samples:,} base samples, "
                    f"{run.model_runs:,} model runs{design}"],
        ["seed", str(run.seed)],
        ["intervals", f"{level}; {run.ci_method}"],
        ["Sobol' estimators", run.sobol_estimators],
        ["versions", ", ".join(f"{k.removesuffix('_version')} {v}"
                               for k, v in run.versions.items())
         + f", matplotlib {matplotlib.__version__}"],
        ["memo written", created],
    ]
    return rows
