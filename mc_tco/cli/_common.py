"""What every command shares: one-line errors, the progress bar, the book argument."""

from __future__ import annotations

import functools
import signal
import sys
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import click

from mc_tco.errors import McTcoError

if TYPE_CHECKING:
    from click._termui_impl import ProgressBar

    from mc_tco.book import Book

P = ParamSpec("P")
R = TypeVar("R")

DEFAULT_BOOK = "distributions/deepseek-v4.1-flash.toml"


def default_book() -> str:
    """The default book: ./distributions/ first, else the one shipped with the package."""
    from mc_tco.book.shipped import shipped_book

    return str(shipped_book())



def friendly(func: Callable[P, R]) -> Callable[P, R]:
    """Turn :class:`McTcoError`, Ctrl-C and SIGTERM into a one-line message and exit code
    (2 for an error, 130 for Ctrl-C, 143 for SIGTERM)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        from mc_tco import interrupt

        interrupt.written(clear=True)
        try:
            return func(*args, **kwargs)
        except McTcoError as exc:
            click.echo(f"mc-tco: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM during a run (Interrupted)
            code = getattr(exc, "exit_code", 128 + signal.SIGINT)
            word = "terminated" if code == 128 + signal.SIGTERM else "interrupted"
            files = interrupt.written()  # renamed into place before the signal: complete
            what = f" after writing {', '.join(files)}" if files else "; nothing was written"
            click.echo(f"mc-tco: {word}{what}", err=True)
            sys.exit(code)

    return wrapper


def note(text: str) -> None:
    """One ``mc-tco: note:`` line on stderr (e.g. a results file without checksums)."""
    click.echo(f"mc-tco: note: {text}", err=True)


def unit_notes(book: Book) -> None:
    """Say on stderr which grid dims and inputs were converted to the model's units."""
    for grid in book.grid.values():
        if grid.unit_note:
            click.echo(f"mc-tco: note: {book.path}: grid.{grid.dim}: {grid.unit_note}",
                       err=True)
    for inp in book.inputs.values():
        if inp.unit_note:
            click.echo(f"mc-tco: note: {book.path}: inputs.{inp.name}: {inp.unit_note}",
                       err=True)


class Progress:
    """Progress on stderr, shown once a step takes over ``delay`` seconds.

    On a terminal it is :func:`click.progressbar` (bar, percentage, time left). In a log
    (stderr not a terminal) click's bar prints only its label, so a line with the share
    done and the time left is written every 10 s instead.

    The time left is the pace since the first report after the counted work started
    (the last ``done == 0``; the engine sends one as its sampling starts, the Shapley
    pass as it starts) times the work still to do: not since the label's first second (a
    run's family check comes before its samples: at 3% of the samples
    it said ~290 s left of a 9 s stage), nor over the first report, whose block also
    paid the warm-up (at 2.3% of a 6 s family check it said ~79 s left). Until a second
    report at least :attr:`PACE_WINDOW` seconds after the first it says "time left not
    known yet": the workers report in bursts (two variants of a family check done 0.1 s
    apart said ~0.8 s left of 3 s). Before anything is shown, ``done == 0`` also restarts
    the seconds elapsed and the ``delay``.
    """

    #: seconds of work after the first report before a pace is taken from it
    PACE_WINDOW = 1.0

    def __init__(self, label: str, enabled: bool = True, delay: float = 1.5):
        self.label = label
        self.enabled = enabled
        self.delay = delay
        self.start = time.monotonic()
        self.tty = sys.stderr.isatty()
        self.bar: ProgressBar[int] | None = None
        self.done = 0
        self.last_line: float | None = None
        self.first: tuple[float, int] | None = None  # (time, done) of the first report since

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if done == 0:  # the counted work starts (again) now
            self.first = None
            if self.bar is None and self.last_line is None:
                self.start = now  # nothing shown yet: its seconds count from here
        elif self.first is None:
            self.first = (now, done)
        elapsed = now - self.start
        if elapsed < self.delay and done < total and self.bar is None:
            return
        if self.tty:
            if self.bar is None:
                self.bar = click.progressbar(length=total, label=self.label, file=sys.stderr,
                                             show_eta=True, show_percent=True, width=30)
                self.bar.__enter__()
            self.bar.update(done - self.done)
            self.done = done
            if done >= total:
                self.bar.__exit__(None, None, None)
            return
        if done >= total and self.last_line is None:
            return  # finished before its first line was due: nothing to say
        if self.last_line is None or elapsed - self.last_line >= 10 or done >= total:
            frac = done / total if total else 1.0
            click.echo(f"{self.label}: {100 * frac:5.1f}%  {elapsed:6.1f}s elapsed, "
                       f"{self._left(now, done, total)}", err=True)
            self.last_line = elapsed

    def _left(self, now: float, done: int, total: int) -> str:
        """The estimate of the time left (nothing done yet: none; it printed "~nans left")."""
        if done >= total:
            return "~0.0s left"
        if (self.first is None or done <= self.first[1]
                or now - self.first[0] < self.PACE_WINDOW):
            return "time left not known yet"
        t0, d0 = self.first
        return f"~{(now - t0) / (done - d0) * (total - done):.1f}s left"


book_argument = click.argument(
    "book", required=False, default=default_book, metavar="[BOOK]",
    type=click.Path(dir_okay=True, path_type=str),
)


def parse_at(items: Iterable[str]) -> dict[str, float | str]:
    """The repeatable ``--at DIM=VALUE`` option: ``("volume=2", "region=eu")`` ->
    ``{"volume": 2.0, "region": "eu"}`` (a number where the value reads as one)."""
    from mc_tco.errors import OptionError
    from mc_tco.results.points import parse_amount

    at: dict[str, float | str] = {}
    for item in items:
        dim, sep, value = item.partition("=")
        if not sep or not dim.strip() or not value.strip():
            raise OptionError(f"--at {item}: write DIM=VALUE, e.g. --at volume=100")
        try:
            at[dim.strip()] = parse_amount(value, f"--at {dim.strip()}=")
        except OptionError:
            at[dim.strip()] = value.strip()
    return at
