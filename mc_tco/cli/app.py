"""``mc-tco app``: the explorer in the browser (:mod:`mc_tco.app`), a thin command."""

from __future__ import annotations

import sys
import threading
import webbrowser

import click

from ..app import bridge
from ._common import default_book

__all__ = ["app"]


@click.command()
@click.argument("book", required=False, default=default_book, metavar="[BOOK]",
                type=click.Path(dir_okay=True, path_type=str))
@click.option("--port", type=int, default=8050, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. The default lets only this machine in; another "
                   "address exposes the app (and what it can write) to the network.")
@click.option("--no-browser", is_flag=True, help="Print the URL; do not open a browser.")
@click.option("-n", "--samples", type=int, default=1024, show_default=True,
              help="Base sample size of the quick runs (a power of two >= 64; raise it "
                   "on the page).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the quick runs: same book, samples and seed, same numbers as "
                   "mc-tco run.")
def app(book, port, host, no_browser, samples, seed):
    """Explore BOOK in the browser: change an assumption, see the odds move, save the book.

    A local web page (no request leaves this machine): the book's inputs on the left,
    editable, each with a picture of its distribution; on the right P(each strategy beats
    the API), the fan chart of the saving, the break-even demand and the top inputs by
    Sobol' ST, recomputed by a quick run within about a second of a change. Save the
    edited book as TOML, or run it in full (results file and memo, as mc-tco run and
    mc-tco memo write them).

    \b
    Examples:
      mc-tco app
      mc-tco app distributions/article.toml --port 8060 --no-browser
    """
    from ..app.server import App, make_server

    try:
        explorer = App(book, samples=samples, seed=seed)
        try:
            server = make_server(explorer, host, port)
        except OSError as exc:
            raise bridge.McTcoError(
                f"--port {port}: cannot listen on {host}:{port} ({exc.strerror}); "
                "choose another --port"
            ) from None
    except bridge.McTcoError as exc:
        click.echo(f"mc-tco: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{server.server_address[1]}/"
    where = ("only this machine can connect" if host in ("127.0.0.1", "localhost", "::1")
             else f"listening on {host}: other machines can connect")
    click.echo(f"mc-tco app: {book} at {url} ({where}); Ctrl-C stops it")
    threading.Thread(target=bridge.warm_up, daemon=True).start()
    if not no_browser:
        webbrowser.open(url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo("mc-tco app: stopped", err=True)
    finally:
        server.server_close()
