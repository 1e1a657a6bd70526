"""The ``mc-tco`` console script: Ctrl-C and SIGTERM are handled from the first moment
(:func:`mc_tco.interrupt.install`), so a signal while the program is still starting
(importing numpy, xarray, ...) is one line and exit code 130 (143), not a traceback, and
never lost. Keep this module free of heavy imports."""

from __future__ import annotations

import os
import signal
import sys

from mc_tco import interrupt


def main() -> None:
    interrupt.install()
    try:
        from mc_tco.cli import main as cli_main
        from mc_tco.results.store import lazy_dask_check

        interrupt.check()  # a signal kept by a finalizer during the imports
    except KeyboardInterrupt as exc:
        code = getattr(exc, "exit_code", 130)
        word = "terminated" if code == 143 else "interrupted"
        sys.stderr.write(f"mc-tco: {word}; nothing was written\n")
        sys.exit(code)
    try:
        with lazy_dask_check():  # xarray's dask check without importing dask (0.6 s)
            cli_main()
    except SystemExit as exc:
        # the command has ended (its files written or not): a signal from here on would
        # kill the process in Python's exit (the handlers are reset then: exit -2, no
        # message); ignored ones stay ignored, and the exit code is the command's
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        store = sys.modules.get("mc_tco.results.store")
        if store is not None and store.hdf5_left_open:
            # a write failed inside HDF5 (a full disk): HDF5's exit handler would crash
            # closing that file again (a segmentation fault after the one-line error)
            code = exc.code if isinstance(exc.code, int) else 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        raise
