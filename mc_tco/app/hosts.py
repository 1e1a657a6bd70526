"""The Host header names the explorer answers (:func:`allowed_hosts`): a request whose Host
is not one of them is refused, so no other site reaches the app by DNS rebinding
(:mod:`mc_tco.app.server`)."""

from __future__ import annotations

import contextlib
import socket

__all__ = ["LOOPBACK", "WILDCARD", "allowed_hosts", "machine_names"]

LOOPBACK = {"127.0.0.1", "localhost", "::1"}
WILDCARD = {"", "0.0.0.0", "::"}


def _host_name(header: str) -> str:
    """The host of a Host header (``name``, ``name:port``, ``[v6]:port``), lower case."""
    h = header.strip().lower()
    if h.startswith("["):
        return h[1:].partition("]")[0]
    name, colon, port = h.rpartition(":")
    if colon and port.isdigit() and ":" not in name:
        h = name
    return h.rstrip(".")


def machine_names() -> set[str]:
    """The names and addresses this machine answers to, as a user would type them: its
    host name (short and fully qualified), their addresses and the address it reaches the
    network from (found without sending a packet)."""
    names: set[str] = set()
    for name in {socket.gethostname(), socket.getfqdn()}:
        if not name:
            continue
        names.add(name)
        with contextlib.suppress(OSError):
            names.update(str(a[4][0]) for a in socket.getaddrinfo(name, None))
    for family, probe in ((socket.AF_INET, "192.0.2.1"), (socket.AF_INET6, "2001:db8::1")):
        with contextlib.suppress(OSError), socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect((probe, 9))  # UDP: chooses the route, sends nothing
            names.add(str(s.getsockname()[0]))
    return {_host_name(n) for n in names if n}


def allowed_hosts(host: str, extra: tuple[str, ...] | list[str] = ()) -> set[str]:
    """The Host header names the app answers, listening on ``host``.

    Always the loopback names and ``extra`` (``--allow-host``); ``host`` itself when it is
    a name or address; for a wildcard (``0.0.0.0``, ``::``) the machine's own names and
    addresses (:func:`machine_names`). Any other name is refused with 403 and the page
    (with its token) is never served to it.
    """
    names = set(LOOPBACK) | {_host_name(n) for n in extra if n.strip()}
    if host in WILDCARD:
        names |= machine_names()
    else:
        names.add(_host_name(host))
    return names
