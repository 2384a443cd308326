"""Issue 5's acceptance scenarios, driven through the real app by a script model with the real
built-in tools and the real permission pipeline (settings files in a temporary project)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message

from agent_tui.core.agent.agent import Agent
from agent_tui.core.events import AssistantDelta, PermissionRequest
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.ui.approval.screen import ApprovalScreen
from agent_tui.ui.calls.book import CallStatus
from agent_tui.ui.chat import AssistantReply
from agent_tui.ui.lane import GroupCard
from agent_tui.ui.shell.events_bridge import AgentEvent

from .helpers import (
    SIZE,
    make_agent,
    make_app,
    submit,
    wait_approval,
    wait_drawn,
    wait_for,
    wait_idle,
)


def with_pipeline(agent: Agent) -> Agent:
    """The session's real permission pipeline (settings files of the project, "always" saved
    to ``.agent-tui/settings.local.json``)."""
    agent.policy = agent.executor.policy = build_pipeline(agent.cwd).pipeline
    return agent


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


async def test_a_streamed_answer(tmp_path: Path) -> None:
    text = "## Plan\n\n" + " ".join(f"step{i}" for i in range(120)) + "\n\n```python\nx = 1\n```\n"
    chunks = [text[i : i + 7] for i in range(0, len(text), 7)]
    # paced over about a second: the deltas come in many batches, most after the reply exists
    app = make_app(make_agent(tmp_path, [{"chunks": chunks, "delay": 0.01}]))
    seen: list[tuple[int, int]] = []  # (reply widget, characters shown) per batch of deltas

    def hook(message: Message) -> None:
        if isinstance(message, AgentEvent) and isinstance(message.event, AssistantDelta):
            reply = app.main.chat.reply
            if reply is not None:
                seen.append((id(reply), len(reply.source)))

    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await submit(pilot, "plan it")
        await wait_idle(pilot)
        replies = list(app.main.chat.query(AssistantReply))
        assert len(replies) == 1
        await wait_drawn(pilot, replies[0], text)
        assert not replies[0].streaming
    # deltas come batched (one message per frame, ``DeltaBatcher``), never more than one a chunk
    assert 0 < len(seen) <= len(chunks) - 1
    assert len({widget for widget, _ in seen}) == 1  # one reply, appended to, never rebuilt
    shown = [count for _, count in seen]
    assert shown == sorted(shown)
    assert shown[0] < shown[-1] < len(text)  # drawn as it came, not all at the end


async def test_a_read_only_parallel_group(tmp_path: Path) -> None:
    names = ["a.py", "b.py", "c.py", "d.py"]
    for name in names:
        (tmp_path / name).write_text(f"# {name}\n", encoding="utf-8")
    turns = [
        {"tool_calls": [call(f"r{i}", "read_file", path=n) for i, n in enumerate(names)]},
        {"text": "Read them all."},
    ]
    app = make_app(with_pipeline(make_agent(tmp_path, turns)))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "read four")
        await wait_idle(pilot)
        (group,) = app.main.lane.query(GroupCard)
        title = group.head.render().plain
        assert title.startswith("▾ Read 4 files")
        assert "4 ok" in title
        assert [c.call.summary for c in group.cards] == names
        assert all(c.call.status is CallStatus.OK for c in group.cards)
        assert not app.desk.pending


async def test_an_edit_asks_then_y_runs_it_and_the_card_shows_the_diff(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("def greet():\n    return 'hi'\n", encoding="utf-8")
    edit = {"path": "app.py", "old_string": "'hi'", "new_string": "'Hello!'"}
    turns = [
        {"tool_calls": [call("r", "read_file", path="app.py")]},
        {"tool_calls": [call("e", "edit_file", **edit)]},
        {"text": "Edited."},
    ]
    app = make_app(with_pipeline(make_agent(tmp_path, turns)))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "greet louder")
        screen = await wait_approval(pilot)
        shown = str(screen.query_one("#details").query_one("Static").render())
        assert "-    return 'hi'" in shown
        assert "+    return 'Hello!'" in shown
        assert app.main.lane.cards["e"].call.status is CallStatus.APPROVAL
        await pilot.press("y")
        await wait_idle(pilot)
        card = app.main.lane.cards["e"]
        assert card.call.status is CallStatus.OK
        assert card.call.outcome == "+1 −1"
        assert "+    return 'Hello!'" in card.call.data["diff"]
        assert (tmp_path / "app.py").read_text(encoding="utf-8").endswith("'Hello!'\n")
        card.focus()
        await pilot.press("enter")
        assert card.body is not None
        body = str(card.body.query_one(".output").render())
        assert "-    return 'hi'" in body


async def test_a_shell_call_denied_with_feedback_reaches_the_model(tmp_path: Path) -> None:
    turns = [
        {"tool_calls": [call("s", "run_shell", command="rm -rf build")]},
        {"text": "Understood."},
    ]
    agent = with_pipeline(make_agent(tmp_path, turns))
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "clean up")
        await wait_approval(pilot)
        await pilot.press("f", *"use make clean instead", "enter")
        await wait_idle(pilot)
        card = app.main.lane.cards["s"]
        assert card.call.status is CallStatus.REJECTED
        assert card.call.rejected_by == "you"
        assert card.has_class("-rejected")
    results = [m for m in agent.messages if m.role == "tool"]
    assert len(results) == 1
    assert "The user said: use make clean instead" in results[0].content


@pytest.mark.parametrize("key", ["escape", "ctrl+c"])
async def test_esc_during_a_long_shell_call_interrupts_it(tmp_path: Path, key: str) -> None:
    """Esc or the first Ctrl+C: the card says the user stopped it (never which key it was
    not: a Ctrl+C once read "stopped by Esc")."""
    turns = [
        {"tool_calls": [call("s", "run_shell", command="echo started; sleep 30")]},
        {"text": "never"},
    ]
    app = make_app(make_agent(tmp_path, turns, allow=("run_shell",)))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "wait")
        await wait_for(
            pilot,
            lambda: "s" in app.calls.calls and "started" in app.calls.calls["s"].tail,
            "the call to run",
        )
        await pilot.press(key)
        await wait_idle(pilot)
        card = app.main.lane.cards["s"]
        assert card.call.status is CallStatus.INTERRUPTED
        assert card.has_class("-interrupted")
        assert card.call.status_line() == "interrupted · stopped by you"
        assert card._timer is None


async def test_always_allow_writes_the_rule_and_the_same_call_does_not_ask_again(
    tmp_path: Path,
) -> None:
    same = call("c1", "run_shell", command="echo hello")
    again = call("c2", "run_shell", command="echo hello")
    turns = [{"tool_calls": [same]}, {"text": "one"}, {"tool_calls": [again]}, {"text": "two"}]
    asked: list[str] = []

    def hook(message: Message) -> None:
        if isinstance(message, AgentEvent) and isinstance(message.event, PermissionRequest):
            asked.append(message.event.id)

    app = make_app(with_pipeline(make_agent(tmp_path, turns)))
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        await submit(pilot, "status")
        screen = await wait_approval(pilot)
        assert screen.always == "run_shell(echo:*)"
        await pilot.press("a")
        await wait_idle(pilot)
        saved = json.loads((tmp_path / ".agent-tui" / "settings.local.json").read_text())
        assert saved["permissions"]["allow"] == ["run_shell(echo:*)"]
        await submit(pilot, "status again")
        await wait_idle(pilot)
        assert not isinstance(app.screen, ApprovalScreen)
        assert app.calls.calls["c2"].status is CallStatus.OK
    assert asked == ["c1"]
