"""Images sent to real HTTP servers on 127.0.0.1 speaking OpenAI's and Anthropic's formats:
a prompt's image, an ``@`` mention's, ``read_file`` of an image; kept in the session by
reference (never base64 in the session file), sent again after a resume and a fork; a model
that refuses images gets the error explained and the message is kept."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from tests.core.images.pictures import picture
from tests.core.providers.test_anthropic_provider import (
    message_end,
    message_start,
    text_block,
    tool_block,
)

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.export.entries import SessionInfo, export_doc
from agent_tui.core.export.render import markdown
from agent_tui.core.images.prepare import prepare_image
from agent_tui.core.providers.anthropic import AnthropicProvider
from agent_tui.core.providers.openai import OpenAIProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.core.transcript import Prompt


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _answer(server, text: str) -> None:
    server.add_sse(server.sse_bytes(_chunk({"content": text}, "stop"), "[DONE]"))


def _read_call(server, path: str) -> None:
    call = {
        "index": 0,
        "id": "call_img",
        "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"path": path})},
    }
    server.add_sse(server.sse_bytes(_chunk({"tool_calls": [call]}, "tool_calls"), "[DONE]"))


def _openai(server, model: str = "gpt-4o") -> OpenAIProvider:
    return OpenAIProvider(model, base_url=f"{server.url}/v1", api_key="k", retry_base_delay=0.01)


def _anthropic(server) -> AnthropicProvider:
    return AnthropicProvider("claude-test", server.url, "sk-ant-x", retry_base_delay=0.001)


def _image_urls(body: dict[str, Any]) -> list[str]:
    return [
        part["image_url"]["url"]
        for message in body["messages"]
        if isinstance(message.get("content"), list)
        for part in message["content"]
        if part.get("type") == "image_url"
    ]


async def test_a_pasted_image_goes_as_an_image_url_and_comes_back_after_resume(
    server, tmp_path: Path
) -> None:
    data = picture(320, 200)
    image = prepare_image(data, "shot.png")
    store = SessionStore(tmp_path / "sessions")
    session = store.new(tmp_path, "openai:gpt-4o")
    _answer(server, "A blue square.")
    provider = _openai(server)
    agent = Agent(provider, default_registry(), tmp_path, session=session, sessions=store)
    events = [e async for e in agent.run(Prompt("what is this?", (image,)))]
    said = next(e for e in events if e.type == "user_message")
    assert [ref.name for ref in said.images] == ["shot.png"]

    body = server.requests[0].json
    user = body["messages"][-1]
    assert user["role"] == "user"
    assert user["content"][0] == {"type": "text", "text": "what is this?"}
    encoded = base64.b64encode(data).decode()
    assert user["content"][1] == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{encoded}"},
    }

    # The session file keeps the reference, never the bytes; the bytes are beside it.
    text = session.path.read_text()
    assert encoded[:200] not in text
    assert image.ref.digest in text
    assert (session.images.get(image.ref.digest)) == data
    session.release()
    await provider.aclose()

    # Resumed: the replay shows the chip, the next request sends the image again.
    loaded = SessionLog.load(session.path)
    replayed = [e for e in transcript_events(loaded.messages) if e.type == "user_message"]
    assert [ref.label for ref in replayed[0].images] == [image.ref.label]
    _answer(server, "Still blue.")
    provider = _openai(server)
    again = Agent(provider, default_registry(), tmp_path, session=loaded, sessions=store)
    _ = [e async for e in again.run("and now?")]
    await provider.aclose()
    assert _image_urls(server.requests[1].json) == [f"data:image/png;base64,{encoded}"]

    # A fork gets the image too, and an export names it without its bytes.
    fork = store.fork(loaded)
    assert fork.images.get(image.ref.digest) == data
    info = SessionInfo(id=fork.id, file=str(fork.path), cwd=str(tmp_path))
    text_md = markdown(export_doc(fork.messages, info, "now"))
    assert "`shot.png` (PNG, 320×200" in text_md
    assert str(fork.path.with_suffix("") / "images") in text_md
    assert encoded[:100] not in text_md


async def test_an_image_goes_to_anthropic_as_an_image_block(server, tmp_path: Path) -> None:
    data = picture(50, 40, "JPEG")
    (tmp_path / "photo.jpg").write_bytes(data)
    events = [message_start(10), *text_block(0, "A photo."), *message_end("end_turn", 3)]
    server.add_sse(server.sse_bytes(*events, event_names=True))
    provider = _anthropic(server)
    agent = Agent(provider, default_registry(), tmp_path)
    out = [e async for e in agent.run("describe @photo.jpg")]
    await provider.aclose()
    said = next(e for e in out if e.type == "user_message")
    assert [m.note for m in said.mentions] == ["attached as an image, 50×40"]
    content = server.requests[0].json["messages"][0]["content"]
    assert content[0] == {
        "type": "image",
        "source": {
            "type": "base64",
            "media_type": "image/jpeg",
            "data": base64.b64encode(data).decode(),
        },
    }
    assert content[1]["type"] == "text"
    assert "describe @photo.jpg" in content[1]["text"]


async def test_read_file_of_an_image_over_openai_follows_with_a_user_message(
    server, tmp_path: Path
) -> None:
    data = picture(30, 20)
    (tmp_path / "diagram.png").write_bytes(data)
    _read_call(server, "diagram.png")
    _answer(server, "A diagram.")
    provider = _openai(server)
    agent = Agent(provider, default_registry(), tmp_path)
    events = [e async for e in agent.run("read diagram.png")]
    await provider.aclose()
    result = next(e for e in events if e.type == "tool_result")
    assert result.summary == "image PNG 30×20"
    messages = server.requests[1].json["messages"]
    assert [m["role"] for m in messages[-3:]] == ["assistant", "tool", "user"]
    assert "the image itself follows" in messages[-2]["content"]
    lead, part = messages[-1]["content"]
    assert "read_file (call call_img): diagram.png" in lead["text"]
    encoded = base64.b64encode(data).decode()
    assert part["image_url"]["url"] == f"data:image/png;base64,{encoded}"


async def test_read_file_of_an_image_over_anthropic_is_in_the_tool_result(
    server, tmp_path: Path
) -> None:
    data = picture(30, 20)
    (tmp_path / "diagram.png").write_bytes(data)
    first = [
        message_start(10),
        *tool_block(0, "toolu_1", "read_file", '{"path": "diagram.png"}'),
        *message_end("tool_use", 5),
    ]
    second = [message_start(20), *text_block(0, "Seen."), *message_end("end_turn", 2)]
    server.add_sse(server.sse_bytes(*first, event_names=True))
    server.add_sse(server.sse_bytes(*second, event_names=True))
    provider = _anthropic(server)
    agent = Agent(provider, default_registry(), tmp_path)
    _ = [e async for e in agent.run("look")]
    await provider.aclose()
    result = server.requests[1].json["messages"][-1]["content"][0]
    assert result["type"] == "tool_result"
    text, block = result["content"]
    assert text["type"] == "text"
    assert block["type"] == "image"
    assert block["source"]["data"] == base64.b64encode(data).decode()


async def test_a_text_only_model_gets_a_description_from_read_file(server, tmp_path: Path) -> None:
    (tmp_path / "diagram.png").write_bytes(picture(30, 20))
    _read_call(server, "diagram.png")
    _answer(server, "ok")
    provider = _openai(server, "deepseek-chat")
    agent = Agent(provider, default_registry(), tmp_path)
    _ = [e async for e in agent.run("read diagram.png")]
    await provider.aclose()
    messages = server.requests[1].json["messages"]
    assert messages[-1]["role"] == "tool"
    assert "This model does not accept images" in messages[-1]["content"]
    assert _image_urls(server.requests[1].json) == []


async def test_a_model_that_refuses_images_is_explained_and_nothing_is_lost(
    server, tmp_path: Path
) -> None:
    image = prepare_image(picture(16, 16), "shot.png")
    server.add_json(
        400,
        {
            "error": {
                "message": "Invalid content type. image_url is only supported by certain models."
            }
        },
    )
    provider = _openai(server, "my-local-model")
    agent = Agent(provider, default_registry(), tmp_path)
    events = [e async for e in agent.run(Prompt("see this", (image,)))]
    error = next(e for e in events if e.type == "error")
    assert "image_url is only supported" in error.message
    assert "does not accept images" in error.message
    assert "/model" in error.message
    assert agent.messages[0].images == [image.ref]  # the message and its image are kept

    _answer(server, "I cannot see it.")
    _ = [e async for e in agent.run("try again")]
    await provider.aclose()
    body = server.requests[1].json
    assert _image_urls(body) == []
    notes = [p["text"] for p in body["messages"][1]["content"] if p["type"] == "text"]
    assert "[image shot.png (PNG, 16×16) not shown: this model does not accept images]" in notes


async def test_an_image_for_a_text_only_model_is_said_and_sent_as_a_note(
    server, tmp_path: Path
) -> None:
    image = prepare_image(picture(16, 16), "shot.png")
    _answer(server, "ok")
    provider = _openai(server, "deepseek-chat")
    agent = Agent(provider, default_registry(), tmp_path)
    events = [e async for e in agent.run(Prompt("see this", (image,)))]
    await provider.aclose()
    (warning,) = [e for e in events if e.type == "error"]
    assert warning.where == "images"
    assert "openai:deepseek-chat does not take images" in warning.message
    assert "/model" in warning.message
    assert events[-1].type == "turn_end"
    assert events[-1].reason == "completed"
    body = server.requests[0].json
    assert _image_urls(body) == []
    note = body["messages"][-1]["content"][1]["text"]
    assert note == "[image shot.png (PNG, 16×16) not shown: this model does not accept images]"
