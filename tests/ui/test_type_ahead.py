"""Type-ahead with Pilot: messages sent while a turn runs are queued under the prompt, edited,
removed, sent when the turn ends (or kept when it is interrupted), or injected at the next tool
boundary. The model is a script whose requests the test holds open (``gated``)."""

from __future__ import annotations

from pathlib import Path

from agent_tui.core.settings import Settings, UISettings
from agent_tui.ui.chat import Notice, ToolLine, UserPrompt
from agent_tui.ui.shell.queued_messages import QueuedMessages

from .gated import gated_agent
from .helpers import SIZE, make_app, submit, wait_for, wait_idle


def prompts(app: object) -> list[str]:
    from agent_tui.ui.app import AgentApp

    assert isinstance(app, AgentApp)
    return [p.text for p in app.main.chat.query(UserPrompt)]


def queued_texts(app: object) -> list[str]:
    from agent_tui.ui.app import AgentApp

    assert isinstance(app, AgentApp)
    return [e.text for e in app.type_ahead.entries]


async def test_a_message_sent_during_a_turn_is_queued_then_sent_when_it_ends(
    tmp_path: Path,
) -> None:
    agent, model = gated_agent(tmp_path, [{"text": "One."}, {"text": "Two."}], held={0})
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "first")
        await wait_for(pilot, lambda: 0 in model.waiting, "the first request to be held")
        await submit(pilot, "second")
        queued = app.main.query_one(QueuedMessages)
        await wait_for(pilot, lambda: queued.display and queued.region.height > 0, "the queue")
        assert queued_texts(app) == ["second"]
        assert app.main.prompt.text == ""  # taken, not refused
        assert prompts(app) == ["first"]
        assert "sent when the turn ends" in str(queued.render())
        assert "1. second" in str(queued.render())
        assert len(model.requests) == 1
        model.release(0)
        await wait_for(pilot, lambda: len(model.requests) == 2, "the queued message's request")
        await wait_idle(pilot)
        assert model.user_texts(1) == ["first", "second"]
        assert prompts(app) == ["first", "second"]
        assert queued_texts(app) == []
        assert not queued.display


async def test_several_queued_messages_go_one_turn_after_another(tmp_path: Path) -> None:
    agent, model = gated_agent(
        tmp_path, [{"text": "One."}, {"text": "Two."}, {"text": "Three."}], held={0}
    )
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "a")
        await wait_for(pilot, lambda: 0 in model.waiting, "the first request")
        await submit(pilot, "b")
        await submit(pilot, "c")
        assert queued_texts(app) == ["b", "c"]
        model.release(0)
        await wait_for(pilot, lambda: len(model.requests) == 3, "three requests")
        await wait_idle(pilot)
        assert model.user_texts(1) == ["a", "b"]
        assert model.user_texts(2) == ["a", "b", "c"]
        assert prompts(app) == ["a", "b", "c"]


async def test_queued_messages_are_edited_and_removed_from_the_keyboard(tmp_path: Path) -> None:
    agent, model = gated_agent(tmp_path, [{"text": "One."}, {"text": "Two."}], held={0})
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        prompt = app.main.prompt
        queued = app.main.query_one(QueuedMessages)
        await submit(pilot, "start")
        await wait_for(pilot, lambda: 0 in model.waiting, "the first request")
        for text in ("one", "two", "three"):
            await submit(pilot, text)
        assert queued_texts(app) == ["one", "two", "three"]
        await pilot.press("up")  # from the empty prompt: the newest queued message
        assert queued.has_focus
        assert queued.cursor == 2
        assert "x/Del remove" in str(queued.render())
        await pilot.press("x")
        assert queued_texts(app) == ["one", "two"]
        assert queued.cursor == 1
        await pilot.press("k")
        await pilot.press("e")
        assert queued_texts(app) == ["two"]
        assert prompt.has_focus
        assert prompt.text == "one"
        prompt.clear()
        await pilot.press("up")
        assert queued.has_focus
        await pilot.press("down")  # past the last: back to the prompt
        assert prompt.has_focus
        await pilot.press("up", "delete")
        assert queued_texts(app) == []
        await wait_for(pilot, lambda: prompt.has_focus, "the focus back on the prompt")
        assert not queued.display
        model.release(0)
        await wait_idle(pilot)
        await pilot.pause()
        assert len(model.requests) == 1  # nothing was left to send
        assert prompts(app) == ["start"]


