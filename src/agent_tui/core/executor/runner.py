"""``ToolExecutor``: runs the tool calls of one assistant message and emits their events.

The calls are partitioned (``partition``); each run of two or more safe calls announces itself
with one ``tool_group`` (however many batches of ``max_parallel`` it runs in); a batch's calls
are authorized one by one (``approval``), then run together (``batch.BatchRun``). Every call
moves through ``queued → executing → completed → yielded`` (``lifecycle``; the current
request's states are ``executor.states``). Results are emitted in request order, progress as it
happens. An interrupt stops everything in flight, and every call still ends with one event and
one transcript message, so the next request is valid.

Every final outcome goes through the output budget of the request (``budget.TurnBudget``)
before it is emitted: a spill is announced with a ``spill`` event and the ``tool_result``
carries its pointer. A result whose fate depends on calls still running waits (a
``tool_progress`` says so) and is emitted, in order, once it is decided.

Given the turn's checkpoint (``core.checkpoints``), the file tools tell it what they change
(``ToolContext.changes``), and a call of a tool that changes files without saying which
(``run_shell``, a writing MCP tool) runs between two workspace scans; every call that may
change files waits for a scan in progress.

Given the session's project memory (``core.workspace.memory``), a successful ``read_file`` of a
file in a subdirectory with its own ``AGENTS.md`` / ``CLAUDE.md`` not loaded yet gets that memory
appended to its result (``nested_note``; the names in ``data["memory"]``): the system prompt, and
with it the cached prefix, never changes.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from agent_tui.core.attachments import NO_IMAGES, ImageSink
from agent_tui.core.budget import BudgetSettings, SpillStore, TurnBudget
from agent_tui.core.checkpoints.turn import TurnCheckpoint
from agent_tui.core.events import Event, HookEvent, ToolGroup
from agent_tui.core.executor.lifecycle import CallPhase, Lifecycle, Listener
from agent_tui.core.executor.partition import (
    MAX_PARALLEL,
    CallPlan,
    PlanHook,
    PromptAnswer,
    partition,
    plan_calls,
    runs,
)
from agent_tui.core.jobs import JobManager
from agent_tui.core.permissions import Asker, Decision, PermissionPolicy, Rule
from agent_tui.core.plan_review import PlanReview
from agent_tui.core.sandbox import UNCONFINED, SessionSandbox
from agent_tui.core.tools.base import NO_CHANGES, ProgressCallback, ProgressUpdate, ToolContext
from agent_tui.core.tools.config import ShellSettings
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.file_access import LOCAL_FILES, FileAccess
from agent_tui.core.tools.file_state import FileStateCache
from agent_tui.core.tools.reads import for_call
from agent_tui.core.tools.registry import DispatchOutcome, ToolRegistry
from agent_tui.core.transcript import Message, ToolCall
from agent_tui.core.workspace.memory import ProjectMemory, nested_note

if TYPE_CHECKING:
    from agent_tui.core.hooks import Hooks

log = logging.getLogger(__name__)


def _no_progress(_: ProgressUpdate) -> None:
    return None


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
        max_parallel: int = MAX_PARALLEL,
        on_transition: Listener | None = None,
        sandbox: SessionSandbox = UNCONFINED,
        shell: ShellSettings | None = None,
        memory: ProjectMemory | None = None,
        hooks: Hooks | None = None,
    ) -> None:
        if max_parallel < 1:
            raise ValueError(f"max_parallel must be at least 1, not {max_parallel}")
        self.registry = registry
        self.cwd = cwd
        self.policy = policy
        self.asker = asker
        self.file_state = file_state
        self.budget = budget or BudgetSettings()
        self.store = store or SpillStore(Path(self.budget.spill_dir), cwd)
        self.max_parallel = max_parallel
        self.sandbox = sandbox
        """Where run_shell's commands run."""
        self.shell = shell or ShellSettings()
        """How run_shell starts them."""
        self.jobs = JobManager(self.store)
        """The session's background jobs (``core.jobs``; the agent kills them on close)."""
        self.memory = memory
        """The session's project memory: nested memory files found by reads (None: none)."""
        self.hooks = hooks
        """The session's hooks (``core.hooks``): PreToolUse and PostToolUse run here."""
        self.hook_events: list[HookEvent] = []
        """PostToolUse hook events not yet emitted (``take_hook_events``)."""
        self.stopped_by_hook: str | None = None
        """A hook answered ``"continue": false`` (its ``stopReason``): the agent ends the turn
        after this request's calls (``take_stop``)."""
        self.on_transition = on_transition
        """Called on every lifecycle transition of every call (for the UI and tests)."""
        self.lifecycle = Lifecycle([])
        """The lifecycle of the latest request's calls."""
        self.checkpoint: TurnCheckpoint | None = None
        """The checkpoint of the request running (``execute``)."""
        self.inherited: TurnCheckpoint | None = None
        """The checkpoint used when a request has none of its own: a subagent's executor
        gets its parent turn's, so what the child changes is kept (and scanned) there."""
        self._asker: Asker | None = asker
        """The asker of the request running (a subagent's asks go to it)."""
        self.images: ImageSink = NO_IMAGES
        """Where the calls keep the images they return, and whether the model takes them: set
        by the turn before each request (``ToolContext.images``)."""
        self.plan_review = PlanReview(lambda: self.policy)
        """Plan mode's hand-off (``exit_plan_mode``): the front end attaches its reviewer."""
        self.files: FileAccess = LOCAL_FILES
        """Where the file tools get and put files' text (``ToolContext.files``): the disk, or
        the editor an ACP session runs in."""
        self.on_output: Callable[[str, tuple[str, ...]], None] | None = None
        """Told each line of output a running call reports (its id, the new lines), all of
        them in order, where the ``tool_progress`` events carry only the last few: for a
        front end that shows the whole stream (ACP's terminals). None: nobody listens."""

    @property
    def states(self) -> dict[str, CallPhase]:
        """Each call of the latest request and its state."""
        return self.lifecycle.states

    def plan(self, calls: list[ToolCall]) -> list[CallPlan]:
        return plan_calls(self.registry, calls)

    async def execute(
        self,
        calls: list[ToolCall],
        out: list[Message],
        interrupted: asyncio.Event,
        *,
        asker: Asker | None = None,
        checkpoint: TurnCheckpoint | None = None,
        grant: tuple[Rule, ...] = (),
    ) -> AsyncIterator[Event]:
        """Run ``calls``; append one tool message per call to ``out``; yield events. ``asker``
        answers this request's asks (default: the executor's own); ``checkpoint`` is told what
        the calls change (default: nothing is kept); ``grant``: allow rules for these calls
        only (a custom command's ``allowed-tools``, ``ApprovalRequest.grant``)."""
        # the first calls import how calls are approved, run and answered (issue 45: a start
        # that runs no tool does not pay for them)
        from agent_tui.core.budget.ordered import OrderedResults
        from agent_tui.core.executor.approval import authorize
        from agent_tui.core.executor.batch import BatchRun
        from agent_tui.core.executor.results import CallResults

        asker = asker if asker is not None else self.asker
        checkpoint = checkpoint if checkpoint is not None else self.inherited
        self.checkpoint = checkpoint
        self._asker = asker
        self.stopped_by_hook = None  # a stop is of the request it came in
        plans = self.plan(calls)
        for plan in plans:
            tool = self.registry.get(plan.call.name)
            plan.read_only = bool(tool and tool.meta.read_only)
        if checkpoint is not None and any(_watched(plan) for plan in plans):
            checkpoint.watch.prepare()  # the first scan overlaps the approvals
        self.lifecycle = Lifecycle([p.call.id for p in plans], self.on_transition)
        turn = TurnBudget(self.budget, self.store, len(plans))
        results = CallResults(OrderedResults(turn, out), self.lifecycle)
        finished = False
        try:
            run_of = {id(p): run for run in runs(plans) for p in run}
            for batch in partition(plans, self.max_parallel):
                whole = run_of[id(batch[0])]
                if len(whole) > 1 and whole[0] is batch[0] and not interrupted.is_set():
                    ids = [p.call.id for p in whole]  # one group for the run, not one a batch
                    for plan in whole:
                        plan.group = ids
                    yield ToolGroup(ids=ids)
                runnable: list[CallPlan] = []
                for plan in batch:
                    if interrupted.is_set():
                        await results.interrupted(plan)
                    elif plan.error is not None:
                        await results.error(plan, plan.error)
                    else:
                        async for event in authorize(
                            plan,
                            self.policy,
                            asker,
                            results,
                            interrupted,
                            self._precheck,
                            self._pre_hooks if self._hooked("PreToolUse") else None,
                            self._notify if self._hooked("Notification") else None,
                            self._answer_prompt if self._hooked("PermissionRequest") else None,
                            grant,
                        ):
                            yield event
                        if self.lifecycle.state(plan.index) is CallPhase.QUEUED:
                            runnable.append(plan)
                    for event in results.drain():
                        yield event
                run = BatchRun(runnable, self._run_call, self._context, results, interrupted)
                async for event in run.run():
                    yield event
            await results.finish()
            for event in results.drain():
                yield event
            finished = True
        finally:
            if not finished:
                results.flush()

    def _hooked(self, event: str) -> bool:
        return self.hooks is not None and any(s.event == event for s in self.hooks.specs)

    def take_hook_events(self) -> list[HookEvent]:
        """The PostToolUse hook events that ran since the last call (emitted by the agent)."""
        events, self.hook_events = self.hook_events, []
        return events

    def take_stop(self) -> str | None:
        """Why a hook stopped the turn (``"continue": false``) since the last call, or None."""
        reason, self.stopped_by_hook = self.stopped_by_hook, None
        return reason

    async def _pre_hooks(self, plan: CallPlan) -> AsyncIterator[Event]:
        """The PreToolUse hooks of ``plan``: their events, their verdict in ``plan.hook``. A
        rewritten input is validated against the tool's schema again (invalid: the call is
        refused) and replaces the call's input, so the policy judges what will run. After a
        hook said ``"continue": false``, this call and the rest of the request are refused."""
        prepared = plan.prepared
        if self.hooks is None or prepared is None:
            return
        if self.stopped_by_hook is not None:
            plan.hook = PlanHook(
                refused=f"Not run: a hook stopped the turn ({self.stopped_by_hook})"
            )
            return
        tool = prepared.tool.name
        verdict = await self.hooks.run(
            "PreToolUse",
            {
                **self.hooks.tool_fields(
                    tool, prepared.input.model_dump(mode="json", exclude_unset=True)
                ),
                "tool_use_id": plan.call.id,
            },
            tool=tool,
            call_id=plan.call.id,
            call=(prepared.tool, prepared.input.model_dump(mode="python")),
        )
        for event in verdict.events:
            yield event
        if verdict.stop:  # "continue": false wins over any decision: nothing more runs
            self.stopped_by_hook = verdict.stop_reason
            plan.hook = PlanHook(refused=f"Stopped by hook: {verdict.stop_reason}")
            return
        if verdict.blocked:
            plan.hook = PlanHook(refused=f"Rejected by hook: {verdict.reason}")
            return
        plan.hook = PlanHook(
            permission=verdict.permission,
            reason=verdict.permission_reason,
            context=verdict.additional_context,
        )
        if verdict.updated_input is not None:  # Claude Code's field names, or ours
            from agent_tui.core.executor.permission_hooks import rewritten

            again = rewritten(self.hooks, self.registry, tool, verdict.updated_input)
            if isinstance(again, str):
                plan.hook = PlanHook(
                    refused=f"Rejected by hook: its rewritten input is {again}; the call was "
                    "not run"
                )
                return
            plan.prepared = again

    async def _answer_prompt(
        self, plan: CallPlan, decision: Decision
    ) -> tuple[list[Event], PromptAnswer | None]:
        """The PermissionRequest hooks of a call that would ask (``permission_hooks``); a
        hook's ``interrupt`` ends the turn after this request, as ``"continue": false`` does."""
        assert self.hooks is not None
        from agent_tui.core.executor.permission_hooks import ask_the_hooks

        events, answer, stop = await ask_the_hooks(self.hooks, self.registry, plan, decision)
        if stop is not None:
            self.stopped_by_hook = stop
        return events, answer

    async def _notify(self, plan: CallPlan) -> list[Event]:
        """The Notification hooks of a permission prompt for ``plan`` (Claude Code's
        ``permission_prompt``); never raises: a notification is not worth a call."""
        from agent_tui.core.hooks import notify

        if self.hooks is None or plan.prepared is None:
            return []
        name = self.hooks.tool_fields(plan.prepared.tool.name, {})["tool_name"]
        message = f"agent-tui needs your permission to use {name}"
        return list(await notify(self.hooks, "permission_prompt", message))

    async def _run_call(self, plan: CallPlan, ctx: ToolContext) -> DispatchOutcome:
        """One call through the registry, then the nested memory its read found (if any),
        then its PostToolUse hooks."""
        outcome = await self._dispatch(plan, ctx)
        if self.memory is not None and outcome.output is not None:
            self._add_nested_memory(plan, ctx, outcome)
        if plan.hook is not None and plan.hook.context:
            _add(outcome, f"[PreToolUse hook context: {plan.hook.context}]")
        failed = outcome.error is not None or (
            outcome.output is not None and outcome.output.is_error
        )
        if self._hooked("PostToolUseFailure" if failed else "PostToolUse"):
            await self._post_hooks(plan, outcome, failed)
        return outcome

    async def _post_hooks(self, plan: CallPlan, outcome: DispatchOutcome, failed: bool) -> None:
        """PostToolUse (the call succeeded) or PostToolUseFailure (it failed), as in Claude
        Code: a block's reason and any additional context are added to what the model reads
        of the result (the call has run; nothing is undone)."""
        prepared, output, error = plan.prepared, outcome.output, outcome.error
        if self.hooks is None or prepared is None or (output is None and error is None):
            return
        tool = prepared.tool.name
        fields = self.hooks.tool_fields(
            tool, prepared.input.model_dump(mode="json", exclude_unset=True)
        )
        fields["tool_use_id"] = plan.call.id
        if failed:
            event: Literal["PostToolUse", "PostToolUseFailure"] = "PostToolUseFailure"
            text = error.message if error is not None else output.content if output else ""
            fields |= {"error": text, "is_interrupt": False}
        else:
            event = "PostToolUse"
            content = output.content if output is not None else ""
            fields["tool_response"] = self.hooks.tool_response(fields, content)
        try:
            verdict = await self.hooks.run(
                event,
                fields,
                tool=tool,
                call_id=plan.call.id,
                call=(prepared.tool, prepared.input.model_dump(mode="python")),
            )
        except Exception:  # a hook must never cost the result
            log.exception("the %s hooks of %s failed", event, tool)
            return
        self.hook_events += verdict.events
        if verdict.stop:  # the result stands; the turn ends after this request's calls
            self.stopped_by_hook = verdict.stop_reason
        if verdict.blocked:
            _add(outcome, f"[{event} hook: {verdict.reason}]")
        if verdict.additional_context:
            _add(outcome, f"[{event} hook context: {verdict.additional_context}]")

    def _add_nested_memory(
        self, plan: CallPlan, ctx: ToolContext, outcome: DispatchOutcome
    ) -> None:
        prepared, output = plan.prepared, outcome.output
        if prepared is None or output is None or self.memory is None:
            return
        path = getattr(prepared.input, "path", None)
        if prepared.tool.name != "read_file" or output.is_error or not isinstance(path, str):
            return
        found = self.memory.touch(plan.judged_path or ctx.resolve(path))
        if found:
            output.content += nested_note(found)
            output.data = {**output.data, "memory": [f.shown for f in found]}

    async def _dispatch(self, plan: CallPlan, ctx: ToolContext) -> DispatchOutcome:
        """One call through the registry; with a checkpoint, a call that may change files
        waits for the workspace scan in progress, and one that does not say what it changes
        is scanned around."""
        prepared = plan.prepared
        assert prepared is not None
        checkpoint, meta = self.checkpoint, prepared.tool.meta
        if checkpoint is None or meta.read_only:
            return await self.registry.run(prepared, ctx)
        if meta.reports_changes:
            await checkpoint.watch.settled()
            return await self.registry.run(prepared, ctx)
        return await checkpoint.watch.around(
            plan.call.id, prepared.tool.name, lambda: self.registry.run(prepared, ctx)
        )

    async def _precheck(self, plan: CallPlan) -> ToolErrorInfo | None:
        """The call's ``Tool.precheck`` in a worker thread (it may read the file), in the
        context the call would run in. A pre-check that fails is ignored (logged): the call is
        then asked about as if it had none, which is never an allow."""
        prepared = plan.prepared
        if prepared is None or prepared.tool.precheck is None:
            return None
        ctx = self._context(plan, _no_progress)
        try:
            return await asyncio.to_thread(prepared.tool.precheck, prepared.input, ctx)
        except Exception:
            log.exception("the pre-check of %s failed", prepared.tool.name)
            return None

    def _context(self, plan: CallPlan, progress: ProgressCallback) -> ToolContext:
        if self.on_output is not None:
            progress = _teed(progress, plan.call.id, self.on_output)
        return ToolContext(
            cwd=self.cwd,
            file_state=self.file_state,
            call_id=plan.call.id,
            progress=progress,
            judged_path=plan.judged_path,
            reads=for_call(self.policy.reads, plan.judged_path),
            sandbox=self.sandbox,
            changes=self.checkpoint.files if self.checkpoint is not None else NO_CHANGES,
            shell=self.shell,
            asker=self._asker,
            hosts=self.policy.hosts,
            images=self.images,
            plan_gate=self.plan_review,
            jobs=self.jobs,
            files=self.files,
        )


def _teed(
    progress: ProgressCallback, call: str, listener: Callable[[str, tuple[str, ...]], None]
) -> ProgressCallback:
    """``progress``, telling ``listener`` the output lines of each update first."""

    def report(update: ProgressUpdate) -> None:
        if update.lines:
            try:
                listener(call, update.lines)
            except Exception:  # a broken listener must not stop the call
                log.exception("the output listener failed")
        progress(update)

    return report


def _watched(plan: CallPlan) -> bool:
    """A call that may change files without saying which."""
    prepared = plan.prepared
    if prepared is None:
        return False
    meta = prepared.tool.meta
    return not meta.read_only and not meta.reports_changes


def _add(outcome: DispatchOutcome, note: str) -> None:
    """Add a hook's ``note`` to what the model reads of the call: its output, or its error."""
    if outcome.output is not None:
        outcome.output.content += f"\n\n{note}"
    elif outcome.error is not None:
        outcome.error.details.append(note)
