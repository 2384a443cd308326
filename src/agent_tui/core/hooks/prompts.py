"""``"type": "prompt"`` hooks: the session's model judges the event, as in Claude Code.

The hook's ``prompt`` with ``$ARGUMENTS`` replaced by the event's JSON (appended when it has
no ``$ARGUMENTS``) is sent to the session's model (``Judge``, given by the agent), which
answers with a JSON object: ``{"ok": true}`` lets the event go on, ``{"ok": false, "reason":
"…"}`` blocks it as a command hook's block would (on ``PreToolUse`` a deny with the reason).
Claude Code's older answer (``decision``, ``reason``, ``continue``, ``systemMessage``) is read
too. An answer that is not such an object, a model that fails or is too slow, or no model at
all is a hook that could not run (``failures``): a ``PreToolUse`` prompt hook then blocks its
call — a judge that cannot judge waves nothing through. An ``ok: true`` never allows a call
the rules would ask about.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any

from agent_tui.core.hooks.config import HookSpec
from agent_tui.core.hooks.runner import HookProcess

Judge = Callable[[str, str], Awaitable[str]]
"""Asks the session's model: (system prompt, text) → its answer's text."""

SYSTEM = (
    "You evaluate a hook condition for a coding agent. The user message holds the condition "
    "and the event's JSON. Answer with one JSON object and nothing else: "
    '{"ok": true} when the condition is met, or {"ok": false, "reason": "why"} when it is not.'
)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$")


def prompt_text(prompt: str, event_json: str) -> str:
    """The hook's prompt with ``$ARGUMENTS`` replaced by the event's JSON (or it appended)."""
    if "$ARGUMENTS" in prompt:
        return prompt.replace("$ARGUMENTS", event_json)
    return f"{prompt}\n\n{event_json}"


async def run_prompt(spec: HookSpec, payload: dict[str, Any], judge: Judge | None) -> HookProcess:
    """Judge one prompt hook: a ``HookProcess`` whose stdout is the answer in a command hook's
    JSON (so ``verdict.judge`` folds it alike), or why it could not."""
    if judge is None:
        return HookProcess(None, error="could not run (no model to judge a prompt hook here)")
    assert spec.prompt is not None
    text = prompt_text(spec.prompt, json.dumps(payload, ensure_ascii=False))
    try:
        answer = await asyncio.wait_for(judge(SYSTEM, text), spec.timeout)
    except TimeoutError:
        return HookProcess(None, timed_out=True)
    except Exception as exc:  # the model failed: the hook could not answer
        return HookProcess(None, error=f"could not run (the model failed: {exc})")
    translated = translate(answer, spec.event)
    if translated is None:
        shown = " ".join(answer.split())[:200]
        return HookProcess(None, stdout=answer, error=f"gave an answer that is not JSON ({shown})")
    return HookProcess(0, stdout=translated)


def translate(answer: str, event: str) -> str | None:
    """The model's answer as a command hook's JSON answer, or None when it cannot be read."""
    text = _FENCE.sub("", answer.strip())
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        value = json.loads(text[start : end + 1])
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    ok = value.get("ok")
    if not isinstance(ok, bool):
        return json.dumps(value) if "decision" in value or "continue" in value else None
    given = value.get("reason")
    reason = given if isinstance(given, str) and given else "a prompt hook said no"
    out: dict[str, Any] = {}
    if not ok and event == "PreToolUse":
        out["hookSpecificOutput"] = {
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    elif not ok:
        out |= {"decision": "block", "reason": reason}
    return json.dumps(out)


__all__ = ["SYSTEM", "Judge", "prompt_text", "run_prompt", "translate"]
