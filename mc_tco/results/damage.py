"""The error of a results file whose stored data fails its checksum, shared by the reader
(:mod:`mc_tco.results.reading`, which checks the blocks when it opens a file) and the
backend (:mod:`mc_tco.results.h5file`, whose lazy reads check them again)."""

from __future__ import annotations

from pathlib import Path

from mc_tco.errors import McTcoError

__all__ = ["DamagedFileError"]


class DamagedFileError(McTcoError):
    """A results file whose stored data fails its checksum (not an :class:`OptionError`,
    so that no reader takes it for an option it cannot use and goes on without the data).
    """


def _damaged(path, name: str, exc: BaseException) -> DamagedFileError:
    bak = Path(f"{path}.bak")
    copy = f" ({bak} is the previous run's)" if bak.is_file() else ""
    return DamagedFileError(
        f"{path}: variable {name}: damaged data (a stored block fails its checksum or cannot "
        f"be read: {exc}); make the file again with 'mc-tco run', or restore a copy{copy}"
    )
