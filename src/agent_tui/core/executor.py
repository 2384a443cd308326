"""Runs the tool calls of one assistant message and emits their events.

Consecutive concurrency-safe calls form one batch run in parallel (``tool_group`` first when a
batch has two or more calls); any other call runs alone. Results are emitted in request order;
progress is emitted as it happens. An interrupt cancels every call in flight, and each call
still ends with an event and a transcript message, so the next request is valid.

Every final outcome (result, error, rejection) goes through the output budget of the request
(``budget.TurnBudget``) before it is emitted: a spill is announced with a ``spill`` event and
the ``tool_result`` carries its pointer. A result whose fate depends on the calls still
running waits (a ``tool_progress`` says so) and is emitted, in order, once it is decided.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_tui.core.budget import (
    BudgetedResult,
    BudgetSettings,
    PendingResult,
    SpillStore,
    TurnBudget,
)
from agent_tui.core.budget.ordered import OrderedResults, spill_pointer
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
HELD_MESSAGE = "finished; the result waits for this turn's other calls (output budget)"


@dataclass
class CallPlan:
    call: ToolCall
    index: int = 0
    prepared: PreparedCall | None = None
    error: ToolErrorInfo | None = None
    concurrency_safe: bool = False


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
        *,
        budget: BudgetSettings | None = None,
        store: SpillStore | None = None,
    ) -> None:
        self.registry = registry
        self.cwd = cwd
        self.policy = policy
        self.asker = asker
        self.file_state = file_state
        self.budget = budget or BudgetSettings()
        self.store = store or SpillStore(Path(self.budget.spill_dir), cwd)

    def plan(self, calls: list[ToolCall]) -> list[CallPlan]:
        plans = []
        for index, call in enumerate(calls):
            prepared = self.registry.prepare(call.name, call.arguments)
            if isinstance(prepared, ToolErrorInfo):
                plans.append(CallPlan(call, index, error=prepared))
            else:
                safe = prepared.tool.meta.concurrency_safe
                plans.append(CallPlan(call, index, prepared=prepared, concurrency_safe=safe))
        return plans

    async def execute(
        self, calls: list[ToolCall], out: list[Message], interrupted: asyncio.Event
    ) -> AsyncIterator[Event]:
        """Run ``calls``; append one tool message per call to ``out``; yield events."""
        plans = self.plan(calls)
        results = OrderedResults(TurnBudget(self.budget, self.store, len(plans)), out)
        finished = False
        try:
            for batch in partition(plans):
                if interrupted.is_set():
                    for plan in batch:
                        await self._interrupted(plan, results)
                    for event in results.drain():
                        yield event
                    continue
                if len(batch) > 1:
                    yield ToolGroup(ids=[p.call.id for p in batch])
                runnable: list[CallPlan] = []
                for plan in batch:
                    if plan.error is not None:
                        await self._error(plan, plan.error, 0.0, results)
                        for event in results.drain():
                            yield event
                        continue
                    async for event in self._authorize(plan, results):
                        yield event
                    if plan.prepared is not None:
                        runnable.append(plan)
                async for event in self._run_batch(runnable, results, interrupted):
                    yield event
            await results.finish()
            for event in results.drain():
                yield event
            finished = True
        finally:
            if not finished:
                results.flush()

    async def _authorize(self, plan: CallPlan, results: OrderedResults) -> AsyncIterator[Event]:
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
        call = plan.call

        def make(result: BudgetedResult) -> tuple[Event, Message]:
            event = ToolRejected(id=call.id, name=call.name, reason=reason, feedback=feedback)
            return event, Message.tool(call, result.content, is_error=True)

        pending = PendingResult(call.id, call.name, text, is_error=True, spillable=False)
        await results.add(plan.index, pending, make)
        for event in results.drain():
            yield event

    async def _run_batch(
        self, plans: list[CallPlan], results: OrderedResults, interrupted: asyncio.Event
    ) -> AsyncIterator[Event]:
        if not plans:
            return
        queue: asyncio.Queue[Event | int] = asyncio.Queue()
        started = time.monotonic()
        outcomes: dict[int, tuple[DispatchOutcome, float]] = {}

        def progress_for(call: ToolCall) -> Any:
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
                progress=progress_for(plan.call),
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
                    plan = plans[next_index]
                    await self._finish(plan, outcome, elapsed, results)
                    if results.budget.held(plan.index):
                        yield ToolProgress(
                            id=plan.call.id,
                            name=plan.call.name,
                            elapsed=round(elapsed, 3),
                            message=HELD_MESSAGE,
                        )
                    for event in results.drain():
                        yield event
                    next_index += 1
        finally:
            interrupt_wait.cancel()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        # Interrupted: every call not yet reported ends as interrupted, in order.
        for plan in plans[next_index:]:
            await self._interrupted(plan, results)
        for event in results.drain():
            yield event

    async def _finish(
        self, plan: CallPlan, outcome: DispatchOutcome, elapsed: float, results: OrderedResults
    ) -> None:
        if outcome.error is not None:
            await self._error(plan, outcome.error, elapsed, results)
            return
        assert outcome.output is not None
        output, call = outcome.output, plan.call

        def make(result: BudgetedResult) -> tuple[Event, Message]:
            event = ToolResult(
                id=call.id,
                name=call.name,
                content=result.content,
                is_error=output.is_error,
                elapsed=round(elapsed, 3),
                data=output.data,
                spill=spill_pointer(result),
            )
            return event, Message.tool(call, result.content, is_error=output.is_error)

        pending = PendingResult(
            call.id,
            call.name,
            output.content,
            is_error=output.is_error,
            spillable=not output.never_spill,
        )
        await results.add(plan.index, pending, make)

    async def _error(
        self, plan: CallPlan, error: ToolErrorInfo, elapsed: float, results: OrderedResults
    ) -> None:
        """A failed call; a long message (a timeout's output tail) is budgeted like output."""
        call = plan.call

        def frame(message: str) -> str:
            return error.model_copy(update={"message": message}).to_model_text()

        def make(result: BudgetedResult) -> tuple[Event, Message]:
            pointer = spill_pointer(result)
            message = error.message
            if result.spilled_by_budget:  # what the model read: the excerpt and the pointer
                message = json.loads(result.content)["error"]
            event = ToolErrorEvent(
                id=call.id,
                name=call.name,
                code=error.code,
                message=message,
                next_step=error.next_step,
                retryable=error.retryable,
                details=error.details,
                elapsed=round(elapsed, 3),
                spill=pointer,
            )
            return event, Message.tool(call, result.content, is_error=True)

        pending = PendingResult(call.id, call.name, error.message, is_error=True, frame=frame)
        await results.add(plan.index, pending, make)

    async def _interrupted(self, plan: CallPlan, results: OrderedResults) -> None:
        info = ToolErrorInfo(
            code="interrupted",
            message="The user interrupted this call before it finished; it may have partially run.",
            next_step="Wait for the user's next instruction before retrying.",
            retryable=True,
        )
        await self._error(plan, info, 0.0, results)
