"""A replay split at a turn (``turn_start``: the last turns of a resumed session rendered at
once, the earlier ones read later) tells exactly the events of the whole replay, each once:
the same usage totals, the same turn ends, a compaction on the side it belongs to."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.replay import transcript_events, turn_start, turn_starts
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry


def _script(turns: int) -> list[dict[str, Any]]:
    script: list[dict[str, Any]] = []
    for t in range(turns):
        script.append(
            {
                "text": f"Turn {t}.",
                "tool_calls": [
                    {"id": f"a{t}", "name": "read_file", "arguments": {"path": "a.txt"}},
                    {"id": f"b{t}", "name": "read_file", "arguments": {"path": "missing"}},
                ],
            }
        )
        script.append({"text": f"Done {t}."})
        if t == 2:
            script.append({"text": "Summary of the first turns."})  # the /compact below
    return script


@pytest.fixture
async def transcript(tmp_path: Path) -> Agent:
    (tmp_path / "a.txt").write_text("alpha\n", encoding="utf-8")
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"turns": _script(6)}), encoding="utf-8")
    agent = Agent(
        ScriptProvider(script), default_registry(), tmp_path, policy=SimplePolicy(), system="t"
    )
    for t in range(6):
        async for _ in agent.run(f"prompt {t}"):
            pass
        if t == 2:
            async for _ in agent.compact():
                pass
    return agent


def _dumps(events: object) -> list[dict[str, Any]]:
    return [e.model_dump() for e in events]  # type: ignore[attr-defined]


async def test_a_split_replay_tells_the_whole_replay_once(transcript: Agent) -> None:
    history = transcript.history()
    whole = _dumps(transcript_events(history))
    kinds = [e["type"] for e in whole]
    assert kinds.count("user_message") == 6
    assert "compaction" in kinds
    starts = turn_starts(history)
    assert len(starts) == 6
    for cut in starts:
        earlier = _dumps(transcript_events(history, stop=cut))
        later = _dumps(transcript_events(history, start=cut))
        assert earlier + later == whole, cut


async def test_turn_start_keeps_the_last_turns(transcript: Agent) -> None:
    history = transcript.history()
    starts = turn_starts(history)
    assert turn_start(history, 2) == starts[-2]
    assert turn_start(history, 6) == 0
    later = list(transcript_events(history, start=turn_start(history, 2)))
    prompts = [e.text for e in later if e.type == "user_message"]  # type: ignore[attr-defined]
    assert prompts == ["prompt 4", "prompt 5"]
