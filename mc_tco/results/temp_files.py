"""Temporary files of the atomic writes (:func:`mc_tco.results.io.atomic_path`): their
names, which carry the host and the process id, and the removal of those that killed
writers left behind (:func:`remove_stale_temp`)."""

from __future__ import annotations

import contextlib
import os
import re
import socket
from pathlib import Path

__all__ = ["remove_stale_temp"]

_HOST = re.sub(r"[^A-Za-z0-9-]", "-", socket.gethostname())[:40] or "host"
#: ``.<target name>.<host>.<pid>.<random>.tmp``: the temporary files of
#: :func:`mc_tco.results.io.atomic_path`
_TEMP = re.compile(r"^\.(?P<name>.+)\.(?P<host>[A-Za-z0-9-]+)\.(?P<pid>\d+)\.\w+\.tmp$")


def _temp_prefix(path: Path) -> str:
    return f".{path.name}.{_HOST}.{os.getpid()}."


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs on this host (a zombie counts as dead)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: someone else's process
        return True
    with contextlib.suppress(OSError, IndexError):
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def remove_stale_temp(folder: str | Path, finish: str | Path | None = None) -> list[Path]:
    """Remove the temporary files that killed writers left in ``folder``.

    A process killed while writing (SIGKILL, a power cut) cannot remove its temporary
    file. Its name carries the host and the process id; a file of this host whose process
    is gone is removed. Files of live processes and of other hosts (a shared disk) stay.

    ``finish``, the results file being written (its lock held): a writer killed between
    the two renames of its swap (:func:`mc_tco.results.io._swap`) left the previous
    results under the backup's temporary name; that file becomes ``<finish>.bak``, as the
    swap would have made it. (Killed before the first rename, that name is the current
    file: removed.) Such names of other files are then left for the writers of those files.

    Returns
    -------
    list of Path
        The files removed (or renamed to the backup).
    """
    removed = []
    finish = Path(finish) if finish is not None else None
    with contextlib.suppress(OSError):
        for entry in os.scandir(folder):
            m = _TEMP.match(entry.name)
            if m and m["host"] == _HOST and not _alive(int(m["pid"])):
                backup = m["name"].endswith(".bak")
                if finish is not None and backup and m["name"] != finish.name + ".bak":
                    continue  # another file's cut swap: left for that file's writer
                with contextlib.suppress(OSError):
                    if finish is not None and backup and _swap_was_cut(Path(entry.path),
                                                                       finish):
                        os.replace(entry.path, finish.with_name(m["name"]))
                    else:
                        os.unlink(entry.path)
                    removed.append(Path(entry.path))
    return removed


def _swap_was_cut(keep: Path, path: Path) -> bool:
    """Whether ``keep`` (a dead writer's second name of ``path``'s previous file) is no
    longer ``path`` itself: the writer renamed its new file over ``path``, then died
    before renaming ``keep`` to the backup. A copy (where there are no hard links) keeps
    the size and time of the file it copied."""
    if not path.exists():
        return False
    a, b = keep.stat(), path.stat()
    if os.path.samestat(a, b):
        return False
    return (a.st_size, a.st_mtime_ns) != (b.st_size, b.st_mtime_ns)
