"""``mc-tco explain``: scenario discovery and value of information on a results file.

Registered in :mod:`mc_tco.cli` with one ``main.add_command(explain)``. Like every command
it parses, calls the library (:func:`mc_tco.decision.discovery.discover`,
:func:`mc_tco.decision.information.value_of_information`) and writes.
"""

from __future__ import annotations

import json
import math
from typing import overload

import click

from mc_tco.cli._common import friendly, note, parse_at
from mc_tco.errors import OptionError
from mc_tco.results.points import parse_amount

DEFAULT_RESULTS = "results/deepseek-v4.1-flash.nc"
@overload
def _names(text: str, flag: str) -> list[str]: ...
@overload
def _names(text: None, flag: str) -> None: ...
def _names(text: str | None, flag: str) -> list[str] | None:
    if text is None:
        return None
    names = [t.strip() for t in text.split(",") if t.strip()]
    if not names:
        raise OptionError(f"{flag}: give a comma-separated list of names, e.g. api,buy,rent")
    return names


def _jsonable(obj: object) -> object:
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "item"):
        obj = obj.item()
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    return obj


@click.command()
@click.argument("results", required=False, default=DEFAULT_RESULTS, metavar="[RESULTS]",
                type=click.Path(dir_okay=False, path_type=str))
@click.option("-s", "--strategy", default=None, show_default="the file's focus, buy",
              help="The strategy whose wins PRIM explains (its target > 0).")
@click.option("-d", "--demand", default=None, show_default="the file's focus, 500B",
              help="Demand in tokens/month, a point of the grid: 5e11, 500B, 1.26T.")
@click.option("--at", "at_items", multiple=True, metavar="DIM=VALUE",
              help="A point of another grid dim (a user's model); repeatable.")
@click.option("--among", default=None, show_default="every strategy but owned",
              help="Options to decide among for the value of information, e.g. "
                   "api,buy,rent,owned.")
@click.option("--target", default=None, show_default="the file's first target, saving",
              help="Output holding the incremental net benefit: saving (USD/month) or npv "
                   "(USD); for a user's model, the value of acting.")
@click.option("--inputs", "inputs_text", default=None, metavar="NAMES",
              help="Only these inputs (comma-separated) in the boxes and the EVPPI table.")
@click.option("--group", "group_items", multiple=True, metavar="NAME=IN1,IN2",
              help="An extra group of inputs for EVPPI; repeatable.")
@click.option("--only", type=click.Choice(["boxes", "voi", "moment"]), default=None,
              help="Only scenario discovery (boxes), only the value of information, or "
                   "only the moment-independent indices (moment).")
@click.option("--moment-independent", "moment", is_flag=True,
              help="Also print Borgonovo's delta and PAWN of the decision indicator "
                   "(TARGET>0) and of TARGET beside the stored Shapley effects: a "
                   "cross-check of the ranking that holds under correlated inputs, from "
                   "the stored rows, with the scrambles' interval.")
@click.option("--slices", type=int, default=10, show_default=True,
              help="PAWN's slices per input (each holds N / SLICES rows; fewer rows per "
                   "slice raise the ~1/sqrt(rows) floor of an irrelevant input).")
@click.option("--given", "given_items", multiple=True, metavar="CONDITION",
              help="Stress view: P(beats the API) and the 5-50-95% band of TARGET per "
                   "strategy on the stored scenarios where CONDITION holds, beside all "
                   "scenarios, with their MC intervals and the count of scenarios. "
                   "CONDITION is NAME>X, NAME<X (>=, <= too), A<NAME<B, NAME in A..B or "
                   "NAME in p10..p50 (pNN: the input's NN-th percentile over the stored "
                   "rows; X with k/M/B/T); repeat --given or separate by commas: all hold. "
                   "Refused below --min-rows scenarios. Alone it prints only this view.")
@click.option("--min-rows", type=int, default=100, show_default=True,
              help="--given refuses a condition met by fewer scenarios.")
@click.option("--boxes", "max_boxes", type=int, default=3, show_default=True,
              help="Most PRIM boxes (each next one on the scenarios outside the earlier).")
@click.option("--min-coverage", type=float, default=0.5, show_default=True,
              help="A box must hold at least this share of the winning scenarios.")
@click.option("--alpha", type=float, default=0.05, show_default=True,
              help="PRIM peeling share: the part of the box removed per step.")
@click.option("--min-cases", type=int, default=50, show_default=True,
              help="PRIM runs only with at least this many winning and losing scenarios.")
@click.option("--draws", type=int, default=200, show_default=True,
              help="Draws of the regression fits for the Monte Carlo error of EVPPI.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of those draws.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=str),
              default=None, help="Also write what is printed as JSON to this file.")
