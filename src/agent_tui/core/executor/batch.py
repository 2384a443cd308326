"""One batch of calls run in parallel, each call in its own task: its cancellation scope.

The scopes nest: the turn's interrupt stops the whole batch (every task cancelled, and awaited,
so a shell call has killed its process group before the batch returns); a failing call whose
tool has ``cancels_siblings_on_failure`` (run_shell) cancels only the siblings still running in
its batch; cancelling one call never touches the others. Progress is emitted as it happens
(a ``started`` progress first, for every call); final outcomes in request order.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from agent_tui.core.events import Event, ToolProgress
from agent_tui.core.executor.lifecycle import CallPhase
from agent_tui.core.executor.partition import CallPlan
from agent_tui.core.executor.results import CallResults
from agent_tui.core.tools import errors as codes
from agent_tui.core.tools.base import ProgressCallback, ProgressUpdate, ToolContext
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.registry import DispatchOutcome

STARTED_MESSAGE = "started"
HELD_MESSAGE = "finished; the result waits for this turn's other calls (output budget)"
TAIL_LINES = 8
SUBJECT_CHARS = 60
ContextFactory = Callable[[CallPlan, ProgressCallback], ToolContext]
Runner = Callable[[CallPlan, ToolContext], Coroutine[Any, Any, DispatchOutcome]]
"""Runs one prepared call (the executor's: the registry, watched by the turn's checkpoint)."""
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _End:
    """How a call's task ended: it ran to the end (``outcome``), or a sibling's failure
    cancelled it (``cancelled``: the reason)."""

    elapsed: float
    outcome: DispatchOutcome | None = None
    cancelled: str | None = None


def fails_siblings(plan: CallPlan, outcome: DispatchOutcome) -> bool:
    """True when this outcome must cancel the call's running siblings."""
    if plan.prepared is None or not plan.prepared.tool.meta.cancels_siblings_on_failure:
        return False
    return outcome.error is not None or (outcome.output is not None and outcome.output.is_error)


def describe_failure(plan: CallPlan, outcome: DispatchOutcome) -> str:
    """``run_shell `make test` failed (exit 2)``: the reason given to cancelled siblings."""
    what = plan.call.name
    prepared = plan.prepared
    field = prepared.tool.meta.rule_subject if prepared is not None else None
    subject = getattr(prepared.input, field, None) if prepared is not None and field else None
    if isinstance(subject, str) and subject.strip():
        lines = subject.strip().splitlines()
        text = lines[0]
        if len(text) > SUBJECT_CHARS:
            text = text[: SUBJECT_CHARS - 1].rstrip() + "…"
        elif len(lines) > 1:
            text += " …"
        what += f" `{text}`"
    if outcome.error is not None:
        how = outcome.error.code
    else:
        code = outcome.output.data.get("exit_code") if outcome.output is not None else None
        how = f"exit {code}" if code is not None else "error"
    return f"{what} failed ({how})"


def crashed(plan: CallPlan, exc: BaseException) -> DispatchOutcome:
    log.error("call %s (%s) crashed", plan.call.id, plan.call.name, exc_info=exc)
    return DispatchOutcome(
        tool=plan.prepared.tool if plan.prepared is not None else None,
        error=ToolErrorInfo(
            code=codes.TOOL_EXCEPTION,
            message=f"{plan.call.name} failed: {type(exc).__name__}: {exc}",
            next_step="Try again, or use another tool to reach the same goal.",
        ),
    )


