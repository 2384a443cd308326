"""``agent-tui acp`` step 1: initialize, a session, a prompt streamed as updates (text, tool
calls pending → in_progress → completed/failed with their content, a diff for an edit, a
spilled output as a resource link), and cancel mid-call — driven as a subprocess by the SDK's
client against a real 127.0.0.1 model server."""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp import RequestError
from acp.schema import FileEditToolCallContent, McpServerStdio, TextContentBlock

from agent_tui.core.conversation.session_store import SessionStore
from tests.acp_agent.helpers import DEADLINE, Editor, running_agent
from tests.core.mcp.conftest import fixture_entry
from tests.core.providers.conftest import FakeServer
from tests.test_cli_text import _chunk, reply_calls


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


def say(server: FakeServer, *parts: str) -> None:
    """Queue a streamed text answer, in ``parts``."""
    deltas = [_chunk({"content": part}) for part in parts]
    server.add_sse(server.sse_bytes(*deltas, _chunk({}, "stop"), "[DONE]"))


def text(value: str) -> list[TextContentBlock]:
    return [TextContentBlock(type="text", text=value)]


async def test_initialize_says_what_it_can(tmp_path: Path) -> None:
    editor = Editor()
    async with running_agent(editor, tmp_path) as conn:
        reply = await conn.initialize(protocol_version=1)
    assert reply.protocol_version == 1
    caps = reply.agent_capabilities
    assert caps is not None
    assert caps.load_session
    assert caps.prompt_capabilities is not None
    assert caps.prompt_capabilities.embedded_context
    assert caps.prompt_capabilities.image
    assert caps.mcp_capabilities is not None
    assert caps.mcp_capabilities.http
    assert [m.id for m in reply.auth_methods or []] == ["agent-tui-model"]
    assert reply.agent_info is not None
    assert reply.agent_info.name == "agent-tui"


async def test_a_prompt_streams_its_answer_and_ends_the_turn(
    server: FakeServer, tmp_path: Path
) -> None:
    say(server, "Hello ", "from ", "the model.")
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        reply = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("hi")), DEADLINE
        )
    assert reply.stop_reason == "end_turn"
    assert editor.text() == "Hello from the model."
    assert len(editor.of_kind("agent_message_chunk")) == 3  # streamed, not sent at the end
    sent = server.requests[0].json["messages"]
    assert sent[-1] == {"role": "user", "content": "hi"}
    # the session is ours: its file is in the store under the id the client got
    found = SessionStore().find(session.session_id)
    assert found is not None
    assert found.cwd == str(tmp_path)


async def test_a_tool_call_goes_pending_in_progress_completed_with_its_output(
    server: FakeServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("the secret word is tangerine\n")
    reply_calls(server, ("call_1", "read_file", {"path": "notes.txt"}))
    say(server, "It says tangerine.")
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        reply = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("read notes.txt")), DEADLINE
        )
    assert reply.stop_reason == "end_turn"
    assert editor.statuses("call_1") == ["pending", "in_progress", "completed"]
    start = editor.call_updates("call_1")[0]
    assert start.kind == "read"
    assert "notes.txt" in start.title
    assert start.locations[0].path == str(tmp_path / "notes.txt")
    done = editor.call_updates("call_1")[-1]
    assert "tangerine" in done.content[0].content.text
    assert editor.text() == "It says tangerine."
    assert not editor.asked  # a read inside the workspace does not ask


async def test_an_edit_reaches_the_client_as_a_diff(server: FakeServer, tmp_path: Path) -> None:
    reply_calls(server, ("call_r", "read_file", {"path": "app.py"}))
    reply_calls(
        server,
        (
            "call_e",
            "edit_file",
            {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"},
        ),
    )
    say(server, "Done.")
    (tmp_path / "app.py").write_text("x = 1\nprint(x)\n")
    editor = Editor()
    editor.answers = ["allow_once"]
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        reply = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("bump x")), DEADLINE
        )
    assert reply.stop_reason == "end_turn"
    assert (tmp_path / "app.py").read_text() == "x = 2\nprint(x)\n"
    assert editor.statuses("call_e") == ["pending", "in_progress", "completed"]
    diffs = [
        c
        for u in editor.call_updates("call_e")
        for c in u.content or []
        if isinstance(c, FileEditToolCallContent)
    ]
    assert len(diffs) == 1
    assert diffs[0].path == str(tmp_path / "app.py")
    assert (diffs[0].old_text, diffs[0].new_text) == ("x = 1\nprint(x)\n", "x = 2\nprint(x)\n")
    assert editor.call_updates("call_e")[0].kind == "edit"


