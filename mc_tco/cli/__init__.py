"""The ``mc-tco`` command: a group of thin commands, one module each.

Each command parses its options, calls one library function that a notebook can call too,
and prints or writes. Errors the user can fix are one line on stderr with exit code 2,
never a traceback (:func:`._common.friendly`).
"""

from __future__ import annotations

import click

from mc_tco._version import __version__
from mc_tco.cli._common import DEFAULT_BOOK
from mc_tco.cli.app import app
from mc_tco.cli.curves import cdf, scatter
from mc_tco.cli.explain import explain
from mc_tco.cli.fit import fit
from mc_tco.cli.inputs import inputs
from mc_tco.cli.memo import memo, report
from mc_tco.cli.rerun import rerun
from mc_tco.cli.run import run
from mc_tco.cli.target import target

__all__ = ["DEFAULT_BOOK", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="mc-tco")
def main() -> None:
    """Monte Carlo uncertainty and Sobol' sensitivity for the self-hosting decision.

    Should a company buy GPU servers, rent them, or keep paying the API per token? mc-tco
    puts distributions on the inputs of the cost model (an "assumption book", a TOML file
    in distributions/), samples them with a scrambled Sobol' design, ranks the inputs by
    Sobol' indices and writes everything to one netCDF file.

    \b
    Start here:
      mc-tco inputs                      the default book as a table
      mc-tco run                         run it; print P(break-even) and the top inputs
      mc-tco run BOOK --samples 16384    a larger run of another book
      mc-tco rerun results/BOOK.nc       redo a run from its file; do the numbers match?
    """



for _command in (run, inputs, memo, report, explain, target, cdf, scatter, rerun, app):
    main.add_command(_command)
main.add_command(fit)
