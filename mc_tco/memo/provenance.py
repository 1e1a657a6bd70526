"""The provenance table both memos end with (the TCO memo and the generic one)."""

from __future__ import annotations

__all__ = ["provenance_rows"]

_VERSIONS = ("mc_tco_version", "numpy_version", "scipy_version", "SALib_version",
             "xarray_version")


def provenance_rows(attrs: dict, *, results: str, n: int, level: str, created: str,
                    model: bool = False, design: str = "") -> list[list[str]]:
    """Rows ``[label, value]``: book and its SHA-256, (model,) results file, samples and
    model runs, seed, interval level and method, Sobol' estimators, versions, date.

    Parameters
    ----------
    attrs : dict
        The results file's attrs.
    results : str
        The results file's name as the user gave it.
    n : int
        Base samples (used when ``attrs`` lacks ``samples``).
    level : str
        The run's interval level, e.g. ``"95%"``.
    created : str
        When the memo was written.
    model : bool
        Add the model's ``module:function`` row (a user's own model).
    design : str
        Words after the model runs, e.g. ``" (Saltelli design)"``.
    """
    import matplotlib

    a = attrs
    rows = [
        ["book", f"{a.get('book_name', '')} (`{a.get('book_path', '')}`)"],
        ["book SHA-256", f"`{a.get('book_sha256', '')}`"],
        *([["model", f"`{a.get('model', '')}`"]] if model else []),
        ["results file", f"`{results}`"],
        ["samples", f"{int(a.get('samples', n)):,} base samples, "
                    f"{int(a.get('model_runs', 0)):,} model runs{design}"],
        ["seed", str(a.get("seed", ""))],
        ["intervals", f"{level}; {a.get('ci_method', '')}"],
        ["Sobol' estimators", str(a.get("sobol_estimators", ""))],
        ["versions", ", ".join(f"{k.removesuffix('_version')} {a[k]}" for k in _VERSIONS
                               if k in a) + f", matplotlib {matplotlib.__version__}"],
        ["memo written", created],
    ]
    return rows
