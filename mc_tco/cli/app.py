"""``mc-tco app``: the explorer in the browser (:mod:`mc_tco.app`), a thin command."""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
import webbrowser

import click

from mc_tco.app import bridge
from mc_tco.cli._common import default_book

__all__ = ["app"]


def _is_loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return False


@click.command()
@click.argument("book", required=False, default=default_book, metavar="[BOOK]",
                type=click.Path(dir_okay=True, path_type=str))
@click.option("--port", type=int, default=8050, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. The default lets only this machine in. Another "
                   "address (0.0.0.0: all of this machine's) lets anyone who can reach it "
                   "on --port open the page, save books over any .toml you can write and "
                   "start runs. Whatever --host, the app answers only requests naming it "
                   "as localhost, 127.0.0.1, ::1, the --host given, or --allow-host; for "
                   "0.0.0.0 or :: also this machine's host name and addresses.")
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="NAME",
              help="Also answer requests for this host name (e.g. a DNS alias of this "
                   "machine); repeatable. Any other name gets 403, never the page.")
@click.option("--no-browser", is_flag=True, help="Print the URL; do not open a browser.")
@click.option("-n", "--samples", type=int, default=1024, show_default=True,
              help="Base sample size of the quick runs (a power of two >= 64; raise it "
                   "on the page).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the quick runs: same book, samples and seed, same numbers as "
                   "mc-tco run.")
def app(book: str, port: int, host: str, allow_hosts: tuple[str, ...], no_browser: bool,
        samples: int, seed: int) -> None:
    """Explore BOOK in the browser: change an assumption, see the odds move, save the book.

    A local web page (no request leaves this machine): the book's inputs on the left,
    editable, each with a picture of its distribution; on the right P(each strategy beats
    the API), the fan chart of the saving, the break-even demand and the top inputs by
    Sobol' ST, recomputed by a quick run within about a second of a change. Save the
    edited book as TOML, or run it in full (results file and memo, as mc-tco run and
    mc-tco memo write them).

    The page is served only to requests naming this server (Host header: see --host),
    never inside another page's frame, and runs only the TCO model or BOOK's own.

    \b
    Examples:
      mc-tco app
      mc-tco app distributions/article.toml --port 8060 --no-browser
      mc-tco app --host 0.0.0.0 --allow-host tco.lan
    """
    from mc_tco.app.server import LOOPBACK, WILDCARD, App, make_server

    try:
        explorer = App(book, samples=samples, seed=seed)
        try:
            server = make_server(explorer, host, port, allow_hosts)
        except socket.gaierror as exc:
            raise bridge.McTcoError(
                f"--host {host}: not an address of this machine ({exc.strerror}); give "
                "one, e.g. 127.0.0.1 or 0.0.0.0"
            ) from None
        except OSError as exc:
            raise bridge.McTcoError(
                f"--port {port}: cannot listen on {host}:{port} ({exc.strerror}); "
                "choose another --port"
            ) from None
    except bridge.McTcoError as exc:
        click.echo(f"mc-tco: error: {exc}", err=True)
        sys.exit(exc.exit_code)
    port = server.server_address[1]
    local = host in LOOPBACK or _is_loopback(str(server.server_address[0]))
    # the URL to open here: loopback for a wildcard address, else the address given
    shown = "127.0.0.1" if host in WILDCARD else (f"[{host}]" if ":" in host else host)
    url = f"http://{shown}:{port}/"
    if local:
        where = "only this machine can connect"
    else:
        names = ", ".join(sorted(server.allowed_hosts - LOOPBACK)) or "none"
        where = (f"listening on {host or 'all addresses'}: anyone who can reach this machine "
                 f"on port {port} can open the page, save books over any .toml you can "
                 f"write and start runs; it answers as {names} and loopback, other names "
                 "get 403 unless given with --allow-host")
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
