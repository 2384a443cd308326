"""The agent's turn loop: one user prompt, model request after model request, to its end.

``run_turn`` is the body of ``Agent.run`` (``agent``): it records the turn's checkpoint,
expands the prompt's ``@`` mentions, runs the ``SessionStart`` and ``UserPromptSubmit``
hooks, then loops: compact at the threshold, stream one model request (in its own task,
``pump_stream``), run the tool calls it made through the executor, add what the user typed
meanwhile (the inbox), until the model stops, a hook stops it, the max-turns guard, an error,
or an interrupt (``Interrupted``: every call the model made still gets a result message,
``close_dangling``). A context overflow compacts and sends again, once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING

from agent_tui.core.agent import rewinding as agent_rewind
from agent_tui.core.conversation.compaction import is_context_overflow
from agent_tui.core.conversation.repair import interrupted_result
from agent_tui.core.events import (
    AssistantDelta,
    AssistantMessage,
    ErrorEvent,
    Event,
    ModelRetry,
    ToolResult,
    ToolUse,
    TurnEnd,
    UserInjected,
    UserMessage,
)
from agent_tui.core.mentions import Expansion, MentionExpander
from agent_tui.core.permissions import Asker
from agent_tui.core.plan import plan_event
from agent_tui.core.providers.base import (
    Completion,
    ModelRequest,
    ProviderError,
    Retrying,
    StreamItem,
    TextDelta,
)
from agent_tui.core.transcript import INTERRUPTED_NOTE, Message, cut_off_note

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent

log = logging.getLogger(__name__)
REPLY_MAX_TOKENS = 8192
"""The most one reply may take (less when the model's output limit is lower)."""


class Interrupted(Exception):
    """Raised inside the loop when ``Agent.interrupt()`` was called."""


async def run_turn(agent: Agent, prompt: str, asker: Asker | None) -> AsyncGenerator[Event, None]:
    await agent.settle()  # the previous turn's last scan, before this turn's records
    agent._interrupt.clear()
    agent.running = True
    turn = secrets.token_hex(4)
    checkpoint = agent_rewind.checkpoint(agent, turn, prompt)
    expansion = await expand(agent, prompt)
    sent = expansion.text
    if agent.hooks is not None and agent._start_source is not None:
        source, agent._start_source = agent._start_source, None
        if agent.hooks.has("SessionStart"):
            started = await agent.hooks.run("SessionStart", {"source": source})
            for hook_event in started.events:
                yield hook_event
            if started.additional_context:
                sent += (
                    f"\n\n<session-start-context>\n{started.additional_context}\n"
                    "</session-start-context>"
                )
    if agent.hooks is not None and agent.hooks.has("UserPromptSubmit"):
        verdict = await agent.hooks.run("UserPromptSubmit", {"prompt": prompt})
        for hook_event in verdict.events:
            yield hook_event
        if verdict.blocked or verdict.stop:
            agent.running = False
            yield TurnEnd(reason="completed", turns=0, text="")
            return
        if verdict.additional_context:
            sent += f"\n\n<hook-context>\n{verdict.additional_context}\n</hook-context>"
    typed = prompt if sent != prompt else None
    agent._append(Message.user(sent, turn=turn, typed=typed, mentions=expansion.mentions))
    yield UserMessage(text=prompt, mentions=expansion.mentions)
    stop_hook_active = False
    turns = 0
    final_text = ""
    compacted = False  # after an overflow, once: a second overflow ends the turn
    auto_compact = True  # at the threshold, once a turn
    try:
        if agent.tool_sources:  # e.g. MCP servers still connecting (each has a deadline)
            try:
                await agent._guard(sources_ready(agent))
            except Interrupted:
                yield TurnEnd(reason="interrupted", turns=0, text="")
                return
        while True:
            if turns >= agent.max_turns:
                yield ErrorEvent(
                    message=f"Stopped after {agent.max_turns} model requests in one turn "
                    "(max-turns guard). Send a new message to continue.",
                    where="agent",
                )
                yield TurnEnd(reason="max_turns", turns=turns, text=final_text)
                return
            turns += 1
            completion: Completion | None = None
            text_parts: list[str] = []
            if auto_compact and agent._over_threshold():
                auto_compact = False  # once a turn: what is kept may stay above it
                try:
                    async for step in agent._compact("", "threshold"):
                        yield step
                except Interrupted:
                    yield TurnEnd(reason="interrupted", turns=turns - 1, text=final_text)
                    return
            tools, cost = agent._request_tools()
            if cost is not None:
                yield cost
            request = ModelRequest(
                system=agent.system,
                messages=list(agent.messages),
                tools=tools,
                max_tokens=min(REPLY_MAX_TOKENS, agent.limits.max_output_tokens),
            )
            queue: asyncio.Queue[Pumped] = asyncio.Queue()
            pump = asyncio.create_task(pump_stream(agent, request, queue))
            try:
                while (item := await agent._guard(queue.get())) is not None:
                    if isinstance(item, BaseException):
                        raise item
                    if isinstance(item, TextDelta):
                        text_parts.append(item.text)
                        yield AssistantDelta(text=item.text)
                    elif isinstance(item, Retrying):
                        yield ModelRetry(
                            attempt=item.attempt,
                            retries=item.retries,
                            wait=item.wait,
                            reason=item.reason,
                            retry_after=item.retry_after,
                        )
                    elif isinstance(item, Completion):
                        completion = item
            except Interrupted:
                partial = "".join(text_parts)
                if partial:
                    agent._append(Message.assistant(partial + INTERRUPTED_NOTE, interrupted=True))
                yield TurnEnd(reason="interrupted", turns=turns, text=partial)
                return
            except ProviderError as exc:
                overflow = is_context_overflow(str(exc), exc.status)
                if overflow and not compacted and not text_parts:
                    # compact and send again, once
                    compacted = True
                    folded = False
                    try:
                        async for step in agent._compact("", "overflow"):
                            folded = folded or step.phase == "end"
                            yield step
                    except Interrupted:
                        yield TurnEnd(reason="interrupted", turns=turns, text="")
                        return
                    if folded:
                        turns -= 1
                        continue
                said = str(exc)
                keep_cut_off(agent, text_parts, said)
                if overflow:
                    said += (
                        " — the conversation is larger than the model's context window"
                        + (" even after compacting it" if compacted else "")
                        + ". Start a new conversation (/clear), or rewind (/rewind) to "
                        "before a turn that read large files."
                    )
                yield ErrorEvent(message=said, where="provider", retryable=exc.retryable)
                yield TurnEnd(reason="error", turns=turns, text="".join(text_parts))
                return
            finally:
                pump.cancel()
                try:
                    await pump
                except (asyncio.CancelledError, Exception):
                    pass
            if completion is None:
                said = "The model stream ended without a final message."
                keep_cut_off(agent, text_parts, said)
                yield ErrorEvent(message=said, where="provider")
                yield TurnEnd(reason="error", turns=turns, text="".join(text_parts))
                return
            agent.usage = agent.usage + completion.usage
            yield agent._context_after(completion.usage).event(completion.usage, agent.usage)
            text = completion.text or "".join(text_parts)
            final_text = text
            agent._append(Message.assistant(text, completion.tool_calls, usage=completion.usage))
            yield AssistantMessage(text=text, tool_calls=completion.tool_calls)
            if not completion.tool_calls:
                if agent.hooks is not None and agent.hooks.has("Stop"):
                    verdict = await agent.hooks.run("Stop", {"stop_hook_active": stop_hook_active})
                    for hook_event in verdict.events:
                        yield hook_event
                    if verdict.blocked and not verdict.stop and not stop_hook_active:
                        stop_hook_active = True  # once: a Stop hook cannot loop forever
                        agent._append(Message.user(verdict.reason, injected=True))
                        yield UserInjected(text=verdict.reason)
                        continue
                yield TurnEnd(reason="completed", turns=turns, text=final_text)
                return
            for call in completion.tool_calls:
                tool = agent.registry.get(call.name)
                yield ToolUse(
                    id=call.id,
                    name=call.name,
                    input=call.parsed_arguments(),
                    raw_arguments=call.arguments,
                    read_only=bool(tool and tool.meta.read_only),
                )
            results: list[Message] = []
            try:
                async for event in agent.executor.execute(
                    completion.tool_calls,
                    results,
                    agent._interrupt,
                    asker=asker,
                    checkpoint=checkpoint,
                ):
                    if isinstance(event, ToolResult) and event.subagent is not None:
                        agent.usage = agent.usage + event.subagent.usage  # a task's tokens
                    yield event
                    plan = plan_event(event)
                    if plan is not None:
                        yield plan
                    for hook_event in agent.executor.take_hook_events():
                        yield hook_event
            finally:
                for message in results:
                    agent._append(message)
                close_dangling(agent, completion)
            for hook_event in agent.executor.take_hook_events():
                yield hook_event
            if agent._interrupt.is_set():
                yield TurnEnd(reason="interrupted", turns=turns, text=final_text)
                return
            if agent.executor.take_stop() is not None:  # "continue": false (shown by its
                yield TurnEnd(reason="completed", turns=turns, text=final_text)  # event)
                return
            if turns < agent.max_turns:  # a next request will see them
                for pending in agent.inbox.drain():
                    agent._append(Message.user(pending.text, injected=True))
                    yield UserInjected(text=pending.text, id=pending.id)
    finally:
        if checkpoint is not None:  # its last scan ends in the background (``settle``)
            agent._settling = asyncio.ensure_future(checkpoint.close())
        agent.running = False


Pumped = StreamItem | Retrying | BaseException | None
"""What ``pump_stream`` hands the turn: the stream's items, a retry about to wait, the error
that ended it, and None at its end."""


def keep_cut_off(agent: Agent, text_parts: list[str], reason: str) -> None:
    """The stream failed after some text arrived: keep that text in the transcript, marked as
    cut off with the error (as an interrupt keeps it), so the next request carries it and a
    resumed session shows it."""
    partial = "".join(text_parts)
    if partial:
        agent._append(Message.assistant(partial + cut_off_note(reason), cut_off=reason))


async def pump_stream(agent: Agent, request: ModelRequest, queue: asyncio.Queue[Pumped]) -> None:
    """Consume one provider stream in its own task (one task owns the HTTP stream).

    The response must bring content (text, a tool call, its end) at least every
    ``model.idle_timeout`` seconds — bytes alone (a server's keep-alives) do not count — or it
    is given up with an error that says so; a retry's wait is not counted."""
    loop = asyncio.get_running_loop()
    idle = agent.settings.model.idle_timeout
    deadline = asyncio.timeout(idle)

    def retrying(retry: Retrying) -> None:
        deadline.reschedule(loop.time() + retry.wait + idle)
        queue.put_nowait(retry)

    request = dataclasses.replace(
        request, on_retry=retrying, max_retry_wait=agent.settings.model.max_retry_wait
    )
    try:
        async with deadline:
            async for item in agent.provider.stream(request):
                deadline.reschedule(loop.time() + idle)
                queue.put_nowait(item)
    except asyncio.CancelledError:
        raise
    except TimeoutError:
        queue.put_nowait(
            ProviderError(
                f"{agent.provider.name}: no content from the model for {idle:g} s (the server "
                "kept the connection open, perhaps with keep-alives, but sent no text or tool "
                'call). Try again; "model": {"idle_timeout": SECONDS} in settings sets the '
                "limit.",
                retryable=True,
            )
        )
    except ProviderError as exc:
        queue.put_nowait(exc)
    except Exception as exc:  # a provider bug must surface as an error, not a hang
        log.exception("the provider %s failed", agent.provider.name)
        queue.put_nowait(ProviderError(f"{agent.provider.name}: {type(exc).__name__}: {exc}"))
    queue.put_nowait(None)


async def expand(agent: Agent, prompt: str) -> Expansion:
    """The prompt with what its ``@`` mentions name attached (``core.mentions``), judged
    by the read guard in force now."""
    if "@" not in prompt:
        return Expansion(prompt)
    expander = MentionExpander(
        agent.cwd,
        reads=agent.policy.reads,
        file_state=agent.file_state,
        resources=agent.mention_resources,
    )
    try:
        return await expander.expand(prompt)
    except Exception:  # a mention must never cost the prompt
        log.exception("expanding the mentions failed")
        return Expansion(prompt)


async def sources_ready(agent: Agent) -> None:
    results = await asyncio.gather(
        *(source.ready() for source in agent.tool_sources), return_exceptions=True
    )
    for result in results:
        if isinstance(result, Exception):
            log.error("a tool source failed to start", exc_info=result)


def close_dangling(agent: Agent, completion: Completion) -> None:
    """Give every call of ``completion`` a result message, even on a hard cancel."""
    answered = {m.tool_call_id for m in agent.messages if m.role == "tool"}
    for call in completion.tool_calls:
        if call.id not in answered:
            agent._append(interrupted_result(call, "Interrupted before this call ran."))


__all__ = [
    "REPLY_MAX_TOKENS",
    "Interrupted",
    "close_dangling",
    "expand",
    "keep_cut_off",
    "pump_stream",
    "run_turn",
    "sources_ready",
]
