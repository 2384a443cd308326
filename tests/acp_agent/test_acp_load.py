"""``agent-tui acp`` step 4: ``session/load`` on our session store (the history told again as
updates before the answer, then the conversation goes on) and ``session/list``."""

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


async def test_a_saved_session_is_replayed_and_goes_on(server: FakeServer, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("tangerine\n")
    reply_calls(server, ("call_1", "read_file", {"path": "notes.txt"}))
    say(server, "It says tangerine.")
    first = Editor()
    async with running_agent(first, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        sid = session.session_id
        await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("read it")), DEADLINE)

    say(server, "You asked me to read notes.txt.")
    second = Editor()
    async with running_agent(second, tmp_path, server=server) as conn:
        listed = await conn.list_sessions(cwd=str(tmp_path))
        assert [s.session_id for s in listed.sessions] == [sid]
        loaded = await conn.load_session(cwd=str(tmp_path), session_id=sid)
        # every update of the history arrived before the answer
        kinds = [getattr(u, "session_update", "") for u in second.updates]
        assert kinds[0] == "user_message_chunk"
        assert second.updates[0].content.text == "read it"
        assert second.statuses("call_1") == ["pending", "completed"]
        assert "tangerine" in second.call_updates("call_1")[-1].content[0].content.text
        assert second.text() == "It says tangerine."
        assert loaded.modes is not None
        reply = await asyncio.wait_for(
            conn.prompt(session_id=sid, prompt=text("what did I ask?")), DEADLINE
        )
    assert reply.stop_reason == "end_turn"
    sent = server.requests[-1].json["messages"]
    said = [m["content"] for m in sent if m["role"] == "user"]
    assert said[-2:] == ["read it", "what did I ask?"]  # the model got the whole conversation


async def test_loading_a_session_that_is_not_there_is_not_found(tmp_path: Path) -> None:
    editor = Editor()
    async with running_agent(editor, tmp_path) as conn:
        with pytest.raises(RequestError) as raised:
            await conn.load_session(cwd=str(tmp_path), session_id="nope")
    assert raised.value.code == -32002
