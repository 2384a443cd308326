"""Keys and commands around the turn: Ctrl+C twice, Shift+Tab, queued asks, the palette
(model, mode, sessions, lane), and start-up imports."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from textual.command import CommandList, CommandPalette

from agent_tui.core.conversation.session_store import SessionStore
from agent_tui.core.permissions import Approval, ApprovalRequest, Decision, Mode, Rule, Step
from agent_tui.core.permissions.setup import build_pipeline
from agent_tui.core.transcript import Message, ToolCall
from agent_tui.ui.approval.screen import ApprovalScreen
from agent_tui.ui.chat import AssistantReply, Notice, UserPrompt
from agent_tui.ui.shell import quitting
from agent_tui.ui.shell.models import model_specs
from agent_tui.ui.shell.palette import AgentCommands, entries
from agent_tui.ui.shell.session_list import sessions_of
from agent_tui.ui.shell.slash_actions import ACTIONS

from .helpers import SIZE, make_agent, make_app, submit, wait_approval, wait_for, wait_idle

SRC = Path(__file__).resolve().parents[2] / "src"


async def test_ctrl_c_interrupts_first_and_quits_on_the_second_press(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the 3 s window (and its toast) can pass while a loaded machine ends the turn: the
    # behaviour tested is the order, not the window's length
    monkeypatch.setattr(quitting, "QUIT_WINDOW", 600.0)
    words = " ".join(f"w{i}" for i in range(300))
    agent = make_agent(tmp_path, [{"text": words, "delay": 0.05}])
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "talk")
        await wait_for(pilot, lambda: app.main.chat.reply is not None, "streaming")
        await pilot.press("ctrl+c")
        await wait_idle(pilot)
        assert any("Ctrl+C again" in n.message for n in app._notifications)
        assert not agent.closed
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: agent.closed, "the app to quit")
    assert app.return_code == 0


async def test_shift_tab_cycles_the_permission_mode(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [])
    agent.policy = agent.executor.policy = build_pipeline(tmp_path).pipeline
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        seen = []
        for _ in range(4):
            await pilot.press("shift+tab")
            seen.append(app.main.status.mode)
        # the third opens the bypass confirmation; the fourth key declines it, and the cycle
        # goes on to default
        assert seen == ["accept-edits", "plan", "plan", "default"]
        await wait_for(pilot, lambda: app.screen is app.main, "the confirmation to close")
        assert app.focused is app.main.prompt  # shift+tab no longer moves the focus


def _request(agent_tools: object, call_id: str, command: str) -> ApprovalRequest:
    from agent_tui.core.tools.builtin import default_registry

    tool = default_registry().get("run_shell")
    assert tool is not None
    call = ToolCall(id=call_id, name="run_shell", arguments="{}")
    decision = Decision("ask", "asks", Step.DEFAULT, suggestions=(Rule("run_shell", "make:*"),))
    return ApprovalRequest(call, tool, tool.input_model(command=command), decision)


async def test_pending_asks_queue_and_show_one_at_a_time(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        first = asyncio.ensure_future(app.desk.ask(_request(None, "a", "make one")))
        second = asyncio.ensure_future(app.desk.ask(_request(None, "b", "make two")))
        screen = await wait_approval(pilot)
        assert screen.ask.input["command"] == "make one"
        assert screen.query_one("#dialog").border_subtitle == "1 more waiting"
        await pilot.press("y")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ApprovalScreen) and app.screen is not screen,
            "the next ask",
        )
        screen = await wait_approval(pilot)
        assert screen.ask.input["command"] == "make two"
        assert not screen.query_one("#dialog").border_subtitle
        await pilot.press("n")
        assert await first == Approval(allowed=True)
        assert await second == Approval(allowed=False)
        assert not app.desk.pending


async def test_the_palette_lists_our_commands_and_runs_them(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "an answer"}]))
    async with app.run_test(size=SIZE) as pilot:
        assert AgentCommands in app.COMMANDS
        titles = [title for title, _, _ in entries(app)]
        for title in (
            "Switch model",
            "Permission mode",
            "New conversation",
            "Clear the screen",
            "Resume a session",
            "Toggle the tool lane",
            "Open the spill browser",
            "MCP panel",
        ):
            assert title in titles
        for _, _, name in entries(app):  # every entry runs a command the app can run
            command = app.command_registry.find(name)
            assert command is not None, name
            assert command.action in ACTIONS, name
        await submit(pilot, "hello")
        await wait_idle(pilot)
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        await pilot.press(*"clear the screen")
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        options = palette.query_one(CommandList)
        await wait_for(
            pilot,
            lambda: any(
                "Clear the screen" in str(options.get_option_at_index(i).prompt)
                for i in range(options.option_count)
            ),
            "the entry to be found",
        )
        await pilot.press("enter")
        await wait_for(pilot, lambda: not list(app.main.chat.query(UserPrompt)), "a clear screen")
        assert [m.role for m in app.agent.messages] == ["user", "assistant"]  # context kept


async def test_the_palette_opens_on_our_commands_then_textuals(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    # one provider: two (Textual's beside ours) list in the order their tasks answer, which
    # put Keys, Maximize and Screenshot first on a loaded machine
    assert list(app.COMMANDS) == [AgentCommands]
    async with app.run_test(size=SIZE) as pilot:
        ours = [title for title, _, _ in entries(app)]
        await pilot.press("ctrl+p")
        await wait_for(pilot, lambda: isinstance(app.screen, CommandPalette), "the palette")
        options = app.screen.query_one(CommandList)

        def shown() -> list[str]:
            prompts = (options.get_option_at_index(i).prompt for i in range(options.option_count))
            return [str(p).split("\n")[0] for p in prompts]

        await wait_for(pilot, lambda: "Screenshot" in shown(), "Textual's entries")
        listed = shown()
        assert listed[: len(ours)] == ours
        assert set(listed[len(ours) :]) >= {"Keys", "Quit", "Screenshot", "Theme"}
        await pilot.press(*"screensh")  # a search finds Textual's too
        await wait_for(pilot, lambda: shown()[:1] == ["Screenshot"], "the search")


async def test_switch_model_and_mode_between_turns(tmp_path: Path) -> None:
    agent = make_agent(tmp_path, [{"text": "from the script"}])
    agent.policy = agent.executor.policy = build_pipeline(tmp_path).pipeline
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        assert await app.switch_model("demo")
        assert agent.provider.kind == "demo"
        assert app.main.status.model == "demo"
        assert app.main.status.demo
        assert not await app.switch_model("nonsense:x")
        app.set_mode(Mode.PLAN)
        assert agent.policy.mode is Mode.PLAN
        assert app.main.status.mode == "plan"
        await submit(pilot, "help")
        await wait_idle(pilot)
        assert "offline demo model" in app.main.chat.query(AssistantReply).last().source


def test_model_specs_follow_the_environment() -> None:
    assert model_specs("demo", {}) == ["demo"]
    env = {"AGENT_API_KEY": "k", "AGENT_MODEL": "qwen", "ANTHROPIC_API_KEY": "a"}
    specs = model_specs("script:x.json", env)
    assert specs[0] == "demo"
    assert "openai:qwen" in specs
    assert any(s.startswith("anthropic:") for s in specs)
    assert specs[-1] == "script:x.json"


async def test_new_session_and_resume_a_saved_one(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "sessions")
    old = store.new(tmp_path, "demo")
    old.append(Message.user("the earlier question"))
    old.append(Message.assistant("the earlier answer"))
    old.release()  # the run that wrote it has ended (a session in use is resumed in a fork)
    other_dir = tmp_path / "elsewhere"
    other_dir.mkdir()
    store.new(other_dir, "demo").append(Message.user("not here"))
    agent = make_agent(tmp_path, [{"text": "fresh"}])
    agent.sessions = store
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "hello")
        await wait_idle(pilot)
        assert await app.new_session()
        assert agent.messages == []
        assert agent.session is not None
        assert agent.session.id != old.id
        assert not list(app.main.chat.query(UserPrompt))
        found = sessions_of(store, tmp_path)
        assert [s.title for s in found if s.id == old.id] == ["the earlier question"]
        assert all(s.title != "not here" for s in found)
        assert await app.resume(old.path)
        assert [m.content for m in agent.messages] == ["the earlier question", "the earlier answer"]
        assert [p.text for p in app.main.chat.query(UserPrompt)] == ["the earlier question"]
        assert app.main.chat.query(Notice).last().text.startswith(f"Resumed session {old.id}")
        await pilot.pause()


def test_starting_the_ui_imports_no_provider_sdk_mcp_markdown_or_other_screen() -> None:
    code = (
        "import sys, agent_tui.ui.app\n"
        "bad = [m for m in ('httpx', 'httpx2', 'mcp', 'anthropic', 'openai',"
        " 'agent_tui.ui.approval.screen', 'agent_tui.ui.shell.session_list', 'markdown_it',"
        " 'agent_tui.core.providers.openai', 'agent_tui.core.providers.anthropic')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(SRC), "PATH": "/usr/bin:/bin"},
    )
    assert result.stdout.strip() == ""


async def test_ctrl_l_starts_a_new_conversation_the_model_sees_nothing_of_the_old(
    tmp_path: Path,
) -> None:
    store = SessionStore(tmp_path / "sessions")
    agent = make_agent(tmp_path, [{"text": "first answer"}, {"text": "second answer"}])
    agent.sessions = store
    agent.session = store.new(tmp_path, "script")
    first_session = agent.session.id
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "remember 42")
        await wait_idle(pilot)
        app.main.chat.focus()  # focus elsewhere: the key still works
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: agent.messages == [], "an empty transcript")
        assert agent.session is not None
        assert agent.session.id != first_session
        assert (app.input_tokens, app.output_tokens) == (0, 0)
        assert app.main.status.input_tokens == 0
        notice = app.main.chat.query(Notice).last().text
        assert notice.startswith("New conversation")
        await submit(pilot, "what did I say?")
        await wait_idle(pilot)
        assert [m.content for m in agent.messages if m.role == "user"] == ["what did I say?"]
        old = store.find(first_session)  # the old conversation is still saved, as it was
        assert old is not None
        assert [m.content for m in old.messages if m.role == "user"] == ["remember 42"]
