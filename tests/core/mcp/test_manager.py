"""The manager against SDK fixture servers that behave, crash, hang, flood, print garbage,
exit at start, change their tools, or speak streamable HTTP — one manager for the module."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from agent_tui.core.budget import BudgetSettings
from agent_tui.core.events import Event
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.tools.base import ProgressUpdate, ToolContext
from agent_tui.core.tools.builtin import default_registry
from tests.core.mcp.conftest import DEADLINE, fixture_entry, of_type, run_calls, write_config
from tests.core.mcp.servers import fixture_pids, http_server
from tests.core.tools.conftest import pid_gone, wait_until

pytestmark = pytest.mark.asyncio(loop_scope="module")
MARK = f"mgr-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp-project")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(project: Path) -> AsyncIterator[McpManager]:
    with http_server(MARK) as url:
        config = write_config(
            project / ".mcp.json",
            {
                "fx": fixture_entry(name=MARK),
                "quick": fixture_entry(name=MARK, timeout=1),
                "crashy": fixture_entry(name=MARK),
                "garbage": fixture_entry("garbage", name=MARK),
                "dies": fixture_entry("exit-at-start", name=MARK),
                "hangs": fixture_entry("hang-at-start", name=MARK, startup_timeout=1.5),
                "nocmd": {"command": str(project / "no-such-server")},
                "broken": {"command": "x", "timeout": "soon"},
                "web": {"type": "http", "url": url},
                "off": fixture_entry(name=MARK, disabled=True),
            },
        )
        manager = McpManager(project, default_registry(), paths=[config])
        await manager.start()
        await manager.wait_ready()
        yield manager
        await manager.aclose()


def _call_ctx(project: Path) -> ToolContext:
    return ToolContext(cwd=project, call_id="direct")


async def test_every_server_settles_with_a_status(manager: McpManager) -> None:
    states = {s.name: s for s in manager.states()}
    assert list(states) == sorted(states)
    for name in ("fx", "quick", "crashy", "garbage", "web"):
        assert states[name].status == "connected", (name, states[name].reason)
        assert states[name].tool_count >= 15
        assert states[name].protocol_version
        assert states[name].connect_seconds is not None
    assert states["dies"].status == "failed"
    assert states["dies"].reason == "the server exited during start-up"
    assert "fixture: bad configuration, giving up" in states["dies"].stderr_tail
    assert states["hangs"].status == "failed"
    assert states["hangs"].reason == "did not finish starting within 1.5 s"
    assert states["nocmd"].status == "failed"
    assert "command not found" in (states["nocmd"].reason or "")
    assert states["broken"].status == "failed"
    assert "$.timeout" in (states["broken"].reason or "")
    assert states["off"].status == "disabled"
    assert states["off"].tool_count == 0
    assert states["web"].transport == "http"
    assert states["web"].stderr_tail == ()


async def test_tools_are_registered_by_name_with_metadata(manager: McpManager) -> None:
    names = manager.registry.names()
    assert "read_file" in names  # the built-ins are still there
    assert "mcp__fx__echo" in names
    assert "mcp__web__echo" in names
    assert not any(n.startswith(("mcp__dies__", "mcp__off__", "mcp__hangs__")) for n in names)
    echo = manager.registry.get("mcp__fx__echo")
    crash = manager.registry.get("mcp__fx__crash")
    assert echo is not None
    assert crash is not None
    assert echo.meta.read_only
    assert echo.meta.concurrency_safe
    assert not echo.meta.destructive
    assert not crash.meta.read_only
    assert crash.meta.destructive
    assert echo.input_schema is not None
    assert echo.input_schema["required"] == ["text"]
    infos = [t.name for t in manager.state("fx").tools]
    assert infos == sorted(infos)
    wire = manager.registry.openai_tools()
    assert [t["function"]["name"] for t in wire] == sorted(t["function"]["name"] for t in wire)


async def test_calls_through_the_executor(manager: McpManager, project: Path) -> None:
    events, messages = await run_calls(
        manager.registry,
        project,
        [
            ("mcp__fx__echo", {"text": "hello"}),
            ("mcp__web__add", {"a": 2, "b": 3}),
            ("mcp__fx__image", {}),
            ("mcp__fx__links", {}),
            ("mcp__fx__structured", {"city": "Oslo"}),
            ("mcp__garbage__echo", {"text": "still fine"}),
        ],
    )
    results = {e.name: e for e in of_type(events, "tool_result")}
    assert results["mcp__fx__echo"].content == "hello"
    assert results["mcp__web__add"].content == "5"
    image = results["mcp__fx__image"].content
    assert image.startswith("a red pixel\n[image: image/png, ")
    saved = results["mcp__fx__image"].data["media"][0]
    assert (project / saved).read_bytes().startswith(b"\x89PNG")
    assert "[resource <mem://note>]\nembedded note" in results["mcp__fx__links"].content
    assert "Oslo" in results["mcp__fx__structured"].content
    assert results["mcp__garbage__echo"].content == "still fine"
    assert messages[0].content == "hello"
    group = of_type(events, "tool_group")
    assert group
    assert len(group[0].ids) == 6


async def test_progress_notifications_become_tool_progress(
    manager: McpManager, project: Path
) -> None:
    events, _ = await run_calls(manager.registry, project, [("mcp__fx__slow", {"steps": 3})])
    progress = [e for e in of_type(events, "tool_progress") if e.progress is not None]
    assert [(e.progress, e.total, e.message) for e in progress] == [
        (1, 3, "step 1 of 3"),
        (2, 3, "step 2 of 3"),
        (3, 3, "step 3 of 3"),
    ]
    assert of_type(events, "tool_result")[0].content == "counted to 3"


async def test_schema_violations_never_reach_the_server(manager: McpManager, project: Path) -> None:
    events, messages = await run_calls(
        manager.registry, project, [("mcp__fx__add", {"a": "two", "c": 1})]
    )
    [error] = of_type(events, "tool_error")
    assert error.code == "invalid_arguments"
    assert "$.b: required field is missing" in error.details
    assert any(d.startswith("$.a: ") for d in error.details)
    assert messages[0].is_error


async def test_is_error_results_are_tool_errors(manager: McpManager, project: Path) -> None:
    events, _ = await run_calls(manager.registry, project, [("mcp__fx__fail", {"reason": "nope"})])
    [error] = of_type(events, "tool_error")
    assert (error.code, error.message) == (
        "mcp_tool_error",
        "mcp__fx__fail reported an error: nope",
    )


async def test_large_results_go_through_the_output_budget(
    manager: McpManager, project: Path
) -> None:
    budget = BudgetSettings(per_result_chars=10_000, per_turn_chars=20_000)
    events, messages = await run_calls(
        manager.registry, project, [("mcp__fx__big", {"chars": 150_000})], budget=budget
    )
    [spill] = of_type(events, "spill")
    [result] = of_type(events, "tool_result")
    assert spill.chars == 150_000
    assert result.spill is not None
    assert len(result.content) < 10_000
    assert spill.path in messages[0].content
    assert (project / spill.path).stat().st_size == 150_000


async def test_a_hung_call_times_out_without_blocking_anything(
    manager: McpManager, project: Path
) -> None:
    ctx = _call_ctx(project)
    hung = asyncio.create_task(manager.registry.dispatch("mcp__quick__hang", "{}", ctx))
    # While it hangs, the same server and the others still answer.
    same = await manager.registry.dispatch("mcp__quick__echo", '{"text": "a"}', ctx)
    other = await manager.registry.dispatch("mcp__fx__echo", '{"text": "b"}', ctx)
    assert not hung.done()
    assert same.output is not None
    assert same.output.content == "a"
    assert other.output is not None
    assert other.output.content == "b"
    outcome = await asyncio.wait_for(hung, DEADLINE)
    assert outcome.error is not None
    assert outcome.error.code == "timeout"
    assert "it waited 1 s with no progress, log message or output" in outcome.error.message
    assert manager.state("quick").status == "connected"


async def test_an_interrupt_cancels_a_call_in_flight(manager: McpManager, project: Path) -> None:
    interrupt = asyncio.Event()

    def on_event(event: Event) -> None:
        if event.type == "tool_progress" and getattr(event, "progress", None):
            interrupt.set()  # the server is working on it: interrupt now (Esc)

    events, messages = await asyncio.wait_for(
        run_calls(
            manager.registry,
            project,
            [("mcp__fx__slow", {"steps": 1000, "delay": 0.05})],
            interrupt=interrupt,
            on_event=on_event,
        ),
        DEADLINE,
    )
    [error] = of_type(events, "tool_error")
    assert error.code == "interrupted"
    assert messages[0].is_error
    ctx = _call_ctx(project)
    after = await manager.registry.dispatch("mcp__fx__echo", '{"text": "still here"}', ctx)
    assert after.output is not None
    assert after.output.content == "still here"


async def test_cancelling_a_call_tells_the_server(manager: McpManager, project: Path) -> None:
    """A call made from the caller's task (``Connection._direct``) still reaches the server's
    handler with notifications/cancelled when the caller is cancelled."""
    working = asyncio.Event()

    def on_progress(update: ProgressUpdate) -> None:
        if update.progress:
            working.set()

    ctx = ToolContext(cwd=project, call_id="c", progress=on_progress)
    mark = project / f"cancelled-{uuid.uuid4().hex}.txt"
    arguments = json.dumps({"steps": 777, "delay": 0.05, "mark": str(mark)})
    call = asyncio.create_task(manager.registry.dispatch("mcp__fx__slow", arguments, ctx))
    await asyncio.wait_for(working.wait(), DEADLINE)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    await wait_until(lambda: mark.exists(), DEADLINE, "the server's handler cancelled")
    assert mark.read_text(encoding="utf-8").startswith("cancelled at step")
    assert manager.state("fx").status == "connected"


async def test_stderr_floods_are_survived_and_shown(manager: McpManager, project: Path) -> None:
    ctx = _call_ctx(project)
    outcome = await manager.registry.dispatch("mcp__fx__flood", '{"lines": 20000}', ctx)
    assert outcome.output is not None
    assert "20000" in outcome.output.content
    await wait_until(
        lambda: "fixture noise line 19999" in manager.state("fx").stderr_tail, DEADLINE, "tail"
    )
    again = await manager.registry.dispatch("mcp__fx__echo", '{"text": "ok"}', ctx)
    assert again.output is not None
    assert again.output.content == "ok"


async def test_garbage_and_malformed_results(manager: McpManager, project: Path) -> None:
    ctx = _call_ctx(project)
    state = manager.state("garbage")
    assert any("not JSON-RPC" in note for note in state.notes)
    outcome = await manager.registry.dispatch("mcp__garbage__garble", "{}", ctx)
    assert outcome.output is not None
    assert outcome.output.content == "garbled"
    await wait_until(
        lambda: any("ignored 3 line(s)" in n for n in manager.state("garbage").notes),
        DEADLINE,
        "garbage noted",
    )
    bad = await manager.registry.dispatch("mcp__garbage__malformed", "{}", ctx)
    assert bad.error is not None
    assert bad.error.code == "mcp_bad_result", bad.error
    assert "malformed result" in bad.error.message
    still = await manager.registry.dispatch("mcp__garbage__echo", '{"text": "x"}', ctx)
    assert still.output is not None
    assert still.output.content == "x"


async def test_tool_list_changes_refresh_the_registry(manager: McpManager, project: Path) -> None:
    seen: list[str | None] = []
    before = manager.state("fx").tool_count
    unsubscribe = manager.add_listener(seen.append)
    ctx = _call_ctx(project)
    outcome = await manager.registry.dispatch("mcp__fx__add_tool", '{"tool_name": "fresh"}', ctx)
    assert outcome.output is not None
    assert await manager.wait_for(lambda: "mcp__fx__fresh" in manager.registry, DEADLINE)
    assert "fx" in seen
    unsubscribe()
    fresh = await manager.registry.dispatch("mcp__fx__fresh", "{}", ctx)
    assert fresh.output is not None
    assert fresh.output.content == "I am fresh"
    assert manager.state("fx").tool_count == before + 1


async def test_a_crash_fails_its_pending_calls_then_reconnect(
    manager: McpManager, project: Path
) -> None:
    ctx = _call_ctx(project)
    pid = int((await manager.call("crashy", "pid", {}, ctx)).content[0].text)
    pending = asyncio.create_task(manager.registry.dispatch("mcp__crashy__hang", "{}", ctx))
    await asyncio.sleep(0)  # let it be sent
    crash = await manager.registry.dispatch("mcp__crashy__crash", "{}", ctx)
    hung = await asyncio.wait_for(pending, DEADLINE)
    for outcome in (crash, hung):
        assert outcome.error is not None
        assert outcome.error.code == "mcp_server_unavailable"
        assert "exited during the call" in outcome.error.message
    assert "  fixture: crashing now" in (crash.error.details if crash.error else [])
    state = manager.state("crashy")
    assert state.status == "failed"
    assert "exited" in (state.reason or "")
    assert await wait_for_gone(pid)
    # Its tools stay listed, and calling them says why they cannot run.
    later = await manager.registry.dispatch("mcp__crashy__echo", '{"text": "x"}', ctx)
    assert later.error is not None
    assert "is not running: it failed" in later.error.message
    # The others never noticed.
    fine = await manager.registry.dispatch("mcp__fx__echo", '{"text": "ok"}', ctx)
    assert fine.output is not None

    await manager.reconnect("crashy")
    assert await manager.wait_for(lambda: manager.state("crashy").status == "connected", DEADLINE)
    again = await manager.registry.dispatch("mcp__crashy__echo", '{"text": "back"}', ctx)
    assert again.output is not None
    assert again.output.content == "back"


async def wait_for_gone(pid: int) -> bool:
    try:
        await wait_until(lambda: pid_gone(pid), DEADLINE, f"pid {pid} to exit")
    except AssertionError:
        return False
    return True


async def test_disable_and_enable_at_run_time(manager: McpManager, project: Path) -> None:
    ctx = _call_ctx(project)
    pid = int((await manager.call("quick", "pid", {}, ctx)).content[0].text)
    await manager.disable("quick")
    state = manager.state("quick")
    assert state.status == "disabled"
    assert state.tool_count == 0
    assert "mcp__quick__echo" not in manager.registry
    assert await wait_for_gone(pid)
    await manager.enable("quick")
    assert await manager.wait_for(lambda: manager.state("quick").status == "connected", DEADLINE)
    assert "mcp__quick__echo" in manager.registry
    await manager.enable("off")  # disabled in the configuration, enabled for this session
    assert await manager.wait_for(lambda: manager.state("off").status == "connected", DEADLINE)


async def test_unknown_servers_and_the_failed_ones(manager: McpManager, project: Path) -> None:
    ctx = _call_ctx(project)
    with pytest.raises(Exception, match="not configured"):
        await manager.call("ghost", "echo", {}, ctx)
    with pytest.raises(Exception, match="'dies' is not running: it failed: the server exited"):
        await manager.call("dies", "echo", {}, ctx)
    with pytest.raises(Exception, match="'broken' is not running: it failed: invalid entry"):
        await manager.call("broken", "echo", {}, ctx)
    with pytest.raises(KeyError, match="ghost"):
        await manager.reconnect("ghost")


async def test_shutdown_leaves_no_process_behind(manager: McpManager) -> None:
    assert fixture_pids(MARK)  # the servers of this module (incl. the HTTP one) are running
    await manager.aclose()
    await wait_until(
        lambda: len(fixture_pids(MARK)) <= 1, DEADLINE, "fixture servers to exit"
    )  # only the HTTP server is left: the test started it, not the manager
    states = {s.name: s.status for s in manager.states()}
    assert states["fx"] in ("stopped", "disabled")
    assert states["web"] in ("stopped", "disabled")
