"""A model that calls Claude Code's ``Bash`` over a real OpenAI-wire server: the call runs as
``run_shell``, and every later request — in the same turn and after the session is resumed —
carries the model's own call (its name and arguments as it sent them) with its result, so the
history the model sees is the one it wrote; the tools array stays ours."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.openai import OpenAIProvider
from agent_tui.core.tools.builtin import default_registry

ARGUMENTS = {"command": "printf ok > made.txt", "timeout": 10000, "description": "Make it"}


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _call(server: Any) -> None:
    call = {
        "index": 0,
        "id": "call_bash",
        "type": "function",
        "function": {"name": "Bash", "arguments": json.dumps(ARGUMENTS)},
    }
    server.add_sse(
        server.sse_bytes(_chunk({"tool_calls": [call]}), _chunk({}, "tool_calls"), "[DONE]")
    )


def _text(server: Any, text: str) -> None:
    server.add_sse(server.sse_bytes(_chunk({"content": text}, "stop"), "[DONE]"))


def _agent(server: Any, ws: Path, store: SessionStore) -> Agent:
    provider = OpenAIProvider(
        "test-model", base_url=f"{server.url}/v1", api_key="k", retry_base_delay=0.01
    )
    return Agent(
        provider,
        default_registry(),
        ws,
        policy=SimplePolicy({"*"}),
        session=store.new(ws, "openai:test-model"),
        sessions=store,
        system="sys",
    )


def _assert_history(messages: list[dict[str, Any]]) -> None:
    """The model's own call, then its result, answered by its id."""
    assistant = next(m for m in messages if m["role"] == "assistant" and m.get("tool_calls"))
    function = assistant["tool_calls"][0]["function"]
    assert function["name"] == "Bash"
    assert json.loads(function["arguments"]) == ARGUMENTS
    at = messages.index(assistant)
    tool = messages[at + 1]
    assert tool["role"] == "tool"
    assert tool["tool_call_id"] == "call_bash"


async def test_bash_runs_and_is_replayed_as_sent_live_and_resumed(
    server: Any, tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    store = SessionStore(tmp_path / "sessions")
    agent = _agent(server, ws, store)
    _call(server)
    _text(server, "made it")
    events = [event async for event in agent.run("make it")]
    await agent.provider.aclose()
    assert (ws / "made.txt").read_text() == "ok"
    use = next(e for e in events if e.type == "tool_use")
    assert (use.name, use.input) == (
        "run_shell",
        {"command": "printf ok > made.txt", "timeout": 10.0},
    )
    assert events[-1].type == "turn_end"

    second = server.requests[1].json
    _assert_history(second["messages"])
    shown = [tool["function"]["name"] for tool in second["tools"]]
    assert "run_shell" in shown
    assert "Bash" not in shown

    assert agent.session is not None
    resumed = _agent(server, ws, store)
    await resumed.resume(agent.session.path)
    _text(server, "still here")
    more = [event async for event in resumed.run("and now?")]
    await resumed.provider.aclose()
    assert more[-1].type == "turn_end"
    assert more[-1].text == "still here"
    third = server.requests[2].json["messages"]
    assert [m["role"] for m in third] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    _assert_history(third)
