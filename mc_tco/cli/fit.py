"""``mc-tco fit``: a distribution for a book from data, or from an expert's quantiles.

``mc-tco fit DATA --column C`` fits the book's families to a CSV column by maximum
likelihood and ranks them (:func:`mc_tco.distributions.fitting.fit_data`);
``mc-tco fit --quantiles 0.05=10,0.5=20,0.95=50`` matches families to the quantiles
(:func:`mc_tco.distributions.elicit.match_quantiles`). Either prints the table
(:mod:`mc_tco.report.fit_report`) and the ``[inputs.<name>]`` block to paste into a book;
``--plot`` writes the figure. The data file is read as data (Python's csv), never run.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import click

from mc_tco.cli._common import friendly
from mc_tco.errors import McTcoError, OptionError

#: what ``--plot`` alone writes (in the working directory)
AUTO = "<auto>"


def _input_name(name: str | None, column: str) -> str:
    """The book's name of the input: ``--name``, else the column's as a plain name."""
    from mc_tco.book import RESERVED

    if name is not None:
        if not name.isidentifier() or name in RESERVED:
            raise OptionError(f"--name {name}: an input's name is a plain name (letters, "
                              f"digits, _; not {', '.join(RESERVED)}), e.g. --name price")
        return name
    plain = re.sub(r"\W+", "_", column.strip().lower(), flags=re.ASCII).strip("_") or "x"
    if plain[0].isdigit():
        plain = "x_" + plain
    return plain + "_value" if plain in RESERVED else plain


def _families(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [f.strip() for f in text.split(",") if f.strip()]


def _problem(exc: Exception, prefix: str) -> McTcoError:
    return OptionError(f"{prefix}{exc}")


def _write_plot(fig: Any, path: str) -> None:
    from mc_tco.engine.options import check_writable_as
    from mc_tco.report.memo.figures import to_png
    from mc_tco.results.io import atomic_path

    check_writable_as(path, "--plot")
    png = to_png(fig)
    with atomic_path(path) as tmp:
        tmp.write_bytes(png)
    click.echo(f"\nwrote {path}")


def _fit_data(data: str, column: str | None, name: str | None, families: str | None,
              plot: str | None) -> None:
    from mc_tco.distributions.empirical import read_named_column
    from mc_tco.distributions.family_base import FieldProblem
    from mc_tco.distributions.fitting import fit_curves, fit_data, toml_block
    from mc_tco.report.fit_report import data_fit_figure, data_fit_text

    try:
        column, values = read_named_column(data, column)
    except FieldProblem as exc:
        raise _problem(exc, "") from None
    key = _input_name(name, column)
    label = f"{data}, column {column}"
    try:
        result = fit_data(values, _families(families))
    except FieldProblem as exc:
        raise _problem(exc, "--families: " if exc.field == "families" else f"{label}: "
                       ) from None
    best = result.best
    rows = f"{result.n:,} row{'s' * (result.n != 1)}"
    click.echo(data_fit_text(result, label))
    click.echo(f"\nPaste into a book ({best.family}, the best by AIC):\n")
    click.echo(toml_block(key, best.family, best.params,
                          f"{data}, column {column}: {rows}; {best.family} fitted by maximum "
                          f"likelihood (mc-tco fit), best of {len(result.fits)} by AIC"))
    click.echo("Or let the data stand as they are (file is relative to the book's folder):\n")
    click.echo(toml_block(key, "empirical", {"file": data, "column": column},
                          f"{data}, column {column}: {rows}"), nl=False)
    if plot is not None:
        path = f"{Path(data).stem}-{key}-fit.png" if plot == AUTO else plot
        title = f"{label}: {result.n:,} values; best by AIC: {best.family}"
        _write_plot(data_fit_figure(fit_curves(result), title, column), path)


def _fit_quantiles(text: str, name: str | None, families: str | None,
                   plot: str | None) -> None:
    from mc_tco.distributions.elicit import (
        ELICITED,
        match_curves,
        match_quantiles,
        parse_quantiles,
    )
    from mc_tco.distributions.family_base import FieldProblem
    from mc_tco.distributions.fitting import toml_block
    from mc_tco.report.fit_report import match_figure, match_text

    try:
        probs, values = parse_quantiles(text)
        matches, skipped = match_quantiles(probs, values, _families(families) or ELICITED)
    except FieldProblem as exc:
        raise _problem(exc, "--families: " if exc.field == "families" else "") from None
    if not matches:
        raise OptionError(f"--quantiles {text}: no family matches: " + "; ".join(
            f"{k} {v}" for k, v in skipped.items()))
    from mc_tco.report.fmt import fmt_value

    key = _input_name(name, "my_input")
    given = ", ".join(f"{100 * p:g}%={v:g}" for p, v in zip(probs, values, strict=True))
    click.echo(match_text(matches, skipped, probs, values))
    for m in matches:
        err = fmt_value(m.max_error)
        click.echo(f"\nPaste into a book ({m.family}, largest error {err}):\n")
        click.echo(toml_block(key, m.family, m.params,
                              f"assumption: an expert's {given}; {m.family} matched by least "
                              f"squares (mc-tco fit), largest error {err}"),
                   nl=False)
    if plot is not None:
        path = f"{key}-quantiles-fit.png" if plot == AUTO else plot
        _write_plot(match_figure(match_curves(matches), probs, values,
                                 f"matches to {given}"), path)


@click.command()
@click.argument("data", required=False, type=click.Path(dir_okay=False, path_type=str))
@click.option("-c", "--column", default=None, show_default="the file's only column",
              help="The CSV column to fit (its name in the header row).")
@click.option("-q", "--quantiles", default=None, metavar="P=V,P=V,...",
              help="An expert's quantiles instead of data, e.g. 0.05=10,0.5=20,0.95=50.")
@click.option("--name", default=None, show_default="the column's name, or my_input",
              help="The input's name in the block to paste.")
@click.option("--families", default=None, metavar="A,B,...",
              help="Only these families (default: every one fitted: normal, lognormal, "
                   "gamma, weibull, loglogistic, exponential, gumbel, gumbel_min, student_t, "
                   "uniform, loguniform, triangular, beta; with --quantiles: pert, "
                   "lognormal, gamma, beta).")
@click.option("--plot", default=None, is_flag=False, flag_value=AUTO, metavar="[PATH]",
              help="Write the figure (PNG): the fits over the histogram and the ECDF, or "
                   "the matches' cdfs through the quantiles. --plot alone: "
                   "DATA-NAME-fit.png (or NAME-quantiles-fit.png) here.")
@friendly
def fit(data: str | None, column: str | None, quantiles: str | None, name: str | None,
        families: str | None, plot: str | None) -> None:
    """A distribution for a book: fitted to DATA (a CSV file), or to an expert's quantiles.

    With DATA: fits the book's families to the column by maximum likelihood (scipy.stats),
    ranks them by AIC (with BIC and the Kolmogorov-Smirnov distance), and prints the best
    one's [inputs.NAME] block to paste into a book, and an empirical one (the data as they
    are, sampled through their quantile function). The file is read as data, never run.

    With --quantiles: the PERT, lognormal, gamma and beta (on [0, 1]) whose quantiles are
    closest to the given ones (least squares), each with its error and its block.

    \b
    Examples:
      mc-tco fit prices.csv --column price --plot
      mc-tco fit prices.csv -c price --families lognormal,gamma --name node_price
      mc-tco fit --quantiles 0.05=300000,0.5=400000,0.95=600000 --name node_price
    """
    if plot not in (None, AUTO) and not plot.lower().endswith(".png"):
        raise OptionError(f"--plot {plot}: the figure is a PNG; give a path ending in .png "
                          "(or --plot alone, after DATA)")
    if (data is None) == (quantiles is None):
        raise OptionError("mc-tco fit: give a CSV file (mc-tco fit data.csv --column price) "
                          "or --quantiles (mc-tco fit --quantiles 0.05=10,0.5=20,0.95=50), "
                          "not both" if data is not None else
                          "mc-tco fit: give a CSV file (mc-tco fit data.csv --column price) "
                          "or --quantiles (mc-tco fit --quantiles 0.05=10,0.5=20,0.95=50)")
    if quantiles is not None:
        if column is not None:
            raise OptionError("--column goes with a data file, not with --quantiles")
        _fit_quantiles(quantiles, name, families, plot)
    else:
        assert data is not None
        _fit_data(data, column, name, families, plot)
