"""The ``mc-tco`` console script: imports the CLI inside a guard, so a Ctrl-C while the
program is still starting (importing numpy, xarray, ...) is one line and exit code 130,
not a traceback. Keep this module free of heavy imports."""

from __future__ import annotations

import sys


def main() -> None:
    try:
        from .cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("mc-tco: interrupted; nothing was written\n")
        sys.exit(130)
    cli_main()
