"""The session's hooks bound to the agent that runs them (``bind_hooks``): the sandbox and
environment its commands get, the session and permission mode every event tells, the
session's Claude Code transcript (``transcript_path``, brought up to date before each event's
hooks: ``core.conversation.claude_export``), and the model that judges ``"type": "prompt"``
hooks (``judge``: one request, no tools, its text). A prompt hook's request is the session's
model's; its tokens are not counted in the session's usage."""

from __future__ import annotations

import logging
from typing import Protocol

from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.executor import ToolExecutor
from agent_tui.core.hooks import Hooks, SessionFacts
from agent_tui.core.hooks.payload import NO_TRANSCRIPT
from agent_tui.core.permissions import PermissionPolicy
from agent_tui.core.providers.base import Completion, ModelRequest, Provider, TextDelta
from agent_tui.core.settings import Settings
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.transcript import Message

JUDGE_MAX_TOKENS = 1024
log = logging.getLogger(__name__)


class HookHost(Protocol):
    """What binding reads of the agent (public members of ``Agent``)."""

    executor: ToolExecutor
    settings: Settings
    policy: PermissionPolicy
    provider: Provider

    @property
    def session(self) -> SessionLog | None: ...


def bind_hooks(hooks: Hooks, host: HookHost) -> None:
    """Give ``hooks`` what they need of ``host``, read when a hook runs (the session can be
    switched, the mode and the model changed)."""
    hooks.sandbox = host.executor.sandbox
    hooks.env_names = tuple(host.settings.shell.env)
    hooks.reads = host.policy.reads
    hooks.facts = lambda: SessionFacts.of(host.session, host.policy.mode)
    hooks.transcript = lambda: claude_transcript(host.session)

    async def judge(system: str, text: str) -> str:
        return await ask_text(host.provider, system, text)

    hooks.judge = judge


def claude_transcript(session: SessionLog | None) -> str:
    """The session's Claude Code transcript brought up to date (blocking), its path for the
    hooks' ``transcript_path``: ``/dev/null`` when there is no session file or no export
    could be made (the failure is logged, the hook runs)."""
    if session is None or not session.path.is_file():
        return NO_TRANSCRIPT
    try:
        done = session.claude_transcript().refresh()
    except Exception:  # a bug here must not stop a hook, nor the turn
        log.exception("the Claude Code transcript of %s could not be made", session.path)
        return NO_TRANSCRIPT
    return str(done.path) if done.path is not None else NO_TRANSCRIPT


async def ask_text(provider: Provider, system: str, text: str) -> str:
    """One request to ``provider`` with no tools: the text of its answer."""
    request = ModelRequest(
        system=system,
        messages=[Message.user(text)],
        tools=ToolRegistry(),
        max_tokens=JUDGE_MAX_TOKENS,
    )
    parts: list[str] = []
    async for item in provider.stream(request):
        if isinstance(item, TextDelta) or (isinstance(item, Completion) and not parts):
            parts.append(item.text)
    return "".join(parts)


__all__ = ["HookHost", "ask_text", "bind_hooks", "claude_transcript"]
