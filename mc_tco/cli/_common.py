"""What every command shares: one-line errors, the progress bar, the book argument."""

from __future__ import annotations

import functools
import signal
import sys
import time

import click

from ..errors import McTcoError

DEFAULT_BOOK = "distributions/deepseek-v4.1-flash.toml"


def default_book() -> str:
    """The default book: ./distributions/ first, else the one shipped with the package."""
    from ..shipped import shipped_book

    return str(shipped_book())



def friendly(func):
    """Turn :class:`McTcoError`, Ctrl-C and SIGTERM into a one-line message and exit code
    (2 for an error, 130 for Ctrl-C, 143 for SIGTERM)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except McTcoError as exc:
            click.echo(f"mc-tco: error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM during a run (Interrupted)
            code = getattr(exc, "exit_code", 128 + signal.SIGINT)
            word = "terminated" if code == 128 + signal.SIGTERM else "interrupted"
            click.echo(f"mc-tco: {word}; nothing was written", err=True)
            sys.exit(code)

    return wrapper


class Progress:
    """A progress bar on stderr with the time left, shown once a run takes over 1.5 s."""

    def __init__(self, label: str, enabled: bool = True, delay: float = 1.5):
        self.label = label
        self.enabled = enabled
        self.delay = delay
        self.start = time.monotonic()
        self.shown = False
        self.tty = sys.stderr.isatty()
        self.last_line = 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.start
        if elapsed < self.delay and done < total:
            return
        frac = done / total if total else 1.0
        left = elapsed * (1 - frac) / frac if frac > 0 else float("nan")
        width = 30
        bar = "#" * int(width * frac) + "-" * (width - int(width * frac))
        text = (
            f"{self.label} [{bar}] {100 * frac:5.1f}%  {elapsed:6.1f}s elapsed, "
            f"~{left:.1f}s left"
        )
        if self.tty:
            click.echo("\r" + text, nl=False, err=True)
            self.shown = True
            if done >= total:
                click.echo("", err=True)
        elif elapsed - self.last_line >= 10 or (done >= total and self.shown):
            click.echo(text, err=True)
            self.last_line = elapsed
            self.shown = True


book_argument = click.argument(
    "book", required=False, default=default_book, metavar="[BOOK]",
    type=click.Path(dir_okay=True, path_type=str),
)


