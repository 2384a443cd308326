"""The sandbox's interface: what one command is confined to (``Confinement``, with the
protected files a read guard found: ``Hidden``), a way to run it confined (``Sandbox``: one
backend today, ``bubblewrap``), and how a command ran, as the prompt and the card show it
(``Shelter``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


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
