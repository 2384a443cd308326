"""The agent's turn loop: one user prompt, model request after model request, to its end.

``TurnRunner.run`` is the body of ``Agent.run`` (``agent``): it records the turn's checkpoint
(``Rewinder``), then runs phases, each yielding its events and ending with its next step
(``steps``): the opening (the prompt's ``@`` mentions expanded, the ``SessionStart`` and
``UserPromptSubmit`` hooks, the tool sources awaited), then rounds: compact at the threshold
(``Compactor``), stream one model request (``model_stream``), run the tool calls it made through
the executor, add what the user typed meanwhile (the inbox). A round runs again until the model
stops, a hook stops it, the max-turns guard, an error, or an interrupt (``Interrupted``: every
call the model made still gets a result message, ``close_dangling``). A context overflow
compacts and sends again, once. The ``turn_end`` event is yielded in one place, from the
``EndTurn`` step. A turn a custom command started carries its grant to every executor call
and may run on the command's model (``command_turn``), for that turn only.

What the loop reads of the agent is ``TurnHost`` (``turn_state``: public members, read as they
are at the time); the transcript it appends to, the interrupt it watches, compaction and the
checkpoints are the collaborators the ``Agent`` composes and hands it. ``run`` adds what the
session file and the spill store have to say (their ``error`` events) to the turn's events.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import AsyncGenerator
from contextlib import aclosing
from dataclasses import replace
from typing import TYPE_CHECKING

from agent_tui.core.agent.command_turn import close_model, grant_event, open_model, provider_of
from agent_tui.core.agent.compacting import Compactor
from agent_tui.core.agent.control import Interrupted, RunControl
from agent_tui.core.agent.conversation_state import ConversationState
from agent_tui.core.agent.job_notes import offered, take_ended
from agent_tui.core.agent.model_stream import Reply, stream_reply
from agent_tui.core.agent.rewinding import Rewinder
from agent_tui.core.agent.steps import EndTurn, NextStep, RunAgain
from agent_tui.core.agent.turn_state import Turn, TurnHost
from agent_tui.core.conversation.context import ContextUsage, reported_usage
from agent_tui.core.conversation.repair import interrupted_result
from agent_tui.core.disclosure.marks import plain_tools, request_filters
from agent_tui.core.events import (
    AssistantMessage,
    ErrorEvent,
    Event,
    ToolResult,
    ToolsCost,
    ToolUse,
    TurnEnd,
    UserInjected,
    UserMessage,
)
from agent_tui.core.images import vision
from agent_tui.core.jobs import JOB_TOOLS
from agent_tui.core.mentions import Expansion, MentionExpander
from agent_tui.core.permissions import Asker
from agent_tui.core.plan import plan_event
from agent_tui.core.providers.base import Completion, ModelRequest, Provider, ProviderError
from agent_tui.core.tools.registry import ToolRegistry
from agent_tui.core.transcript import INTERRUPTED_NOTE, Message, Prompt, Usage, cut_off_note

if TYPE_CHECKING:
    from agent_tui.core.commands.grants import CommandRun

log = logging.getLogger(__name__)
REPLY_MAX_TOKENS = 8192
"""The most one reply may take (less when the model's output limit is lower)."""

Phase = AsyncGenerator[Event | NextStep, None]
"""A phase of the turn: its events, then its next step (its last item)."""


def failure_kind(status: int | None, overflow: bool) -> str:
    """Claude Code's ``StopFailure`` matcher value for a failed request."""
    if overflow:
        return "invalid_request"
    if status == 429:
        return "rate_limit"
    if status in (401, 403):
        return "authentication_failed"
    if status == 402:
        return "billing_error"
    if status is not None and 400 <= status < 500:
        return "invalid_request"
    if status is not None and status >= 500:
        return "server_error"
    return "unknown"


class TurnRunner:
    """Runs the turns of one agent."""

    def __init__(
        self,
        host: TurnHost,
        conversation: ConversationState,
        control: RunControl,
        compactor: Compactor,
        rewinder: Rewinder,
    ) -> None:
        self.host = host
        self.conversation = conversation
        self.control = control
        self.compactor = compactor
        self.rewinder = rewinder
        self._tools_cost: ToolsCost | None = None

    async def run(
        self, prompt: str | Prompt, asker: Asker | None, command: CommandRun | None = None
    ) -> AsyncGenerator[Event, None]:
        """Run one user turn to completion, yielding every event; ``turn_end`` last. The
        session file is ``fsync``-ed before ``turn_end``; a failure to save it is an ``error``
        event (``where="session"``), once, before ``turn_end`` or after the event it came
        with; a spill directory refused for a link on its way, one (``where="spill"``).
        ``command``: the custom command that starts the turn (its grant and model, for this
        turn only: ``command_turn``)."""
        async with aclosing(self._phases(prompt, asker, command)) as events:
            async for event in events:
                session = self.conversation.session
                if isinstance(event, TurnEnd) and session is not None:
                    await asyncio.to_thread(session.sync)
                notice = self._session_notice()
                if notice is not None and isinstance(event, TurnEnd):
                    yield notice
                    notice = None
                yield event
                if notice is not None:
                    yield notice
                refused = self.host.spills.take_problem()
                if refused is not None:  # a link where the spill directory should be
                    yield ErrorEvent(message=refused, where="spill")

    def _session_notice(self) -> ErrorEvent | None:
        session = self.conversation.session
        problem = session.take_problem() if session is not None else None
        return ErrorEvent(message=problem, where="session") if problem else None

    async def _phases(
        self, prompt: str | Prompt, asker: Asker | None, command: CommandRun | None
    ) -> AsyncGenerator[Event, None]:
        """The turn's phases, each ending with its next step; ``turn_end`` from the last."""
        await self.rewinder.settle()  # the previous turn's last scan, before this turn's records
        self.control.start()
        text, attached = (
            (prompt.text, prompt.images) if isinstance(prompt, Prompt) else (prompt, ())
        )
        turn = Turn(secrets.token_hex(4), text, asker, attached, command=command)
        turn.checkpoint = self.rewinder.checkpoint(turn.id, text)
        try:
            phase = self._open(turn, open_model(turn, self.host))
            while True:
                step: NextStep | None = None
                async with aclosing(phase) as items:
                    async for item in items:
                        if isinstance(item, RunAgain | EndTurn):
                            step = item
                        else:
                            yield item
                if step is None:
                    raise RuntimeError("a phase of the turn ended without its next step")
                if isinstance(step, EndTurn):
                    end = step
                    break
                phase = self._round(turn)
            if end.error is not None:
                yield end.error
            yield end.event()  # the one place a turn ends
        finally:
            if turn.checkpoint is not None:  # its last scan ends in the background (``settle``)
                self.rewinder.close_later(turn.checkpoint)
            self.control.running = False
            await close_model(turn)  # the next turn is the session's model

    # -- the phases ---------------------------------------------------------------------------

    async def _open(self, turn: Turn, said: str | None) -> Phase:
        """The prompt, with its mentions and the hooks' context, in the transcript; ``said``:
        why the command's model is not used (``command_turn.open_model``)."""
        prompt, hooks, state = turn.prompt, self.host.hooks, self.conversation
        expansion = await self._expand(prompt)
        sent = expansion.text
        if hooks is not None and state.start_source is not None:
            source, state.start_source = state.start_source, None
            if hooks.has("SessionStart", source):  # its matcher: startup, resume, clear, compact
                started = await hooks.run("SessionStart", {"source": source}, match=source)
                for hook_event in started.events:
                    yield hook_event
                if started.additional_context:
                    sent += (
                        f"\n\n<session-start-context>\n{started.additional_context}\n"
                        "</session-start-context>"
                    )
        if hooks is not None and hooks.has("UserPromptSubmit"):
            verdict = await hooks.run("UserPromptSubmit", {"prompt": prompt})
            for hook_event in verdict.events:
                yield hook_event
            if verdict.blocked or verdict.stop:
                yield EndTurn("completed", 0)
                return
            if verdict.additional_context:
                sent += f"\n\n<hook-context>\n{verdict.additional_context}\n</hook-context>"
        ended = take_ended(self.host.executor.jobs)  # background jobs ended since
        if ended is not None:
            sent += f"\n\n{ended[0]}"
        typed = prompt if sent != prompt else None
        images = [await state.images.keep(image) for image in (*turn.attached, *expansion.images)]
        mentions = expansion.mentions
        state.append(
            Message.user(sent, turn=turn.id, typed=typed, mentions=mentions, images=images)
        )
        command = grant_event(turn, self.host, said)
        yield UserMessage(text=prompt, mentions=mentions, images=images, command=command)
        if ended is not None:
            yield ended[1]
        provider = provider_of(turn, self.host)
        if images and not self._vision(provider):
            yield ErrorEvent(message=vision.text_only_note(provider.name, images), where="images")
        if self.host.tool_sources:  # e.g. MCP servers still connecting (each has a deadline)
            try:
                await self.control.guard(self._sources_ready())
            except Interrupted:
                yield EndTurn("interrupted", 0)
                return
        yield RunAgain()

    async def _round(self, turn: Turn) -> Phase:
        """One model request, then the tool calls it made."""
        host = self.host
        if turn.requests >= host.max_turns:
            guard = ErrorEvent(
                message=f"Stopped after {host.max_turns} model requests in one turn "
                "(max-turns guard). Send a new message to continue.",
                where="agent",
            )
            yield EndTurn("max_turns", turn.requests, turn.text, error=guard)
            return
        turn.requests += 1
        if turn.auto_compact and self.compactor.over_threshold():
            turn.auto_compact = False  # once a turn: what is kept may stay above it
            try:
                async for compaction in self.compactor.fold("", "threshold"):
                    yield compaction
            except Interrupted:
                yield EndTurn("interrupted", turn.requests - 1, turn.text)
                return
        provider = provider_of(turn, host)
        tools, cost = self._request_tools(provider)
        if cost is not None:
            yield cost
        limits = turn.limits or host.limits
        messages = list(self.conversation.messages)
        vision = self._vision(provider)
        host.executor.images = self.conversation.images.sink(vision)  # read_file of an image
        request = ModelRequest(
            system=host.system,
            messages=messages,
            tools=tools,
            max_tokens=min(REPLY_MAX_TOKENS, limits.max_output_tokens),
            images=await self.conversation.images.encoded(messages) if vision else {},
            vision=vision,
        )
        reply = Reply()
        try:
            stream = stream_reply(provider, host.settings.model, request, self.control, reply)
            async with aclosing(stream) as deltas:
                async for delta in deltas:
                    yield delta
        except Interrupted:
            if reply.text:
                note = reply.text + INTERRUPTED_NOTE
                self.conversation.append(Message.assistant(note, interrupted=True))
            yield EndTurn("interrupted", turn.requests, reply.text)
            return
        except ProviderError as exc:
            note = self._image_refusal(provider, request, exc)
            async with aclosing(self._failed(turn, reply, exc, note)) as items:
                async for item in items:
                    yield item
            return
        if reply.completion is None:
            said = "The model stream ended without a final message."
            self._keep_cut_off(reply, said)
            error = ErrorEvent(message=said, where="provider")
            yield EndTurn("error", turn.requests, reply.text, error=error)
            return
        completion = reply.completion
        state = self.conversation
        state.usage = state.usage + completion.usage
        yield self._context_after(completion.usage, provider).event(completion.usage, state.usage)
        text = completion.text or reply.text
        turn.text = text
        state.append(Message.assistant(text, completion.tool_calls, usage=completion.usage))
        yield AssistantMessage(text=text, tool_calls=completion.tool_calls)
        phase = self._stop(turn) if not completion.tool_calls else self._tools(turn, completion)
        async with aclosing(phase) as items:
            async for item in items:
                yield item

    def _vision(self, provider: Provider) -> bool:
        """Whether ``provider``'s model is sent images (``core.images.vision``)."""
        setting, refused = self.host.settings.model.vision, self.conversation.images.refused
        return vision.accepts_images(provider.name, setting=setting, refused=refused)

    def _image_refusal(self, provider: Provider, request: ModelRequest, exc: ProviderError) -> str:
        """What to add to the error when the model refused the request's images (and remember
        it: the session sends a note in their place to that model from now on)."""
        if not request.vision or not any(m.images for m in request.messages):
            return ""
        if not vision.is_image_refusal(str(exc), exc.status):
            return ""
        self.conversation.images.refused.add(provider.name)
        return vision.refusal_note(provider.name)

    async def _failed(self, turn: Turn, reply: Reply, exc: ProviderError, note: str = "") -> Phase:
        """The request failed: compact and send again after an overflow (once), else end;
        ``note``: what to add to the error (a model that refused images)."""
        from agent_tui.core.conversation.compaction import is_context_overflow

        overflow = is_context_overflow(str(exc), exc.status)
        if overflow and not turn.overflowed and not reply.parts:
            turn.overflowed = True
            folded = False
            try:
                async for compaction in self.compactor.fold("", "overflow"):
                    folded = folded or compaction.phase == "end"
                    yield compaction
            except Interrupted:
                yield EndTurn("interrupted", turn.requests)
                return
            if folded:
                turn.requests -= 1
                yield RunAgain()
                return
        said = str(exc) + note
        self._keep_cut_off(reply, said)
        if overflow:
            said += (
                " — the conversation is larger than the model's context window"
                + (" even after compacting it" if turn.overflowed else "")
                + ". Start a new conversation (/clear), or rewind (/rewind) to "
                "before a turn that read large files."
            )
        error = ErrorEvent(message=said, where="provider", retryable=exc.retryable)
        hooks = self.host.hooks
        kind = failure_kind(exc.status, overflow)
        if hooks is not None and hooks.has("StopFailure", kind):
            payload = {"error": kind, "error_details": said, "last_assistant_message": reply.text}
            try:  # what they answer is not read: the turn has failed (as in Claude Code)
                verdict = await hooks.run("StopFailure", payload, match=kind)
            except Exception:
                log.exception("the StopFailure hooks failed")
            else:
                for hook_event in verdict.events:
                    yield hook_event
        yield EndTurn("error", turn.requests, reply.text, error=error)

    async def _stop(self, turn: Turn) -> Phase:
        """The model called no tool: the turn ends, unless a Stop hook sends it on (once)."""
        hooks = self.host.hooks
        if hooks is not None and hooks.has("Stop"):
            verdict = await hooks.run("Stop", {"stop_hook_active": turn.stop_hook_active})
            for hook_event in verdict.events:
                yield hook_event
            if verdict.blocked and not verdict.stop and not turn.stop_hook_active:
                turn.stop_hook_active = True  # once: a Stop hook cannot loop forever
                self.conversation.append(Message.user(verdict.reason, injected=True))
                yield UserInjected(text=verdict.reason)
                yield RunAgain()
                return
        yield EndTurn("completed", turn.requests, turn.text)

    async def _tools(self, turn: Turn, completion: Completion) -> Phase:
        """Run the calls of ``completion``; then what the user typed meanwhile."""
        host, state = self.host, self.conversation
        executor = host.executor
        for sent in completion.tool_calls:
            # Claude Code's ``Bash`` is shown as run_shell; run_tool(name, input) as its target
            call = host.registry.as_ours(sent)
            tool = host.registry.get(call.name)
            yield ToolUse(
                id=call.id,
                name=call.name,
                input=call.parsed_arguments(),
                raw_arguments=call.arguments,
                read_only=bool(tool and tool.meta.read_only),
            )
        results: list[Message] = []
        try:
            async for event in executor.execute(
                completion.tool_calls,
                results,
                self.control.interrupt,
                asker=turn.asker,
                checkpoint=turn.checkpoint,
                grant=turn.grant,
            ):
                if isinstance(event, ToolResult) and event.subagent is not None:
                    state.usage = state.usage + event.subagent.usage  # a task's tokens
                yield event
                plan = plan_event(event)
                if plan is not None:
                    yield plan
                for hook_event in executor.take_hook_events():
                    yield hook_event
        finally:
            for message in results:
                state.append(message)
            self._close_dangling(completion)
        for hook_event in executor.take_hook_events():
            yield hook_event
        if self.control.interrupt.is_set():
            yield EndTurn("interrupted", turn.requests, turn.text)
            return
        if executor.take_stop() is not None:  # "continue": false (shown by its event)
            yield EndTurn("completed", turn.requests, turn.text)
            return
        if turn.requests < host.max_turns:  # a next request will see them
            for pending in host.inbox.drain():
                state.append(Message.user(pending.text, injected=True))
                yield UserInjected(text=pending.text, id=pending.id)
            ended = take_ended(executor.jobs)
            if ended is not None:
                state.append(Message.user(ended[0], injected=True))
                yield ended[1]
        yield RunAgain()

    # -- what the phases use --------------------------------------------------------------------

    def _request_tools(self, provider: Provider) -> tuple[ToolRegistry, ToolsCost | None]:
        """The tools of the next request (to ``provider``): through progressive disclosure
        when it is on (with a ``tools_cost`` event when the cost changed), else the whole
        registry (less ``exit_plan_mode`` outside plan mode: ``plain_tools``)."""
        host = self.host
        if host.disclosure is None:
            return offered(plain_tools(host.registry, host.policy), host.executor.jobs), None
        host.disclosure.protocol = "strict" if provider.kind == "anthropic" else "free-text"
        if host.executor.jobs.infos():  # the job tools, once there is a job to use them on
            host.disclosure.unmasked.update(JOB_TOOLS)
        filters = request_filters(host.policy, host.registry)
        cost = ToolsCost.model_validate(host.disclosure.estimate(**filters))
        changed = cost != self._tools_cost
        self._tools_cost = cost
        return host.disclosure.view(**filters), (cost if changed else None)

    def _context_after(self, usage: Usage, provider: Provider) -> ContextUsage:
        """The context right after a response: the provider's count, or (a server that
        reports no usage) the estimate; the demo's count is an estimate."""
        reported = reported_usage(usage, self.host.limits)
        if reported.tokens == 0:
            return self.host.context()
        if provider.kind == "demo":  # the offline demo counts nothing: it estimates
            return replace(reported, estimated=True)
        return reported

    async def _expand(self, prompt: str) -> Expansion:
        """The prompt with what its ``@`` mentions name attached (``core.mentions``), judged
        by the read guard in force now."""
        if "@" not in prompt:
            return Expansion(prompt)
        expander = MentionExpander(
            self.host.cwd,
            reads=self.host.policy.reads,
            file_state=self.host.file_state,
            resources=self.host.mention_resources,
        )
        try:
            return await expander.expand(prompt)
        except Exception:  # a mention must never cost the prompt
            log.exception("expanding the mentions failed")
            return Expansion(prompt)

    async def _sources_ready(self) -> None:
        results = await asyncio.gather(
            *(source.ready() for source in self.host.tool_sources), return_exceptions=True
        )
        for result in results:
            if isinstance(result, Exception):
                log.error("a tool source failed to start", exc_info=result)

    def _keep_cut_off(self, reply: Reply, reason: str) -> None:
        """The stream failed after some text arrived: keep that text in the transcript, marked
        as cut off with the error (as an interrupt keeps it), so the next request carries it
        and a resumed session shows it."""
        if reply.text:
            self.conversation.append(
                Message.assistant(reply.text + cut_off_note(reason), cut_off=reason)
            )

    def _close_dangling(self, completion: Completion) -> None:
        """Give every call of ``completion`` a result message, even on a hard cancel."""
        answered = {m.tool_call_id for m in self.conversation.messages if m.role == "tool"}
        for call in completion.tool_calls:
            if call.id not in answered:
                self.conversation.append(
                    interrupted_result(call, "Interrupted before this call ran.")
                )


__all__ = ["REPLY_MAX_TOKENS", "Phase", "TurnRunner"]
