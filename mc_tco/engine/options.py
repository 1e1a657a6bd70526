"""Checks of the run options and output paths, made before any work (issue 11, items 8, 9, 16).

The CLI calls these right after parsing; a notebook calling the library can call them too.
Each raises :class:`~mc_tco.errors.OptionError` with one line naming the option and the fix.
:func:`mc_tco.engine.plan_run` checks the options that a plan itself needs.
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

from mc_tco.errors import OptionError

__all__ = [
    "BOOK_SUFFIXES",
    "MIN_PER_SCRAMBLE",
    "check_out",
    "check_power_of_two",
    "check_run_options",
    "check_seed",
    "check_writable_as",
    "samples_minimum",
]

#: fewest base samples per scramble of ``--ci rqmc``: with fewer, the spread of the R
#: estimates is noise (``-n 16`` with 8 scrambles printed "ST 0.706 ± 20.997")
MIN_PER_SCRAMBLE = 8
#: suffixes of files that are books or notes, never results
BOOK_SUFFIXES = (".toml", ".md", ".txt", ".py", ".json", ".csv", ".html")
#: smallest base sample of the Sobol' design
MIN_SAMPLES = 16
#: the largest --seed: the results file stores it as a 64-bit signed integer
MAX_SEED = 2**63 - 1


def check_seed(seed: object, flag: str = "--seed") -> None:
    """``seed`` must be a whole number from 0 to :data:`MAX_SEED`.

    A negative seed means nothing (numpy's seeds are >= 0; -1 is no "random seed" here:
    a run is reproducible from its file, so its seed is always a chosen number), and a
    seed above 2^63 - 1 cannot be stored in the results file (the run would fail at the
    end, when it writes the file).
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise OptionError(
            f"{flag} must be a whole number from 0 to {MAX_SEED} (2^63 - 1), got {seed!r}"
        )


def samples_minimum(ci: str = "rqmc", replicates: object = 8) -> int:
    """The smallest ``--samples``: :data:`MIN_SAMPLES` for the Sobol' design, and with
    ``--ci rqmc`` :data:`MIN_PER_SCRAMBLE` base samples for each of its ``replicates``
    scrambles (64 with the default 8)."""
    if ci == "rqmc" and isinstance(replicates, int) and not isinstance(replicates, bool) and (
        2 <= replicates <= 64 and not replicates & (replicates - 1)
    ):
        return max(MIN_SAMPLES, MIN_PER_SCRAMBLE * replicates)
    return MIN_SAMPLES


