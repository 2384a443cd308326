"""The app end to end with Pilot: a script model, the real built-in tools, real files."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

from textual.widgets import Static

from agent_tui.core.budget.excerpt import spill_pointer
from agent_tui.core.events import Event, SessionStart, UserMessage
from agent_tui.core.transcript import Message, ToolCall
from agent_tui.ui.calls.book import CallStatus
from agent_tui.ui.chat import AssistantReply, ErrorBlock, Notice, ToolLine, UserPrompt
from agent_tui.ui.lane import GroupCard, ToolCard
from agent_tui.ui.shell.activity import Activity
from agent_tui.ui.shell.events_bridge import AgentEvent

from .helpers import (
    SIZE,
    make_agent,
    make_app,
    submit,
    use,
    wait_approval,
    wait_drawn,
    wait_for,
    wait_idle,
)


async def test_demo_badge_is_shown_for_the_demo_model(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []), demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        status = app.main.status
        badge = status.query_one("#demo-badge", Static)
        assert status.has_class("-demo")
        assert badge.display
        assert badge.region.width > 0
        assert "offline demo" in app.sub_title
        assert status.activity is Activity.IDLE
        assert app.theme == "agent-dark"


async def test_no_demo_badge_for_a_real_model(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        badge = app.main.status.query_one("#demo-badge", Static)
        assert badge.region.width == 0
        assert app.main.status.model == "script:script.json"


async def test_a_turn_streams_markdown_into_the_chat(tmp_path: Path) -> None:
    text = "Hello **there**.\n\n- one\n- two\n\nThat is `all`."
    app = make_app(
        make_agent(tmp_path, [{"text": text, "usage": {"input_tokens": 1500, "output_tokens": 20}}])
    )
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "say hello")
        await wait_idle(pilot)
        chat = app.main.chat
        prompts = list(chat.query(UserPrompt))
        replies = list(chat.query(AssistantReply))
        assert [p.text for p in prompts] == ["say hello"]
        assert len(replies) == 1
        await wait_drawn(pilot, replies[0], text)
        assert not replies[0].streaming
        assert app.main.status.input_tokens == 1500
        assert app.main.status.output_tokens == 20
        assert app.main.prompt.text == ""


async def test_tool_calls_become_cards_with_their_final_states(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("# Title\nbody\n", encoding="utf-8")
    turns = [
        {
            "text": "Looking.",
            "tool_calls": [
                {"id": "read", "name": "read_file", "arguments": {"path": "README.md"}},
                {"id": "ghost", "name": "no_such_tool", "arguments": {}},
                {"id": "bad", "name": "edit_file", "raw_arguments": '{"path": oops'},
            ],
        },
        {"text": "Done."},
    ]
    app = make_app(make_agent(tmp_path, turns))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "look")
        await wait_idle(pilot)
        cards = app.main.lane.cards
        assert set(cards) == {"read", "ghost", "bad"}
        read, ghost, bad = cards["read"].call, cards["ghost"].call, cards["bad"].call
        assert read.status is CallStatus.OK
        assert read.outcome == "lines 1–2 of 2"
        assert "# Title" in read.content
        assert ghost.status is CallStatus.ERROR
        assert ghost.code == "unknown_tool"
        assert bad.status is CallStatus.ERROR
        assert bad.code == "invalid_json"
        assert cards["ghost"].has_class("-error")
        (line,) = app.main.chat.query(ToolLine)
        assert [row[0].id for row in line.rows] == ["read", "ghost", "bad"]
        assert "read_file README.md" in line.build_content().plain.splitlines()[0]
        assert app.main.status.activity is Activity.IDLE


async def test_parallel_batch_is_bracketed_as_a_group(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    turns = [
        {
            "tool_calls": [
                {"id": "r1", "name": "read_file", "arguments": {"path": "a.txt"}},
                {"id": "g1", "name": "glob", "arguments": {"pattern": "*.txt"}},
            ]
        },
        {"text": "ok"},
    ]
    app = make_app(make_agent(tmp_path, turns))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "both")
        await wait_idle(pilot)
        boxes = list(app.main.lane.query(GroupCard))
        assert len(boxes) == 1
        title = boxes[0].head.render().plain
        assert title.startswith("▾ Read 1 file · 1 search")
        assert "2 ok" in title
        assert [c.call.id for c in boxes[0].query(ToolCard)] == ["r1", "g1"]
        lines = list(app.main.chat.query(ToolLine))
        assert len(lines) == 1
        assert lines[0].build_content().plain.startswith("● Read 1 file · 1 search a.txt, *.txt")


def write_out_turns(reply: str) -> list[dict[str, object]]:
    """A turn that writes ``hi`` to out.txt (an ask), then ``reply``."""
    call = {"id": "w", "name": "write_file", "arguments": {"path": "out.txt", "content": "hi\n"}}
    return [{"tool_calls": [call]}, {"text": reply}]


async def test_approval_allow_runs_the_write(tmp_path: Path) -> None:
    turns = write_out_turns("Written.")
    app = make_app(make_agent(tmp_path, turns))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write it")
        await wait_approval(pilot)
        assert app.main.status.activity is Activity.APPROVAL
        assert app.main.lane.cards["w"].call.status is CallStatus.APPROVAL
        await pilot.press("y")
        await wait_idle(pilot)
        assert (tmp_path / "out.txt").read_text(encoding="utf-8") == "hi\n"
        assert app.main.lane.cards["w"].call.status is CallStatus.OK
        assert "write_file" not in app.agent.policy.allowed  # type: ignore[attr-defined]


async def test_approval_always_remembers_the_tool(tmp_path: Path) -> None:
    turns = write_out_turns("Written.")
    app = make_app(make_agent(tmp_path, turns))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write it")
        await wait_approval(pilot)
        await pilot.press("a")
        await wait_idle(pilot)
        assert (tmp_path / "out.txt").exists()
        assert "write_file" in app.agent.policy.allowed  # type: ignore[attr-defined]


async def test_approval_deny_rejects_the_write(tmp_path: Path) -> None:
    turns = write_out_turns("Fine, I will not.")
    app = make_app(make_agent(tmp_path, turns))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write it")
        await wait_approval(pilot)
        await pilot.press("n")
        await wait_idle(pilot)
        card = app.main.lane.cards["w"]
        assert card.call.status is CallStatus.REJECTED
        assert card.has_class("-rejected")
        assert not (tmp_path / "out.txt").exists()


async def test_deny_with_feedback_reaches_the_card(tmp_path: Path) -> None:
    turns = write_out_turns("Understood.")
    app = make_app(make_agent(tmp_path, turns))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "write it")
        await wait_approval(pilot)
        await pilot.press("f", *"use notes.md", "enter")
        await wait_idle(pilot)
        call = app.main.lane.cards["w"].call
        assert call.status is CallStatus.REJECTED
        assert call.feedback == "use notes.md"
        assert "use notes.md" in call.status_line()
        assert not (tmp_path / "out.txt").exists()


async def test_escape_interrupts_a_slow_turn(tmp_path: Path) -> None:
    words = " ".join(f"word{i}" for i in range(200))
    app = make_app(make_agent(tmp_path, [{"text": words, "delay": 0.05}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "talk slowly")
        await wait_for(
            pilot,
            lambda: app.main.chat.reply is not None and "word3" in app.main.chat.reply.source,
            "the reply to start streaming",
        )
        assert app.main.status.activity is Activity.WRITING  # not "thinking" while it writes
        assert app.main.prompt.has_class("-busy")
        await pilot.press("escape")
        await wait_idle(pilot)
        assert app.main.status.activity is Activity.IDLE
        assert not app.main.prompt.has_class("-busy")
        notices = [n.text for n in app.main.chat.query(Notice)]
        assert notices[-1] == "Interrupted"
        reply = app.main.chat.query(AssistantReply).last()
        assert "word199" not in reply.source


async def test_sending_while_a_turn_runs_queues_it_and_esc_still_interrupts(
    tmp_path: Path,
) -> None:
    words = " ".join(f"w{i}" for i in range(200))
    app = make_app(make_agent(tmp_path, [{"text": words, "delay": 0.05}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await wait_for(pilot, lambda: app.main.chat.reply is not None, "streaming")
        await submit(pilot, "second")
        assert app.main.prompt.text == ""
        assert [e.text for e in app.type_ahead.entries] == ["second"]
        assert [p.text for p in app.main.chat.query(UserPrompt)] == ["first"]
        await pilot.press("escape")
        await wait_idle(pilot)
        assert [p.text for p in app.main.chat.query(UserPrompt)] == ["first"]
        assert [e.text for e in app.type_ahead.entries] == ["second"]  # kept, not sent


async def test_up_arrow_recalls_the_prompt_history(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "one"}, {"text": "two"}]))
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main.prompt
        await submit(pilot, "first prompt")
        await wait_idle(pilot)
        await submit(pilot, "second prompt")
        await wait_idle(pilot)
        assert prompt.text == ""
        prompt.insert("draft")
        await pilot.press("up")
        assert prompt.text == "second prompt"
        await pilot.press("up")
        assert prompt.text == "first prompt"
        await pilot.press("down")
        assert prompt.text == "second prompt"
        await pilot.press("down")
        assert prompt.text == "draft"


async def test_ctrl_j_inserts_a_newline(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "ok"}]))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "ctrl+j", "b")
        assert app.main.prompt.text == "a\nb"
        await pilot.press("enter")
        await wait_idle(pilot)
        assert [p.text for p in app.main.chat.query(UserPrompt)] == ["a\nb"]


async def test_initial_prompt_is_sent_on_mount(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "hello back"}]), initial_prompt="hello")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: list(app.main.chat.query(AssistantReply)), "a reply")
        await wait_idle(pilot)
        assert [p.text for p in app.main.chat.query(UserPrompt)] == ["hello"]
        await wait_drawn(pilot, app.main.chat.query(AssistantReply).last(), "hello back")


async def test_running_card_ticks_then_stops(tmp_path: Path) -> None:
    # it runs until the test says so (a file appears), not for a time: on a loaded machine a
    # "sleep 1" ended before the app showed the card running
    command = "echo started; while [ ! -e go ]; do sleep 0.05; done; echo finished"
    turns = [
        {"tool_calls": [{"id": "sh", "name": "run_shell", "arguments": {"command": command}}]},
        {"text": "ran"},
    ]
    app = make_app(make_agent(tmp_path, turns, allow=("run_shell",)))
    async with app.run_test(size=SIZE) as pilot:
        try:
            await submit(pilot, "run")
            # the call's state leads the card's drawing (the lane draws per paint): wait for
            # the card to have drawn it running, which is when it starts ticking
            await wait_for(
                pilot,
                lambda: (
                    "sh" in app.main.lane.cards
                    and "started" in app.main.lane.cards["sh"].call.tail
                    and app.main.lane.cards["sh"].has_class("-running")
                ),
                "live output on the card, drawn running",
            )
            card = app.main.lane.cards["sh"]
            assert card.call.status is CallStatus.RUNNING
            assert card._timer is not None
            assert app.main.status.activity is Activity.RUNNING
        finally:
            (tmp_path / "go").touch()  # the command ends whatever happened
        await wait_idle(pilot)
        assert card.call.status is CallStatus.OK
        assert card.call.outcome.startswith("exit 0")
        assert card._timer is None


async def test_provider_error_is_shown_in_the_chat(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, [{"error": "rate limited"}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hi")
        await wait_idle(pilot)
        block = app.main.chat.query_one(ErrorBlock)
        assert block.title == "provider error"
        assert "rate limited" in block.message


async def test_a_crashing_worker_is_reported_and_the_app_lives_on(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [{"text": "after the crash"}])
    real_run = agent.run

    async def broken(prompt: str, **_: object) -> AsyncIterator[Event]:
        yield UserMessage(text=prompt)
        raise RuntimeError("loop exploded")

    agent.run = broken  # type: ignore[method-assign]
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "boom")
        await wait_for(pilot, lambda: list(app.main.chat.query(ErrorBlock)), "the error")
        await wait_idle(pilot)
        block = app.main.chat.query_one(ErrorBlock)
        assert block.title == "internal error"
        assert "RuntimeError: loop exploded" in block.message
        agent.run = real_run  # type: ignore[method-assign]
        await submit(pilot, "again")
        await wait_idle(pilot)
        await wait_drawn(pilot, app.main.chat.query(AssistantReply).last(), "after the crash")


async def test_keyboard_walks_the_cards_and_expands_one(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha\n", encoding="utf-8")
    turns = [
        {"tool_calls": [{"id": "one", "name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"tool_calls": [{"id": "two", "name": "list_dir", "arguments": {"path": "."}}]},
        {"text": "done"},
    ]
    app = make_app(make_agent(tmp_path, turns))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_idle(pilot)
        await pilot.press("tab")
        assert app.focused is app.main.chat
        await pilot.press("tab")
        cards = app.main.lane.cards
        assert app.focused is cards["two"]
        await pilot.press("up")
        assert app.focused is cards["one"]
        await pilot.press("enter")
        assert cards["one"].has_class("-expanded")
        output = cards["one"].query_one(".output", Static)
        assert "alpha" in str(output.render())
        await pilot.press("enter")
        assert not cards["one"].has_class("-expanded")
        await pilot.press("tab")
        assert app.focused is app.main.prompt


async def test_lane_toggles_and_moves_below_the_chat_when_narrow(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=(90, 36)) as pilot:
        await pilot.pause()
        chat, lane = app.main.chat, app.main.lane
        assert app.main.has_class("-narrow")
        assert lane.region.height == 0  # folded away while it has no call
        await app.on_agent_event(AgentEvent(use("r", "read_file", path="a.txt")))
        await lane.settle()
        await wait_for(pilot, lambda: lane.region.height > 0, "the lane with a call")
        assert lane.region.y > chat.region.y
        assert lane.region.width == chat.region.width
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert lane.region.height == 0
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert lane.region.height > 0
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.main.has_class("-wide")
        assert app.main.lane.region.x > app.main.chat.region.x


async def test_clear_empties_the_views(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    turns = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "done"},
    ]
    app = make_app(make_agent(tmp_path, turns))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_idle(pilot)
        assert app.main.lane.cards
        await pilot.press("ctrl+l")
        await pilot.pause()
        assert not app.main.lane.cards
        assert not list(app.main.chat.query(UserPrompt))
        assert app.main.lane.has_class("-empty")


async def test_a_resumed_session_is_replayed(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    call = ToolCall(id="c1", name="read_file", arguments='{"path": "a.py"}')
    agent.messages = [
        Message.user("earlier question"),
        Message.assistant("Let me read it.", [call]),
        Message.tool(call, "1\tprint()"),
        Message.assistant("It prints."),
    ]
    start = SessionStart(session_id="abc123", model="script", cwd=str(tmp_path), resumed=True)
    app = make_app(agent, session=start)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        chat = app.main.chat
        assert [p.text for p in chat.query(UserPrompt)] == ["earlier question"]
        assert [r.source for r in chat.query(AssistantReply)] == ["Let me read it.", "It prints."]
        line = chat.query_one(ToolLine).build_content().plain
        assert line.startswith("● read_file a.py — ok")
        assert chat.query(Notice).last().text == "Resumed session abc123 · 4 messages"
        cards = app.main.lane.cards
        assert list(cards) == ["c1"]
        assert cards["c1"].call is app.calls.get("c1")


async def test_a_resumed_session_gets_lane_cards_per_turn_with_spill_pointers(
    tmp_path: Path,
) -> None:
    agent = make_agent(tmp_path, [])
    shell = ToolCall(id="s1", name="run_shell", arguments='{"command": "make test"}')
    read = ToolCall(id="r1", name="read_file", arguments='{"path": "a.py"}')
    path = ".agent-spill/20260105T142233Z-run_shell-s1-7f3a.txt"
    spilled = "lots of output\n" + spill_pointer(path, 120_000, 3_000, "run_shell")
    agent.messages = [
        Message.user("run the tests"),
        Message.assistant("", [shell]),
        Message.tool(shell, spilled, is_error=True),
        Message.user("now read a.py"),
        Message.assistant("", [read]),
        Message.tool(read, "1\tprint()"),
    ]
    app = make_app(agent, session=SessionStart(session_id="x", model="s", cwd=str(tmp_path)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lane = app.main.lane
        assert [b.header.prompt for b in lane.blocks] == ["run the tests", "now read a.py"]
        assert [b.folded for b in lane.blocks] == [True, False]
        shell_state = app.calls.get("s1")
        assert shell_state is not None
        assert shell_state.status is CallStatus.FAILED
        assert shell_state.spill is not None
        assert (shell_state.spill.path, shell_state.spill.chars) == (path, 120_000)
        assert shell_state.spill.lines == 3_000
        assert "r1" in lane.cards


async def test_start_warnings_are_shown(tmp_path: Path) -> None:
    start = SessionStart(
        session_id="s1", model="script", cwd=str(tmp_path), warnings=["settings.json: bad JSON"]
    )
    app = make_app(make_agent(tmp_path, []), session=start)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        notice = app.main.chat.query_one(Notice)
        assert notice.text == "settings.json: bad JSON"
        assert notice.kind == "warning"


async def test_quit_closes_the_agent(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: agent.closed, "the agent to close")
    assert app.return_code == 0
