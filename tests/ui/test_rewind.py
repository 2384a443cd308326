"""The rewind picker and fork in the app, for real: a workspace, a session file, the script
provider. Every wait is on a condition."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_tui.core.agent.agent import Agent
from agent_tui.core.commands import BUILTINS
from agent_tui.core.conversation.session import SessionLog
from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.settings import Settings
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat import Notice, UserPrompt
from agent_tui.ui.rewind.picker import RewindPicker

from .helpers import SIZE, make_app, submit, wait_for, wait_idle

TURNS: list[dict[str, Any]] = [
    {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
    {
        "tool_calls": [
            {
                "name": "edit_file",
                "arguments": {"path": "a.txt", "old_string": "one", "new_string": "uno"},
            }
        ]
    },
    {"text": "Edited a."},
    {"tool_calls": [{"name": "write_file", "arguments": {"path": "b.txt", "content": "b\n"}}]},
    {"text": "Created b."},
    {"tool_calls": [{"name": "run_shell", "arguments": {"command": "echo built > out.log"}}]},
    {"text": "Built."},
]


def _agent(work: Path, store: SessionStore, session: SessionLog | None = None) -> Agent:
    script = work.parent / "script.json"
    script.write_text(json.dumps({"turns": TURNS}), encoding="utf-8")
    return Agent(
        ScriptProvider(script),
        default_registry(),
        work,
        policy=SimplePolicy(["edit_file", "write_file", "run_shell"]),
        session=session if session is not None else store.new(work, "script"),
        sessions=store,
        settings=Settings.model_validate({"sandbox": {"mode": "off"}}),
        system="test",
    )


def _work(tmp_path: Path) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.txt").write_text("one\n")
    (work / ".gitignore").write_text("*.log\n")  # what "build" writes: not restorable
    return work


async def _three_turns(pilot: Any) -> None:
    for prompt in ("edit a", "create b", "build"):
        await submit(pilot, prompt)
        await wait_idle(pilot)


async def _open(pilot: Any) -> RewindPicker:
    app = pilot.app
    assert isinstance(app, AgentApp)
    await app.run_action("rewind")
    await wait_for(pilot, lambda: isinstance(app.screen, RewindPicker), "the rewind picker")
    picker = app.screen
    assert isinstance(picker, RewindPicker)
    await wait_for(pilot, lambda: picker.preview is not None, "the preview")
    return picker


async def _highlight(pilot: Any, picker: RewindPicker, number: int) -> None:
    while (current := picker.turn_list.current) is not None and current.number > number:
        await pilot.press("up")
    await wait_for(
        pilot,
        lambda: picker.preview is not None and picker.preview.turn.number == number,
        f"the preview of turn {number}",
    )


def _notices(app: AgentApp) -> list[str]:
    return [n.text for n in app.main.chat.query(Notice)]


async def test_rewind_both_restores_files_and_conversation_and_refills_the_prompt(
    tmp_path: Path,
) -> None:
    work = _work(tmp_path)
    store = SessionStore(tmp_path / "sessions")
    app = make_app(_agent(work, store))
    async with app.run_test(size=SIZE) as pilot:
        await _three_turns(pilot)
        assert (work / "a.txt").read_text() == "uno\n"
        picker = await _open(pilot)
        assert [t.prompt for t in picker.turns] == ["edit a", "create b", "build"]
        assert picker.preview is not None
        assert picker.preview.turn.number == 3  # the newest is highlighted first
        assert [n.shown for n in picker.preview.outside.changes] == ["out.log"]

        await _highlight(pilot, picker, 2)
        preview = picker.preview
        assert preview is not None
        assert [(f.shown, f.action) for f in preview.files] == [("b.txt", "delete")]
        await pilot.press("enter")  # to the choices
        await wait_for(pilot, lambda: app.screen.focused is picker.choices, "the choices")
        await pilot.press("enter")  # code and conversation
        await wait_for(pilot, lambda: len(app.agent.messages) == 6, "the conversation rewound")
        await wait_for(pilot, lambda: app.main.prompt.text == "create b", "the prompt refilled")
        assert not (work / "b.txt").exists()
        assert (work / "a.txt").read_text() == "uno\n"
        assert (work / "out.log").exists()  # not restorable
        await wait_for(pilot, lambda: len(app.main.chat.query(UserPrompt)) == 1, "the chat")
        assert [p.text for p in app.main.chat.query(UserPrompt)] == ["edit a"]
        notices = _notices(app)
        assert any(n.startswith("Rewound to before turn 2") for n in notices)
        assert any("Not restorable (changed by run_shell" in n and "out.log" in n for n in notices)
        assert app.main.lane.query("TurnBlock")  # the lane was re-rendered from the transcript

    resumed = SessionLog.load(store.all()[0])
    assert [m.content for m in resumed.messages if m.role == "user"] == ["edit a"]


async def test_a_file_changed_since_is_flagged_and_only_overwritten_after_o(
    tmp_path: Path,
) -> None:
    work = _work(tmp_path)
    store = SessionStore(tmp_path / "sessions")
    app = make_app(_agent(work, store))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "edit a")
        await wait_idle(pilot)
        (work / "a.txt").write_text("mine\n")
        picker = await _open(pilot)
        preview = picker.preview
        assert preview is not None
        assert [f.shown for f in preview.conflicts] == ["a.txt"]
        text = str(picker.preview_view.query_one("#preview-text").render())
        assert "changed since by someone else" in text
        await pilot.press("enter", "down", "down", "enter")  # code only
        await wait_for(pilot, lambda: any("Kept as they are" in n for n in _notices(app)), "kept")
        assert (work / "a.txt").read_text() == "mine\n"

        picker = await _open(pilot)
        await pilot.press("o")
        await wait_for(pilot, lambda: picker.overwrite, "overwrite on")
        await pilot.press("enter", "down", "down", "enter")
        await wait_for(pilot, lambda: (work / "a.txt").read_text() == "one\n", "the restore")
        # and what it overwrote can be put back: the undo entry heads the list
        picker = await _open(pilot)
        assert picker.turns[0].kind == "rewind"
        await _highlight(pilot, picker, 0)
        await pilot.press("enter", "enter")
        await wait_for(pilot, lambda: (work / "a.txt").read_text() == "mine\n", "the undo")


async def test_esc_goes_back_then_closes_and_nothing_changes(tmp_path: Path) -> None:
    work = _work(tmp_path)
    app = make_app(_agent(work, SessionStore(tmp_path / "sessions")))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "edit a")
        await wait_idle(pilot)
        picker = await _open(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen.focused is picker.choices, "the choices")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen.focused is picker.turn_list, "the list")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RewindPicker), "closed")
        assert (work / "a.txt").read_text() == "uno\n"
        assert len(app.agent.messages) == 6


async def test_nothing_to_rewind_says_so(tmp_path: Path) -> None:
    app = make_app(_agent(_work(tmp_path), SessionStore(tmp_path / "sessions")))
    async with app.run_test(size=SIZE) as pilot:
        notified: list[str] = []
        app.notify = lambda message, **_: notified.append(str(message))  # type: ignore[method-assign]
        await app.run_action("rewind")
        await pilot.pause()
        assert not isinstance(app.screen, RewindPicker)
        assert notified == ["Nothing to rewind yet: no prompt was sent in this conversation."]


async def test_fork_continues_in_a_new_session_with_the_same_messages(tmp_path: Path) -> None:
    work = _work(tmp_path)
    store = SessionStore(tmp_path / "sessions")
    agent = _agent(work, store)
    app = make_app(agent)
    assert agent.session is not None
    original = agent.session.id
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "edit a")
        await wait_idle(pilot)
        before = [m.model_dump() for m in agent.messages]
        await app.run_action("fork")
        await wait_for(pilot, lambda: app.session.session_id != original, "the fork")
        assert agent.session.id == app.session.session_id
        assert [m.model_dump() for m in agent.messages] == before
        assert any(n.startswith(f"Forked session {original} into session") for n in _notices(app))
        await submit(pilot, "create b")
        await wait_idle(pilot)
    old = SessionLog.load(next(p for p in store.all() if p.stem.endswith(original)))
    assert [m.content for m in old.messages if m.role == "user"] == ["edit a"]
    new = SessionLog.load(agent.session.path)
    assert new.forked_from == original
    assert [m.content for m in new.messages if m.role == "user"] == ["edit a", "create b"]


def test_the_palette_has_rewind_and_fork() -> None:
    actions = {c.action for c in BUILTINS if c.palette}
    assert {"rewind", "fork"} <= actions
    assert callable(AgentApp.action_rewind)
    assert callable(AgentApp.action_fork)
