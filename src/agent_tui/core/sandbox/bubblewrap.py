"""The bubblewrap (``bwrap``) sandbox on Linux.

The whole system is mounted read-only; the workspace (and ``allow_write``) writable; a private
``/tmp`` and an empty ``/run`` (no daemon's socket); the protected files of the workspace read-
only again over it; the home directory hidden behind an empty tmpfs (but for the workspace and
``~/.gitconfig``, read-only); hidden files masked with an empty file (or an empty tmpfs for a
directory), the machine's Unix sockets outside the workspace too (``sockets``); the agent's
own state directories sealed last (an empty read-only tmpfs: ``agent_state``). bwrap is
started with the allow-listed environment (``environment``): its child is PID 1 inside.
Network namespaces are unshared unless the network is on. The command gets a new session and
dies with its parent (``--die-with-parent``), and a PID namespace, so nothing it starts
outlives the agent. It holds no capability (``--cap-drop ALL``), even when agent-tui
runs as root.

Mount order matters: a later mount covers an earlier one, so the general ones come first.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from agent_tui.core.sandbox.confinement import Confinement

KEEP_FROM_HOME = (
    ".gitconfig",
    ".config/git",
    # toolchains installed per user: the programs a command runs (read-only, no secrets;
    # ``.cargo/credentials.toml`` and ``~/.npmrc`` stay hidden)
    ".pyenv",
    ".local/bin",
    ".local/lib",
    ".local/share/uv",
    ".cargo/bin",
    ".rustup",
    ".nvm",
    ".volta",
    ".bun",
    ".deno",
    "go",
)
"""What of the home directory commands still see (read-only); ``allow_read`` adds more."""


@functools.lru_cache(maxsize=4)
def _works(bwrap: str) -> str | None:
    """None when ``bwrap`` can make the namespaces it needs here, else what went wrong."""
    try:
        done = subprocess.run(
            [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-all", "true"],
            capture_output=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{bwrap} could not run: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{bwrap} cannot create namespaces here: {said[-1] if said else done.returncode}"
    return None


def _resolver_dirs() -> list[Path]:
    """The directories of /run that name resolution reads (``/etc/resolv.conf`` is often a
    link into ``/run/systemd/resolve``)."""
    out: list[Path] = []
    try:
        resolv = Path("/etc/resolv.conf").resolve()
    except OSError:
        return out
    if resolv.is_relative_to("/run") and resolv.exists():
        out.append(resolv.parent)
    for extra in (Path("/run/systemd/resolve"), Path("/run/nscd")):
        if extra.is_dir() and extra not in out:
            out.append(extra)
    return out


def _directories_between(paths: list[Path], roots: tuple[Path, ...]) -> list[Path]:
    """The directories strictly between a writable root and each of ``paths``, outermost
    first, each once (``.git`` for ``.git/config``)."""
    out: list[Path] = []
    for path in paths:
        root = next((r for r in roots if path.is_relative_to(r) and path != r), None)
        if root is None:
            continue
        for parent in reversed(path.parents):
            inside = parent.is_relative_to(root) and parent != root and parent not in out
            if inside and parent.is_dir() and not parent.is_symlink():
                out.append(parent)
    return out


class Bubblewrap:
    name = "bubblewrap"

    def __init__(self, executable: str | None = None) -> None:
        self.executable = executable or shutil.which("bwrap")

    def problem(self) -> str | None:
        if self.executable is None:
            return "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt install bubblewrap)"
        return _works(self.executable)

    def wrap(self, argv: list[str], confinement: Confinement) -> list[str]:
        assert self.executable is not None
        c = confinement
        args = [self.executable, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        args += ["--tmpfs", "/tmp"]  # first: a home or workspace below /tmp is mounted over it
        # The daemons' sockets (/run/docker.sock, the D-Bus buses, /run/user/UID with the
        # systemd user instance and ssh-agent, /run/postgresql…): connect() on a socket is not
        # a write, so a read-only mount does not stop it, and a socket can be an escape
        # (``systemd-run --user``, the Docker API). /run is emptied; DNS keeps its files.
        args += ["--tmpfs", "/run"]
        if c.network:
            for kept in _resolver_dirs():
                args += ["--ro-bind", str(kept), str(kept)]
        home = c.home
        if home is not None and home.is_dir() and home != Path("/"):
            args += ["--tmpfs", str(home)]
            for kept in (home / name for name in KEEP_FROM_HOME):
                if kept.exists():
                    args += ["--ro-bind", str(kept), str(kept)]
        for kept in c.allow_read:  # anywhere the home or the private /tmp would hide
            if kept.exists():
                args += ["--ro-bind", str(kept), str(kept)]
        for writable in (c.workspace, *c.allow_write):
            if writable.exists():
                args += ["--bind", str(writable), str(writable)]
        # a protected path's directories below the writable root are mounted on themselves:
        # a mount point cannot be renamed or removed, so ``mv .git .git.old && mkdir .git``
        # cannot put a new .git/config in place of the read-only one
        protected = [p for p in c.read_only if p.exists()]
        sealed = [p for p in c.sealed if p.is_dir()]
        for below in _directories_between([*protected, *sealed], (c.workspace, *c.allow_write)):
            args += ["--bind", str(below), str(below)]
        for path in protected:
            args += ["--ro-bind", str(path), str(path)]
        for path in c.masked:  # nested git directories' configs and hooks: not pinned
            if path.exists() and not path.is_symlink():
                args += ["--ro-bind", str(path), str(path)]
        for path in c.hidden:
            if path.is_dir():
                args += ["--tmpfs", str(path)]
            elif path.exists():
                args += ["--ro-bind", os.devnull, str(path)]
        for path in sealed:  # last: nothing may be mounted inside one afterwards
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
        if not c.network:
            args.append("--unshare-net")
        args += [
            # started as root (a container, CI) bwrap keeps every capability otherwise: enough
            # to unmount what hides a secret or remount the system writable
            "--cap-drop",
            "ALL",
            "--unshare-pid",
            "--unshare-ipc",
            "--unshare-uts",
            "--die-with-parent",
            "--new-session",
            "--chdir",
            str(c.cwd),
            "--",
            *argv,
        ]
        return args
