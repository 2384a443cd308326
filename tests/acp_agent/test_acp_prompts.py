"""``agent-tui acp``: what a prompt may hold (text, embedded resources, resource links,
images; anything else refused whole with the block named), and cancel while the client is
being asked (the ask is settled as interrupted, nothing runs, the next prompt works)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path

import pytest
from acp import RequestError
from acp.schema import (
    AudioContentBlock,
    EmbeddedResourceContentBlock,
    ImageContentBlock,
    ResourceContentBlock,
    TextContentBlock,
    TextResourceContents,
)

from tests.acp_agent.helpers import DEADLINE, Editor, running_agent
from tests.acp_agent.test_acp_session import say, text
from tests.core.images.pictures import picture
from tests.core.providers.conftest import FakeServer
from tests.test_cli_text import reply_calls


@pytest.fixture
def server() -> Iterator[FakeServer]:
    fake = FakeServer()
    fake.start()
    yield fake
    fake.stop()


async def test_resources_and_images_reach_the_model(server: FakeServer, tmp_path: Path) -> None:
    say(server, "Seen.")
    png = base64.b64encode(picture(8, 8)).decode()
    blocks = [
        TextContentBlock(type="text", text="look at these"),
        EmbeddedResourceContentBlock(
            type="resource",
            resource=TextResourceContents(uri="file:///w/app.py", text="x = 1\n"),
        ),
        ResourceContentBlock(type="resource_link", uri="file:///w/README.md", name="README.md"),
        ImageContentBlock(type="image", data=png, mime_type="image/png"),
    ]
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        reply = await asyncio.wait_for(
            conn.prompt(session_id=session.session_id, prompt=blocks), DEADLINE
        )
    assert reply.stop_reason == "end_turn"
    user = server.requests[0].json["messages"][-1]
    parts = user["content"]
    said = " ".join(p.get("text", "") for p in parts if p["type"] == "text")
    assert "look at these" in said
    assert "file:///w/app.py:\n```\nx = 1\n\n```" in said
    assert "file:///w/README.md" in said
    assert [p["type"] for p in parts].count("image_url") == 1


async def test_a_block_that_cannot_be_used_refuses_the_prompt(
    server: FakeServer, tmp_path: Path
) -> None:
    editor = Editor()
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        with pytest.raises(RequestError) as raised:
            await conn.prompt(
                session_id=session.session_id,
                prompt=[
                    TextContentBlock(type="text", text="listen"),
                    AudioContentBlock(type="audio", data="AAAA", mime_type="audio/wav"),
                ],
            )
    assert raised.value.code == -32602
    assert "block 2: audio" in str(raised.value.data)
    assert server.requests == []  # nothing was sent without it


async def test_cancel_while_the_client_is_asked_runs_nothing(
    server: FakeServer, tmp_path: Path
) -> None:
    reply_calls(server, ("call_w", "write_file", {"path": "out.txt", "content": "hi\n"}))
    say(server, "Fine.")
    editor = Editor()
    editor.hold = asyncio.Event()
    editor.answers = ["allow_once"]  # what it would say, too late
    async with running_agent(editor, tmp_path, server=server) as conn:
        session = await conn.new_session(cwd=str(tmp_path))
        sid = session.session_id
        turn = asyncio.ensure_future(conn.prompt(session_id=sid, prompt=text("write")))
        await editor.wait_for(lambda: len(editor.asked) == 1)
        await conn.cancel(session_id=sid)
        reply = await asyncio.wait_for(turn, DEADLINE)
        assert reply.stop_reason == "cancelled"
        editor.hold.set()  # the client answers after the cancel: moot
        again = await asyncio.wait_for(conn.prompt(session_id=sid, prompt=text("ok?")), DEADLINE)
    assert again.stop_reason == "end_turn"
    assert not (tmp_path / "out.txt").exists()
    assert editor.statuses("call_w")[-1] == "failed"
    answered = [m for m in server.requests[-1].json["messages"] if m.get("role") == "tool"]
    assert [m["tool_call_id"] for m in answered] == ["call_w"]
