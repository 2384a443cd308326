"""Hooks: the user's own commands around the agent's lifecycle, Claude Code compatible.

Events: ``PreToolUse`` (before a call is judged: block it, ask, allow, or rewrite its input),
``PostToolUse`` (after it succeeded: add to what the model sees), ``PostToolUseFailure``
(after it failed), ``UserPromptSubmit`` (block a prompt or add context to it), ``Stop`` (the
model ended its turn: block = go on, with the reason as the next instruction, once),
``SessionStart`` (context for the first prompt; matcher ``startup``/``resume``/``clear``/
``compact``), ``PreCompact`` (block a compaction; matcher ``manual``/``auto``). A hook reads
the event as JSON on stdin in Claude Code's shape (``payload``: ``tool_name`` ``Bash``,
``tool_input.file_path``, ``permission_mode``, ``transcript_path``…) and answers by exit code
(0 ok — stdout is context on UserPromptSubmit/SessionStart —, 2 block with stderr as the
reason, other codes: the hook failed, see below) or by JSON on stdout (``decision``,
``reason``, ``continue``/``stopReason``, ``systemMessage``, ``suppressOutput``,
``hookSpecificOutput`` with ``permissionDecision``, ``permissionDecisionReason``,
``updatedInput`` in Claude Code's field names or ours, ``additionalContext``).

Security (fail closed): hooks of the user's settings file run as the user's own programs,
outside the sandbox (``placement``: unless they run a file of the workspace); those of a
project's files (``.agent-tui/settings.json``, ``settings.local.json``) run confined, and only
once the user trusted that file's ``"hooks"`` section as it is (``core.state.trust``; a change asks
again; headless skips them with a warning). A hook can make a call stricter, never looser than
the rules: its input rewrite is validated against the tool's schema and judged by the
permission pipeline again, a deny there stays a deny, and a hook's ``allow`` skips an ask only
when the hook comes from the user's own settings and the ask is one some mode could skip (not
a protected path, not an opaque command). A project hook's ``allow`` counts for nothing.

A hook that cannot run (``failures``: not found, killed, timed out, an exit code other than 0
and 2, an unreadable answer) never stops the loop, and is always shown (``hook`` events). A
``PreToolUse`` hook's failure blocks its call, with the reason (``"onFailure": "ignore"`` on the
hook lets the call go on); ``UserPromptSubmit`` and ``PreCompact`` block only with
``"onFailure": "block"``; for the other events the session goes on as if the hook had said
nothing (a ``PostToolUse`` hook comes after its call: nothing to undo).

``config`` parses the settings' ``"hooks"`` sections; ``session`` holds a session's hooks and
runs an event's (``Hooks``, ``load_hooks``); ``verdict`` folds their answers together;
``payload`` writes what a hook reads (``transcript_view``: the copy of the transcript a
hook in the sandbox opens); ``prompts`` has the session's model judge a ``"type":
"prompt"`` hook; ``envfile`` reads ``CLAUDE_ENV_FILE``; ``runner`` runs one hook's command
(``placement`` decides whether it is confined); ``failures`` says why a hook could not answer.
This module only re-exports.

It may import ``core.claude`` (the names table), ``core.events``, ``core.sandbox``,
``core.settings``, ``core.state.trust`` and ``core.tools.reads``; the agent, the executor and
``cli.assemble`` use it.
"""

from typing import TYPE_CHECKING

from agent_tui.core import lazy
from agent_tui.core.hooks.config import CLAUDE_ALIASES, EVENTS, HookSpec
from agent_tui.core.hooks.payload import SessionFacts
from agent_tui.core.hooks.session import Hooks, load_hooks, notify, session_end

if TYPE_CHECKING:  # imported by the first hook run (issue 45)
    from agent_tui.core.hooks.verdict import HookVerdict
else:
    __getattr__ = lazy.exports(__name__, {"HookVerdict": "verdict"})

__all__ = [
    "CLAUDE_ALIASES",
    "EVENTS",
    "HookSpec",
    "HookVerdict",
    "Hooks",
    "SessionFacts",
    "load_hooks",
    "notify",
    "session_end",
]