def check_power_of_two(value: object, flag: str, minimum: int = MIN_SAMPLES, why: str = "") -> None:
    """``value`` must be a whole power of two >= ``minimum`` (16: the Sobol' design's
    balance; ``why`` says what else sets the minimum); the message names the nearest
    valid values."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(f"{flag} must be a whole number, got {value!r}")
    if value < minimum or value & (value - 1):
        if value <= minimum:
            suggestion = str(minimum)
        else:
            lower = 1 << int(math.log2(value))
            suggestion = f"{lower} or {lower * 2}" if lower >= minimum else str(minimum)
        reason = "the Sobol' design keeps its balance only then" + (f"; {why}" if why else "")
        raise OptionError(
            f"{flag} must be a power of two >= {minimum} ({reason}), got {value}; "
            f"try {suggestion}"
        )


def check_run_options(
    *,
    samples: int,
    ci: str = "rqmc",
    replicates: int = 8,
    resamples: int = 100,
    target_halfwidth: float | None = None,
    max_samples: int | None = None,
) -> None:
    """Refuse option combinations of ``mc-tco run`` that would fail or mislead later.

    Parameters
    ----------
    samples : int
        Base sample size N (the start of a ``target_halfwidth`` run).
    ci, replicates, resamples : str, int, int
        How intervals are made; R scrambles need N >= ``MIN_PER_SCRAMBLE`` x R, a
        bootstrap needs 2 or more resamples.
    target_halfwidth, max_samples : float or None, int or None
        ``max_samples`` only with ``target_halfwidth``; a power of two >= N.

    Raises
    ------
    OptionError
    """
    minimum = samples_minimum(ci, replicates)
    why = (f"--ci rqmc needs {MIN_PER_SCRAMBLE} base samples for each of its {replicates} "
           "scrambles (--replicates)" if minimum > MIN_SAMPLES else "")
    check_power_of_two(samples, "--samples", minimum, why)
    if ci == "bootstrap" and (isinstance(resamples, bool) or not 2 <= resamples <= 100_000):
        raise OptionError(
            f"--ci bootstrap needs --bootstrap of 2..100000 resamples, got {resamples}; "
            "100 is usual (or choose --ci rqmc)"
        )
    check_adaptive(samples, target_halfwidth, max_samples)


def check_adaptive(samples: int, target_halfwidth: float | None,
                   max_samples: int | None) -> None:
    """``--target-halfwidth`` in (0, 1); ``--max-samples`` only with it, a power of two >= N."""
    if target_halfwidth is not None and (
        isinstance(target_halfwidth, bool) or not 0 < target_halfwidth < 1
    ):
        raise OptionError(
            f"--target-halfwidth must lie between 0 and 1, got {target_halfwidth}"
        )
    if max_samples is not None:
        if target_halfwidth is None:
            raise OptionError(
                f"--max-samples {max_samples} only limits a --target-halfwidth run; add "
                "--target-halfwidth H, or drop --max-samples and set --samples"
            )
        check_power_of_two(max_samples, "--max-samples")
        if max_samples < samples:
            raise OptionError(
                f"--max-samples ({max_samples}) must be at least --samples ({samples})"
            )


def check_writable_as(path: str | Path, flag: str) -> Path:
    """:func:`mc_tco.results.io.check_writable` with the messages naming ``flag`` (e.g. ``--json``),
    and a real write test of the folder (``/proc`` passes the permission test)."""
    from mc_tco.results.io import check_writable

    try:
        check_writable(path)
    except OptionError as exc:
        raise OptionError(str(exc).replace("--out", flag)) from None
    path = Path(path)
    existing = path.parent
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".mc_tco_probe_"):
            pass
    except OSError as exc:
        raise OptionError(
            f"{flag} {path}: cannot write there ({exc.strerror or exc}); choose another {flag}"
        ) from None
    return path


def check_out(out: str | Path, book_path: str | None = None) -> Path:
    """Refuse an ``--out`` that would overwrite something that is not an mc_tco results file.

    Refused: the book itself, a name with a book's (or note's) suffix such as ``.toml``, an
    existing file that is not a netCDF results file written by mc_tco (its
    ``mc_tco_version`` attribute), and a place that cannot be written.

    Raises
    ------
    OptionError
    """
    out = Path(out)
    if book_path and out.exists() and Path(book_path).exists() and os.path.samefile(
        out, book_path
    ):
        raise OptionError(
            f"--out {out}: is the book itself; writing results there would replace it; "
            f"give a results file, e.g. --out results/{out.stem}.nc"
        )
    if out.suffix.lower() in BOOK_SUFFIXES:
        raise OptionError(
            f"--out {out}: a '{out.suffix}' file is a book or a note, not a results file; "
            f"give a name ending in .nc, e.g. --out {out.with_suffix('.nc')}"
        )
    check_writable_as(out, "--out")
    if out.is_file() and out.stat().st_size > 0 and not _is_results_file(out):
        raise OptionError(
            f"--out {out}: the file exists and is not an mc_tco results file, so it is not "
            "replaced; choose another --out or move the file away"
        )
    return out


def _is_results_file(path: Path) -> bool:
    """Whether ``path`` is a netCDF/HDF5 file with mc_tco's ``mc_tco_version`` attribute."""
    with open(path, "rb") as f:
        if f.read(8) != b"\x89HDF\r\n\x1a\n":
            return False
    try:
        import h5py

        with h5py.File(path, "r") as f:
            return "mc_tco_version" in f.attrs
    except Exception:  # a damaged or foreign HDF5 file
        return False
