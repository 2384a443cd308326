"""The sandbox ``run_shell`` uses in one session (``ShellSandbox``): the backend, the settings
and the workspace, turned into each command's ``Confinement`` — the workspace's configuration
files read-only, the home's secrets hidden when the workspace holds it, the programs of
``PATH`` kept, the agent's own state sealed."""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from agent_tui.core.sandbox.confinement import Confinement, Hidden, Sandbox, Shelter
from agent_tui.core.sandbox.settings import SandboxSettings

PROTECTED_IN_WORKSPACE = (
    ".git/config",
    ".git/hooks",
    ".git/commondir",  # points git at another directory, whose config it then reads
    ".git/config.worktree",
    ".agent-tui",
    ".claude",
    ".vscode",
    ".mcp.json",
    ".envrc",
    ".npmrc",
    ".yarnrc.yml",
)
"""Files of the workspace that configure the agent or run code later: read-only inside the
sandbox (those that exist when the command starts; ``aftercheck`` moves aside those a command
creates). Their directories inside the workspace (``.git``) are mount points too, so a command
cannot rename them away and make new ones."""
GIT_POINTER = ".git"
"""Watched when absent: a ``.git`` file (``gitdir: …``) or link a command makes in a workspace
that was no repository points git at a directory of the command's choosing."""


SECRETS_IN_HOME = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".npmrc",
    ".pypirc",
    ".git-credentials",
    ".config/gh",
    ".config/gcloud",
)
"""Hidden when the workspace holds the home directory (``agent-tui`` started in ``~``)."""
RUNS_LATER_IN_HOME = (
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".config",
    ".local/bin",
    ".gitconfig",
)
"""Read-only when the workspace holds the home directory: they run code in a later shell."""


def programs_in_hiding(home: Path) -> tuple[Path, ...]:
    """The directories of ``PATH`` (and this Python's own environment) that the hidden home,
    the private ``/tmp`` or the empty ``/run`` would take away: kept read-only, so a command
    still finds the programs it found outside (a virtualenv's whole tree, its ``lib``
    included)."""
    found: list[Path] = []
    candidates = [*os.environ.get("PATH", "").split(os.pathsep), sys.prefix, sys.base_prefix]
    for entry in candidates:
        if not entry:
            continue
        path = Path(entry)
        if path.is_absolute() and path.is_relative_to("/run") and path.exists():
            found.append(path)  # /run/current-system/sw/bin (NixOS): bound where PATH says
            continue
        try:
            path = path.resolve()
        except OSError:
            continue
        tmp = Path("/tmp").resolve()
        hidden_by = path.is_relative_to(home) or path.is_relative_to(tmp)
        if not hidden_by or not path.exists() or path in (home, tmp):
            continue  # never the whole home (its keys) or the whole /tmp
        if path.name == "bin" and (path.parent / "pyvenv.cfg").exists():
            path = path.parent
        if path not in found:
            found.append(path)
    return tuple(found)


