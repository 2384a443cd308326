"""``agent-tui acp``: ``session/close``, ``session/resume`` and ``session/fork`` on our session
store, advertised as ``sessionCapabilities``; driven as a subprocess by the SDK's client."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp import RequestError
from acp.schema import McpServerStdio

from agent_tui.core.conversation.session_store import SessionStore
from tests.acp_agent.helpers import DEADLINE, Editor, running_agent
from tests.acp_agent.test_acp_session import say, text
from tests.core.mcp.conftest import fixture_entry
from tests.core.mcp.servers import fixture_pids
from tests.core.providers.conftest import FakeServer
from tests.test_cli_text import reply_calls


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


def said(server: FakeServer) -> list[str]:
    """What the user said in the last request to the model."""
    sent = server.requests[-1].json["messages"]
    return [m["content"] for m in sent if m["role"] == "user"]


async def test_initialize_advertises_close_resume_and_fork(tmp_path: Path) -> None:
    async with running_agent(Editor(), tmp_path) as conn:
        reply = await conn.initialize(protocol_version=1)
    caps = reply.agent_capabilities
    assert caps is not None
    assert caps.session_capabilities is not None
    wire = caps.session_capabilities.model_dump(by_alias=True, exclude_none=True)
    assert wire == {"list": {}, "close": {}, "resume": {}, "fork": {}}


async def test_close_releases_the_session_and_its_mcp_servers(
    server: FakeServer, tmp_path: Path
) -> None:
    """Closed in one agent-tui (which keeps running), the session loads in another; the MCP
    server the client passed for it is stopped; the closed id is no longer open."""
    marker = f"closing-{os.getpid()}"
    entry = fixture_entry(name=marker)
    reply_calls(server, ("call_m", f"mcp__{marker}__echo", {"text": "hello"}))
    say(server, "Echoed.")
    first = Editor()
    async with running_agent(
        first, tmp_path, "--allow", f"mcp__{marker}__echo", server=server
    ) as conn:
        session = await conn.new_session(
            cwd=str(tmp_path),
            mcp_servers=[
                McpServerStdio(name=marker, command=entry["command"], args=entry["args"], env=[])
            ],
        )
        sid = session.session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("echo")), DEADLINE)
        assert fixture_pids(marker)  # started by the call
        # open here: another agent-tui cannot have it
        async with running_agent(Editor(), tmp_path, server=server) as other:
            with pytest.raises(RequestError) as raised:
                await other.load_session(cwd=str(tmp_path), session_id=sid)
        assert "open in another agent-tui" in str(raised.value.data)

        await asyncio.wait_for(conn.close_session(session_id=sid), DEADLINE)
        assert not fixture_pids(marker)  # stopped with the session
        with pytest.raises(RequestError):
            await conn.prompt(session_id=sid, prompt=text("still there?"))

        say(server, "Back.")
        second = Editor()
        async with running_agent(second, tmp_path, server=server) as other:
            await other.load_session(cwd=str(tmp_path), session_id=sid)
            reply = await asyncio.wait_for(
                other.prompt(session_id=sid, prompt=text("again")), DEADLINE
            )
    assert reply.stop_reason == "end_turn"
    assert said(server)[-2:] == ["echo", "again"]


async def test_resume_reattaches_without_replaying(server: FakeServer, tmp_path: Path) -> None:
    say(server, "First answer.")
    async with running_agent(Editor(), tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        sid = session.session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("one")), DEADLINE)

    say(server, "Second answer.")
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        resumed = await conn.resume_session(cwd=str(tmp_path), session_id=sid)
        assert resumed.modes is not None
        told = [getattr(u, "session_update", "") for u in editor.updates]
        assert "user_message_chunk" not in told
        assert "agent_message_chunk" not in told
        reply = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("two")), DEADLINE)
    assert reply.stop_reason == "end_turn"
    assert editor.text() == "Second answer."
    assert said(server)[-2:] == ["one", "two"]  # the model got the whole conversation


async def test_resume_of_a_session_open_elsewhere_is_refused(
    server: FakeServer, tmp_path: Path
) -> None:
    async with running_agent(Editor(), tmp_path, server=server) as holder:
        session = await holder.new_session(cwd=str(tmp_path))
        sid = session.session_id
        async with running_agent(Editor(), tmp_path, server=server) as conn:
            with pytest.raises(RequestError) as raised:
                await conn.resume_session(cwd=str(tmp_path), session_id=sid)
            with pytest.raises(RequestError) as loading:
                await conn.load_session(cwd=str(tmp_path), session_id=sid)
            with pytest.raises(RequestError) as missing:
                await conn.resume_session(cwd=str(tmp_path), session_id="nope")
            listed = await conn.list_sessions(cwd=str(tmp_path))
    # refused without a trace: no copy of the session was left behind
    assert [s.session_id for s in listed.sessions] == [sid]
    assert loading.value.code == -32600
    assert raised.value.code == -32600
    assert "open in another agent-tui" in str(raised.value.data)
    assert missing.value.code == -32002


async def test_fork_branches_a_new_session_and_leaves_the_original(
    server: FakeServer, tmp_path: Path
) -> None:
    say(server, "Noted.")
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        sid = session.session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("remember 7")), DEADLINE)
        # forked while the original is open here: the fork is a session of its own
        forked = await conn.fork_session(cwd=str(tmp_path), session_id=sid)
        assert forked.session_id != sid
        assert forked.modes is not None
        say(server, "Seven.")
        reply = await asyncio.wait_for(
            conn.prompt(session_id=forked.session_id, prompt=text("what number?")), DEADLINE
        )
        assert reply.stop_reason == "end_turn"
        assert said(server)[-2:] == ["remember 7", "what number?"]
        with pytest.raises(RequestError) as missing:
            await conn.fork_session(cwd=str(tmp_path), session_id="nope")
    assert missing.value.code == -32002
    store = SessionStore()
    original, fork = store.find(sid), store.find(forked.session_id)
    assert original is not None
    assert fork is not None
    assert [m.content for m in original.messages if m.role == "user"] == ["remember 7"]
    assert [m.content for m in fork.messages if m.role == "user"] == ["remember 7", "what number?"]
    assert fork.forked_from == sid


async def test_loading_a_session_open_here_reopens_it(server: FakeServer, tmp_path: Path) -> None:
    """The editor loads a session this agent has open (a reopened tab): the open one is closed
    and the saved one told again, under the same id."""
    say(server, "First.")
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        sid = session.session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("one")), DEADLINE)
        editor.updates.clear()
        await conn.load_session(cwd=str(tmp_path), session_id=sid)
        assert editor.updates[0].content.text == "one"  # told again
        say(server, "Second.")
        reply = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("two")), DEADLINE)
        listed = await conn.list_sessions(cwd=str(tmp_path))
    assert reply.stop_reason == "end_turn"
    assert said(server)[-2:] == ["one", "two"]
    assert [s.session_id for s in listed.sessions] == [sid]
