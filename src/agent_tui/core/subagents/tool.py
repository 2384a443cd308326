"""The ``task`` tool: hand a self-contained task to a child agent with a fresh context.

The child is an ``Agent`` of its own — its own system prompt (it is told it is a subagent and
that only its last message reaches the parent), the task's prompt as its only user message —
sharing the parent's provider (or the one its definition's ``model`` names), permission policy
(deny rules, modes, asks: its asks go to the parent turn's asker, marked with its name),
output budget and spill store, sandbox and file-change recorder. Only its final report returns
as the tool result; its tool events are forwarded, typed with the ``task`` call's id
(``parent_call_id``) and the agent's name, and its calls and tokens come back with the result
(``ToolResult.subagent``), so the lane and a resumed session show its card.

Tools: a definition without ``tools`` gets every read-only tool of the session; a list picks
among the session's tools (unknown names are noted, ``task`` itself is never given: no
recursion; nor ``update_plan``: the plan is the session's; nor progressive disclosure's
proxies: the child gets its tools directly), and tools a deny rule removes outright are left
out. A project agent file can only narrow what the session has: every call its child makes, a
write included, is judged by the same pipeline as the parent's, so a repository cannot hand
itself write access the user's rules do not give. A ``task`` call runs in parallel with its
neighbours only when its child's tools are all read-only.

Cancelling the ``task`` call (Esc: the parent's interrupt cancels its calls) cancels the child
where it is: its model stream and its running calls are stopped and awaited before the call
ends.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from pydantic import Field

from agent_tui.core.agent.prompt import system_prompt
from agent_tui.core.calls import SubagentCall, SubagentReport, Usage
from agent_tui.core.disclosure.marks import request_filters
from agent_tui.core.disclosure.state import PROXIES
from agent_tui.core.events import (
    ErrorEvent,
    Event,
    PermissionRequest,
    Spill,
    ToolErrorEvent,
    ToolGroup,
    ToolProgress,
    ToolRejected,
    ToolResult,
    ToolUse,
    TurnEnd,
    UsageEvent,
)
from agent_tui.core.hooks.payload import NO_TRANSCRIPT
from agent_tui.core.permissions import Approval, ApprovalRequest, Asker
from agent_tui.core.providers.base import Provider, ProviderError
from agent_tui.core.skills import prompt_section
from agent_tui.core.skills.tool import ALIASES
from agent_tui.core.skills.tool import NAME as SKILL
from agent_tui.core.subagents.definitions import AgentCatalog, AgentDefinition
from agent_tui.core.tools import errors as codes
from agent_tui.core.tools.aliases import CallAlias
from agent_tui.core.tools.base import (
    ProgressUpdate,
    Tool,
    ToolContext,
    ToolInput,
    ToolMeta,
    ToolOutput,
)
from agent_tui.core.tools.claude_calls import from_task
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent_tui.core.agent.agent import Agent

log = logging.getLogger(__name__)
NAME = "task"
PLAN = "update_plan"
"""The session's plan (the panel the user watches) is the parent's: never a child's tool."""
MAX_RECORDED_CALLS = 200
"""The child calls a result keeps for its card (a resumed session shows these)."""
FORWARDED = (
    ToolUse,
    ToolGroup,
    ToolProgress,
    Spill,
    ToolResult,
    ToolRejected,
    ToolErrorEvent,
    PermissionRequest,
)

SUBAGENT_PROMPT = """\
# You are a subagent

You are the subagent "{name}", started by another agent (the parent) to do one self-contained
task. The task is the user message below; nobody else will talk to you, and you cannot ask
questions. Work with the tools you have (some of the parent's tools may be missing). When you
are done, answer with a final report: your last message is all the parent sees — not your tool
calls or their output — so put in it everything it needs (findings, file paths with line
numbers, what you changed, what you could not do). Be concise.
"""


CLAUDE_CALLS = (CallAlias("Task", from_task), CallAlias("Agent", from_task))
"""Claude Code's names of this tool (``Agent`` is the newer one of ``Task``)."""


class TaskInput(ToolInput):
    description: str = Field(
        description="A short label for the task (3-6 words), shown to the user on its card."
    )
    prompt: str = Field(
        description="The whole task for the subagent, self-contained: it sees nothing of this "
        "conversation. Say what to find or do and what its report must contain."
    )
    agent: str | None = Field(
        default=None,
        description="The named agent to run (see this tool's description); default: general.",
    )