@click.option("-q", "--quiet", is_flag=True, help="Print nothing but errors.")
@friendly
def explain(results: str, strategy: str | None, demand: str | None, at_items: tuple[str, ...],
            among: str | None, target: str | None, inputs_text: str | None,
            group_items: tuple[str, ...], only: str | None, max_boxes: int,
            min_coverage: float, alpha: float, min_cases: int, draws: int, seed: int,
            json_path: str | None, quiet: bool, moment: bool = False,
            slices: int = 10, given_items: tuple[str, ...] = (), min_rows: int = 100
            ) -> None:
    """Under which conditions does a strategy win, and what is it worth to know more?

    Reads RESULTS (a file of 'mc-tco run'; default results/deepseek-v4.1-flash.nc) and, at
    one demand, prints (1) PRIM boxes of the inputs where the strategy beats the API, as
    rules with coverage (share of all winning scenarios inside) and density (share of the
    box's scenarios that win), and the peeling trajectory; (2) the value of information:
    EVPI and, per input and per group, EVPPI in USD/month with its Monte Carlo error.
    With --given, it prints instead P(beats the API) and the band of the target given
    inputs confined to a range or a percentile band (a stress test). Nothing is rerun:
    all use the stored samples.

    \b
    Examples:
      mc-tco explain results/deepseek-v4.1-flash.nc --strategy buy --demand 5e11
      mc-tco explain results/article.nc --demand 3T --among api,buy,rent,owned
      mc-tco explain results/x.nc --demand 1.26T --json explain.json
      mc-tco explain results/x.nc --only moment
      mc-tco explain results/x.nc --given "api_price_annual_change>-0.05"
      mc-tco explain results/x.nc --given "node_price in p10..p50" --given "utilization>0.6"
    """
    from mc_tco.decision.discovery import discover
    from mc_tco.decision.information import value_of_information
    from mc_tco.engine.options import check_writable_as
    from mc_tco.report.words.explain import explain_dict, explain_text
    from mc_tco.results.io import atomic_path, open_results

    if not 0 < alpha < 0.5:
        raise OptionError(f"--alpha must lie in (0, 0.5), got {alpha}; 0.05 is usual")
    if not 0 < min_coverage <= 1:
        raise OptionError(f"--min-coverage must lie in (0, 1], got {min_coverage}")
    if max_boxes < 1:
        raise OptionError(f"--boxes must be at least 1, got {max_boxes}")
    if min_cases < 1:
        raise OptionError(f"--min-cases must be at least 1, got {min_cases}")
    if draws < 0 or draws == 1:
        raise OptionError(f"--draws must be 0 (no fit error) or at least 2, got {draws}")
    at = parse_at(at_items)
    if demand is not None:
        at["demand"] = parse_amount(demand, "--demand")
    groups: dict[str, list[str]] = {}
    for item in group_items:
        name, sep, members = item.partition("=")
        if not sep or not name.strip():
            raise OptionError(f"--group {item}: write NAME=INPUT1,INPUT2")
        groups[name.strip()] = _names(members, f"--group {name.strip()}")
    if json_path:
        check_writable_as(json_path, "--json")
    ds = open_results(results, note=None if quiet else note)
    inputs = _names(inputs_text, "--inputs")
    disc = voi = conditional = None
    moments = []
    if given_items:
        if min_rows < 1:
            raise OptionError(f"--min-rows must be at least 1, got {min_rows}")
        conditional = ds.mc_tco.given(list(given_items), target=target, strategy=strategy,
                                      min_rows=min_rows, **at)
        if only is None and not moment:
            only = "given"
    if moment or only == "moment":
        from mc_tco.decision.moment_independent import moment_independent

        base = target or (ds.mc_tco.targets[0] if ds.mc_tco.targets else "")
        if not base:
            raise OptionError(f"{results}: the file names no target; pass --target NAME")
        for name in (f"{base}>0", base):
            moments.append(moment_independent(ds, name, strategy=strategy, at=at or None,
                                              slices=slices, path=results))
    if only not in ("voi", "moment", "given"):
        disc = discover(ds, strategy=strategy, at=at or None, target=target, inputs=inputs,
                        alpha=alpha, min_coverage=min_coverage, max_boxes=max_boxes,
                        min_cases=min_cases, path=results)
    if only not in ("boxes", "moment", "given"):
        book_groups = None
        if groups:
            from mc_tco.decision.data import decision_data

            book_groups = decision_data(ds, at=at or None, target=target, path=results,
                                        among=_names(among, "--among")).groups()
            book_groups.update(groups)
        voi = value_of_information(ds, at=at or None, among=_names(among, "--among"),
                                   target=target, inputs=inputs, groups=book_groups,
                                   draws=draws, seed=seed, path=results)
    command = f"mc-tco explain {results}" + (f" --strategy {strategy}" if strategy else "")
    if json_path:
        payload = (_jsonable(explain_dict(disc, voi, path=results))
                   if disc is not None or voi is not None else {"path": results})
        if moments and isinstance(payload, dict):
            payload["moment_independent"] = [_jsonable(m.to_dict()) for m in moments]
        if conditional is not None and isinstance(payload, dict):
            from mc_tco.report.words.given import given_dict

            payload["given"] = _jsonable(given_dict(conditional))
        with atomic_path(json_path) as tmp:
            tmp.write_text(json.dumps(payload, indent=2, allow_nan=False) + "\n")
    if not quiet:
        if disc is not None or voi is not None:
            click.echo(explain_text(disc, voi, ds, path=results, command=command))
        if moments:
            from mc_tco.report.words.moment_independent import moment_independent_text

            click.echo("\n\n".join(moment_independent_text(m) for m in moments))
        if conditional is not None:
            from mc_tco.report.words.given import given_lines

            click.echo("\n".join(given_lines(conditional)))
            click.echo(f"({conditional.attrs['method']})")
        if json_path:
            click.echo(f"\nwrote {json_path}")
