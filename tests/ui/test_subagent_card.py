"""The subagent card: a ``task`` call shows its child's calls (live, and after a resume), never
as cards of their own; snapshots of the card running and expanded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from agent_tui.core.agent.agent import Agent
from agent_tui.core.calls import SubagentCall, SubagentReport, Usage
from agent_tui.core.conversation.replay import transcript_events
from agent_tui.core.events import Event, ToolProgress, ToolResult, ToolUse
from agent_tui.core.permissions import ApprovalRequest, SimplePolicy
from agent_tui.core.subagents import AgentCatalog, install
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.lane import ToolCard
from agent_tui.ui.lane.card_content import body_content
from tests.core.subagents.helpers import Routed, call, reply, step

from .card_app import CardApp
from .helpers import SIZE, feed, make_app, submit, wait_for

SnapCompare = Callable[..., bool]
WAIT = 30.0


def child(event: Event) -> Event:
    return event.model_copy(update={"parent_call_id": "t1", "agent": "general"})


TASK = ToolUse(
    id="t1",
    name="task",
    input={"description": "find the config loader", "prompt": "Find where settings load."},
    read_only=True,
)
RUNNING: list[Event] = [
    TASK,
    ToolProgress(id="t1", name="task", elapsed=0.0, message="started"),
    child(ToolUse(id="c1", name="grep", input={"pattern": "load_settings"}, read_only=True)),
    child(ToolResult(id="c1", name="grep", content="...", summary="4 matches in 2 files")),
    ToolProgress(id="t1", name="task", elapsed=1.2, message="1 call · 2.4k tokens"),
    child(ToolUse(id="c2", name="read_file", input={"path": "src/settings.py"}, read_only=True)),
]
DONE: list[Event] = [
    *RUNNING,
    child(ToolResult(id="c2", name="read_file", content="...", summary="lines 1–120 of 380")),
    ToolResult(
        id="t1",
        name="task",
        content="Settings load in src/settings.py:205 (load_settings).",
        summary="2 calls · 5.1k tokens",
        elapsed=3.4,
        subagent=SubagentReport(
            agent="general",
            calls=[
                SubagentCall(id="c1", name="grep", summary="4 matches in 2 files"),
                SubagentCall(id="c2", name="read_file", summary="lines 1–120 of 380"),
            ],
            usage=Usage(input_tokens=5000, output_tokens=100),
            requests=3,
        ),
    ),
]


def test_subagent_card_running(snap_compare: SnapCompare) -> None:
    assert snap_compare(CardApp(RUNNING), terminal_size=(72, 6))


def test_subagent_card_expanded(snap_compare: SnapCompare) -> None:
    assert snap_compare(CardApp(DONE, expand=("t1",)), terminal_size=(72, 16))


def test_the_card_lists_the_child_calls_and_the_report() -> None:
    app = CardApp(DONE)
    card = app.book.calls["t1"]
    assert [c.id for c in card.children] == ["c1", "c2"]
    assert card.outcome == "2 calls · 5.1k tokens"
    text = body_content(card).plain
    assert "subagent general · 2 calls" in text
    assert "read_file  src/settings.py  · lines 1–120 of 380" in text
    assert "Settings load in src/settings.py:205" in text
    running = CardApp(RUNNING).book.calls["t1"]
    assert running.current == "read_file src/settings.py"
    assert running.status_line() == "running · → read_file src/settings.py · 1 call · 2.4k tokens"


async def test_child_calls_show_under_the_task_card_live_and_after_resume(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("the answer is 42\n")
    provider = Routed(
        [
            step(reply("Delegating.", call("task", "t1", description="find it", prompt="find"))),
            step(reply("It is 42.")),
        ],
        {
            "find": [
                step(reply("", call("read_file", "c1", path="notes.txt"))),
                step(reply("REPORT: 42")),
            ]
        },
    )
    agent = Agent(provider, default_registry(), tmp_path, policy=SimplePolicy(), system="test")
    install(agent, AgentCatalog())
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        lane = app.main.lane
        await wait_for(
            pilot,
            lambda: "t1" in lane.cards and lane.cards["t1"].call.status.finished,
            "the task card to finish",
            timeout=WAIT,
        )
        card = lane.cards["t1"]
        assert "c1" not in lane.cards  # the child's call is in its card, not a card of its own
        assert [c.name for c in card.call.children] == ["read_file"]
        assert card.call.outcome.startswith("1 call · ")
        card.focus()
        await pilot.press("space")
        await wait_for(pilot, lambda: card.body is not None, "the card to expand")
        shown = body_content(card.call).plain
        assert "subagent general · 1 call" in shown
        assert "read_file  notes.txt" in shown
        messages = list(agent.messages)
    # resume: the same card from the transcript
    again = Agent(Routed([], {}), default_registry(), tmp_path, system="test")
    app = make_app(again)
    async with app.run_test(size=SIZE) as pilot:
        await feed(app, list(transcript_events(messages)))
        lane = app.main.lane
        await wait_for(pilot, lambda: "t1" in lane.cards, "the resumed task card")
        resumed = lane.cards["t1"]
        assert "c1" not in lane.cards
        assert [c.name for c in resumed.call.children] == ["read_file"]
        assert resumed.call.outcome == card.call.outcome
        assert len(list(lane.query(ToolCard))) == 1


def test_a_subagents_ask_says_which_subagent_asks(tmp_path: Path) -> None:
    from agent_tui.core.calls import ToolCall
    from agent_tui.core.tools.builtin.write_file import TOOL
    from agent_tui.ui.approval.desk import describe_request

    policy = SimplePolicy()
    args = TOOL.input_model(path="a.txt", content="x")
    request = ApprovalRequest(ToolCall(id="w1", name="write_file", arguments="{}"), TOOL, args)
    request = replace(request, decision=policy.decide(request), agent="writer")
    ask = describe_request(request, policy, tmp_path)
    assert ask.reason.startswith("asked by subagent writer: ")
