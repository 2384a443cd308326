"""Test tools whose timing the test controls, a driver for the executor, a record of who calls
``policy.decide``, process checks and wire-format checks of a transcript."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import os
import signal
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from agent_tui.core.budget import BudgetSettings
from agent_tui.core.events import Event
from agent_tui.core.executor import ToolExecutor, Transition
from agent_tui.core.permissions import (
    ApprovalRequest,
    Asker,
    Decision,
    PermissionPolicy,
    SimplePolicy,
)
from agent_tui.core.providers.anthropic import to_anthropic_messages
from agent_tui.core.providers.openai import to_openai_messages
from agent_tui.core.tools import (
    ProgressUpdate,
    Tool,
    ToolContext,
    ToolInput,
    ToolMeta,
    ToolOutput,
    ToolRegistry,
)
from agent_tui.core.tools.builtin import run_shell
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.transcript import Message, ToolCall
from tests.core.tools.conftest import pid_gone, wait_until

DEADLINE = 15.0
SAFE = ToolMeta(read_only=True, concurrency_safe=True)


class Probe:
    """What the test tools did, and the switches that let them go on.

    ``signal(name)`` is an event set by the tools (``<tag>:started``, ``<tag>:done``,
    ``<tag>:cancelled``) or by the test (``release``)."""

    def __init__(self) -> None:
        self.running = 0
        self.peak = 0
        self.calls: list[str] = []
        self.cancelled: list[str] = []
        self._signals: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)

    def signal(self, name: str) -> asyncio.Event:
        return self._signals[name]

    async def wait(self, name: str) -> None:
        async with asyncio.timeout(DEADLINE):
            await self.signal(name).wait()


class WorkIn(ToolInput):
    tag: str
    seconds: float = 0.0
    """Work that takes this long (the call's own duration, not synchronisation)."""
    hold: bool = False
    """Wait until the test sets ``probe.signal("release")``."""
    after: list[str] = []
    """Wait for these probe signals first."""
    fail: bool = False
    """End with output marked ``is_error`` (like a non-zero exit)."""
    error: str = ""
    """End with a tool error of this code (like a timeout)."""
    command: str = ""
    """For the failing tools: shown in the cancellation message of their siblings."""


def work_tools(probe: Probe) -> list[Tool[Any]]:
    """``work`` (concurrency-safe, read-only), ``breaker`` (like ``work`` but its failure
    cancels its siblings, as run_shell's does) and ``touch`` (not safe: a batch of its own)."""

    async def work(inp: WorkIn, ctx: ToolContext) -> ToolOutput:
        probe.calls.append(inp.tag)
        probe.running += 1
        probe.peak = max(probe.peak, probe.running)
        probe.signal(f"{inp.tag}:started").set()
        try:
            ctx.progress(ProgressUpdate(lines=(f"{inp.tag} working",)))
            for name in inp.after:
                await probe.signal(name).wait()
            if inp.seconds:
                await asyncio.sleep(inp.seconds)
            if inp.hold:
                await probe.signal("release").wait()
        except asyncio.CancelledError:
            probe.cancelled.append(inp.tag)
            probe.signal(f"{inp.tag}:cancelled").set()
            raise
        finally:
            probe.running -= 1
        probe.signal(f"{inp.tag}:done").set()
        if inp.error:
            raise ToolFailure(inp.error, f"{inp.tag} broke")
        if inp.fail:
            return ToolOutput(f"{inp.tag} failed", is_error=True, data={"exit_code": 3})
        return ToolOutput(f"{inp.tag} ok")

    async def touch(inp: WorkIn, ctx: ToolContext) -> ToolOutput:
        probe.calls.append(inp.tag)
        ctx.resolve(inp.tag).write_text("touched")
        return ToolOutput(f"touched {inp.tag}")

    breaker_meta = replace(SAFE, cancels_siblings_on_failure=True, rule_subject="command")
    return [
        Tool("work", "Do some work.", WorkIn, work, meta=SAFE),
        Tool("breaker", "Work; its failure cancels siblings.", WorkIn, work, meta=breaker_meta),
        Tool("touch", "Create the file named tag.", WorkIn, touch),
    ]


def parallel_shell() -> Tool[Any]:
    """run_shell as it would be if it were concurrency-safe: real shells in one batch."""
    tool = run_shell.TOOL
    return replace(tool, meta=replace(tool.meta, concurrency_safe=True))


def call(call_id: str, name: str = "work", **arguments: Any) -> ToolCall:
    return ToolCall(id=call_id, name=name, arguments=json.dumps(arguments))


def executor(
    tmp_path: Path,
    tools: list[Tool[Any]],
    *,
    policy: PermissionPolicy | None = None,
    asker: Asker | None = None,
    max_parallel: int = 10,
    on_transition: Callable[[Transition], None] | None = None,
) -> ToolExecutor:
    return ToolExecutor(
        ToolRegistry(tools),
        tmp_path,
        policy or SimplePolicy(),
        asker,
        FileStateCache(),
        budget=BudgetSettings(),
        max_parallel=max_parallel,
        on_transition=on_transition,
    )


async def run_calls(
    ex: ToolExecutor,
    calls: list[ToolCall],
    interrupted: asyncio.Event | None = None,
    on_event: Callable[[Event], None] | None = None,
) -> tuple[list[Event], list[Message]]:
    """Drive ``ex.execute`` to its end under the deadline: (events, tool messages)."""
    out: list[Message] = []
    events: list[Event] = []
    stream: AsyncIterator[Event] = ex.execute(calls, out, interrupted or asyncio.Event())
    async with asyncio.timeout(DEADLINE):
        async for event in stream:
            events.append(event)
            if on_event is not None:
                on_event(event)
    return events, out


def finals(events: list[Event]) -> list[tuple[str, str]]:
    """(id, type) of every final tool event, in emission order."""
    kinds = ("tool_result", "tool_error", "tool_rejected")
    return [(e.id, e.type) for e in events if e.type in kinds]  # type: ignore[union-attr]


def position(events: list[Event], kind: str, call_id: str, message: str | None = None) -> int:
    for n, event in enumerate(events):
        same = event.type == kind and getattr(event, "id", None) == call_id
        if same and (message is None or getattr(event, "message", None) == message):
            return n
    raise AssertionError(f"no {kind} for {call_id} in {[e.type for e in events]}")


# -- who decides --------------------------------------------------------------------------

EXECUTOR = "agent_tui.core.executor.approval"


def record_decisions(policy: PermissionPolicy) -> list[tuple[str, str, str]]:
    """Wrap ``policy.decide``: each call appends (call id, mode, the calling module)."""
    made: list[tuple[str, str, str]] = []
    decide = policy.decide

    def recorded(request: ApprovalRequest) -> Decision:
        frame = inspect.currentframe()
        caller = frame.f_back if frame is not None else None
        module = caller.f_globals.get("__name__", "?") if caller is not None else "?"
        mode = policy.mode.value if policy.mode is not None else "-"
        made.append((request.call.id, mode, module))
        return decide(request)

    policy.decide = recorded  # type: ignore[method-assign]
    return made


# -- processes -----------------------------------------------------------------------------


async def until_gone(pid: int) -> None:
    """Wait, under a deadline, until process ``pid`` is gone (then kill it regardless)."""
    try:
        await wait_until(lambda: pid_gone(pid), what=f"process {pid} to be gone")
    finally:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)


