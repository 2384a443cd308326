"""The variables the settings files set for a session's commands and hooks (``SessionEnv``):
Claude Code's ``env`` key, read by ``core.claude.env``.

Two layers, kept apart because they are trusted differently:

- ``user``: the user's own ``env`` (``~/.claude/settings.json``). Every command and every hook
  gets it. In the sandbox its names pass the environment allow-list (``sandbox.environment``)
  — naming a variable in one's own settings is a deliberate choice — except a name that looks
  like a secret and the provider keys, which need ``shell.env`` as any secret does.
- ``project``: a repository's ``env`` (``.claude/settings*.json``), once the user trusted it,
  and only names a project may set at all (``core.claude.env.project_refusal``). Commands and
  confined hooks get it; it never replaces a variable set any other way (the agent's
  environment, the user's ``env``, ``CLAUDE_ENV_FILE``), and never reaches the user's own hooks,
  agent-tui's own processes (git, MCP servers) or the agent itself: nothing here touches
  ``os.environ``.

``waiting`` holds a project file's variables until the user trusts its item (``trusted``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass
class SessionEnv:
    """The settings files' variables for the session's commands and hooks."""

    user: dict[str, str] = field(default_factory=dict)
    """The user's own ``env``: every command and every hook."""
    project: dict[str, str] = field(default_factory=dict)
    """Trusted project files' variables (only names a project may set): commands and confined
    hooks; under everything else."""
    waiting: dict[str, dict[str, str]] = field(default_factory=dict)
    """A project file's variables by the key of its trust item, until trusted."""

    def trusted(self, keys: Iterable[str]) -> None:
        """The user trusted the items of ``keys``: their variables apply from now on (a later
        file's value wins, as the files were read least specific first)."""
        for key in keys:
            found = self.waiting.pop(key, None)
            if found is not None:
                self.project.update(found)
