"""``agent-tui acp`` step 3: the plan as ``plan`` updates, permission modes as ACP modes (set
by the client, judged again for a waiting ask; plan mode's hand-off approved through the
client, then ``current_mode_update``), the context's use as ``usage_update``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp import RequestError

from tests.acp_agent.helpers import DEADLINE, Editor, running_agent
from tests.acp_agent.test_acp_session import say, text
from tests.core.providers.conftest import FakeServer
from tests.test_cli_text import reply_calls


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


async def test_modes_are_offered_without_bypass_unless_started_in_it(tmp_path: Path) -> None:
    editor = Editor()
    async with running_agent(editor, tmp_path) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        with pytest.raises(RequestError):
            await conn.set_session_mode(session_id=session.session_id, mode_id="bypass")
    modes = session.modes
    assert modes is not None
    assert modes.current_mode_id == "default"
    assert [m.id for m in modes.available_modes] == ["default", "accept-edits", "plan"]
    async with running_agent(editor, tmp_path, "--permission-mode", "bypass") as conn:
        session = await conn.new_session(cwd=str(tmp_path))
    assert session.modes is not None
    assert session.modes.current_mode_id == "bypass"
    assert "bypass" in [m.id for m in session.modes.available_modes]


async def test_a_plan_and_the_usage_reach_the_client(server: FakeServer, tmp_path: Path) -> None:
    steps = [
        {"content": "read the code", "status": "completed"},
        {"content": "fix the bug", "status": "in_progress"},
        {"content": "run the tests", "status": "pending"},
    ]
    reply_calls(server, ("call_p", "update_plan", {"plan": steps}))
    say(server, "Planned.")
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("plan")), DEADLINE
        )
    [plan] = editor.of_kind("plan")
    assert [(e.content, e.status) for e in plan.entries] == [
        (s["content"], s["status"]) for s in steps
    ]
    usage = editor.of_kind("usage_update")
    assert usage
    assert usage[-1].used > 0
    assert usage[-1].size > usage[-1].used


async def test_switching_mode_judges_a_waiting_ask_again(
    server: FakeServer, tmp_path: Path
) -> None:
    """The client holds the ask for a write; switching to accept-edits lets it run without an
    answer, as Shift+Tab does in the TUI."""
    reply_calls(server, ("call_w", "write_file", {"path": "out.txt", "content": "hi\n"}))
    say(server, "Done.")
    editor = Editor()
    editor.hold = asyncio.Event()  # never set: only the mode change can settle the ask
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        sid = session.session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=text("write")))
        await editor.wait_for(lambda: len(editor.asked) == 1)
        await conn.set_session_mode(session_id=sid, mode_id="accept-edits")
        reply = await asyncio.wait_for(turn, DEADLINE)
    assert reply.stop_reason == "end_turn"
    assert (tmp_path / "out.txt").read_text() == "hi\n"
    assert editor.statuses("call_w")[-1] == "completed"


async def test_plan_mode_refuses_writes_and_its_hand_off_switches_the_mode(
    server: FakeServer, tmp_path: Path
) -> None:
    reply_calls(server, ("call_w", "write_file", {"path": "out.txt", "content": "hi\n"}))
    reply_calls(server, ("call_x", "exit_plan_mode", {"plan": "1. write out.txt\n2. done"}))
    say(server, "Approved, working.")
    editor = Editor()
    editor.answers = ["approve_accept_edits"]
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        sid = session.session_id
        await conn.set_session_mode(session_id=sid, mode_id="plan")
        reply = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("go")), DEADLINE)
    assert reply.stop_reason == "end_turn"
    assert not (tmp_path / "out.txt").exists()
    assert editor.statuses("call_w") == ["pending", "failed"]
    [review] = editor.asked
    assert "write out.txt" in review["tool_call"].content[0].content.text
    assert [u.current_mode_id for u in editor.of_kind("current_mode_update")] == ["accept-edits"]
    assert editor.statuses("call_x")[-1] == "completed"
