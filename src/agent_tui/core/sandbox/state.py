"""What a session's commands run in: ``choose`` picks the sandbox the settings ask for, or says
why there is none (``SandboxState``); ``SessionSandbox`` finds it on first use, with the
session's temp directory; ``UNCONFINED`` is no sandbox at all."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_tui.core.sandbox.confinement import Shelter
from agent_tui.core.sandbox.scratch import Scratch
from agent_tui.core.sandbox.session_env import SessionEnv
from agent_tui.core.sandbox.settings import SandboxMode, SandboxSettings
from agent_tui.core.sandbox.shell_sandbox import ShellSandbox

if TYPE_CHECKING:
    from agent_tui.core.sandbox.git_watch import Watch


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
        self.hook_env: dict[str, str] = {}
        """What the user's SessionStart hooks set for the session's commands
        (``CLAUDE_ENV_FILE``: ``core.hooks.envfile``), allow-listed like the rest."""
        self.env = SessionEnv()
        """What the settings files' ``env`` sets for the session's commands and hooks (the
        user's, a trusted project's: ``session_env``), filled by ``core.claude.env``."""

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
