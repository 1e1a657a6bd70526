"""The ``mc-tco`` console script: Ctrl-C and SIGTERM are handled from the first moment
(:func:`mc_tco.interrupt.install`), so a signal while the program is still starting
(importing numpy, xarray, ...) is one line and exit code 130 (143), not a traceback, and
never lost. Keep this module free of heavy imports."""

from __future__ import annotations

import gc
import os
import signal
import sys

from mc_tco import interrupt

#: environment variables that set the threads of numpy's and scipy's BLAS (OpenBLAS);
#: with none of them set, ``mc-tco`` asks for one (:func:`one_blas_thread`)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def one_blas_thread() -> None:
    """One BLAS thread in this process (and the processes it starts), unless the user's
    environment sets their number: set before numpy and scipy load OpenBLAS, which reads it
    once.

    The engine runs its own threads, one a core (the model's blocks, the Shapley pass);
    its BLAS calls are small (a 46 x 46 Cholesky factor, the Sobol' sums' ``W @ F`` in each
    block). With a pool of BLAS threads a core (numpy's OpenBLAS and scipy's, two pools),
    each call woke them and they spun afterwards beside the engine's threads: 0.3-0.4 CPU s
    and 50 MB of the default run, the same numbers to the last bit (gemm splits its output,
    not its sums, among threads)."""
    if not any(name in os.environ for name in BLAS_THREADS):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def main() -> None:
    interrupt.install()
    one_blas_thread()
    # no garbage collection during the imports (numpy, scipy, xarray, ...: hundreds of
    # thousands of objects, none of them garbage, each collection walking them all), and
    # none of them walked by a collection after (frozen): 0.13-0.15 s of a command's start
    gc.disable()
    try:
        from mc_tco.cli import main as cli_main
        from mc_tco.results.store import lazy_dask_check

        interrupt.check()  # a signal kept by a finalizer during the imports
    except KeyboardInterrupt as exc:
        code = getattr(exc, "exit_code", 130)
        word = "terminated" if code == 143 else "interrupted"
        sys.stderr.write(f"mc-tco: {word}; nothing was written\n")
        sys.exit(code)
    finally:
        gc.freeze()
        gc.enable()
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
        # a write failed inside HDF5 (a full disk): HDF5's exit handler would crash closing
        # that file again (a segmentation fault after the one-line error): no exit hooks
        quick_exit(_signalled(exc.code),
                   hooks=not (store is not None and store.hdf5_left_open))


def _signalled(code: str | int | None) -> str | int | None:
    """The exit code of a command that ended with ``code``: 130 (143) where click said
    "Aborted!" (exit 1) for a Ctrl-C (SIGTERM) that came while it was still choosing the
    command (importing its module, parsing its options), before the command's own handling
    of signals (:func:`mc_tco.cli._common.friendly`); a line says it, as that handling
    would. (Seen in CI: a Ctrl-C 0.94 s into a run, once the imports had got faster.)"""
    signals = interrupt.received()
    if code != 1 or not signals:
        return code
    status = 128 + signals[0]
    word = "terminated" if signals[0] == signal.SIGTERM else "interrupted"
    files = interrupt.written()
    what = f" after writing {', '.join(files)}" if files else "; nothing was written"
    sys.stderr.write(f"mc-tco: {word}{what}\n")
    return status


def quick_exit(code: str | int | None, hooks: bool = True) -> None:
    """End the process as Python's exit would, without its teardown of every module.

    The command is over and its files are closed: what Python's exit still does is run
    the threads' and the ``atexit`` hooks (``weakref.finalize``, multiprocessing,
    temporary folders; run here, in its order), flush the standard streams, then free
    every module of numpy, scipy, pandas, xarray and numba one by one: 0.3 s after their
    imports alone and 0.6-0.7 s after a run that loaded the cost model's kernels (a
    default run 11.6 s -> 10.9 s; the Ishigami book's run loses a third of its time).
    That last part is skipped (``os._exit``); the exit code and the message of a string
    code are Python's. Where CPython's hooks are not there (another Python), a normal exit.
    ``hooks=False``: the streams flushed and the code, no hook run (HDF5 left broken).
    """
    import atexit
    import contextlib
    import threading

    shutdown = getattr(threading, "_shutdown", None)
    run_hooks = getattr(atexit, "_run_exitfuncs", None)
    if hooks and (shutdown is None or run_hooks is None):
        sys.exit(code)
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        sys.stderr.write(f"{code}\n")
        status = 1
    if hooks and shutdown is not None and run_hooks is not None:
        shutdown()  # the threads' own exit hooks (concurrent.futures), then joined
        run_hooks()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe: nothing to say
            stream.flush()
    os._exit(status & 0xFF if status >= 0 else status % 256)