class Subagents:
    """The ``task`` tool of one parent agent (``install``)."""

    def __init__(self, parent: Agent, catalog: AgentCatalog) -> None:
        self.parent = parent
        self.catalog = catalog

    # -- what a child gets ------------------------------------------------------------------

    def tools_for(self, definition: AgentDefinition) -> tuple[ToolRegistry, list[str]]:
        """The child's tools and notes on names it asked for that it does not get."""
        registry = self.parent.registry
        notes: list[str] = []
        if definition.tools is None:
            picked = [
                t
                for t in registry.tools()
                if t.meta.read_only and t.name not in (NAME, PLAN) and t.name not in PROXIES
            ]
        else:
            picked = []
            for name in definition.tools:
                tool = registry.get(name)
                if name == NAME or (tool is not None and tool.name == NAME):
                    notes.append("task (a subagent cannot start subagents)")
                elif tool is not None and tool.name == PLAN:
                    notes.append(f"{PLAN} (the plan is the session's, kept by the parent)")
                elif tool is not None and tool.name in PROXIES:
                    notes.append(f"{name} (a subagent gets its tools directly)")
                elif tool is None:
                    notes.append(f"{name} (no such tool in this session)")
                elif tool not in picked:
                    picked.append(tool)
        denied = set(request_filters(self.parent.policy, ToolRegistry(picked))["denied"])
        notes += [f"{name} (denied by a permission rule)" for name in sorted(denied)]
        return ToolRegistry(t for t in picked if t.name not in denied), notes

    async def _drive(
        self, child: Agent, prompt: str, asker: Asker | None, watch: _Watch, ctx: ToolContext
    ) -> None:
        """One turn of the child: its events forwarded to the parent's card, watched."""
        turn = child.run(prompt, asker=asker)
        try:
            async for event in turn:
                watch.see(event)
                if isinstance(event, FORWARDED):
                    update = {"parent_call_id": ctx.call_id, "agent": watch.name}
                    ctx.emit(event.model_copy(update=update))
                if isinstance(event, (ToolResult, ToolErrorEvent, ToolRejected, UsageEvent)):
                    ctx.progress(ProgressUpdate(message=watch.summary()))
        finally:
            await _close(turn)

    async def _start_hooks(self, name: str, prompt: str, ctx: ToolContext) -> str:
        """The ``SubagentStart`` hooks (matched against the agent's name): the child's prompt
        with what they add (``additionalContext``); they cannot stop it, as in Claude Code."""
        hooks = self.parent.executor.hooks
        if hooks is None or not hooks.has("SubagentStart", name):
            return prompt
        payload = {"agent_id": ctx.call_id, "agent_type": name}
        try:
            verdict = await hooks.run("SubagentStart", payload, match=name)
        except Exception:  # a hook must never cost the task
            log.exception("the SubagentStart hooks of %s failed", name)
            return prompt
        for event in verdict.events:
            ctx.emit(event)
        if verdict.additional_context:
            prompt += f"\n\n<hook-context>\n{verdict.additional_context}\n</hook-context>"
        return prompt

    async def _stop_hooks(self, name: str, ctx: ToolContext) -> str | None:
        """The ``SubagentStop`` hooks (matched against the agent's name, Claude Code's
        ``agent_type``): the reason to go on when one blocks, else None."""
        hooks = self.parent.executor.hooks
        if hooks is None or not hooks.has("SubagentStop", name):
            return None
        payload = {
            "stop_hook_active": False,
            "agent_id": ctx.call_id,
            "agent_type": name,
            "agent_transcript_path": NO_TRANSCRIPT,
        }
        verdict = await hooks.run("SubagentStop", payload, match=name)
        for event in verdict.events:
            ctx.emit(event)
        if verdict.blocked and not verdict.stop and verdict.reason:
            return verdict.reason
        return None

    def read_only(self, definition: AgentDefinition) -> bool:
        tools, _ = self.tools_for(definition)
        return all(t.meta.read_only for t in tools.tools())

    def concurrent(self, args: TaskInput) -> bool:
        definition = self.catalog.get(args.agent)
        return definition is not None and self.read_only(definition)

    def description(self) -> str:
        lines = [
            "Hand a self-contained task to a subagent: a child agent with a fresh context (it "
            "sees nothing of this conversation, only `prompt`) and its own tools, which works "
            "on it and answers with a report. Only that report comes back to you. Use it for "
            "research that would fill your context (searching a codebase, reading many files) "
            "or for independent pieces of work; several task calls in one message run in "
            "parallel when their agents are read-only. Write `prompt` as a full brief.",
            "",
            "Agents (`agent`):",
        ]
        for name in self.catalog.names():
            definition = self.catalog.get(name)
            assert definition is not None
            if definition.tools is None:
                tools = "read-only tools"
            else:
                tools = ", ".join(definition.tools) or "no tools"
            about = definition.description or "(no description)"
            lines.append(f"- {name}: {about} [{tools}]")
        return "\n".join(lines)

    def tool(self) -> Tool[TaskInput]:
        return Tool(
            name=NAME,
            description=self.description(),
            input_model=TaskInput,
            call=self.call,
            # The call itself changes nothing: each of its child's calls is judged (and, a
            # write, asked about) by the same permission pipeline as the parent's own.
            meta=ToolMeta(read_only=True, concurrency_safe=True),
            concurrent=self.concurrent,
            call_aliases=tuple(CLAUDE_CALLS),
        )

    # -- running one ------------------------------------------------------------------------

    def _system(self, definition: AgentDefinition) -> str:
        parent = self.parent
        skills = parent.skills.skills if parent.skills is not None else []
        if definition.tools is not None and not {SKILL, *ALIASES} & set(definition.tools):
            skills = []  # a child without the skill tool is not told of skills
        catalog = prompt_section(skills, parent.limits.context_window)
        text = system_prompt(parent.cwd, parent.memory.system_text(), catalog)
        text += "\n" + SUBAGENT_PROMPT.format(name=definition.name)
        if definition.prompt:
            text += "\n# Your instructions\n\n" + definition.prompt + "\n"
        return text

    def _provider(self, definition: AgentDefinition) -> tuple[Provider, bool]:
        """The child's provider, and whether it is its own (to close after)."""
        spec = definition.model
        if not spec or (":" not in spec and spec.lower() != "demo"):  # e.g. inherit, haiku
            return self.parent.provider, False
        from agent_tui.core.providers.spec import make_provider

        return make_provider(spec, cwd=self.parent.cwd), True

    async def call(self, args: TaskInput, ctx: ToolContext) -> ToolOutput:
        from agent_tui.core.agent.agent import Agent

        definition = self.catalog.get(args.agent)
        if definition is None:
            raise ToolFailure(
                codes.INVALID_ARGUMENTS,
                f"There is no agent named {args.agent!r}.",
                f"Use one of: {', '.join(self.catalog.names())}, or leave `agent` out.",
                retryable=True,
            )
        tools, notes = self.tools_for(definition)
        try:
            provider, own = self._provider(definition)
        except ProviderError as exc:
            raise ToolFailure(
                codes.TOOL_EXCEPTION,
                f"Agent {definition.name!r} names model {definition.model!r}, which cannot be "
                f"used: {exc}",
                "Run the task with another agent, or leave `agent` out.",
            ) from None
        parent = self.parent
        child = Agent(
            provider,
            tools,
            parent.cwd,
            policy=parent.policy,
            max_turns=parent.max_turns,
            system=self._system(definition),
            settings=parent.settings,
            sessions=parent.sessions,
            memory=parent.memory,
            spills=parent.spills,
            sandbox=parent.executor.sandbox,
        )
        child.executor.memory = None  # nested memory files stay the parent's to find
        # The user's PreToolUse / PostToolUse hooks see the child's calls too: a subagent is
        # no way around a hook that blocks a call (the session-level events stay the parent's).
        child.executor.hooks = parent.executor.hooks
        # what it changes is kept by the parent turn's checkpoint (rewind restores it)
        child.executor.inherited = parent.executor.checkpoint
        child.executor.jobs = parent.executor.jobs  # background jobs are the session's
        child.executor.files = parent.executor.files  # the editor's buffers, when it has them
        name = definition.name
        asker = _marked(ctx.asker, name) if ctx.asker is not None else None
        watch = _Watch(name)
        try:
            prompt = await self._start_hooks(name, args.prompt, ctx)
            await self._drive(child, prompt, asker, watch, ctx)
            again = await self._stop_hooks(name, ctx)  # SubagentStop: a block goes on, once
            if again is not None:
                await self._drive(child, again, asker, watch, ctx)
        finally:
            if own:
                try:
                    await provider.aclose()
                except Exception:
                    log.exception("closing the subagent's provider failed")
        return watch.output(notes)