async def test_an_interrupted_turn_keeps_the_queue_and_sends_nothing(tmp_path: Path) -> None:
    # the held request is interrupted before it takes a turn of the script
    agent, model = gated_agent(tmp_path, [{"text": "One."}, {"text": "Two."}], held={0})
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "slow")
        await wait_for(pilot, lambda: 0 in model.waiting, "the first request")
        await submit(pilot, "next one")
        await submit(pilot, "and this")
        await pilot.press("escape")
        await wait_idle(pilot)

        def kept() -> list[str]:
            return [n.text for n in app.main.chat.query(Notice) if "kept" in n.text]

        await wait_for(pilot, kept, "the notice that the queue is kept")
        assert kept()[0].startswith("2 queued messages kept (the turn interrupted)")
        assert "Enter on an empty prompt sends the next" in kept()[0]
        assert queued_texts(app) == ["next one", "and this"]
        queued = app.main.query_one(QueuedMessages)
        assert "kept" in str(queued.render())
        assert len(model.requests) == 1
        assert not app.busy
        await pilot.press("enter")  # an empty prompt: the next queued message goes
        # ... and once its turn completes, the one after it
        await wait_for(pilot, lambda: len(model.requests) == 3, "the two kept messages' turns")
        await wait_idle(pilot)
        assert model.user_texts(1) == ["slow", "next one"]
        assert model.user_texts(2) == ["slow", "next one", "and this"]
        assert queued_texts(app) == []


async def test_a_new_conversation_drops_the_queue_with_a_notice(tmp_path: Path) -> None:
    agent, model = gated_agent(tmp_path, [{"text": "never"}], held={0})
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "slow")
        await wait_for(pilot, lambda: 0 in model.waiting, "the first request")
        await submit(pilot, "queued")
        await pilot.press("escape")
        await wait_idle(pilot)
        await pilot.press("ctrl+l")
        await wait_for(
            pilot,
            lambda: any("dropped" in n.text for n in app.main.chat.query(Notice)),
            "the notice that the queue was dropped",
        )
        assert queued_texts(app) == []
        assert len(agent.inbox) == 0
        assert not app.main.query_one(QueuedMessages).display


async def test_at_the_next_tool_boundary_the_message_joins_the_running_turn(
    tmp_path: Path,
) -> None:
    (tmp_path / "notes.txt").write_text("hi\n", encoding="utf-8")
    settings = Settings(ui=UISettings(type_ahead="next_tool_boundary"))
    turns = [
        {"text": "Looking.", "tool_calls": [{"id": "ls", "name": "list_dir", "arguments": {}}]},
        {"text": "Done, and noted."},
    ]
    agent, model = gated_agent(tmp_path, turns, held={0}, settings=settings)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "look around")
        await wait_for(pilot, lambda: 0 in model.waiting, "the first request")
        await submit(pilot, "also read notes.txt")
        queued = app.main.query_one(QueuedMessages)
        assert "sent at the next tool boundary" in str(queued.render())
        assert [p.text for p in agent.inbox.pending()] == ["also read notes.txt"]
        model.release(0)
        await wait_for(pilot, lambda: len(model.requests) == 2, "the request after the tools")
        await wait_idle(pilot)
        await pilot.pause()
        sent = model.requests[1].messages
        assert [m.role for m in sent] == ["user", "assistant", "tool", "user"]
        assert sent[-1].content == "also read notes.txt"
        assert sent[-1].injected
        assert len(model.requests) == 2  # one turn: no extra turn was sent
        assert queued_texts(app) == []
        # the chat shows it where it went: after the tool line, before the reply
        chat = app.main.chat
        order = [w for w in chat.walk_children() if isinstance(w, (UserPrompt, ToolLine))]
        assert [type(w).__name__ for w in order] == ["UserPrompt", "ToolLine", "UserPrompt"]
        assert prompts(app) == ["look around", "also read notes.txt"]


async def test_at_the_boundary_a_turn_without_tools_sends_it_as_the_next_turn(
    tmp_path: Path,
) -> None:
    settings = Settings(ui=UISettings(type_ahead="next_tool_boundary"))
    agent, model = gated_agent(
        tmp_path, [{"text": "No tools."}, {"text": "Next."}], held={0}, settings=settings
    )
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "talk")
        await wait_for(pilot, lambda: 0 in model.waiting, "the first request")
        await submit(pilot, "then this")
        model.release(0)
        await wait_for(pilot, lambda: len(model.requests) == 2, "the next turn")
        await wait_idle(pilot)
        assert model.user_texts(1) == ["talk", "then this"]
        assert not any(m.injected for m in model.requests[1].messages)
        assert len(agent.inbox) == 0
        assert prompts(app) == ["talk", "then this"]
