"""Progressive disclosure on the wire: the exact request bodies both providers send to a real
HTTP server on 127.0.0.1 across a multi-turn session with ~40 deferred MCP tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.core.disclosure.catalog import catalog_tools, filler, registry_with

from agent_tui.core.agent.agent import Agent
from agent_tui.core.disclosure import Disclosure
from agent_tui.core.permissions import PermissionPipeline, Rule, RuleSet
from agent_tui.core.permissions.asking import Approval, ApprovalRequest
from agent_tui.core.providers.anthropic import AnthropicProvider
from agent_tui.core.providers.openai import OpenAIProvider


def _tools() -> list:  # ~40 MCP tools
    return catalog_tools() + filler(8)


def _openai_turn(server: Any, *calls: tuple[str, str, dict[str, Any]], text: str = "") -> None:
    chunks: list[Any] = []
    if text:
        chunks.append({"choices": [{"index": 0, "delta": {"content": text}}]})
    for i, (call_id, name, args) in enumerate(calls):
        fragment = {
            "index": i,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}]})
    finish = "tool_calls" if calls else "stop"
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": finish}]})
    server.add_sse(server.sse_bytes(*chunks, "[DONE]"))


def _anthropic_turn(server: Any, *calls: tuple[str, str, dict[str, Any]], text: str = "") -> None:
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"usage": {"input_tokens": 10}}}
    ]
    index = 0
    if text:
        events += [
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
            {"type": "content_block_stop", "index": 0},
        ]
        index = 1
    for call_id, name, args in calls:
        events += [
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "input_json_delta", "partial_json": json.dumps(args)},
            },
            {"type": "content_block_stop", "index": index},
        ]
        index += 1
    stop = "tool_use" if calls else "end_turn"
    events += [
        {"type": "message_delta", "delta": {"stop_reason": stop}, "usage": {"output_tokens": 5}},
        {"type": "message_stop"},
    ]
    server.add_sse(server.sse_bytes(*events, event_names=True))


def _tools_bytes(server: Any) -> list[str]:
    return [json.dumps(r.json.get("tools"), separators=(",", ":")) for r in server.requests]


async def test_openai_tools_array_is_byte_identical_on_every_turn(server, tmp_path: Path) -> None:
    registry = registry_with(_tools())
    disclosure = Disclosure(registry)
    _openai_turn(server, ("s1", "search_tool", {"query": "weather forecast"}))
    _openai_turn(
        server,
        ("r1", "run_tool", {"name": "mcp__weather__get_forecast", "input": {"city": "Oslo"}}),
    )
    _openai_turn(server, ("d1", "mcp__weather__get_forecast", {"city": "Bergen"}))
    _openai_turn(server, text="Rain in Oslo.")
    provider = OpenAIProvider("m", base_url=f"{server.url}/v1", api_key="k")
    agent = Agent(
        provider,
        registry,
        tmp_path,
        disclosure=disclosure,
        policy=PermissionPipeline(tmp_path, RuleSet(allow=[Rule.parse("mcp__weather")])),
    )
    events = [e async for e in agent.run("weather in Oslo?")]
    await provider.aclose()
    arrays = _tools_bytes(server)
    assert len(arrays) == 4
    assert len(set(arrays)) == 1, "the tools array changed between turns"
    names = [t["function"]["name"] for t in json.loads(arrays[0])]
    assert "mcp__weather__get_forecast" not in names
    assert {"run_tool", "search_tool", "read_file"} <= set(names)
    results = [e for e in events if e.type == "tool_result"]
    assert "input schema" in results[0].content
    assert results[1].content == "get_forecast ran with {'city': 'Oslo'}"
    assert results[2].content == "get_forecast ran with {'city': 'Bergen'}"
    costs = [e for e in events if e.type == "tools_cost"]
    assert len(costs) == 1
    assert costs[0].without_disclosure_tokens > costs[0].total_tokens


async def test_anthropic_array_changes_once_per_unmasking_turn(server, tmp_path: Path) -> None:
    registry = registry_with(_tools())
    disclosure = Disclosure(registry)
    _anthropic_turn(server, ("s1", "search_tool", {"query": "weather forecast"}))
    _anthropic_turn(server, ("c1", "mcp__weather__get_forecast", {"city": "Oslo"}))
    _anthropic_turn(server, ("c2", "mcp__weather__get_forecast", {"city": "Rome"}))
    _anthropic_turn(
        server,
        ("s2", "search_tool", {"query": "post slack message"}),
        ("s3", "search_tool", {"query": "screenshot page"}),
    )
    _anthropic_turn(server, text="Done.")
    provider = AnthropicProvider("claude", base_url=server.url, api_key="k")
    policy = PermissionPipeline(tmp_path, RuleSet(allow=[Rule.parse("mcp__weather")]))
    agent = Agent(provider, registry, tmp_path, disclosure=disclosure, policy=policy)
    events = [e async for e in agent.run("weather?")]
    await provider.aclose()
    arrays = _tools_bytes(server)
    assert len(arrays) == 5
    # unmasking turns: 1 (weather) and 4 (slack + browser at once) -> changes before 2 and 5
    assert arrays[0] != arrays[1]
    assert arrays[1] == arrays[2] == arrays[3]
    assert arrays[3] != arrays[4]
    names = [t["name"] for t in json.loads(arrays[4])]
    assert names == sorted(names)
    assert {
        "mcp__weather__get_forecast",
        "mcp__slack__post_message",
        "mcp__browser__screenshot",
    } <= set(names)
    ok = [e.id for e in events if e.type == "tool_result"]
    assert {"c1", "c2"} <= set(ok)


async def test_run_tool_is_judged_as_its_target(tmp_path: Path) -> None:
    from agent_tui.core.providers.script import ScriptProvider

    registry = registry_with(_tools())
    disclosure = Disclosure(registry)
    script = tmp_path / "s.json"
    script.write_text(
        json.dumps(
            {
                "turns": [
                    {
                        "tool_calls": [
                            {
                                "id": "deny",
                                "name": "run_tool",
                                "arguments": {
                                    "name": "mcp__calendar__delete_event",
                                    "input": {"event_id": "1"},
                                },
                            },
                            {
                                "id": "ask",
                                "name": "run_tool",
                                "arguments": {
                                    "name": "mcp__slack__post_message",
                                    "input": {"channel": "#x", "text": "hi"},
                                },
                            },
                        ]
                    },
                    {"text": "ok"},
                ]
            }
        )
    )
    asked: list[ApprovalRequest] = []

    async def asker(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return Approval(allowed=False, feedback="not now")

    policy = PermissionPipeline(
        tmp_path,
        RuleSet(allow=[Rule.parse("run_tool")], deny=[Rule.parse("mcp__calendar__delete_event")]),
    )
    agent = Agent(
        ScriptProvider(script),
        registry,
        tmp_path,
        disclosure=disclosure,
        policy=policy,
        asker=asker,
    )
    events = [e async for e in agent.run("go")]
    rejected = {e.id: e for e in events if e.type == "tool_rejected"}
    assert "mcp__calendar__delete_event" in rejected["deny"].reason
    prompts = [e for e in events if e.type == "permission_request"]
    assert [p.name for p in prompts] == ["mcp__slack__post_message"]
    assert [r.tool.name for r in asked] == ["mcp__slack__post_message"]
    assert rejected["ask"].feedback == "not now"