class _Watch:
    """What the child did, gathered from its events."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.calls: dict[str, SubagentCall] = {}
        self.usage = Usage()
        self.end: TurnEnd | None = None
        self.errors: list[str] = []

    def see(self, event: Event) -> None:
        if isinstance(event, ToolUse):
            self.calls[event.id] = SubagentCall(
                id=event.id, name=event.name, input=event.input, read_only=event.read_only
            )
        elif isinstance(event, (ToolResult, ToolErrorEvent, ToolRejected)):
            found = self.calls.get(event.id)
            if found is not None:
                self.calls[event.id] = _ended(found, event)
        elif isinstance(event, UsageEvent):
            self.usage = self.usage + event.turn
        elif isinstance(event, ErrorEvent):
            self.errors.append(event.message)
        elif isinstance(event, TurnEnd):
            self.end = event

    def summary(self) -> str:
        n = len(self.calls)
        tokens = self.usage.input_tokens + self.usage.output_tokens
        return f"{n} call{'s' if n != 1 else ''} · {_tokens(tokens)} tokens"

    def output(self, notes: list[str]) -> ToolOutput:
        end = self.end
        reason = end.reason if end is not None else "error"
        report = SubagentReport(
            agent=self.name,
            calls=list(self.calls.values())[:MAX_RECORDED_CALLS],
            usage=self.usage,
            requests=end.turns if end is not None else 0,
            reason=reason,
        )
        text = end.text.strip() if end is not None else ""
        footer = ""
        if notes:
            footer = f"\n\n[subagent {self.name} was not given: {'; '.join(notes)}]"
        if reason == "completed":
            content = text or f"(the subagent {self.name} ended without a report)"
            return ToolOutput(content=content + footer, summary=self.summary(), subagent=report)
        why = {
            "max_turns": "it reached the limit of model requests in one turn",
            "interrupted": "it was interrupted",
            "error": "it failed: " + ("; ".join(self.errors) or "unknown error"),
        }.get(reason, reason)
        content = f"The subagent {self.name} stopped before finishing: {why}."
        if text:
            content += f"\nIts last message:\n{text}"
        return ToolOutput(
            content=content + footer,
            is_error=True,
            summary=f"stopped ({reason}) · {self.summary()}",
            subagent=report,
        )


def _ended(call: SubagentCall, event: ToolResult | ToolErrorEvent | ToolRejected) -> SubagentCall:
    if isinstance(event, ToolResult):
        outcome = "failed" if event.is_error else "ok"
        return call.model_copy(update={"outcome": outcome, "summary": event.summary})
    if isinstance(event, ToolRejected):
        return call.model_copy(update={"outcome": "rejected", "summary": event.reason})
    stopped = event.code in ("interrupted", "cancelled")
    return call.model_copy(
        update={
            "outcome": "interrupted" if stopped else "error",
            "summary": f"{event.code}: {event.message}",
        }
    )


def _tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def _marked(asker: Any, name: str) -> Any:
    """The parent's asker, told which subagent asks (``ApprovalRequest.agent``). The request
    keeps its own future (``pending``): the parent's prompt settles the child's ask, and a mode
    change is judged again by the child's executor, as for the parent's own calls."""

    async def ask(request: ApprovalRequest) -> Approval:
        answer: Approval = await asker(replace(request, agent=name))
        return answer

    return ask


async def _close(turn: AsyncIterator[Event]) -> None:
    if not isinstance(turn, AsyncGenerator):
        return
    try:
        await turn.aclose()
    except RuntimeError:  # already running its own cleanup (a cancellation inside it)
        pass


def install(parent: Agent, catalog: AgentCatalog) -> Subagents:
    """Register ``task`` in ``parent``'s registry (replacing an earlier one)."""
    subagents = Subagents(parent, catalog)
    if NAME in parent.registry:
        parent.registry.unregister(NAME)
    parent.registry.register(subagents.tool())
    return subagents
