"""What the sandbox refused, read from a failed command's output: a write to the read-only
filesystem, a connection without a network, a file of the hidden home directory.

The kernel's refusal reaches the command as an ordinary error (``EROFS``, ``ENETUNREACH``,
``ENOENT``), which a model would otherwise take for a bug to fix by trying harder. The card and
the model get one sentence: what was blocked, and which setting would allow it.
"""

from __future__ import annotations

import re
from pathlib import Path

from agent_tui.core.sandbox.shell_sandbox import GIT_POINTER, PROTECTED_IN_WORKSPACE, ShellSandbox

_READ_ONLY = re.compile(
    r"(?:'([^'\n]+)'|‘([^’\n]+)’|\"([^\"\n]+)\"|(\S+?)):?\s*Read-only file system|"
    r"Read-only file system:?\s*'([^'\n]+)'"
)
_NETWORK = re.compile(
    r"Network is unreachable|Could not resolve host|Temporary failure in name resolution|"
    r"Name or service not known|getaddrinfo|nodename nor servname|No address associated|"
    r"Failed to establish a new connection|network is unreachable|ENETUNREACH|EAI_AGAIN|"
    r"Could not resolve hostname|unable to access '[^']*': Couldn't resolve"
)
_REFUSED = re.compile(r"Connection refused|ECONNREFUSED|Failed to connect to")
_BUSY = re.compile(r"(?:'([^'\n]+)'|‘([^’\n]+)’|\"([^\"\n]+)\"|(\S+?)):?\s*Device or resource busy")
"""``rm``/``mv`` of a path the sandbox mounted read-only (a mount point cannot be removed)."""
_MISSING = re.compile(r"(?:'([^'\n]+)'|(\S+?)):?\s*No such file or directory")
USER_SETTINGS = "your user settings"
SOCKETS_WHY = "a daemon behind one can run programs outside the sandbox"


def _path(match: re.Match[str]) -> str | None:
    return next((g for g in match.groups() if g), None)


def explain(output: str, shell: ShellSandbox, cwd: Path, home: Path | None = None) -> str | None:
    """One sentence on what the sandbox blocked, or None when the failure looks like the
    command's own. ``output`` is the command's text (the last part is enough)."""
    text = output[-64_000:]
    home = (home or Path.home()).resolve()
    found = _READ_ONLY.search(text) or _BUSY.search(text)
    if found is not None:
        return _read_only(_path(found), shell, cwd)
    refused = _REFUSED.search(text) is not None and not _NETWORK.search(text)
    masked = _masked_sockets(shell, home) if refused else []
    named = next((p for p in masked if str(p) in text or f" {p.name}" in text), None)
    if named is not None:
        return (
            f"blocked by the sandbox: {named} is a Unix socket outside the workspace, masked "
            f"for commands ({SOCKETS_WHY}); no setting allows it — ask the user to run that "
            "command themselves"
        )
    if not shell.network and (_NETWORK.search(text) or refused):
        sockets = f", and Unix sockets outside the workspace are masked ({SOCKETS_WHY})"
        return (
            "blocked by the sandbox: commands have no network there (not even 127.0.0.1)"
            f"{sockets if masked else ''}; allow the network with "
            f'"sandbox": {{"network": "on"}} in {USER_SETTINGS}'
        )
    if masked and re.search(r"sock|unix", text, re.IGNORECASE):
        return (
            "blocked by the sandbox, if the connection was to a Unix socket outside the "
            f"workspace: those are masked for commands ({SOCKETS_WHY}); no setting allows it"
        )
    for missing in _MISSING.finditer(text):
        name = _path(missing)
        if not name:
            continue
        path = Path(name).expanduser()
        path = path if path.is_absolute() else cwd / path
        hidden = _hidden_root(path, shell, home)
        if hidden is None or not (path.exists() or path.parent.is_dir()):
            continue  # missing outside the sandbox as well: the command's own mistake
        if hidden == "home":
            allow = f'"sandbox": {{"allow_read": ["{_short(path, home)}"]}}'
            return (
                f"blocked by the sandbox: {name} is in the home directory, which commands "
                f"do not see; allow it with {allow} in {USER_SETTINGS}"
            )
        where = path if path.is_dir() else path.parent
        return (
            f"blocked by the sandbox: {name} is in the machine's {hidden}, which commands do "
            f"not see (theirs is private and empty); allow it with "
            f'"sandbox": {{"allow_write": ["{where}"]}} in {USER_SETTINGS}'
        )
    return None


def _hidden_root(path: Path, shell: ShellSandbox, home: Path) -> str | None:
    """Which of the places the sandbox replaces ``path`` is in: ``home``, ``/tmp``, ``/run``."""
    c = shell.confinement(shell.workspace)
    if any(path.is_relative_to(p) for p in (c.workspace, *c.allow_write, *c.allow_read)):
        return None
    if path.is_relative_to(home):
        return "home"
    for root in ("/tmp", "/run"):
        if path.is_relative_to(root) or path.resolve().is_relative_to(root):
            return root
    return None


def _masked_sockets(shell: ShellSandbox, home: Path) -> list[Path]:
    """The machine's sockets the sandbox masks (``sockets``), roughly (blocking)."""
    from agent_tui.core.sandbox.sockets import reachable

    return list(reachable(shell.workspace.resolve(), (), home))


def _state(path: Path) -> bool:
    """Whether ``path`` (resolved) is in agent-tui's own config, data or cache directory."""
    from agent_tui.core.sandbox.agent_state import state_dirs

    return any(path == d or d in path.parents for d in state_dirs())


def _short(path: Path, home: Path) -> str:
    return "~/" + path.relative_to(home).as_posix() if path.is_relative_to(home) else str(path)


def _read_only(name: str | None, shell: ShellSandbox, cwd: Path) -> str:
    if name is None:
        return (
            "blocked by the sandbox: the command wrote where the sandbox is read-only (it "
            "may write the workspace, /tmp and sandbox.allow_write)"
        )
    path = Path(name).expanduser()
    path = (path if path.is_absolute() else cwd / path).resolve()
    workspace = shell.workspace.resolve()
    if path.is_relative_to(workspace):
        relative = path.relative_to(workspace).as_posix()
        protected = (*PROTECTED_IN_WORKSPACE, GIT_POINTER)
        if any(relative == p or relative.startswith(p + "/") for p in protected):
            return (
                f"blocked by the sandbox: {relative} is a protected file (it configures the "
                "agent or runs code later), read-only for commands; change it with the file "
                "tools, which ask first"
            )
        if not _state(path):
            # the rest of the workspace is writable: what is read-only there is a nested or
            # bare repository's config or hooks, a hooks path (``git_watch.Watch.masks``), or
            # a file a read rule hides
            return (
                f"blocked by the sandbox: {relative} is read-only for commands (a nested or "
                "bare repository's config or hooks, or a hooks directory, whose content git "
                "would run later; or a file a read rule hides); change it with the file tools, "
                "which ask first"
            )
    if _state(path):
        return (
            f"blocked by the sandbox: {name} is agent-tui's own state (its settings, trust "
            "store, sessions or caches), which commands may never change; no setting allows "
            "it — the user changes it with agent-tui itself"
        )
    where = path.parent if not path.is_dir() else path
    return (
        f"blocked by the sandbox: {name} is outside what commands may write (the workspace, "
        f'/tmp and sandbox.allow_write); allow it with "sandbox": {{"allow_write": '
        f'["{where}"]}} in {USER_SETTINGS}'
    )
