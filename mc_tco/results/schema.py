"""The results file, declared once: its dims, variables, attributes and schema version.

Everything ``mc-tco run`` writes is listed here; ``docs/results.md`` is generated from this
module (:func:`markdown`, checked by a test), and readers go through the accessor
(:mod:`mc_tco.results.accessor`, ``ds.mc_tco``) rather than parsing attributes themselves.

Dims written ``*grid`` stand for the book's grid dims and the model's own dims (for the
TCO model: ``demand``, ``strategy``, ``component``, ``month``, ``cash_demand``); a model's
outputs (``saving``, ``npv``, ``breakeven_demand``, ...) are described by the model
(``long_name`` and ``units`` attributes in the file; for the TCO model see
:mod:`mc_tco.models.tco`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["ATTRS", "COORDS", "DEFAULT_MODEL", "LEGACY_OPTIONS", "SCHEMA_VERSION",
           "VARIABLES", "VERSION_ATTRS", "Attr", "Var", "attr_names", "default", "markdown",
           "problems"]

#: 1: files before the schema was declared (no ``schema_version`` attr); 2: this one
SCHEMA_VERSION = 2

#: the model of a book without ``[book] model`` (every version has written ``model``)
DEFAULT_MODEL = "mc_tco.models.tco:model"

#: attrs that describe the computation's environment, shown when they differ
VERSION_ATTRS = ("mc_tco_version", "numpy_version", "scipy_version", "SALib_version",
                 "xarray_version")

#: the per-option attrs written before ``run_options`` existed, by run() keyword
LEGACY_OPTIONS = {"samples": "samples", "seed": "seed", "resamples": "bootstrap_resamples",
                  "conf_level": "conf_level", "chunk_size": "chunk_size",
                  "second_order": "second_order", "ci": "ci", "replicates": "replicates",
                  "estimator": "estimator", "keep_samples": "keep_samples",
                  "by_group": "by_group"}


@dataclass(frozen=True)
class Var:
    """A variable (or coordinate) of the results file."""

    name: str
    dims: tuple[str, ...]
    units: str
    meaning: str
    #: written by every run (else: only with the option or output named in ``when``)
    when: str = ""


@dataclass(frozen=True)
class Attr:
    """A global attribute of the results file.

    ``default`` is what a reader gets when a file lacks the attribute (an older file, or
    one written without the option in ``when``): decided here once, applied by the
    accessor (:class:`mc_tco.results.run_info.RunInfo`), never guessed at a reading site.
    ``default_words`` says it in the docs when it is not a plain value.
    """

    name: str
    kind: str
    meaning: str
    when: str = ""
    default: Any = None
    default_words: str = ""


G = "*grid"

COORDS = (
    Var("sample", ("sample",), "1", "index of a base sample (row of the A matrix of the design)"),
    Var("input", ("input",), "", "name of an uncertain input of the book"),
    Var("input_unit", ("input",), "", "unit of each input as written in the book"),
    Var("input_group", ("input",), "", "the book's group of each input ('' if none)"),
    Var("input_family", ("input",), "", "distribution family of each input"),
    Var("target", ("target",), "", "each target t of [analysis] targets and its indicator "
        "'t>0' (1 where t > 0)"),
    Var("quantile", ("quantile",), "1", "probability level of a quantile: 0.05, 0.25, 0.5, "
        "0.75, 0.95"),
    Var("ci_bound", ("ci_bound",), "", "'lower', 'upper': the bounds of an interval"),
    Var("group", ("group",), "", "a group of inputs ranked as a block", "--by group"),
    Var("input_2", ("input_2",), "", "second input of a pair", "--second-order, "
        "[[correlation]]"),
    Var("family_variant", ("family_variant",), "", "'book', 'all:<family>' or "
        "'<input>:<family>'", "--family-check"),
    Var("step", ("step",), "1", "a doubling of an adaptive run", "--target-halfwidth"),
)

VARIABLES = (
    Var("input_value", ("sample", "input"), "input's unit", "sampled value of each uncertain "
        "input on the base rows"),
    Var("S1", ("target", "input", G), "1", "first-order Sobol' index (NaN where the target "
        "is constant, and, with --sobol-at report (the default), at the grid points other "
        "than the report points, claim points and focus: attr computed_at); attr "
        "index_meaning: 'share of the variance' with independent inputs, "
        "'moved one at a time: ...' with correlations (then not the ranking: see "
        "ranking_index)"),
    Var("ST", ("target", "input", G), "1", "total-order Sobol' index (attr index_meaning as "
        "S1); its half-width is the larger of the replicate t interval and the t interval "
        "of log ST over the scrambles"),
    Var("S1_conf", ("target", "input", G), "1", "half-width of S1's interval (attrs: "
        "ci_prob, method)"),
    Var("ST_conf", ("target", "input", G), "1", "half-width of ST's interval"),
    Var("S1_negative", ("target", "input", G), "1", "1 where S1 < -S1_conf"),
    Var("constant_output", ("target", G), "1", "1 where the target does not vary (at every "
        "grid point: from the base rows where the indices were not estimated)"),
    Var("target_mean", ("target", G), "target's unit", "mean over the base rows"),
    Var("target_quantile", ("target", "quantile", G), "target's unit",
        "quantiles over the base rows (the memo's bands)"),
    Var("p_positive", ("target", G), "1", "P(target > 0); for 'saving', P(beats the API). "
        "NaN samples are left out of numerator and denominator"),
    Var("p_positive_ci", ("target", G, "ci_bound"), "1", "interval of p_positive (attrs: "
        "ci_prob, method)"),
    Var("p_positive_fallback", ("target", G), "1", "1 where p_positive_ci is Wilson's on the "
        "pooled count (a scramble with no event or only events)", "--ci rqmc (default)"),
    Var("target_mean_ci", ("target", G, "ci_bound"), "target's unit", "interval of "
        "target_mean from the spread across scrambles", "--ci rqmc (default)"),
    Var("target_quantile_ci", ("target", "quantile", G, "ci_bound"), "target's unit",
        "interval of each quantile (replicate t interval, order-statistic fallback)",
        "--ci rqmc (default)"),
    Var("target_quantile_fallback", ("target", "quantile", G), "1", "1 where the quantile's "
        "interval is the order-statistic fallback", "--ci rqmc (default)"),
    Var("<d>_quantile", ("quantile", G), "output's unit", "quantiles of each per-sample "
        "distribution <d> of [analysis] distributions (inf = never)", "distributions"),
    Var("<d>_p_never", (G,), "1", "share of the samples where <d> is infinite",
        "distributions"),
    Var("<d>_p_never_ci", (G, "ci_bound"), "1", "interval of <d>_p_never (replicate t "
        "interval, Wilson's where it falls back; attrs: ci_prob, method)", "distributions"),
    Var("<d>_p_never_fallback", (G,), "1", "1 where <d>_p_never_ci is Wilson's on the pooled "
        "count (a scramble with no 'never' or only 'never')", "distributions, --ci rqmc "
        "(default)"),
    Var("S1_group", ("target", "group", G), "1", "first-order index of a group", "--by group"),
    Var("ST_group", ("target", "group", G), "1", "total-order index of a group", "--by group"),
    Var("S1_group_conf", ("target", "group", G), "1", "half-width of S1_group", "--by group"),
    Var("ST_group_conf", ("target", "group", G), "1", "half-width of ST_group", "--by group"),
    Var("S2", ("target", "input", "input_2", G), "1", "second-order index",
        "--second-order"),
    Var("S2_conf", ("target", "input", "input_2", G), "1", "half-width of S2",
        "--second-order"),
    Var("shapley", ("target", "input", G), "1", "Shapley effect: the input's share of the "
        "target's variance, valid with correlated inputs (sum to 1 over inputs; NaN where "
        "the target is constant, and, with --shapley-at report (the default), at the grid "
        "points other than the report points, claim points and focus: attr computed_at). "
        "The ranking when the book has correlations",
        "--shapley, [[correlation]]"),
    Var("shapley_conf", ("target", "input", G), "1", "half-width of shapley's interval "
        "(attrs: ci_prob, method)", "--shapley, [[correlation]]"),
    Var("correlation_rank", ("input", "input_2"), "1", "rank correlations as written "
        "(Spearman, or Kendall where a pair says so; 0: independent)", "[[correlation]]"),
    Var("correlation_normal", ("input", "input_2"), "1", "normal correlation of the "
        "Gaussian copula implied by correlation_rank", "[[correlation]]"),
    Var("correlation_used", ("input", "input_2"), "1", "normal correlation the sample uses: "
        "correlation_normal, or its nearest valid matrix with [analysis] "
        "repair_correlations = \"nearest\"", "[[correlation]]"),
    Var("independent_p_positive", ("target", G), "1", "P(target > 0) with the inputs "
        "independent: the base sample rerun on the same Sobol' points without the copula",
        "[[correlation]]"),
    Var("independent_p_positive_ci", ("target", G, "ci_bound"), "1", "its interval "
        "(replicate t interval, Wilson's where it falls back)", "[[correlation]]"),
    Var("independent_p_positive_fallback", ("target", G), "1", "1 where "
        "independent_p_positive_ci is Wilson's on the pooled count",
        "[[correlation]], --ci rqmc (default)"),
    Var("correlation_change_ci", ("target", G, "ci_bound"), "1", "interval of p_positive "
        "minus independent_p_positive (paired: replicate t interval of the paired "
        "difference, Newcombe 1998 method 10 where it falls back): what the correlations "
        "change", "[[correlation]]"),
    Var("correlation_change_fallback", ("target", G), "1", "1 where correlation_change_ci "
        "is Newcombe's (a scramble with no discordant pair)",
        "[[correlation]], --ci rqmc (default)"),
    Var("convergence_samples", ("step",), "1", "base samples after each doubling",
        "--target-halfwidth"),
    Var("convergence_worst_halfwidth", ("step",), "1", "largest half-width of the ranking "
        "index (ranking_index: ST, or the Shapley effects with correlations) of the decision "
        "indicators not yet settled (inf: undefined)", "--target-halfwidth"),
    Var("family_check_p_positive", ("family_variant", "target", G), "1",
        "P(target > 0) with the families swapped (one-at-a-time variants at the report "
        "points, claim points and focus only: NaN elsewhere)", "--family-check"),
    Var("family_check_p_positive_ci", ("family_variant", "target", G, "ci_bound"), "1",
        "its interval", "--family-check"),
    Var("family_check_p_positive_fallback", ("family_variant", "target", G), "1",
        "1 where family_check_p_positive_ci is Wilson's on the pooled count",
        "--family-check, --ci rqmc (default)"),
    Var("family_check_p_positive_change_ci", ("family_variant", "target", G, "ci_bound"),
        "1", "interval of the change from the book (paired)", "--family-check"),
    Var("family_check_p_positive_change_fallback", ("family_variant", "target", G), "1",
        "1 where family_check_p_positive_change_ci is Newcombe's (a scramble with no "
        "discordant pair)", "--family-check, --ci rqmc (default)"),
    Var("family_check_<d>_quantile", ("family_variant", "quantile", G), "output's unit",
        "quantiles of <d> under the book and the all-at-once variants (NaN for the "
        "one-at-a-time ones)", "--family-check"),
    Var("family_check_<d>_p_never", ("family_variant", G), "1",
        "share never under the book and the all-at-once variants", "--family-check"),
)

ATTRS = (
    Attr("schema_version", "int", f"version of this contract ({SCHEMA_VERSION})", default=1,
         default_words="1 (written before the schema was declared)"),
    Attr("title", "str", "what the file is", default=""),
    Attr("book_name", "str", "[book] name", default=""),
    Attr("book_path", "str", "where the book was read from", default=""),
    Attr("book_sha256", "str", "SHA-256 of book_text", default=""),
    Attr("book_text", "str", "the book itself, as read: enough to rerun",
         default_words="none: the file cannot be rerun"),
    Attr("model", "str", "module:function of the model",
         default_words="none: the TCO model's if the file has its output saving"),
    Attr("model_file", "str", "absolute path of the model's source file as the run found it "
         "(a file next to the book or in the working directory, or an installed module's)",
         default=""),
    Attr("model_sha256", "str", "SHA-256 of model_file as the run executed it: mc-tco rerun "
         "refuses a model whose file changed (--accept-model-change runs it anyway)",
         default="", default_words="'' (not checked)"),
    Attr("seed", "int", "seed of the scrambles", default=0),
    Attr("samples", "int", "base sample size N of the file",
         default_words="the size of dim sample"),
    Attr("rows_per_sample", "int", "design rows per base sample", default=0),
    Attr("model_runs", "int", "model evaluations (N x rows_per_sample, x the values of each "
         "grid input)", default=0),
    Attr("bootstrap_resamples", "int", "resamples of the bootstrap intervals (--ci "
         "bootstrap)"),
    Attr("second_order", "int", "1 with --second-order", default=0),
    Attr("chunk_size", "int", "base samples per chunk (never changes the numbers)"),
    Attr("keep_samples", "str", "which per-sample outputs the file keeps (--keep-samples)",
         default="all"),
    Attr("by_group", "int", "1 with --by group", default=0),
    Attr("run_options", "JSON object", "every keyword of mc_tco.run() that made the file "
         "(read it with ds.mc_tco.options): mc-tco rerun reproduces the file from it",
         default={}, default_words="{} (the per-option attrs samples, seed, ci, ... stand "
         "for it)"),
    Attr("targets", "JSON list", "[analysis] targets (ds.mc_tco.targets)", default=[]),
    Attr("report", "JSON object", "report points per dim (ds.mc_tco.report)", default={}),
    Attr("focus", "JSON object", "the point whose ranking is printed (ds.mc_tco.focus); "
         "its key 'target', if any, names the target the memo explains first", default={}),
    Attr("distributions", "JSON list", "per-sample outputs summarised by quantiles",
         default=[]),
    Attr("indicator_label", "str", "what 'target > 0' means, e.g. 'beats the API'",
         default="> 0"),
    Attr("benefits", "JSON list", "outputs the model declares as benefits (higher is "
         "better; ds.mc_tco.benefits)", default=[],
         default_words="[] (mc_tco.decision takes the TCO model's for its files)"),
    Attr("alternatives", "str", "the dim of the alternatives compared with the baseline "
         "('' if none)", default=""),
    Attr("baseline", "str", "the alternative every benefit is measured against ('' if none)",
         default=""),
    Attr("constants", "JSON object", "the book's constant inputs", default={}),
    Attr("input_grid", "JSON object", "the inputs fixed at each value of a grid dim "
         "([grid.<input>]): name -> values, unit and focus value (ds.mc_tco.input_grid); "
         "each is a dim of the results after sample, on the same samples of the other "
         "inputs at every value (its differences are paired); {}: none", default={}),
    Attr("input_grid_at", "JSON object", "never in a file: on the view "
         "ds.mc_tco.at_input_grid() returns, the value of each grid input it selected",
         "ds.mc_tco.at_input_grid()", default={}),
    Attr("ci", "str", "interval method of the Sobol' indices: rqmc, asymptotic, bootstrap",
         default="bootstrap", default_words="bootstrap (the method before rqmc)"),
    Attr("replicates", "int", "independent scrambles (rqmc; 1 otherwise)", default=1),
    Attr("estimator", "str", "Sobol' estimator", default=""),
    Attr("sobol_estimators", "str", "the papers behind the estimator used", default=""),
    Attr("ci_method", "str", "how every interval was made", default=""),
    Attr("conf_level", "float", "level of every interval", default=0.95),
    Attr("design", "str", "the sampling design", default=""),
    Attr("summaries_from", "str", "which rows the summaries use", default=""),
    Attr("scheduler", "str", "where the chunks ran (never changes the numbers)", default=""),
    Attr("mc_tco_version", "str", "package versions, shown by rerun when they differ "
         "(also numpy_version, scipy_version, SALib_version, xarray_version)", default="?"),
    Attr("numpy_version", "str", "see mc_tco_version", default="?"),
    Attr("scipy_version", "str", "see mc_tco_version", default="?"),
    Attr("SALib_version", "str", "see mc_tco_version", default="?"),
    Attr("xarray_version", "str", "see mc_tco_version", default="?"),
    Attr("created", "str", "UTC time of the run: the only attr two identical runs differ in",
         default=""),
    Attr("shapley_evaluations", "int", "model runs of the Shapley effects (besides "
         "model_runs)", "--shapley, [[correlation]]",
         default_words="none: no Shapley effects"),
    Attr("shapley_method", "str", "the Shapley estimator, its sizes and intervals",
         "--shapley, [[correlation]]", default=""),
    Attr("correlations", "JSON list", "the book's pairs: between, kind, value, source",
         "[[correlation]]", default=[]),
    Attr("correlations_repaired", "int", "1 if the sample uses the nearest valid matrix",
         "[[correlation]]", default=0),
    Attr("correlation_min_eigenvalue", "float", "smallest eigenvalue of "
         "correlation_normal (< 0: not jointly possible as written)", "[[correlation]]"),
    Attr("ranking_index", "str", "the index that ranks the inputs, which the accessor's "
         "ranking, the terminal, the memo, the app and --target-halfwidth follow: 'ST' "
         "(independent inputs), 'shapley' (correlations; the default), 'ST_group' "
         "(correlations within the groups, --by group, --no-shapley: the groups rank), "
         "'none' (correlations, --no-shapley: nothing ranks)",
         default_words="from the file: 'shapley' if it has correlations and Shapley "
         "effects, 'none' if correlations only, else 'ST' (ds.mc_tco.ranking_index)"),
    Attr("groups_independent", "int", "1 if every correlation stays within one of the "
         "book's groups (grouped Sobol' indices are then exact)", "[[correlation]]",
         default=0),
    Attr("independence_check_samples", "int", "base samples of independent_p_positive "
         "(the first min(N, 8192))", "[[correlation]]", default=0),
    Attr("convergence_path", "JSON list", "each doubling's record", "--target-halfwidth",
         default=[]),
    Attr("convergence_target_halfwidth", "float", "the half-width the adaptive run aimed "
         "at", "--target-halfwidth"),
    Attr("converged", "int", "1 if the adaptive run met its target", "--target-halfwidth",
         default_words="none: not an adaptive run"),
    Attr("family_check_swapped", "JSON list", "inputs whose family was swapped",
         "--family-check", default=[]),
    Attr("family_check_unchanged", "JSON list", "inputs left as written (unbounded "
         "families)", "--family-check", default=[]),
    Attr("family_check_shapes", "JSON list", "the families tried", "--family-check"),
    Attr("family_check_mode_rule", "str", "how each swapped family keeps the book's "
         "centre and support", "--family-check"),
    Attr("family_check_seconds", "float", "wall time of the family check",
         "--family-check", default=float("nan")),
)


_BY_NAME = {a.name: a for a in ATTRS}


def attr_names() -> frozenset[str]:
    """Every global attribute the contract declares."""
    return frozenset(_BY_NAME)


def default(name: str) -> Any:
    """What a reader gets for attribute ``name`` when a file lacks it (:class:`Attr`).

    Raises
    ------
    KeyError
        When the contract does not declare ``name``.
    """
    value = _BY_NAME[name].default
    return value.copy() if isinstance(value, (list, dict)) else value


def _default_words(a: Attr) -> str:
    if a.default_words:
        return a.default_words
    if a.default is None:
        return ""
    return "''" if a.default == "" else str(a.default)


def _dims(dims: tuple[str, ...]) -> str:
    return ", ".join(dims)


def markdown() -> str:
    """``docs/results.md``: the contract as a reader sees it (generated; do not edit)."""
    lines = [
        f"# The results file (schema version {SCHEMA_VERSION})",
        "",
        "<!-- generated by `python -c \"from mc_tco.results.schema import markdown; "
        "print(markdown(), end='')\" > docs/results.md`; "
        "a test fails if it drifts from mc_tco/results/schema.py -->",
        "",
        "`mc-tco run` writes one netCDF file (`xr.open_dataset(path)` or "
        "`mc_tco.open_results(path)` reads it). `*grid` stands for the book's grid dims and "
        "the model's own dims (TCO model: `demand`, `strategy`, ...). The model's outputs "
        "(`saving`, `npv`, `breakeven_demand`, ...) are stored on the base rows with dim "
        "`sample` and carry their own `units` and `long_name`.",
        "",
        "Read it through the accessor rather than the attributes:",
        "",
        "```python",
        "import mc_tco",
        "ds = mc_tco.open_results('results/deepseek-v4.1-flash.nc')",
        "ds.mc_tco.p_beats('buy')                       # P(buy beats the API) by demand, "
        "with its interval",
        "ds.mc_tco.ranking('saving', demand='500B', strategy='buy')   # inputs by "
        "ranking_index (ST, or Shapley with correlations), with half-widths",
        "ds.mc_tco.bands('saving', strategy='buy')      # quantiles by demand",
        "ds.mc_tco.options                              # the run's options (run_options)",
        "ds.mc_tco.run.conf_level                       # how the run was made (RunInfo)",
        "```",
        "",
        "## Coordinates",
        "",
        "| name | dims | units | meaning | written |",
        "|---|---|---|---|---|",
    ]
    for v in COORDS:
        lines.append(f"| `{v.name}` | {_dims(v.dims)} | {v.units} | {v.meaning} | "
                     f"{v.when or 'always'} |")
    lines += ["", "## Variables", "", "| name | dims | units | meaning | written |",
              "|---|---|---|---|---|"]
    for v in VARIABLES:
        lines.append(f"| `{v.name}` | {_dims(v.dims)} | {v.units} | {v.meaning} | "
                     f"{v.when or 'always'} |")
    lines += ["", "## Attributes", "", "A reader of a file that lacks an attribute (an older "
              "file) gets the default shown (`ds.mc_tco.run`).", "",
              "| name | type | meaning | written | if missing |", "|---|---|---|---|---|"]
    for a in ATTRS:
        lines.append(f"| `{a.name}` | {a.kind} | {a.meaning} | {a.when or 'always'} | "
                     f"{_default_words(a)} |")
    lines.append("")
    return "\n".join(lines)


def problems(ds) -> list[str]:
    """What in ``ds`` breaks the contract: missing always-written variables and attrs, or
    dims that differ from the declared ones (an empty list when it holds)."""
    out = []
    grid = [d for d in ds.dims if d not in {c.name for c in COORDS} and d != "sample"]
    for v in VARIABLES:
        if "<" in v.name or v.when:
            continue
        if v.name not in ds:
            out.append(f"variable {v.name} is missing")
            continue
        head = [d for d in v.dims if d != G]
        got = [d for d in ds[v.name].dims if d not in grid]
        if got != head:
            out.append(f"variable {v.name} has dims {ds[v.name].dims}, expected {v.dims}")
    for a in ATTRS:
        if not a.when and a.name not in ds.attrs:
            out.append(f"attribute {a.name} is missing")
    return out


