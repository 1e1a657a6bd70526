"""mc_tco: Monte Carlo uncertainty and sensitivity for the self-hosting TCO decision.

The API a notebook needs::

    import mc_tco
    book = mc_tco.load_book("distributions/deepseek-v4.1-flash.toml")
    ds = mc_tco.run(book, samples=4096)          # or mc_tco.run("path/to/book.toml")
    ds.mc_tco.p_beats("buy")                     # P(buy beats the API) by demand
    ds = mc_tco.open_results("results/deepseek-v4.1-flash.nc")

Everything else is in the subpackages (engine, sensitivity, decision, memo, results, cli).
"""

from typing import Any

from mc_tco._version import __version__

__all__ = ["__version__", "load_book", "open_results", "run"]


def __getattr__(name: str) -> Any:  # lazy: `mc-tco --help` does not import xarray
    if name == "load_book":
        from mc_tco.book import load_book

        return load_book
    if name == "run":
        from mc_tco.engine import run

        return run
    if name == "open_results":
        from mc_tco.results.io import open_results

        return open_results
    raise AttributeError(f"module 'mc_tco' has no attribute {name!r}")
