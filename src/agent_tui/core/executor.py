"""Runs the tool calls of one assistant message and emits their events.

Consecutive concurrency-safe calls form one batch run in parallel (``tool_group`` first when a
batch has two or more calls); any other call runs alone. Results are emitted in request order;
progress is emitted as it happens. An interrupt cancels every call in flight, and each call
still ends with an event and a transcript message, so the next request is valid.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_tui.core.events import (
    Event,
    PermissionRequest,
    ToolErrorEvent,
    ToolGroup,
    ToolProgress,
    ToolRejected,
    ToolResult,
)
from agent_tui.core.permissions import ApprovalRequest, Asker, PermissionPolicy
from agent_tui.core.tools.base import ProgressUpdate, ToolContext
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.registry import DispatchOutcome, PreparedCall, ToolRegistry
from agent_tui.core.transcript import Message, ToolCall

MAX_PARALLEL = 10
TAIL_LINES = 8


@dataclass
class CallPlan:
    call: ToolCall
    prepared: PreparedCall | None = None
    error: ToolErrorInfo | None = None
    concurrency_safe: bool = False


@dataclass
class ExecutionResult:
    """What a batch left behind: one transcript message per call, in request order."""

    messages: list[Message] = field(default_factory=list)


def partition(plans: list[CallPlan]) -> list[list[CallPlan]]:
    """Greedy partition: consecutive concurrency-safe calls share a batch (max 10)."""
    batches: list[list[CallPlan]] = []
    for plan in plans:
        last = batches[-1] if batches else None
        if plan.concurrency_safe and last and last[0].concurrency_safe and len(last) < MAX_PARALLEL:
            last.append(plan)
        else:
            batches.append([plan])
    return batches


class ToolExecutor:
    def __init__(
        self,
        registry: ToolRegistry,
        cwd: Path,
        policy: PermissionPolicy,
        asker: Asker | None,
        file_state: FileStateCache,
    ) -> None:
        self.registry = registry
        self.cwd = cwd
        self.policy = policy
        self.asker = asker
        self.file_state = file_state

    def plan(self, calls: list[ToolCall]) -> list[CallPlan]:
        plans = []
        for call in calls:
            prepared = self.registry.prepare(call.name, call.arguments)
            if isinstance(prepared, ToolErrorInfo):
                plans.append(CallPlan(call, error=prepared))
            else:
                safe = prepared.tool.meta.concurrency_safe
                plans.append(CallPlan(call, prepared=prepared, concurrency_safe=safe))
        return plans

    async def execute(
        self, calls: list[ToolCall], out: list[Message], interrupted: asyncio.Event
    ) -> AsyncIterator[Event]:
        """Run ``calls``; append one tool message per call to ``out``; yield events."""
        for batch in partition(self.plan(calls)):
            if interrupted.is_set():
                for plan in batch:
                    yield self._interrupted(plan, out)
                continue
            if len(batch) > 1:
                yield ToolGroup(ids=[p.call.id for p in batch])
            runnable: list[CallPlan] = []
            for plan in batch:
                if plan.error is not None:
                    yield self._error(plan.call, plan.error, 0.0, out)
                    continue
                async for event in self._authorize(plan, out):
                    yield event
                if plan.prepared is not None:
                    runnable.append(plan)
            async for event in self._run_batch(runnable, out, interrupted):
                yield event

    async def _authorize(self, plan: CallPlan, out: list[Message]) -> AsyncIterator[Event]:
        """Decide allow/ask/deny; a denied plan loses its ``prepared`` and gets a message."""
        assert plan.prepared is not None
        request = ApprovalRequest(plan.call, plan.prepared.tool, plan.prepared.input)
        decision = self.policy.decide(request)
        if decision.kind == "allow":
            return
        feedback: str | None = None
        if decision.kind == "ask" and self.asker is not None:
            yield PermissionRequest(
                id=plan.call.id,
                name=plan.call.name,
                input=plan.prepared.input.model_dump(mode="json"),
                reason=decision.reason,
            )
            approval = await self.asker(
                ApprovalRequest(plan.call, plan.prepared.tool, plan.prepared.input, decision.reason)
            )
            if approval.allowed:
                if approval.always:
                    self.policy.remember(request)
                return
            reason, feedback = "The user denied this call.", approval.feedback
        elif decision.kind == "ask":
            reason = (
                f"{plan.call.name} needs approval and nobody can be asked here "
                f"(headless mode). Re-run with --allow {plan.call.name} to permit it."
            )
        else:
            reason = decision.reason or "Denied by a permission rule."
        plan.prepared = None
        text = f"Permission denied: {reason}"
        if feedback:
            text += f"\nThe user said: {feedback}"
        text += "\nDo not retry the same call; choose another approach or ask the user."
        out.append(Message.tool(plan.call, text, is_error=True))
        yield ToolRejected(id=plan.call.id, name=plan.call.name, reason=reason, feedback=feedback)

    async def _run_batch(
        self, plans: list[CallPlan], out: list[Message], interrupted: asyncio.Event
    ) -> AsyncIterator[Event]:
        if not plans:
            return
        queue: asyncio.Queue[Event | int] = asyncio.Queue()
        started = time.monotonic()
        outcomes: dict[int, tuple[DispatchOutcome, float]] = {}

        def progress_for(index: int, call: ToolCall) -> Any:
            tail: list[str] = []

            def report(update: ProgressUpdate) -> None:
                if update.lines:
                    tail.extend(update.lines)
                    del tail[:-TAIL_LINES]
                queue.put_nowait(
                    ToolProgress(
                        id=call.id,
                        name=call.name,
                        elapsed=round(time.monotonic() - started, 3),
                        message=update.message,
                        tail=list(tail) if tail else None,
                        progress=update.progress,
                        total=update.total,
                    )
                )

            return report

        async def run_one(index: int, plan: CallPlan) -> None:
            assert plan.prepared is not None
            ctx = ToolContext(
                cwd=self.cwd,
                file_state=self.file_state,
                call_id=plan.call.id,
                progress=progress_for(index, plan.call),
            )
            t0 = time.monotonic()
            outcome = await self.registry.run(plan.prepared, ctx)
            outcomes[index] = (outcome, time.monotonic() - t0)
            queue.put_nowait(index)

        tasks = [asyncio.create_task(run_one(i, p)) for i, p in enumerate(plans)]
        interrupt_wait = asyncio.create_task(interrupted.wait())
        next_index = 0
        try:
            while next_index < len(plans):
                getter = asyncio.create_task(queue.get())
                done, _ = await asyncio.wait(
                    {getter, interrupt_wait}, return_when=asyncio.FIRST_COMPLETED
                )
                if getter not in done:
                    getter.cancel()
                    break
                item = getter.result()
                if not isinstance(item, int):
                    yield item
                    continue
                while next_index in outcomes:
                    outcome, elapsed = outcomes.pop(next_index)
                    yield self._finish(plans[next_index].call, outcome, elapsed, out)
                    next_index += 1
        finally:
            interrupt_wait.cancel()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        # Interrupted: every call not yet reported ends as interrupted, in order.
        for plan in plans[next_index:]:
            yield self._interrupted(plan, out)

    def _finish(
        self, call: ToolCall, outcome: DispatchOutcome, elapsed: float, out: list[Message]
    ) -> Event:
        if outcome.error is not None:
            return self._error(call, outcome.error, elapsed, out)
        assert outcome.output is not None
        output = outcome.output
        out.append(Message.tool(call, output.content, is_error=output.is_error))
        return ToolResult(
            id=call.id,
            name=call.name,
            content=output.content,
            is_error=output.is_error,
            elapsed=round(elapsed, 3),
            data=output.data,
        )

    def _error(
        self, call: ToolCall, error: ToolErrorInfo, elapsed: float, out: list[Message]
    ) -> Event:
        out.append(Message.tool(call, error.to_model_text(), is_error=True))
        return ToolErrorEvent(
            id=call.id,
            name=call.name,
            code=error.code,
            message=error.message,
            next_step=error.next_step,
            retryable=error.retryable,
            details=error.details,
            elapsed=round(elapsed, 3),
        )

    def _interrupted(self, plan: CallPlan, out: list[Message]) -> Event:
        info = ToolErrorInfo(
            code="interrupted",
            message="The user interrupted this call before it finished; it may have partially run.",
            next_step="Wait for the user's next instruction before retrying.",
            retryable=True,
        )
        return self._error(plan.call, info, 0.0, out)
