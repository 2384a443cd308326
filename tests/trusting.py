"""Trust for processes a test starts (the in-process gate is opened by ``conftest``)."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.claude.env import load_env
from agent_tui.core.claude.permissions import permission_config
from agent_tui.core.hooks import load_hooks
from agent_tui.core.mcp.config.load import load_config
from agent_tui.core.state.trust import ProjectTrust


def trust_everything(workspace: Path) -> None:
    """Trust what the project files of ``workspace`` ask for, as a user answering the prompt
    would (saved in the test's private data dir, which its subprocesses share)."""
    trust = ProjectTrust(workspace)
    trust.real_gate = True  # type: ignore[attr-defined]  # conftest: the real gate, to collect
    permission_config(workspace, trust=trust)  # ours and Claude Code's
    load_config(workspace, trust=trust)
    load_hooks(workspace, trust)  # ours and Claude Code's
    load_env(workspace, trust)  # .claude/settings*.json "env"
    trust.trust(list(trust.pending))