class BatchRun:
    """Runs ``plans`` (all allowed to run) and yields their events; see the module docstring."""

    def __init__(
        self,
        plans: list[CallPlan],
        runner: Runner,
        context: ContextFactory,
        results: CallResults,
        interrupted: asyncio.Event,
    ) -> None:
        self.plans = plans
        self.runner = runner
        self.context = context
        self.results = results
        self.interrupted = interrupted
        self._queue: asyncio.Queue[Event | int] = asyncio.Queue()
        self._tasks: dict[int, asyncio.Task[DispatchOutcome]] = {}
        self._starts: dict[int, float] = {}
        self._contexts: dict[int, ToolContext] = {}
        self._ends: dict[int, _End] = {}
        self._because: dict[int, str] = {}

    async def run(self) -> AsyncIterator[Event]:
        if not self.plans:
            return
        if self.interrupted.is_set():
            for plan in self.plans:
                await self.results.interrupted(plan)
            for event in self.results.drain():
                yield event
            return
        for pos, plan in enumerate(self.plans):
            self._start(pos, plan)
        interrupt = asyncio.ensure_future(self.interrupted.wait())
        getter: asyncio.Future[Event | int] | None = None
        released = 0
        try:
            while released < len(self.plans):
                getter = asyncio.ensure_future(self._queue.get())
                done, _ = await asyncio.wait(
                    {getter, interrupt}, return_when=asyncio.FIRST_COMPLETED
                )
                if getter not in done:
                    break
                item = getter.result()
                if not isinstance(item, int):
                    yield item
                    continue
                while released in self._ends:
                    plan = self.plans[released]
                    await self._record(released)
                    if self.results.held(plan):
                        yield ToolProgress(
                            id=plan.call.id,
                            name=plan.call.name,
                            elapsed=round(self._ends[released].elapsed, 3),
                            message=HELD_MESSAGE,
                        )
                    for event in self.results.drain():
                        yield event
                    released += 1
        finally:
            interrupt.cancel()
            if getter is not None:
                getter.cancel()
            await self._stop()
        # Interrupted: calls that finished keep their outcome, the others end interrupted.
        for pos in range(released, len(self.plans)):
            await self._record(pos)
        for event in self.results.drain():
            yield event

    # -- tasks ------------------------------------------------------------------------------

    def _start(self, pos: int, plan: CallPlan) -> None:
        assert plan.prepared is not None
        self.results.lifecycle.advance(plan.index, CallPhase.EXECUTING)
        started = self._starts[pos] = time.monotonic()
        self._queue.put_nowait(
            ToolProgress(id=plan.call.id, name=plan.call.name, elapsed=0.0, message=STARTED_MESSAGE)
        )
        ctx = self.context(plan, self._reporter(plan, started))
        ctx.emit = self._queue.put_nowait  # a subagent's events, yielded as they come
        self._contexts[pos] = ctx
        task = asyncio.create_task(
            self.runner(plan, ctx), name=f"tool {plan.call.name} {plan.call.id}"
        )
        task.add_done_callback(lambda t: self._settle(pos, t))
        self._tasks[pos] = task

    def _reporter(self, plan: CallPlan, started: float) -> ProgressCallback:
        tail: list[str] = []

        def report(update: ProgressUpdate) -> None:
            if update.lines:
                tail.extend(update.lines)
                del tail[:-TAIL_LINES]
            self._queue.put_nowait(
                ToolProgress(
                    id=plan.call.id,
                    name=plan.call.name,
                    elapsed=round(time.monotonic() - started, 3),
                    message=update.message,
                    tail=list(tail) if tail else None,
                    progress=update.progress,
                    total=update.total,
                    starting_server=update.starting_server,
                    waiting=update.waiting,
                )
            )

        return report

    def _settle(self, pos: int, task: asyncio.Task[DispatchOutcome]) -> None:
        """A call's task is done: note how it ended (a stop's cancellations are left to
        ``run``), mark it completed, cancel its siblings if its failure says so."""
        if pos in self._ends:
            return
        elapsed = time.monotonic() - self._starts[pos]
        if task.cancelled():
            because = self._because.get(pos)
            if because is None:
                return
            end = _End(elapsed, cancelled=because)
        elif (exc := task.exception()) is not None:  # registry.run should never raise
            end = _End(elapsed, outcome=crashed(self.plans[pos], exc))
        else:
            end = _End(elapsed, outcome=task.result())
        plan = self.plans[pos]
        self._ends[pos] = end
        self.results.lifecycle.advance(plan.index, CallPhase.COMPLETED)
        self._queue.put_nowait(pos)
        if end.outcome is not None and fails_siblings(plan, end.outcome):
            because = describe_failure(plan, end.outcome)
            for other, sibling in self._tasks.items():
                if other not in self._ends and other not in self._because and not sibling.done():
                    self._because[other] = because
                    sibling.cancel()

    async def _stop(self) -> None:
        """Cancel every call still running and wait until each has cleaned up."""
        for task in self._tasks.values():
            if not task.done():
                task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    async def _record(self, pos: int) -> None:
        """Hand call ``pos``'s outcome to the results (interrupted if it has none)."""
        plan, end = self.plans[pos], self._ends.get(pos)
        ctx = self._contexts.get(pos)
        kept = ctx.kept if ctx is not None else None  # the output of a call stopped midway
        if end is None:
            elapsed = time.monotonic() - self._starts[pos]
            await self.results.interrupted(plan, elapsed, kept=kept)
        elif end.outcome is None:
            assert end.cancelled is not None
            await self.results.cancelled(plan, end.cancelled, end.elapsed, kept=kept)
        elif (error := end.outcome.error) is not None:
            outcome = end.outcome
            await self.results.error(
                plan, error, end.elapsed, raw=outcome.raw, footer=outcome.footer
            )
        else:
            assert end.outcome.output is not None
            await self.results.output(plan, end.outcome.output, end.elapsed)
