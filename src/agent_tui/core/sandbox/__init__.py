"""The OS sandbox for ``run_shell``: what the kernel enforces, whatever the permission analysis
thought of the command.

One small interface (``Sandbox``: ``wrap`` a command's argv, ``problem`` when it cannot work
here) with one backend today, bubblewrap on Linux (``bubblewrap.Bubblewrap``); a macOS
``sandbox-exec`` profile or Landlock can be added behind the same interface. ``choose`` picks
the sandbox the settings ask for, or says why there is none.
"""

from __future__ import annotations

import contextlib
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from agent_tui.core.sandbox.scratch import Scratch

if TYPE_CHECKING:
    from agent_tui.core.sandbox.git_watch import Watch

SandboxMode = Literal["auto", "required", "off"]


class SandboxSettings(BaseModel):
    """``"sandbox"`` in the settings files."""

    model_config = ConfigDict(extra="forbid")

    mode: SandboxMode = "auto"
    """``auto``: on where it works (a notice says when it does not); ``required``: no command
    runs without it; ``off``: commands run as the user, unconfined."""
    network: Literal["off", "on"] = "off"
    """``off``: no network at all inside the sandbox (not even 127.0.0.1); ``on``: shared."""
    allow_write: list[str] = Field(default_factory=list)
    """More paths commands may write (the workspace and a private /tmp always are)."""
    deny_read: list[str] = Field(default_factory=list)
    """Paths hidden from commands (as well as the files of ``read_file`` deny rules)."""
    allow_read: list[str] = Field(default_factory=list)
    """Paths of the (otherwise hidden) home directory commands may read (``~/.m2``…)."""
    auto_allow: bool = False
    """Commands the sandbox confines run without asking, unless a deny or ask rule (or a
    check that asks in every mode) says otherwise; commands that need the network or write
    outside the sandbox still ask (``permissions.shell_judge``)."""

    @staticmethod
    def loosening(section: dict[str, object]) -> list[str]:
        """The keys of a ``sandbox`` settings object that would weaken the sandbox: a file a
        repository can ship (the project's settings) may not set them."""
        out = []
        if section.get("mode") in ("off", "auto"):  # "auto" too: it loosens "required"
            out.append("mode")
        if section.get("network") == "on":
            out.append("network")
        for key in ("allow_write", "allow_read"):
            if section.get(key):
                out.append(key)
        if section.get("auto_allow") is True:
            out.append("auto_allow")
        return out


@dataclass(frozen=True)
class Hidden:
    """The files on disk a read guard protects, found for the sandbox to hide
    (``ReadGuard.hidden``)."""

    paths: tuple[Path, ...] = ()
    complete: bool = True
    """False when the search stopped early (too many files): more may exist."""
    looked_at: int = 0
    """Directory entries the search looked at."""


@dataclass(frozen=True)
class Confinement:
    """What one command is confined to."""

    workspace: Path
    cwd: Path
    network: bool = False
    allow_write: tuple[Path, ...] = ()
    read_only: tuple[Path, ...] = ()
    """Paths inside the writable ones that stay read-only (protected paths)."""
    masked: tuple[Path, ...] = ()
    """Read-only too, but their directories are not pinned (mount points): the configs and
    hooks of nested and bare git directories (``git_watch.Watch.masks``)."""
    hidden: tuple[Path, ...] = ()
    """Paths whose content commands must not see."""
    allow_read: tuple[Path, ...] = ()
    """Paths of the home directory shown read-only."""
    home: Path | None = field(default_factory=Path.home)
    """Hidden (an empty tmpfs), except the workspace and a few read-only files
    (``bubblewrap.KEEP_FROM_HOME``)."""
    sealed: tuple[Path, ...] = ()
    """Directories replaced by an empty read-only one, wherever they are: the agent's own
    state (``agent_state``)."""


class Sandbox(Protocol):
    """A way to run a command confined."""

    name: str

    def problem(self) -> str | None:
        """Why it cannot confine commands here (None when it can)."""
        ...

    def wrap(self, argv: list[str], confinement: Confinement) -> list[str]:
        """The argv that runs ``argv`` confined."""
        ...


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


@dataclass(frozen=True)
class Shelter:
    """How a shell command runs: in the sandbox (and with or without network), or not and why.
    Carried by the permission decision (the prompt) and the result (the card)."""

    sandboxed: bool
    network: bool = True
    backend: str = ""
    why_not: str | None = None
    """Unsandboxed: the sandbox is off, or what keeps it from working here."""

    @property
    def label(self) -> str:
        """``sandboxed · no network``, ``sandboxed · network on``, ``not sandboxed``."""
        if self.sandboxed:
            return "sandboxed · " + ("network on" if self.network else "no network")
        return "not sandboxed"


@dataclass(frozen=True)
class SandboxState:
    """What the session's commands run in: a sandbox, or none and why."""

    mode: SandboxMode
    shell: ShellSandbox | None = None
    problem: str | None = None
    """Why there is no sandbox (None when it is off by choice or working)."""

    @property
    def refuses(self) -> bool:
        """``required`` and no sandbox: no command may run."""
        return self.mode == "required" and self.shell is None

    @property
    def shelter(self) -> Shelter:
        """How this session's commands run."""
        if self.shell is not None:
            return self.shell.shelter
        why = "the sandbox is off (sandbox.mode is off)" if self.mode == "off" else self.problem
        return Shelter(False, True, "", why)

    def describe(self) -> str:
        """One line for the status bar and ``sandbox status``."""
        if self.shell is not None:
            net = "network on" if self.shell.network else "no network"
            return f"sandboxed ({self.shell.sandbox.name}) · {net}"
        if self.mode == "off":
            return "sandbox off"
        return f"no sandbox: {self.problem}"


def choose(settings: SandboxSettings, workspace: Path) -> SandboxState:
    """The sandbox the settings ask for, if it works here."""
    if settings.mode == "off":
        return SandboxState("off")
    from agent_tui.core.sandbox.bubblewrap import Bubblewrap

    backend = Bubblewrap()
    problem = backend.problem()
    if problem is not None:
        return SandboxState(settings.mode, None, problem)
    return SandboxState(settings.mode, ShellSandbox(backend, settings, workspace))


NO_SANDBOX = SandboxState("off")


class SessionSandbox:
    """The sandbox of one session, found on first use (``state``): probing bubblewrap starts a
    process, which start-up should not wait for."""

    def __init__(self, settings: SandboxSettings, workspace: Path, *, scratch: bool = True) -> None:
        self.settings = settings
        self.workspace = workspace
        self._state: SandboxState | None = None
        self.scratch = Scratch() if scratch else None
        """The session's temp directory (``TMPDIR`` of its commands), made on first use."""
        self.nested_git: Watch | None = None
        """The watch of git's config in the workspace (``git_watch``), made by the first
        command."""

    @property
    def state(self) -> SandboxState:
        if self._state is None:
            state = choose(self.settings, self.workspace)
            if state.shell is not None:
                state.shell.scratch = self.temp_dir
            self._state = state
        return self._state

    @property
    def temp_dir(self) -> Path | None:
        """The session's temp directory (made now if it was not yet), or None (no session, or
        no temporary directory can be made: a read-only system; writes outside then ask)."""
        if self.scratch is None:
            return None
        try:
            return self.scratch.path
        except OSError:  # mkdtemp: no usable temporary directory
            return None


UNCONFINED = SessionSandbox(SandboxSettings(mode="off"), Path("/"), scratch=False)
"""No sandbox (tools called directly, as the tests of single tools do)."""
