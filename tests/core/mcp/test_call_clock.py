"""A call that waits on a server still working: its signs of life (progress for the call, log
messages, stderr output) keep it alive past the idle ``timeout``, up to ``max_total_timeout``;
a server that goes silent fails the call after the idle timeout, saying what to configure.

Against a real stdio server of our own (Python, the SDK's ``MCPServer``, written below), through
the manager and the executor as the agent calls it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from agent_tui.cli.main import main
from agent_tui.core.mcp.client import call_clock
from agent_tui.core.mcp.client.elicitation import ElicitationAnswer, ElicitationRequest
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import of_type, python_entry, run_calls, write_config
from tests.core.mcp.test_elicitation import elicit_entry

IN_MODULE_LOOP = pytest.mark.asyncio(loop_scope="module")

SERVER = '''
import asyncio, os, sys
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import LoggingMessageNotification, LoggingMessageNotificationParams

server = MCPServer("slow")


@server.tool()
async def working(seconds: float, ctx: Context, every: float = 0.2, until: str = "") -> str:
    """Report progress every ``every`` s for ``seconds`` s (0: forever) and, with ``until``,
    until that file exists; then answer."""
    loop = asyncio.get_running_loop()
    end, step = loop.time() + seconds, 0
    while seconds == 0 or loop.time() < end or (until and not os.path.exists(until)):
        step += 1
        await ctx.report_progress(step, None, f"installing package {step}")
        await asyncio.sleep(every)
    return f"done after {step} steps"


@server.tool()
async def logging(seconds: float, ctx: Context, every: float = 0.2) -> str:
    """Send a log message every ``every`` s for ``seconds`` s, then answer."""
    loop = asyncio.get_running_loop()
    end, step = loop.time() + seconds, 0
    while loop.time() < end:
        step += 1
        params = LoggingMessageNotificationParams(level="info", data=f"log {step}")
        await ctx.request_context.session.send_notification(
            LoggingMessageNotification(params=params)
        )
        await asyncio.sleep(every)
    return f"logged {step} times"


@server.tool()
async def printing(seconds: float, every: float = 0.2) -> str:
    """Write a line to stderr every ``every`` s for ``seconds`` s, then answer."""
    loop = asyncio.get_running_loop()
    end, step = loop.time() + seconds, 0
    while loop.time() < end:
        step += 1
        print(f"npm http fetch GET 200 package-{step}", file=sys.stderr, flush=True)
        await asyncio.sleep(every)
    return f"printed {step} lines"


@server.tool()
async def silent() -> str:
    """Say nothing, ever."""
    await asyncio.sleep(3600)
    return "unreachable"


server.run("stdio")
'''

IDLE = 1.0
LIMIT = 2.5


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("clock")
    (root / "slow_server.py").write_text(SERVER, encoding="utf-8")
    return root


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(project: Path) -> AsyncIterator[McpManager]:
    entry = python_entry(str(project / "slow_server.py"))
    config = write_config(
        project / "mcp.json",
        {
            "slow": {**entry, "timeout": IDLE},  # the default hard limit (600 s)
            "capped": {**entry, "timeout": IDLE, "max_total_timeout": LIMIT},
        },
    )
    manager = McpManager(project, default_registry(), paths=[config])
    await manager.start()
    await manager.wait_ready()
    for name in ("slow", "capped"):
        state = manager.state(name)
        assert state.status == "connected", (state.reason, state.stderr_tail)
    yield manager
    await manager.aclose()


@pytest.fixture(autouse=True)
def _notice_soon(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(call_clock, "NOTICE_AFTER", 0.5)  # say what it waits for sooner


async def _call(manager: McpManager, project: Path, tool: str, args: dict[str, object]):  # type: ignore[no-untyped-def]
    started = time.monotonic()
    events, _ = await run_calls(manager.registry, project, [(tool, args)])
    return events, time.monotonic() - started


@IN_MODULE_LOOP
async def test_progress_keeps_a_call_alive_past_the_idle_timeout(
    manager: McpManager, project: Path
) -> None:
    events, took = await _call(manager, project, "mcp__slow__working", {"seconds": 2.4})
    [result] = of_type(events, "tool_result")
    assert result.content.startswith("done after ")
    assert took > 2 * IDLE
    waits = [e.waiting for e in of_type(events, "tool_progress") if e.waiting is not None]
    assert waits, "no progress said what the call waits for"
    last = waits[-1]
    assert last.server == "slow"
    assert last.sign == "progress"
    assert last.said is not None
    assert last.said.startswith("installing package ")
    assert last.quiet < IDLE
    assert last.waited >= 0.5
    assert (last.idle_timeout, last.limit) == (IDLE, 600.0)
    # Before the notice, progress carries no wait: a fast call looks as it always did.
    first = next(e for e in of_type(events, "tool_progress") if e.progress is not None)
    assert first.waiting is None


@IN_MODULE_LOOP
async def test_a_stalled_agent_loop_is_not_the_servers_silence(
    manager: McpManager, project: Path
) -> None:
    """The agent's own loop blocked for longer than the idle timeout (a long paint, a loaded
    machine) while the server kept sending progress: the progress waits unread in the pipe.
    The late wake gives the loop a moment to read it, and the call lives."""
    calls = asyncio.ensure_future(
        run_calls(manager.registry, project, [("mcp__slow__working", {"seconds": 4})])
    )
    await asyncio.sleep(2 * IDLE / 3)  # the call under way, its clock armed
    time.sleep(3 * IDLE)  # noqa: ASYNC251 - blocks the loop on purpose: nothing is read
    events, _ = await calls
    [result] = of_type(events, "tool_result")
    assert result.content.startswith("done after "), result.content


@IN_MODULE_LOOP
async def test_log_messages_keep_a_call_alive(manager: McpManager, project: Path) -> None:
    events, took = await _call(manager, project, "mcp__slow__logging", {"seconds": 2.2})
    [result] = of_type(events, "tool_result")
    assert result.content.startswith("logged ")
    assert took > 2 * IDLE
    waits = [e.waiting for e in of_type(events, "tool_progress") if e.waiting is not None]
    assert any(w.sign == "log" and w.said and w.said.startswith("log ") for w in waits)


@IN_MODULE_LOOP
async def test_stderr_output_keeps_a_call_alive(manager: McpManager, project: Path) -> None:
    events, took = await _call(manager, project, "mcp__slow__printing", {"seconds": 2.2})
    [result] = of_type(events, "tool_result")
    assert result.content.startswith("printed ")
    assert took > 2 * IDLE
    waits = [e.waiting for e in of_type(events, "tool_progress") if e.waiting is not None]
    assert any(
        w.sign == "output" and w.said and w.said.startswith("npm http fetch GET 200") for w in waits
    )


@IN_MODULE_LOOP
async def test_a_silent_server_fails_the_call_after_the_idle_timeout(
    manager: McpManager, project: Path
) -> None:
    events, took = await _call(manager, project, "mcp__slow__silent", {})
    [error] = of_type(events, "tool_error")
    assert error.code == "timeout"
    assert IDLE <= took < IDLE + 2.0
    assert error.message.startswith(
        "silent on the MCP server 'slow' was stopped: it waited 1 s with no progress, log "
        "message or output from the server"
    )
    assert "last sign of life: none" in error.message
    assert "raise \"timeout\" of 'slow' in " in error.next_step
    assert str(project / "mcp.json") in error.next_step
    assert "timeout (idle): 1 s" in error.details
    assert error.retryable
    assert manager.state("slow").status == "connected"  # the server is fine; the call is not
    # The server is still usable after its call was cancelled.
    events, _ = await _call(manager, project, "mcp__slow__working", {"seconds": 0.1})
    assert of_type(events, "tool_result")[0].content.startswith("done after ")


@IN_MODULE_LOOP
async def test_a_call_that_keeps_working_stops_at_the_hard_limit(
    manager: McpManager, project: Path
) -> None:
    events, took = await _call(manager, project, "mcp__capped__working", {"seconds": 0})
    [error] = of_type(events, "tool_error")
    assert error.code == "timeout"
    assert LIMIT <= took < LIMIT + 2.0
    assert error.message.startswith(
        "working on the MCP server 'capped' was stopped after 2.5 s, the limit for one call, "
        "though the server was still working (last sign of life: progress 0 s before the end: "
        "installing package "
    )
    assert "raise \"max_total_timeout\" of 'capped'" in error.next_step
    assert not error.retryable
    assert "max_total_timeout: 2.5 s" in error.details


@IN_MODULE_LOOP
async def test_the_clock_stops_while_a_person_answers_the_server(tmp_path: Path) -> None:
    config = write_config(tmp_path / "mcp.json", {"el": elicit_entry(timeout=IDLE)})
    manager = McpManager(tmp_path, default_registry(), paths=[config])
    person = 2.5 * IDLE

    async def answer(request: ElicitationRequest) -> ElicitationAnswer:
        await asyncio.sleep(person)  # the person reads the form and fills it in
        return ElicitationAnswer("accept", {"email": "ada@example.com"})

    manager.elicitation.handler = answer
    await manager.start()
    try:
        await manager.wait_ready()
        assert manager.state("el").status == "connected", manager.state("el").reason
        started = time.monotonic()
        events, _ = await run_calls(manager.registry, tmp_path, [("mcp__el__signup", {})])
        assert time.monotonic() - started >= person
        [result] = of_type(events, "tool_result")  # not a timeout: the form was open
        assert '"action": "accept"' in result.content
    finally:
        await manager.aclose()


def test_mcp_call_prints_what_it_waits_for(
    workspace: Path, project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = python_entry(str(project / "slow_server.py"), timeout=1)
    write_config(workspace / ".mcp.json", {"slow": entry})
    args = ["call", "slow", "printing", "--args", '{"seconds": 2}']
    code = main(["mcp", "--cwd", str(workspace), *args])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert out.startswith("printed ")
    assert "[waiting for slow: " in err
    assert "last output 0 s ago: npm http fetch GET 200 package-" in err