# -- wire formats --------------------------------------------------------------------------


def assert_valid_for_openai(messages: list[Message]) -> None:
    """Every tool call answered by exactly one tool message, right after its assistant turn."""
    wire = to_openai_messages("system", messages)
    asked = [c["id"] for m in wire if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    answered = [m["tool_call_id"] for m in wire if m["role"] == "tool"]
    assert sorted(asked) == sorted(answered)
    assert len(set(asked)) == len(asked)
    for n, message in enumerate(wire):
        ids = [c["id"] for c in message.get("tool_calls", [])]
        if message["role"] == "assistant" and ids:
            following = wire[n + 1 : n + 1 + len(ids)]
            assert [m["role"] for m in following] == ["tool"] * len(ids)
            assert [m["tool_call_id"] for m in following] == ids


def assert_valid_for_anthropic(messages: list[Message]) -> None:
    """Every tool_use answered by exactly one tool_result at the start of the next user turn."""
    wire = to_anthropic_messages(messages)
    roles = [m["role"] for m in wire]
    assert all(a != b for a, b in itertools.pairwise(roles)), roles
    uses = [b["id"] for m in wire for b in m["content"] if b["type"] == "tool_use"]
    results = [b["tool_use_id"] for m in wire for b in m["content"] if b["type"] == "tool_result"]
    assert sorted(uses) == sorted(results)
    assert len(set(uses)) == len(uses)
    for n, message in enumerate(wire):
        ids = [b["id"] for b in message["content"] if b["type"] == "tool_use"]
        if ids:
            reply = wire[n + 1]
            assert reply["role"] == "user"
            head = reply["content"][: len(ids)]
            assert [b["type"] for b in head] == ["tool_result"] * len(ids)
            assert [b["tool_use_id"] for b in head] == ids