@dataclass
class ShellSandbox:
    """The sandbox ``run_shell`` uses in one session: the backend, the settings, the workspace."""

    sandbox: Sandbox
    settings: SandboxSettings
    workspace: Path
    scratch: Path | None = None
    """The session's temp directory (``scratch``): writable inside the sandbox too."""

    @property
    def network(self) -> bool:
        return self.settings.network == "on"

    def confinement(
        self,
        cwd: Path,
        protected: Hidden | None = None,
        masked: tuple[Path, ...] = (),
        *,
        prepare: bool = False,
    ) -> Confinement:
        """What a command in ``cwd`` is confined to; ``masked``: the nested git directories'
        files kept read-only too. ``prepare`` (a command is about to run; blocking): the
        agent's missing state directories a command could create are created
        (``agent_state``) and the machine's Unix sockets listed (``sockets``)."""
        workspace = self.workspace.resolve()

        def paths(items: list[str]) -> tuple[Path, ...]:
            out = []
            for item in items:
                path = Path(item).expanduser()
                out.append((path if path.is_absolute() else workspace / path).resolve())
            return tuple(out)

        read_only = [workspace / name for name in PROTECTED_IN_WORKSPACE]
        pointer = workspace / GIT_POINTER
        if pointer.is_file() and not pointer.is_symlink():  # a linked worktree's ``gitdir: …``
            read_only.append(pointer)
        hidden = [*paths(self.settings.deny_read), *(protected.paths if protected else ())]
        home = Path.home().resolve()
        if home.is_relative_to(workspace):  # the home's secrets and startup files are inside
            read_only += [home / name for name in RUNS_LATER_IN_HOME]
            hidden += [home / name for name in SECRETS_IN_HOME]
        # ``allow_write``, and the session's temp dir (``scratch``, the commands' TMPDIR)
        allow_write = (*paths(self.settings.allow_write), *([self.scratch] if self.scratch else []))
        allow_read = (*paths(self.settings.allow_read), *programs_in_hiding(home))
        from agent_tui.core.sandbox import agent_state, sockets
        from agent_tui.core.sandbox.bubblewrap import KEEP_FROM_HOME

        shown = (*allow_write, *allow_read, *(home / name for name in KEEP_FROM_HOME))
        if prepare:
            agent_state.prepare(workspace, (workspace, *allow_write))
        state = agent_state.masks(workspace, shown, home)
        read_only += state.read_only
        hidden += state.hidden
        if prepare:  # the machine's sockets, listed now (what a command would find)
            hidden += [*sockets.runs_apart(), *sockets.reachable(workspace, shown, home)]
        return Confinement(
            workspace=workspace,
            cwd=cwd.resolve(),
            network=self.network,
            allow_write=allow_write,
            read_only=tuple(read_only),
            masked=masked,
            hidden=tuple(hidden),
            allow_read=allow_read,
            sealed=state.sealed,
        )

    def writable_roots(self) -> tuple[Path, ...]:
        """The workspace and ``allow_write``, resolved (the private /tmp aside)."""
        workspace = self.workspace.resolve()
        out = [workspace]
        for item in self.settings.allow_write:
            path = Path(item).expanduser()
            out.append((path if path.is_absolute() else workspace / path).resolve())
        return tuple(out)

    def wrap(
        self,
        argv: list[str],
        cwd: Path,
        protected: Hidden | None = None,
        masked: tuple[Path, ...] = (),
    ) -> list[str]:
        """``argv`` confined; ``protected`` adds the files the read rules protect (found by
        the read guard: ``ReadGuard.hidden``, blocking) to the hidden ones, ``masked`` the
        nested git directories' files to the read-only ones. Blocking. Raises
        ``refusal.SandboxRefused`` when it cannot confine the command as promised (the search
        for protected files stopped early, …): the command must not run."""
        from agent_tui.core.sandbox.refusal import require_complete

        if protected is not None:
            require_complete(protected)
        return self.sandbox.wrap(argv, self.confinement(cwd, protected, masked, prepare=True))

    def protected(self) -> tuple[Path, ...]:
        """The paths kept read-only inside the writable ones, and the ``.git`` of the
        workspace (``aftercheck`` watches those that do not exist yet). Blocking: first makes
        the agent's state directories a command could create (``agent_state``), which are
        then no creation of the command's."""
        from agent_tui.core.sandbox import agent_state
        from agent_tui.core.sandbox.refusal import SandboxRefused

        with contextlib.suppress(SandboxRefused):  # ``wrap`` refuses the command then
            agent_state.prepare(self.workspace.resolve(), self.writable_roots())
        return (*self.confinement(self.workspace).read_only, self.workspace.resolve() / GIT_POINTER)

    def writable(self, path: Path) -> bool:
        """Whether a command in the sandbox may write ``path`` (resolved): the workspace, the
        private /tmp and ``allow_write`` — not the protected paths inside them."""
        c = self.confinement(self.workspace)
        if any(path == p or p in path.parents for p in (*c.read_only, *c.sealed)):
            return False
        roots = (c.workspace, *c.allow_write, Path("/tmp"))
        return any(path == root or root in path.parents for root in roots)

    @property
    def shelter(self) -> Shelter:
        return Shelter(True, self.network, self.sandbox.name)
