"""``python -m mc_tco``: the mc-tco command.

``python -m`` puts the working directory first on ``sys.path``; it is taken off before the
command imports anything, so a file there named like a library (``numba.py``) is never
imported in its place, as with the ``mc-tco`` script (:mod:`mc_tco.models.loading`).
"""

import os
import sys

if __name__ == "__main__":
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == os.getcwd():
        del sys.path[0]
    from mc_tco.cli import main
    from mc_tco.results.store import lazy_dask_check

    with lazy_dask_check():  # xarray's dask check without importing dask (0.6 s)
        main()