async def test_a_spilled_output_is_a_resource_link(server: FakeServer, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"line {n} {'x' * 60}\n" for n in range(6000)))
    reply_calls(server, ("call_s", "run_shell", {"command": "cat big.txt"}))
    say(server, "Long.")
    editor = Editor()
    async with running_agent(
        editor, tmp_path, "--allow", "run_shell(cat:*)", server=server
    ) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("cat it")), DEADLINE
        )
    done = editor.call_updates("call_s")[-1]
    assert done.status == "completed"
    links = [c.content for c in done.content if c.content.type == "resource_link"]
    assert len(links) == 1
    spilled = Path(links[0].uri.removeprefix("file://"))
    assert spilled.read_bytes() == (tmp_path / "big.txt").read_bytes()  # noqa: ASYNC240


async def test_cancel_mid_call_stops_the_turn_and_keeps_the_transcript_valid(
    server: FakeServer, tmp_path: Path
) -> None:
    reply_calls(server, ("call_slow", "run_shell", {"command": "sleep 60"}))
    say(server, "Fine.")
    editor = Editor()
    async with running_agent(
        editor, tmp_path, "--allow", "run_shell(sleep:*)", server=server
    ) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        sid = session.session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=text("wait")))
        await editor.wait_for(lambda: "in_progress" in editor.statuses("call_slow"))
        await conn.cancel(session_id=sid)
        reply = await asyncio.wait_for(turn, DEADLINE)
        assert reply.stop_reason == "cancelled"
        assert editor.statuses("call_slow")[-1] == "failed"
        # the next prompt works, and the model sees the cancelled call answered
        again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("ok?")), DEADLINE)
    assert again.stop_reason == "end_turn"
    messages = server.requests[-1].json["messages"]
    answered = [m for m in messages if m.get("role") == "tool"]
    assert [m["tool_call_id"] for m in answered] == ["call_slow"]


async def test_no_usable_model_is_auth_required_with_the_reason(tmp_path: Path) -> None:
    editor = Editor()
    async with running_agent(editor, tmp_path, "--model", "openai:") as conn:
        with pytest.raises(RequestError) as raised:
            await conn.new_session(cwd=str(tmp_path))
    assert raised.value.code == -32000
    assert "no model name" in json.dumps(raised.value.data)


async def test_a_relative_cwd_is_refused(tmp_path: Path) -> None:
    editor = Editor()
    async with running_agent(editor, tmp_path) as conn:
        with pytest.raises(RequestError) as raised:
            await conn.new_session(cwd="relative/dir")
    assert raised.value.code == -32602


async def test_the_clients_mcp_servers_are_started_and_their_tools_called(
    server: FakeServer, tmp_path: Path
) -> None:
    """A stdio server passed with session/new runs beside the configured ones: a call of its
    tool goes through (the tool is deferred, as an MCP tool is: run_tool finds it)."""
    entry = fixture_entry(name="editor")
    reply_calls(server, ("call_m", "mcp__editor__echo", {"text": "through the editor"}))
    say(server, "Echoed.")
    editor = Editor()
    async with running_agent(
        editor, tmp_path, "--allow", "mcp__editor__echo", server=server
    ) as conn:
        session = await conn.new_session(
            cwd=str(tmp_path),
            mcp_servers=[
                McpServerStdio(name="editor", command=entry["command"], args=entry["args"], env=[])
            ],
        )
        reply = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=text("echo")), DEADLINE
        )
    assert reply.stop_reason == "end_turn"
    assert editor.statuses("call_m")[-1] == "completed"
    assert "through the editor" in editor.call_updates("call_m")[-1].content[0].content.text
    passed = Path(os.environ["AGENT_TUI_DATA_DIR"]) / "acp"
    assert passed.is_dir()
    assert not list(passed.glob("client-*.mcp.json"))  # the session's file, removed at its end
