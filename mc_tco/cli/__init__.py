"""The ``mc-tco`` command: a group of thin commands, one module each.

Each command parses its options, calls one library function that a notebook can call too,
and prints or writes. Errors the user can fix are one line on stderr with exit code 2,
never a traceback (:func:`._common.friendly`).
"""

from __future__ import annotations

import importlib

import click

from mc_tco._version import __version__
from mc_tco.cli._common import DEFAULT_BOOK

__all__ = ["DEFAULT_BOOK", "main"]

#: each command and the module that defines it, imported when the command runs (or the
#: help lists it): ``mc-tco run`` never imports the browser app, the memo or explain
COMMANDS = {
    "app": "mc_tco.cli.app",
    "cdf": "mc_tco.cli.curves",
    "explain": "mc_tco.cli.explain",
    "fit": "mc_tco.cli.fit",
    "inputs": "mc_tco.cli.inputs",
    "memo": "mc_tco.cli.memo",
    "report": "mc_tco.cli.memo",
    "rerun": "mc_tco.cli.rerun",
    "run": "mc_tco.cli.run",
    "scatter": "mc_tco.cli.curves",
    "target": "mc_tco.cli.target",
}


class _Commands(click.Group):
    """The ``mc-tco`` group, whose commands are imported by name when used
    (:data:`COMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands or cmd_name not in COMMANDS:
            return self.commands.get(cmd_name)
        from mc_tco.interrupt import signal_point

        signal_point("command")  # (tests: a signal before the command handles its own)
        command = getattr(importlib.import_module(COMMANDS[cmd_name]), cmd_name)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=_Commands,
             context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
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

