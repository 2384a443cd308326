"""Project memory and the context meter against a real OpenAI-wire server on 127.0.0.1: the
memory files reach the model in order inside a system message that stays byte-identical from
request to request (a nested file arrives with the read that found it, never in the prefix),
and the meter's figure is the server's own ``usage``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.events import UsageEvent
from agent_tui.core.providers.openai import OpenAIProvider
from agent_tui.core.settings import Settings
from agent_tui.core.tools.builtin import default_registry


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "x", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _read(server: Any, call_id: str, path: str) -> None:
    call = {
        "index": 0,
        "id": call_id,
        "type": "function",
        "function": {"name": "read_file", "arguments": json.dumps({"path": path})},
    }
    usage = {"id": "x", "choices": [], "usage": {"prompt_tokens": 1200, "completion_tokens": 9}}
    body = server.sse_bytes(
        _chunk({"tool_calls": [call]}), _chunk({}, "tool_calls"), usage, "[DONE]"
    )
    server.add_sse(body)


def _say(server: Any, text: str, prompt_tokens: int) -> None:
    usage = {
        "id": "x",
        "choices": [],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 7},
    }
    server.add_sse(server.sse_bytes(_chunk({"content": text}, "stop"), usage, "[DONE]"))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("AGENT_TUI_CONFIG_DIR", str(config))
    (config / "AGENTS.md").write_text("User: answer in English.\n")
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "app" / "lib").mkdir(parents=True)
    (root / "AGENTS.md").write_text("Root: run make test.\n")
    (root / "app" / "CLAUDE.md").write_text("App: keep functions small.\n")
    (root / "app" / "lib" / "AGENTS.md").write_text("Lib: no globals.\n")
    (root / "app" / "lib" / "util.py").write_text("def f():\n    return 1\n")
    return root


async def test_memory_in_order_a_stable_prefix_and_the_meter_from_usage(
    server: Any, repo: Path
) -> None:
    settings = Settings.model_validate({"model": {"context_window": 16_384}})
    provider = OpenAIProvider("test-model", base_url=f"{server.url}/v1", api_key="k")
    agent = Agent(provider, default_registry(), repo / "app", settings=settings)
    _read(server, "r1", "lib/util.py")
    _say(server, "It returns 1.", 1500)
    events = [e async for e in agent.run("what does util.f do?")]
    _say(server, "Yes.", 1700)
    events += [e async for e in agent.run("sure?")]
    await provider.aclose()

    systems = [r.json["messages"][0] for r in server.requests]
    assert {s["role"] for s in systems} == {"system"}
    assert systems[0]["content"] == systems[1]["content"] == systems[2]["content"]
    text = systems[0]["content"]
    order = [text.index(s) for s in ("User: answer", "Root: run", "App: keep")]
    assert order == sorted(order)
    assert "Lib: no globals." not in text  # nested: it came with the read
    tool_message = server.requests[1].json["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "Lib: no globals." in tool_message["content"]
    assert "return 1" in tool_message["content"]

    usage = [e for e in events if isinstance(e, UsageEvent)]
    assert [(u.context_window, u.estimated) for u in usage] == [(16_384, False)] * 3
    assert usage[-1].context_tokens == 1700 + 7
    assert usage[-1].percent == round(100 * 1707 / 16_384)
