"""Final outcomes of calls → budgeted events and transcript messages, in request order.

``CallResults`` is where every call of a request ends, however it ends: a result, an error, a
rejection, an interrupt or a sibling's failure. Each outcome goes through the request's output
budget (``budget.OrderedResults``) and marks the call ``completed``; ``drain`` releases the
decided ones in request order and marks each ``yielded`` as it is handed out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from agent_tui.core.budget import BudgetedResult, PendingResult
from agent_tui.core.budget.ordered import Maker, OrderedResults, spill_pointer
from agent_tui.core.budget.raw import RawOutput
from agent_tui.core.calls import call_summary
from agent_tui.core.events import Event, RejectedBy, ToolErrorEvent, ToolRejected, ToolResult
from agent_tui.core.executor.lifecycle import CallPhase, Lifecycle
from agent_tui.core.executor.partition import CallPlan
from agent_tui.core.text.summary import default_summary
from agent_tui.core.tools.base import KeptOutput, ToolOutput
from agent_tui.core.tools.errors import CANCELLED, ToolErrorInfo
from agent_tui.core.transcript import CallRecord, Message, ToolEnd

INTERRUPTED = "interrupted"


def interrupted_info() -> ToolErrorInfo:
    return ToolErrorInfo(
        code=INTERRUPTED,
        message="The user interrupted this call before it finished; it may have partially run.",
        next_step="Wait for the user's next instruction before retrying.",
        retryable=True,
    )


def cancelled_info(because: str) -> ToolErrorInfo:
    return ToolErrorInfo(
        code=CANCELLED,
        message=f"cancelled because {because}",
        next_step="It was stopped before it finished and may have partially run. Fix the "
        "failing call first, then run this one again if it is still needed.",
        retryable=True,
    )


def _message(plan: CallPlan, event: ToolEnd, content: str, is_error: bool) -> Message:
    """The transcript message of a call's outcome: what the model reads, plus the typed record
    a resumed session renders from."""
    record = CallRecord.of(
        event,
        group=plan.group,
        read_only=plan.read_only,
        call=plan.call if plan.sent is not None else None,
        via=plan.via,
    )
    images = event.images if isinstance(event, ToolResult) else []
    call = plan.sent or plan.call
    return Message.tool(call, content, is_error=is_error, record=record, images=images)


class CallResults:
    """The sink of one request's outcomes (see the module docstring)."""

    def __init__(self, ordered: OrderedResults, lifecycle: Lifecycle) -> None:
        self.ordered = ordered
        self.lifecycle = lifecycle

    # -- outcomes ---------------------------------------------------------------------------

    async def output(self, plan: CallPlan, output: ToolOutput, elapsed: float) -> None:
        call = plan.call

        def make(result: BudgetedResult) -> tuple[Event, Message]:
            event = ToolResult(
                id=call.id,
                name=call.name,
                content=result.content,
                is_error=output.is_error,
                elapsed=round(elapsed, 3),
                summary=output.summary or default_summary(output.content),
                facts=output.facts,
                data=output.data,
                spill=spill_pointer(result),
                allowed_by=plan.allowed_by,
                subagent=output.subagent,
                ran=_ran(plan),
                images=output.images,
            )
            return event, _message(plan, event, result.content, output.is_error)

        pending = PendingResult(
            call.id,
            call.name,
            output.content,
            is_error=output.is_error,
            spillable=not output.never_spill,
            summary=call_summary(call),
            raw=output.raw,
            footer=output.footer,
        )
        await self._add(plan, pending, make)

    async def error(
        self,
        plan: CallPlan,
        error: ToolErrorInfo,
        elapsed: float = 0.0,
        *,
        raw: RawOutput | None = None,
        footer: str = "",
    ) -> None:
        """A failed call; a long message (a timed-out command's whole output) is budgeted
        like output: spilled whole (``raw``, its exact bytes), the model reading its tail and
        ``footer``."""
        call = plan.call

        def frame(message: str) -> str:
            return error.model_copy(update={"message": message}).to_model_text()

        def make(result: BudgetedResult) -> tuple[Event, Message]:
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
                spill=spill_pointer(result),
                allowed_by=plan.allowed_by,
            )
            return event, _message(plan, event, result.content, True)

        pending = PendingResult(
            call.id,
            call.name,
            error.message,
            is_error=True,
            frame=frame,
            summary=call_summary(call),
            raw=raw,
            footer=footer,
        )
        await self._add(plan, pending, make)

    async def rejected(
        self,
        plan: CallPlan,
        reason: str,
        feedback: str | None,
        *,
        by: RejectedBy | None = None,
        step: str | None = None,
        rule: str | None = None,
    ) -> None:
        call = plan.call
        text = f"Permission denied: {reason}"
        if feedback:
            text += f"\nThe user said: {feedback}"
        text += "\nDo not retry the same call; choose another approach or ask the user."

        def make(result: BudgetedResult) -> tuple[Event, Message]:
            event = ToolRejected(
                id=call.id,
                name=call.name,
                reason=reason,
                feedback=feedback,
                by=by,
                step=step,
                rule=rule,
            )
            return event, _message(plan, event, result.content, True)

        pending = PendingResult(call.id, call.name, text, is_error=True, spillable=False)
        await self._add(plan, pending, make)

    async def interrupted(
        self, plan: CallPlan, elapsed: float = 0.0, *, kept: KeptOutput | None = None
    ) -> None:
        await self._stopped(plan, interrupted_info(), elapsed, kept)

    async def cancelled(
        self,
        plan: CallPlan,
        because: str,
        elapsed: float = 0.0,
        *,
        kept: KeptOutput | None = None,
    ) -> None:
        await self._stopped(plan, cancelled_info(because), elapsed, kept)

    async def _stopped(
        self, plan: CallPlan, info: ToolErrorInfo, elapsed: float, kept: KeptOutput | None
    ) -> None:
        """A call stopped midway: with the output it had produced (``kept``), that output
        and then what happened, budgeted whole like any output."""
        if kept is None:
            await self.error(plan, info, elapsed)
            return
        footer = f"[{info.message}]"
        message = info.model_copy(update={"message": f"{kept.text}\n{footer}"})
        await self.error(plan, message, elapsed, raw=kept.raw, footer=footer)

    async def _add(self, plan: CallPlan, pending: PendingResult, make: Maker) -> None:
        self.lifecycle.advance(plan.index, CallPhase.COMPLETED)
        await self.ordered.add(plan.index, pending, make)

    # -- release ----------------------------------------------------------------------------

    def held(self, plan: CallPlan) -> bool:
        """True while the call's result waits for the request's other results (budget)."""
        return self.ordered.budget.held(plan.index)

    def drain(self) -> Iterator[Event]:
        """Spill events and the decided results in request order; each result's call is
        marked ``yielded`` as its event is handed out."""
        for index, event in self.ordered.drain_indexed():
            if index is not None:
                self.lifecycle.advance(index, CallPhase.YIELDED)
            yield event

    async def finish(self) -> None:
        await self.ordered.finish()

    def flush(self) -> None:
        """Hard stop: decide the rest and record their messages (nothing more is emitted)."""
        self.ordered.flush()


def _ran(plan: CallPlan) -> str | None:
    """The tool a proxy call (``run_tool``) ran, for the result's ``ran``."""
    prepared = plan.prepared
    if prepared is None or prepared.tool.name == plan.call.name:
        return None
    return None if prepared.tool.answers_to(plan.call.name) else prepared.tool.name
