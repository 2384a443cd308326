"""The OS sandbox for ``run_shell``: what the kernel enforces, whatever the permission analysis
thought of the command.

One small interface (``Sandbox``: ``wrap`` a command's argv, ``problem`` when it cannot work
here) with one backend today, bubblewrap on Linux (``bubblewrap.Bubblewrap``); a macOS
``sandbox-exec`` profile or Landlock can be added behind the same interface. ``choose`` picks
the sandbox the settings ask for, or says why there is none.

``settings`` is the ``"sandbox"`` settings section; ``confinement`` the interface (what a
command is confined to, a backend, how it ran); ``shell_sandbox`` what ``run_shell``'s commands
are confined to; ``state`` which sandbox a session has. The other modules are the backend
(``bubblewrap``; ``lifeline`` and its ``zygote`` without it), what is checked around a command
(``command_guard``, ``aftercheck``, ``git_watch``, ``quarantine``…) and its environment
(``environment``, ``session_env``, ``scratch``, ``sockets``). This module only re-exports the
names many callers use.

It may import the standard library, pydantic and ``core.state`` (paths, no-follow opens);
never the permission pipeline, the tools or the agent: they import it.
"""

from agent_tui.core.sandbox.confinement import Confinement, Hidden, Sandbox, Shelter
from agent_tui.core.sandbox.settings import SandboxMode, SandboxSettings
from agent_tui.core.sandbox.shell_sandbox import (
    GIT_POINTER,
    PROTECTED_IN_WORKSPACE,
    RUNS_LATER_IN_HOME,
    SECRETS_IN_HOME,
    ShellSandbox,
    programs_in_hiding,
)
from agent_tui.core.sandbox.state import (
    NO_SANDBOX,
    UNCONFINED,
    SandboxState,
    SessionSandbox,
    choose,
)

__all__ = [
    "GIT_POINTER",
    "NO_SANDBOX",
    "PROTECTED_IN_WORKSPACE",
    "RUNS_LATER_IN_HOME",
    "SECRETS_IN_HOME",
    "UNCONFINED",
    "Confinement",
    "Hidden",
    "Sandbox",
    "SandboxMode",
    "SandboxSettings",
    "SandboxState",
    "SessionSandbox",
    "ShellSandbox",
    "Shelter",
    "choose",
    "programs_in_hiding",
]
