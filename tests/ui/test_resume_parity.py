"""A resumed session looks exactly like the live one: the same cards with the same states,
summaries, groups and durations, the same chat rows, the same token totals — because both are
rendered from the same events (the transcript keeps each call's typed outcome)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.app import AgentApp
from agent_tui.ui.calls.state import CallStatus
from agent_tui.ui.chat import ToolLine

from .helpers import make_app, submit, wait_approval, wait_for, wait_idle

TURNS: list[dict[str, Any]] = [
    {
        "text": "Looking around.",
        "tool_calls": [
            {"id": "r1", "name": "read_file", "arguments": {"path": "a.txt"}},
            {"id": "r2", "name": "read_file", "arguments": {"path": "b.txt"}},
            {"id": "r3", "name": "read_file", "arguments": {"path": "missing.txt"}},
        ],
    },
    {
        "text": "Writing.",
        "tool_calls": [
            {
                "id": "w1",
                "name": "write_file",
                "arguments": {"path": "new.txt", "content": "x\n" * 9},
            },
            {"id": "w2", "name": "write_file", "arguments": {"path": "no.txt", "content": "y"}},
            {"id": "s1", "name": "run_shell", "arguments": {"command": "echo oops >&2; exit 3"}},
        ],
    },
    {"text": "Done."},
]


def _agent(cwd: Path, store: SessionStore, session: SessionLog | None) -> Agent:
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": TURNS}), encoding="utf-8")
    return Agent(
        ScriptProvider(script),
        default_registry(),
        cwd,
        policy=SimplePolicy(["run_shell"]),
        session=session,
        sessions=store,
        system="test",
    )


def _finished(app: AgentApp, call_id: str) -> bool:
    call = app.calls.get(call_id)
    return call is not None and call.status.finished


def _view(app: AgentApp) -> dict[str, Any]:
    """What the user sees of the calls: every card's state, the lane's structure, the chat's
    rows and the token totals."""
    lane, chat, status = app.main.lane, app.main.chat, app.main.status
    calls = {
        c.id: (
            c.status,
            c.outcome,
            c.rejected_by,
            round(c.elapsed, 3),
            c.group,
            c.group_size,
            c.code,
            c.status_line(),
        )
        for c in app.calls.calls.values()
    }
    return {
        "calls": calls,
        "blocks": [
            (str(b.header.render()), [list(e) for e in b.entries], b.folded) for b in lane.blocks
        ],
        "groups": sorted(lane.groups),
        "chat": [str(line.render()) for line in chat.query(ToolLine)],
        "tokens": (status.input_tokens, status.output_tokens),
    }


async def test_a_resumed_session_renders_like_the_live_one(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("alpha\n", encoding="utf-8")
    (work / "b.txt").write_text("beta\nbeta\n", encoding="utf-8")
    store = SessionStore(tmp_path / "sessions")
    session = store.new(work, "script")
    live_app = make_app(_agent(work, store, session))
    async with live_app.run_test(size=(140, 40)) as pilot:
        await submit(pilot, "go")
        await wait_approval(pilot)
        await pilot.press("y")  # w1: allowed once
        await wait_for(pilot, lambda: _finished(live_app, "w1"), "the first write to end")
        await wait_approval(pilot)
        await pilot.press("n")  # w2: denied by the user
        await wait_idle(pilot)
        await live_app.main.lane.settle()
        live = _view(live_app)

    assert live["calls"]["r3"][0] is CallStatus.ERROR
    assert live["calls"]["w1"][1] == "+9 · new file"
    assert live["calls"]["w2"][2] == "you"
    assert live["calls"]["s1"][0] is CallStatus.FAILED
    assert live["calls"]["s1"][1].startswith("exit 3")
    assert live["groups"] == ["r1"]
    assert live["tokens"] != (0, 0)

    resumed_app = make_app(_agent(work, store, SessionLog.load(session.path)))
    async with resumed_app.run_test(size=(140, 40)) as pilot:
        await wait_for(pilot, lambda: len(resumed_app.calls.calls) == 6, "the resumed calls")
        await resumed_app.main.lane.settle()
        await pilot.pause()
        resumed = _view(resumed_app)

    assert resumed["calls"] == live["calls"]
    assert resumed["blocks"] == live["blocks"]
    assert resumed["groups"] == live["groups"]
    assert resumed["chat"] == live["chat"]
    assert resumed["tokens"] == live["tokens"]
