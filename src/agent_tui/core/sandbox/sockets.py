"""The Unix sockets of the machine, out of a command's reach.

``connect()`` on a Unix socket is not a write: a read-only mount does not stop it, the network
namespace does not either (a socket with a path is found through the filesystem), and some
daemons behind one run whatever they are asked to, outside any sandbox (the Docker API, the
systemd user instance behind ``systemd-run --user``, a database's ``COPY … PROGRAM``). The
sandbox empties ``/run``, ``/tmp``, ``/dev`` and the home directory; a daemon's socket
elsewhere (``/var/lib/foo/x.sock``, ``/var/run`` when it is a directory of its own, a socket
bind-mounted into a container) would still be reachable.

Before each command the sockets bound with a path are listed — from ``/proc/net/unix`` (those
of this network namespace) and ``/proc/self/mountinfo`` (a socket mounted on its own, such as
``-v /var/run/docker.sock:…``) — and each one outside the workspace that a command could see
gets ``/dev/null`` mounted over it: ``connect()`` is then refused. Sockets inside the workspace
keep working (a test suite's own), as do those a command makes itself. Not covered: a socket
bound by a process of another network namespace with no mount of its own (the listing of this
one does not show it), one bound with a relative path, and one a daemon binds after the
command started.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

NET_UNIX = "/proc/net/unix"
MOUNTINFO = "/proc/self/mountinfo"
EMPTIED = (Path("/tmp"), Path("/run"), Path("/dev"), Path("/proc"), Path("/sys"))
"""Replaced whole in the sandbox (a private tmpfs, a new /dev and /proc): nothing of the
machine's sockets there to mask."""


def _unescape(field: str) -> str:
    """A path of ``mountinfo`` (space, tab, newline and backslash as octal escapes)."""
    if "\\" not in field:
        return field
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1 : i + 4].isdigit() and len(field) >= i + 4:
            out.append(chr(int(field[i + 1 : i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


def listed_paths(net_unix: str = NET_UNIX, mountinfo: str = MOUNTINFO) -> Iterator[str]:
    """The absolute paths of the bound sockets this namespace lists, and the mount points
    (each may be a socket mounted on its own: the caller checks)."""
    try:
        with open(net_unix, encoding="utf-8", errors="surrogateescape") as fh:
            next(fh, None)  # the header
            for line in fh:
                fields = line.rstrip("\n").split(None, 7)
                if len(fields) == 8 and fields[7].startswith("/"):
                    yield fields[7]
    except OSError:
        pass
    try:
        with open(mountinfo, encoding="utf-8", errors="surrogateescape") as fh:
            for line in fh:
                fields = line.split(" ", 5)
                if len(fields) > 4:
                    yield _unescape(fields[4])
    except OSError:
        pass


def _under(path: str, roots: tuple[str, ...]) -> bool:
    """Whether ``path`` is one of ``roots`` or below one (strings: this runs for every
    listed path before every command, and pathlib costs ten times more)."""
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def already_hidden(real: str, shown: tuple[str, ...], home: Path | None) -> bool:
    """Whether the sandbox hides the real path ``real`` already: it is in a place replaced
    whole (``EMPTIED``, the ``home``), and not in one shown again there (``shown``: the
    workspace, ``allow_read``, ``allow_write``, what is kept of the home)."""
    emptied = tuple(os.path.realpath(p) for p in EMPTIED)
    if home is not None and home != Path("/"):
        emptied += (str(home),)
    return _under(real, emptied) and not _under(real, shown)


def _socket(path: str) -> str | None:
    """The real path of ``path`` when it is a socket."""
    try:
        if not stat.S_ISSOCK(os.stat(path).st_mode):  # most are directories (mount points)
            return None
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None


def reachable(
    workspace: Path,
    shown: Iterable[Path],
    home: Path | None,
    candidates: Iterable[str] | None = None,
) -> tuple[Path, ...]:
    """The sockets (real paths) a sandboxed command could connect to outside ``workspace``:
    outside what the sandbox empties (``EMPTIED``, and the hidden ``home``) or inside what it
    shows again there (``shown``: ``allow_read``, ``allow_write``, what is kept of the
    home). Blocking (a ``stat`` per listed path)."""
    inside = (str(workspace),)
    again = tuple(str(p) for p in shown)
    out: list[str] = []
    seen: set[str] = set()
    for path in candidates if candidates is not None else listed_paths():
        if path in seen:
            continue
        seen.add(path)
        real = _socket(path)
        if real is None or real in out or _under(real, inside):
            continue
        if already_hidden(real, again, home):
            continue  # the sandbox replaced the place it is in
        out.append(real)
    return tuple(Path(p) for p in out)


def runs_apart() -> tuple[Path, ...]:
    """Known socket directories to empty whole: ``/var/run`` when it is a directory of its own
    rather than the usual link to ``/run`` (older systems, some containers)."""
    var_run = Path("/var/run")
    if var_run.is_dir() and not var_run.is_symlink():
        return (var_run,)
    return ()
