"""``mc-tco cdf`` and ``mc-tco scatter``: the cumulative curves of a target and its scatter
against the top inputs, from a results file (issue 25, items 2 and 3).

Registered in :mod:`mc_tco.cli` with ``main.add_command``. Each parses, calls the accessor
(:meth:`ds.mc_tco.cdf <mc_tco.results.accessor.ResultsAccessor.cdf>`,
:meth:`ds.mc_tco.scatter <mc_tco.results.accessor.ResultsAccessor.scatter>`) and writes
(:mod:`mc_tco.report.words.curves`; the figures are the memo's,
:mod:`mc_tco.report.memo.figures_cdf`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from mc_tco.cli._common import friendly, note, parse_at
from mc_tco.errors import OptionError
from mc_tco.results.points import parse_amount

if TYPE_CHECKING:  # the CLI imports this module at start-up: keep it light
    import xarray as xr

_results = click.argument("results", type=click.Path(dir_okay=False, path_type=str))
_strategy = click.option("-s", "--strategy", default=None,
                         help="One strategy (an alternative of the model); default: all "
                              "but the baseline for cdf, the file's focus for scatter.")
_demand = click.option("-d", "--demand", default=None, show_default="the file's focus",
                       help="Demand in tokens/month, a point of the grid: 5e11, 500B.")
_at = click.option("--at", "at_items", multiple=True, metavar="DIM=VALUE",
                   help="A point of another grid dim (a user's model); repeatable.")
_target = click.option("--target", default=None, show_default="the file's first target",
                       help="A per-sample output: saving (USD/month), npv (USD), ...")
_png = click.option("--png", "png_path", type=click.Path(dir_okay=False, path_type=str),
                    default=None, help="Also draw the figure (the memo's) to this PNG file.")
_csv = click.option("--csv", "csv_path", type=click.Path(dir_okay=False, path_type=str),
                    default=None, help="Also write the numbers as CSV to this file.")


def _open(results: str, at_items: tuple[str, ...], demand: str | None,
          png_path: str | None, csv_path: str | None, quiet: bool
          ) -> tuple[xr.Dataset, dict[str, float | str]]:
    from mc_tco.engine.options import check_writable_as
    from mc_tco.results.io import open_results

    for path, flag in ((png_path, "--png"), (csv_path, "--csv")):
        if path:
            check_writable_as(path, flag)
    at = parse_at(at_items)
    if demand is not None:
        at["demand"] = parse_amount(demand, "--demand")
    return open_results(results, note=None if quiet else note), at


def _write(path: str | None, data: bytes) -> None:
    from mc_tco.results.io import atomic_path

    if path:
        with atomic_path(path) as tmp:
            tmp.write_bytes(data)


def _where(res: xr.Dataset) -> str:
    from mc_tco.report.words.curves import point_words

    text = point_words(res.attrs.get("point", {}))
    return f"at {text}" if text else ""


@click.command()
@_results
@_target
@_strategy
@_demand
@_at
@click.option("--x", "x_text", default=None, metavar="X1,X2,...",
              help="Thresholds in the target's unit (k, M, B, T suffixes), e.g. "
                   "-20k,0,10k; default POINTS evenly spaced between the 0.5% and 99.5% "
                   "points of the target.")
@click.option("--points", type=int, default=11, show_default=True,
              help="Thresholds of the default table (the PNG and CSV take 201).")
@click.option("--ascending", is_flag=True,
              help="Print P(target <= x) instead of P(target > x).")
@click.option("--band", type=click.Choice(["scrambles", "dkw"]), default="scrambles",
              show_default=True,
              help="scrambles: the pointwise interval from the run's scrambles; dkw: the "
                   "simultaneous Dvoretzky-Kiefer-Wolfowitz band (every x at once, "
                   "exact for independent rows, wider).")
@_png
@_csv
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@friendly
def cdf(results: str, target: str | None, strategy: str | None, demand: str | None,
        at_items: tuple[str, ...], x_text: str | None, points: int, ascending: bool,
        band: str, png_path: str | None, csv_path: str | None, quiet: bool) -> None:
    """Cumulative curves: the chance a target is above (or at most) each threshold.

    Reads RESULTS (a file of 'mc-tco run') and prints, per strategy at one grid point,
    P(TARGET > x) for a range of thresholds x (--ascending: P(TARGET <= x)), each with its
    Monte Carlo interval, from the stored scenarios; nothing is rerun. --png draws both
    curves with their band, --csv writes them at 201 thresholds.

    \b
    Examples:
      mc-tco cdf results/deepseek-v4.1-flash.nc --demand 500B
      mc-tco cdf results/x.nc --target npv --x -1M,0,1M --strategy buy
      mc-tco cdf results/x.nc --png cdf.png --csv cdf.csv --band dkw
    """
    from mc_tco.report.words.curves import cdf_csv, cdf_lines

    ds, at = _open(results, at_items, demand, png_path, csv_path, quiet)
    target = target or (ds.mc_tco.targets[0] if ds.mc_tco.targets else None)
    if target is None:
        raise OptionError(f"{results}: the file names no target; pass --target NAME")
    xs = None if x_text is None else [v.strip() for v in x_text.split(",") if v.strip()]
    res = ds.mc_tco.cdf(target, xs, strategy=strategy, points=points, band=band, **at)
    if png_path or csv_path:
        full = res if xs is not None else ds.mc_tco.cdf(target, strategy=strategy,
                                                        band=band, **at)
        if png_path:
            from mc_tco.report.memo.figures import to_png
            from mc_tco.report.memo.figures_cdf import cdf_figure

            _write(png_path, to_png(cdf_figure(full, _where(full))))
        _write(csv_path, cdf_csv(full).encode())
    if not quiet:
        click.echo("\n".join(cdf_lines(res, ascending)))
        click.echo(f"({res.attrs['method']})")
        for path in (png_path, csv_path):
            if path:
                click.echo(f"wrote {path}")


@click.command()
@_results
@_target
@_strategy
@_demand
@_at
@click.option("--inputs", "inputs_text", default=None, metavar="NAMES",
              help="These inputs (comma-separated) instead of the top ones.")
@click.option("--top", type=int, default=4, show_default=True,
              help="How many of the ranking's top inputs to show.")
@click.option("--threshold", default="0", show_default=True,
              help="A scenario wins where the target exceeds this (its unit).")
@_png
@_csv
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@friendly
def scatter(results: str, target: str | None, strategy: str | None, demand: str | None,
            at_items: tuple[str, ...], inputs_text: str | None, top: int, threshold: str,
            png_path: str | None, csv_path: str | None, quiet: bool) -> None:
    """Scatter of the top inputs against a target, winners and losers apart.

    Reads RESULTS and, at one grid point for one strategy, names the inputs ranked first
    by the ranking the run prints (Shapley effects when the inputs are correlated, else
    ST; of 'TARGET > 0' where enough scenarios win and lose, else of TARGET) with their
    scores, and the share of winning scenarios with its interval. --png draws each input
    against the target (winners green), --csv writes the points.

    \b
    Examples:
      mc-tco scatter results/deepseek-v4.1-flash.nc --strategy buy --png scatter.png
      mc-tco scatter results/x.nc --inputs node_price,utilization --demand 1T --csv s.csv
    """
    from mc_tco.report.words.curves import scatter_csv, scatter_lines

    ds, at = _open(results, at_items, demand, png_path, csv_path, quiet)
    target = target or (ds.mc_tco.targets[0] if ds.mc_tco.targets else None)
    if target is None:
        raise OptionError(f"{results}: the file names no target; pass --target NAME")
    inputs = None if inputs_text is None else [
        v.strip() for v in inputs_text.split(",") if v.strip()]
    sc = ds.mc_tco.scatter(target, strategy=strategy, inputs=inputs, top=top,
                           threshold=threshold, **at)
    if png_path:
        from mc_tco.report.memo.figures import to_png
        from mc_tco.report.memo.figures_cdf import scatter_figure

        who = f"of {sc.attrs['strategy']} " if sc.attrs["strategy"] else ""
        _write(png_path, to_png(scatter_figure(sc, who + _where(sc))))
    _write(csv_path, scatter_csv(sc).encode() if csv_path else b"")
    if not quiet:
        click.echo("\n".join(scatter_lines(sc)))
        for path in (png_path, csv_path):
            if path:
                click.echo(f"wrote {path}")
