"""Headless mode (``agent-tui -p``): the same loop and events as the TUI, rendered as text/JSON.

``text`` streams the answer to stdout and one line per tool event to stderr (a spilled output
shows where its full text is); ``json`` prints a single result object at the end (with the
spill files of the run); ``stream-json`` prints every event as one JSON line. The exit
code is 0 when the turn completed, 1 on an error or max-turns stop, 130 when interrupted.
"""

from __future__ import annotations

import asyncio
import json
import logging
import signal
import sys
from typing import Literal, TextIO

from agent_tui.core.agent.agent import Agent
from agent_tui.core.events import ErrorEvent, Event, SessionStart, Spill, TurnEnd, UsageEvent
from agent_tui.headless.text import TextRenderer

log = logging.getLogger(__name__)

OutputFormat = Literal["text", "json", "stream-json"]
EXIT_CODES = {"completed": 0, "error": 1, "max_turns": 1, "interrupted": 130}
EXIT_UNSAVED = 4
"""The run completed, but part of its session could not be saved (a full disk)."""
DEMO_NOTICE = (
    "[agent-tui: offline demo model — set AGENT_API_KEY or ANTHROPIC_API_KEY, or pass --model, "
    "for a real model]"
)


async def run_headless(
    agent: Agent,
    prompt: str,
    output_format: OutputFormat = "text",
    *,
    session_start: SessionStart,
    out: TextIO | None = None,
    err: TextIO | None = None,
    piped: str = "",
) -> int:
    """Run ``prompt`` (a slash command is resolved first: ``headless.commands``; ``piped``
    is what came on stdin, appended to the prompt)."""
    out = out or sys.stdout
    err = err or sys.stderr
    from agent_tui.headless.commands import Done, resolve, with_stdin

    resolved = await resolve(agent, prompt if prompt != "-" else "")
    if isinstance(resolved, Done):
        await agent.close()
        (out if resolved.code == 0 else err).write(
            resolved.text + "\n" if resolved.code == 0 else f"agent-tui: {resolved.text}\n"
        )
        return resolved.code
    for note in resolved.notes:
        err.write(f"agent-tui: {note}\n")
    prompt = with_stdin(resolved.prompt if prompt != "-" else "-", piped)
    if not prompt.strip():
        await agent.close()
        err.write("agent-tui: the prompt is empty (nothing on stdin for -p -)\n")
        return 2
    events: list[dict[str, object]] = []
    end: TurnEnd | None = None
    errors: list[str] = []
    usage: UsageEvent | None = None
    spills: list[dict[str, object]] = []
    renderer = TextRenderer(out, err) if output_format == "text" else None

    def emit(event: Event) -> None:
        if output_format == "stream-json":
            out.write(event.to_json() + "\n")
            out.flush()
        elif output_format == "json":
            events.append(event.model_dump(mode="json", exclude_none=True))
        elif renderer is not None:
            renderer(event)

    session_start = await _with_start_failures(agent, session_start)
    if session_start.demo and output_format == "text":
        err.write(DEMO_NOTICE + "\n")
    for warning in session_start.warnings:  # stderr in every format: stdout stays parseable
        err.write(f"agent-tui: {warning}\n")
    emit(session_start)

    loop = asyncio.get_running_loop()
    installed = _install_sigint(loop, agent)
    try:
        async for event in agent.run(prompt, command=resolved.run):
            emit(event)
            if isinstance(event, TurnEnd):
                end = event
            elif isinstance(event, ErrorEvent):
                errors.append(event.message)
            elif isinstance(event, UsageEvent):
                usage = event
            elif isinstance(event, Spill):
                spills.append(event.model_dump(mode="json", exclude={"type"}))
    finally:
        if installed:
            loop.remove_signal_handler(signal.SIGINT)
        await agent.close()
    reason = end.reason if end else "error"
    if agent.unsaved is not None:
        err.write(f"agent-tui: {agent.unsaved}\n")
    if output_format == "json":
        result = {
            "type": "result",
            "session_id": session_start.session_id,
            "model": session_start.model,
            "demo": session_start.demo,
            "reason": reason,
            "is_error": reason != "completed",
            "text": end.text if end else "",
            "turns": end.turns if end else 0,
            "errors": errors,
            "usage": usage.session.model_dump() if usage else None,
            "spills": spills,
            "warnings": session_start.warnings,
            "unsaved": agent.unsaved,
            "events": events,
        }
        out.write(json.dumps(result, ensure_ascii=False) + "\n")
        out.flush()
    code = EXIT_CODES.get(reason, 1)
    return code or (EXIT_UNSAVED if agent.unsaved is not None else 0)


async def _with_start_failures(agent: Agent, start: SessionStart) -> SessionStart:
    """``start`` with a warning per MCP server that failed to start: headless runs wait for
    the servers a request waits for first (eager ones, and lazy ones whose tools are not cached
    yet: the first model request would anyway), so a broken server is reported on stderr and
    in ``session_start.warnings`` rather than found by the model (a cached lazy server that
    fails to start is reported by the call that started it)."""
    if not agent.tool_sources:  # no MCP manager: nothing to wait for, nothing to import
        return start
    from agent_tui.core.mcp.client.manager import McpManager
    from agent_tui.core.mcp.client.state import start_failure

    found: list[str] = []
    for source in agent.tool_sources:
        if not isinstance(source, McpManager):
            continue
        try:
            await source.ready()
        except Exception as exc:  # the turn reports it again; the start must go on
            log.exception("starting the MCP servers failed")
            found.append(f"MCP servers could not be started: {type(exc).__name__}: {exc}")
            continue
        found.extend(start_failure(state) for state in source.start_failures())
    if not found:
        return start
    return start.model_copy(update={"warnings": [*start.warnings, *found]})


def _install_sigint(loop: asyncio.AbstractEventLoop, agent: Agent) -> bool:
    """First Ctrl+C interrupts the turn gracefully; a second one kills the process."""

    def on_sigint() -> None:
        agent.interrupt()
        loop.remove_signal_handler(signal.SIGINT)

    try:
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    except (NotImplementedError, RuntimeError, ValueError):
        return False
    return True
