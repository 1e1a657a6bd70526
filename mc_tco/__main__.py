"""``python -m mc_tco``: the mc-tco command.

``python -m`` puts the working directory first on ``sys.path``; it is taken off before the
command imports anything, so a file there named like a library (``numba.py``) is never
imported in its place, as with the ``mc-tco`` script (:mod:`mc_tco.models.loading`);
then it is that script (:func:`mc_tco._entry.main`).
"""

import os
import sys

if __name__ == "__main__":
    if sys.path and os.path.abspath(sys.path[0] or os.curdir) == os.getcwd():
        del sys.path[0]
    from mc_tco._entry import main

    main()  # (as the mc-tco script: signals handled from the start, a quick exit)
