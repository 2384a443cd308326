"""The ``text`` output of a headless run: the answer streamed to stdout (and a plan proposed
with ``exit_plan_mode``, whole), one compact line per tool event (a call, its result, a spill,
a rejection, a plan step, a hook, a retry) and what a custom command grants its turn to
stderr."""

from __future__ import annotations

import json
from typing import TextIO

from agent_tui.core.events import (
    AssistantDelta,
    ErrorEvent,
    Event,
    HookEvent,
    JobsEnded,
    ModelRetry,
    PlanEvent,
    Spill,
    ToolErrorEvent,
    ToolRejected,
    ToolResult,
    ToolUse,
    TurnEnd,
    UserMessage,
)
from agent_tui.core.text.summary import plural

PLAN_HANDOFF = ("exit_plan_mode", "ExitPlanMode")
"""A plan proposed in plan mode goes to stdout whole: a headless run never approves it
(``core.plan_review``), so the plan is what the run hands over."""


def _short(value: object, limit: int = 100) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class TextRenderer:
    """Assistant text to ``out``; a compact line per tool event to ``err``."""

    def __init__(self, out: TextIO, err: TextIO) -> None:
        self.out, self.err = out, err
        self.at_line_start = True

    def _text(self, text: str) -> None:
        self.out.write(text)
        self.out.flush()
        self.at_line_start = text.endswith("\n")

    def _note(self, line: str) -> None:
        if not self.at_line_start:
            self._text("\n")
        self.err.write(line + "\n")
        self.err.flush()

    def __call__(self, event: Event) -> None:
        if isinstance(event, AssistantDelta):
            self._text(event.text)
        elif isinstance(event, UserMessage) and event.command is not None:
            self._note(f"⚑ {event.command.summary()}")
        elif isinstance(event, ToolUse):
            shown = event.input if event.input is not None else event.raw_arguments
            self._note(f"→ {event.name} {_short(shown)}")
            plan = (event.input or {}).get("plan")
            if event.name in PLAN_HANDOFF and isinstance(plan, str):
                self._text("\n" + plan.strip() + "\n\n")  # what the run hands over
        elif isinstance(event, ToolResult):
            mark = "✗" if event.is_error else "✓"
            first = next((ln for ln in event.content.splitlines() if ln.strip()), "")
            self._note(f"{mark} {event.name} ({event.elapsed:.2f}s) {_short(first, 80)}")
        elif isinstance(event, Spill):
            what = "log compressed" if event.reason == "log_compression" else "output spilled"
            self._note(
                f"⤵ {event.name} {what}: full output ({plural(event.chars, 'char')}, "
                f"{plural(event.lines, 'line')}) in {event.path}"
            )
        elif isinstance(event, ToolErrorEvent):
            self._note(f"✗ {event.name} error [{event.code}]: {event.message}")
        elif isinstance(event, ToolRejected):
            self._note(f"⊘ {event.name} rejected: {event.reason}")
        elif isinstance(event, PlanEvent):
            current = next((s.content for s in event.steps if s.status == "in_progress"), "")
            self._note(
                f"☰ plan {event.done}/{len(event.steps)}"
                + (f" · {_short(current, 60)}" if current else "")
            )
        elif isinstance(event, HookEvent):
            self._note(
                f"⚓ {event.event} hook {event.outcome}"
                + (f": {_short(event.message, 100)}" if event.message else "")
            )
        elif isinstance(event, JobsEnded):
            for job in event.jobs:
                code = "" if job.exit_code is None else f" {job.exit_code}"
                self._note(
                    f"⚙ background job {job.id} {job.state}{code}: {_short(job.command, 80)}"
                )
        elif isinstance(event, ModelRetry):
            whose = "as the server asked" if event.retry_after else "backoff"
            self._note(
                f"↻ retry {event.attempt} of {event.retries} in {event.wait:.1f}s ({whose}): "
                f"{_short(event.reason, 160)}"
            )
        elif isinstance(event, ErrorEvent):
            self._note(f"error ({event.where}): {event.message}")
        elif isinstance(event, TurnEnd):
            if not self.at_line_start:
                self._text("\n")
            if event.reason == "interrupted":
                self._note("[interrupted]")
