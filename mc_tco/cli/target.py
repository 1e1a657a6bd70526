"""``mc-tco target``: P(target > x) or P(target < x) for any x, from a results file.

Registered in :mod:`mc_tco.cli` with one ``main.add_command(target)``. It parses, calls
:meth:`ds.mc_tco.p_exceeds <mc_tco.results.accessor.ResultsAccessor.p_exceeds>` and writes
(:mod:`mc_tco.report.words.target`).
"""

from __future__ import annotations

import json

import click

from mc_tco.cli._common import friendly, note, parse_at
from mc_tco.errors import OptionError
from mc_tco.results.points import parse_amount


@click.command()
@click.argument("results", type=click.Path(dir_okay=False, path_type=str))
@click.argument("condition", metavar="CONDITION")
@click.option("-s", "--strategy", default=None, show_default="the file's focus, buy",
              help="The strategy (an alternative of the model) the target is read for.")
@click.option("-d", "--demand", default=None, show_default="the file's focus, 500B",
              help="Demand in tokens/month, a point of the grid: 5e11, 500B, 1.26T.")
@click.option("--at", "at_items", multiple=True, metavar="DIM=VALUE",
              help="A point of another grid dim (a user's model); repeatable.")
@click.option("--all-points", is_flag=True,
              help="Every point of the dims not given, instead of the file's focus.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=str),
              default=None, help="Also write the result as JSON to this file ('-': stdout "
                                 "only, no text).")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@friendly
def target(results: str, condition: str, strategy: str | None, demand: str | None,
           at_items: tuple[str, ...], all_points: bool, json_path: str | None,
           quiet: bool) -> None:
    """The chance a target is above (or below) a threshold: P(npv > 1e6), P(saving < 0).

    Reads RESULTS (a file of 'mc-tco run') and prints, at a grid point, the share of the
    stored base scenarios where CONDITION holds, with the run's Monte Carlo interval (the
    spread over its scrambles; Wilson's where flagged) and the number of scenarios it
    rests on. CONDITION is TARGET>X or TARGET<X, X in the target's unit with k, M, B, T
    suffixes; quote it in the shell. Dims not given are the file's focus (--all-points:
    every point). Nothing is rerun. For the payback, the peak cash need and the IRR, the
    scenarios that buy no server (the hybrid where its rule buys none, the API always)
    have nothing to pay back: they are left out and counted apart.

    \b
    Examples:
      mc-tco target results/deepseek-v4.1-flash.nc "npv>1e6" --strategy buy --demand 500B
      mc-tco target results/x.nc "saving<-5k" --demand 1T
      mc-tco target results/x.nc "npv>0" --strategy rent --all-points --json p.json
    """
    from mc_tco.engine.options import check_writable_as
    from mc_tco.report.words.target import target_dict, target_lines
    from mc_tco.results.io import atomic_path, open_results
    from mc_tco.results.targets import parse_condition

    name, side, x = parse_condition(condition)
    at = parse_at(at_items)
    if json_path and json_path != "-":
        check_writable_as(json_path, "--json")
    ds = open_results(results, note=None if quiet else note)
    if strategy is not None:
        alt = ds.mc_tco.alternatives
        if alt is None:
            raise OptionError(f"{results}: --strategy {strategy}: the file has no strategy "
                              "dim; leave --strategy out")
        at[alt] = strategy
    if demand is not None:
        at["demand"] = parse_amount(demand, "--demand")
    if name not in ds.data_vars:
        pass  # p_exceeds names the outputs there are
    elif not all_points:
        for dim, value in ds.mc_tco.focus.items():
            if dim in ds[name].dims and dim not in at:
                at[dim] = value
    res = ds.mc_tco.p_exceeds(name, x, below=side == "<", **at)
    payload = target_dict(res)
    if json_path == "-":
        click.echo(json.dumps(payload, indent=2, allow_nan=False))
        return
    if json_path:
        with atomic_path(json_path) as tmp:
            tmp.write_text(json.dumps(payload, indent=2, allow_nan=False) + "\n")
    if not quiet:
        for line in target_lines(res):
            click.echo(line)
        click.echo(f"({res.attrs['method']})")
        if json_path:
            click.echo(f"wrote {json_path}")
