"""When a hook cannot run, and what that says: to the user, and to the model through the call it
blocked.

"Cannot run" is everything but an answer: the command was not found (exit 127) or cannot be
executed (126), it could not start, a required sandbox is missing, it was killed (by a signal,
or by its deadline), it exited with a code other than 0 (its answer) and 2 (a block, on
purpose), or — when it must decide (``onFailure: block``) — it printed a JSON answer that cannot
be read: not JSON, cut at the output cap, a ``decision`` or ``permissionDecision`` that is not
one of the known words. Claude Code treats most of these as "non-blocking errors"; a guard that
fails open is worse than none, so a ``PreToolUse`` hook blocks its call by default
(``config.HookSpec.failure_policy``).
"""

from __future__ import annotations

import json
import re
import signal
from pathlib import Path
from typing import Any

from agent_tui.core.hooks.config import HookEventName, HookSpec
from agent_tui.core.hooks.runner import OUTPUT_CAP, HookProcess

SHOWN_COMMAND = 80
"""Characters of a hook's command line quoted in a message."""

_CONSEQUENCE: dict[str, str] = {
    "PreToolUse": "the call was blocked (nothing ran)",
    "UserPromptSubmit": "the prompt was not sent",
    "PreCompact": "the compaction was cancelled",
}
_PERMISSIONS = ("allow", "deny", "ask")
_SHELL_PREFIX = re.compile(r"^(?:/bin/|/usr/bin/)?(?:sh|dash|bash): (?:line )?\d+: ")
_DECISIONS = ("approve", "block")


def why_not_run(proc: HookProcess, spec: HookSpec) -> str | None:
    """What kept the hook from answering (``could not run (exit 127: not found)``), or None
    when it answered: exit 0 (with a readable answer when it must decide) or exit 2."""
    if proc.error is not None:
        return proc.error
    if proc.timed_out:
        return f"did not finish within {spec.timeout:g} s (its processes were killed)"
    code = proc.exit_code
    if code is None:
        return "could not run (no exit status)"
    if code < 0:
        return f"was killed ({_signal_name(-code)})"
    if code == 127:
        return f"could not run (exit 127: not found{_last_line(proc.stderr)})"
    if code == 126:
        return f"could not run (exit 126: not executable{_last_line(proc.stderr)})"
    if 128 < code <= 128 + 64:
        return f"was killed (exit {code}: {_signal_name(code - 128)})"
    if code not in (0, 2):
        return (
            f"failed (exit {code}{_last_line(proc.stderr)}; to block on purpose a hook exits 2 "
            "with the reason on stderr)"
        )
    if code == 0 and spec.failure_policy == "block":
        return unreadable_answer(proc.stdout, spec.event)
    return None


def unreadable_answer(stdout: str, event: HookEventName) -> str | None:
    """Why a JSON answer (stdout that starts with ``{``) cannot be used, or None."""
    if not stdout.startswith("{"):
        return None  # plain text: no decision, as in Claude Code
    try:
        answer: Any = json.loads(stdout)
    except json.JSONDecodeError as exc:
        cut = " (it was cut: more than 64 KiB)" if len(stdout.encode()) >= OUTPUT_CAP else ""
        return f"gave an answer that is not valid JSON ({exc.msg}){cut}"
    except ValueError as exc:  # too deeply nested, a number too long
        return f"gave an answer that cannot be read ({exc})"
    if not isinstance(answer, dict):
        return "gave a JSON answer that is not an object"
    decision = answer.get("decision")
    if decision is not None and decision not in _DECISIONS:
        return f'gave an unknown "decision": {decision!r} (known: "block", "approve")'
    specific = answer.get("hookSpecificOutput")
    if specific is not None and not isinstance(specific, dict):
        return 'gave a "hookSpecificOutput" that is not an object'
    permission = (specific or {}).get("permissionDecision")
    if event == "PreToolUse" and permission is not None and permission not in _PERMISSIONS:
        return (
            f'gave an unknown "permissionDecision": {permission!r} (known: "allow", "deny", "ask")'
        )
    return None


def failure_message(spec: HookSpec, why: str, *, blocks: bool) -> str:
    """The sentence for the user (the hook event) and, when it blocks, the model (the call's
    rejection): which hook, what happened, what it did, how to fix it."""
    if blocks:
        done = _CONSEQUENCE.get(spec.event, "it blocked")
    elif spec.event == "PostToolUse":
        done = "the call had already run and its result stands"
    else:
        done = "it was ignored"
    fix = f"fix the hook or remove it from {shorten(str(spec.source))}"
    if not blocks and spec.on_failure == "ignore" and spec.event == "PreToolUse":
        done += ' ("onFailure": "ignore")'
    return f"the {spec.event} hook `{shown_command(spec.shown)}` {why}: {done}; {fix}"


def shown_command(command: str) -> str:
    one_line = " ".join(shorten(command).split())
    if len(one_line) > SHOWN_COMMAND:
        return one_line[: SHOWN_COMMAND - 1] + "…"
    return one_line


def shorten(text: str) -> str:
    """``text`` with the home directory written ``~``."""
    home = str(Path.home())
    return text.replace(home + "/", "~/") if home not in ("", "/") else text


def _last_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return ""
    last = _SHELL_PREFIX.sub("", shorten(lines[-1]))  # "/bin/sh: 1: " says nothing
    return f": {last[:200]}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


__all__ = ["failure_message", "shorten", "shown_command", "unreadable_answer", "why_not_run"]
