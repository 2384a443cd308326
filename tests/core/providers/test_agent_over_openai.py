"""The whole loop against a real OpenAI-wire server on 127.0.0.1: fragmented, interleaved
tool-call deltas are assembled, the calls really run, and their results go back to the model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.providers.openai import OpenAIProvider
from agent_tui.core.tools.builtin import default_registry


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _frag(index: int, arguments: str, **first: str) -> dict[str, Any]:
    call: dict[str, Any] = {"index": index, "function": {"arguments": arguments}}
    if "id" in first:
        call["id"] = first["id"]
        call["type"] = "function"
        call["function"]["name"] = first["name"]
    return {"tool_calls": [call]}


async def test_loop_runs_calls_assembled_from_interleaved_fragments(server, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("alpha\nbeta\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 'beta'\n")
    first = server.sse_bytes(
        _chunk({"role": "assistant", "content": "Let me "}),
        _chunk({"content": "look."}),
        _chunk(_frag(0, '{"pa', id="call_read", name="read_file")),
        _chunk(_frag(1, '{"patt', id="call_grep", name="grep")),
        _chunk(_frag(0, 'th": "no')),
        _chunk(_frag(1, 'ern": "be')),
        _chunk(_frag(0, 'tes.txt"}')),
        _chunk(_frag(1, 'ta", "path": "src"}')),
        _chunk({}, finish="tool_calls"),
        {"id": "x", "choices": [], "usage": {"prompt_tokens": 50, "completion_tokens": 9}},
        "[DONE]",
    )
    server.add_sse(first, chunk_size=7)
    second = server.sse_bytes(_chunk({"content": "Found beta twice."}, "stop"), "[DONE]")
    server.add_sse(second)

    provider = OpenAIProvider(
        "test-model", base_url=f"{server.url}/v1", api_key="k", retry_base_delay=0.01
    )
    agent = Agent(provider, default_registry(), tmp_path)
    events = [event async for event in agent.run("where is beta?")]
    await provider.aclose()

    uses = [(e.id, e.name, e.input) for e in events if e.type == "tool_use"]
    assert uses == [
        ("call_read", "read_file", {"path": "notes.txt"}),
        ("call_grep", "grep", {"pattern": "beta", "path": "src"}),
    ]
    results = {e.id: e for e in events if e.type == "tool_result"}
    assert "beta" in results["call_read"].content
    assert "a.py:1:" in results["call_grep"].content
    assert [e.ids for e in events if e.type == "tool_group"] == [["call_read", "call_grep"]]
    assert events[-1].type == "turn_end"
    assert events[-1].text == "Found beta twice."

    # The second request carried the assistant's calls and both results, in order.
    second_body = server.requests[1].json
    roles = [m["role"] for m in second_body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool"]
    assert [m["tool_call_id"] for m in second_body["messages"][3:]] == ["call_read", "call_grep"]
    assert "beta" in second_body["messages"][3]["content"]
    assert sorted(t["function"]["name"] for t in second_body["tools"]) == [
        t["function"]["name"] for t in second_body["tools"]
    ]


async def test_a_turn_with_raw_line_separators_in_the_json_completes(server, tmp_path) -> None:
    """U+2028, U+2029 and U+0085 arrive raw inside JSON strings (many servers send them so);
    they end lines for ``str.splitlines`` but not in an event stream: the turn completes."""
    answer = "first\u2028second\u2029third\u0085fourth"
    body = server.sse_bytes(
        _chunk({"role": "assistant", "content": answer[:9]}),
        _chunk({"content": answer[9:]}, "stop"),
        "[DONE]",
        raw_unicode=True,
        newline="\r\n",
    )
    server.add_sse(body, chunk_size=4)
    provider = OpenAIProvider("test-model", base_url=f"{server.url}/v1", api_key="k")
    agent = Agent(provider, default_registry(), tmp_path)
    events = [event async for event in agent.run("say it")]
    await provider.aclose()

    assert [e.type for e in events if e.type == "error"] == []
    assert events[-1].type == "turn_end"
    assert events[-1].text == answer
