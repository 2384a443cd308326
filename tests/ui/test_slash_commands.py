"""Slash commands in the TUI: the completion menu, built-ins that never reach the model,
unknown commands, ``//`` escapes, custom command files, MCP prompts from a real server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.ui.app import AgentApp
from agent_tui.ui.chat import Notice, UserPrompt
from agent_tui.ui.shell.argument_dialog import ArgumentDialog
from tests.core.mcp.conftest import fixture_entry, write_config

from .helpers import SIZE, make_agent, make_app, submit, wait_for, wait_idle


@pytest.fixture(autouse=True)
def _no_real_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``~/.claude/commands`` of whoever runs the tests stays out of them."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))


def _played(app: AgentApp) -> int:
    provider = app.agent.provider
    assert isinstance(provider, ScriptProvider)
    return provider.played


def _notices(app: AgentApp) -> list[str]:
    return [n.text for n in app.main.chat.query(Notice)]


def _toasts(app: AgentApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


def _record_toasts(app: AgentApp) -> list[str]:
    """Every toast from now on, kept: a shown one expires after seconds (a loaded machine
    may take longer than that to reach the assertion)."""
    seen: list[str] = []
    shown = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        seen.append(str(message))
        shown(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    return seen


def _prompts(app: AgentApp) -> list[str]:
    return [p.text for p in app.main.chat.query(UserPrompt)]


async def test_the_menu_opens_on_slash_filters_and_tab_inserts(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        prompt, menu = app.main.prompt, app.main.prompt.menu
        prompt.focus()
        prompt.insert("/")
        await wait_for(pilot, lambda: menu.is_open, "the menu to open on /")
        assert menu.completions is not None
        assert len(menu.completions.items) >= 14
        prompt.insert("rew")
        await wait_for(
            pilot,
            lambda: menu.selected is not None and menu.selected.label == "/rewind",
            "the menu to narrow to /rewind",
        )
        await pilot.press("tab")
        await wait_for(pilot, lambda: prompt.text == "/rewind ", "Tab to insert /rewind")
        await wait_for(pilot, lambda: not menu.is_open, "the menu to close after the word")
        assert app.focused is prompt


async def test_up_down_move_and_escape_closes_without_interrupting(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        prompt, menu = app.main.prompt, app.main.prompt.menu
        prompt.focus()
        prompt.insert("/mo")
        await wait_for(pilot, lambda: menu.is_open, "the menu")
        first = menu.selected
        await pilot.press("down")
        assert menu.selected != first
        await pilot.press("up")
        assert menu.selected == first
        await pilot.press("escape")
        await wait_for(pilot, lambda: not menu.is_open, "Esc to close the menu")
        assert prompt.text == "/mo"
        prompt.insert("d")
        await wait_for(pilot, lambda: menu.is_open, "the menu to reopen as the text changes")


async def test_enter_inserts_then_enter_runs_clear_without_the_model(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "never"}]))
    async with app.run_test(size=SIZE) as pilot:
        session = app.session.session_id
        prompt = app.main.prompt
        prompt.focus()
        prompt.insert("/cle")
        await wait_for(pilot, lambda: prompt.menu.is_open, "the menu")
        await pilot.press("enter")
        await wait_for(pilot, lambda: prompt.text == "/clear ", "Enter to insert /clear")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: any(t.startswith("New conversation") for t in _notices(app)),
            "the new conversation notice",
        )
        assert app.session.session_id != session or app.agent.session is None
        assert _played(app) == 0
        assert _prompts(app) == []
        assert prompt.text == ""


async def test_an_unknown_command_is_a_notice_and_never_reaches_the_model(
    tmp_path: Path,
) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "never"}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/mdoel x")
        await wait_for(
            pilot,
            lambda: any("Unknown command /mdoel" in t for t in _toasts(app)),
            "the unknown-command notice",
        )
        assert any("did you mean /model" in t for t in _toasts(app))
        assert _played(app) == 0
        assert app.main.prompt.text == "/mdoel x"  # kept, to fix


async def test_double_slash_reaches_the_model_as_one_slash(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "ok"}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "//etc is a directory")
        await wait_idle(pilot)
        assert _prompts(app) == ["/etc is a directory"]
        assert app.agent.messages[0].content == "/etc is a directory"


async def test_help_lists_the_commands_in_the_chat(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/help")
        await wait_for(
            pilot, lambda: any(t.startswith("Commands") for t in _notices(app)), "the help"
        )
        text = next(t for t in _notices(app) if t.startswith("Commands"))
        assert "/model [spec]" in text
        assert "/quit" in text
        assert _played(app) == 0


async def test_model_and_mode_take_their_argument(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, []))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "/model demo")
        await wait_for(pilot, lambda: app.agent.provider.name == "demo", "the model switch")
        app.main.prompt.focus()
        app.main.prompt.insert("/mod")
        await wait_for(pilot, lambda: app.main.prompt.menu.is_open, "the menu")
        app.main.prompt.insert("e")
        await pilot.press("enter")  # /mode typed out: Enter runs it (the picker opens)
        await wait_for(pilot, lambda: app.main.prompt.text == "", "/mode to run")
        await pilot.press("escape")
        await submit(pilot, "/mode nonsense")
        await wait_for(
            pilot, lambda: any("No permission mode" in t for t in _toasts(app)), "the error"
        )


async def test_a_session_command_waits_for_the_turn(tmp_path: Path) -> None:
    app = make_app(make_agent(tmp_path, [{"text": "slow " * 40, "delay": 0.05}]))
    async with app.run_test(size=SIZE) as pilot:
        await submit(pilot, "go")
        await wait_for(pilot, lambda: app.busy, "the turn to start")
        app.main.prompt.load_text("")
        await submit(pilot, "/clear")
        await wait_for(
            pilot,
            lambda: any("/clear cannot run while a turn runs" in t for t in _toasts(app)),
            "the refusal",
        )
        app.main.prompt.load_text("")
        await submit(pilot, "/help")
        await wait_for(
            pilot, lambda: any(t.startswith("Commands") for t in _notices(app)), "/help anyway"
        )
        await wait_idle(pilot)


async def test_a_custom_command_reaches_the_model_with_its_argument(tmp_path: Path) -> None:
    commands = tmp_path / ".agent-tui" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a file\nargument-hint: <file>\n---\n"
        "Review $ARGUMENTS for bugs.\n",
        encoding="utf-8",
    )
    (commands / "broken.md").write_bytes(b"---\ndescription: \xff\n---\nx")
    app = make_app(make_agent(tmp_path, [{"text": "reviewed"}]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: any("broken.md is skipped: it is not UTF-8" in t for t in _notices(app)),
            "the broken file's notice",
        )
        prompt = app.main.prompt
        prompt.focus()
        prompt.insert("/rev")
        await wait_for(pilot, lambda: prompt.menu.is_open, "the menu")
        chosen = prompt.menu.selected
        assert chosen is not None
        assert (chosen.label, chosen.source, chosen.hint) == ("/review", "project", "<file>")
        prompt.load_text("")
        await submit(pilot, "/review src/app.py")
        await wait_idle(pilot)
        assert _played(app) == 1
        assert app.agent.messages[0].content == "Review src/app.py for bugs."


async def test_an_mcp_prompt_asks_for_its_missing_argument_and_reaches_the_model(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path / ".mcp.json", {"fx": fixture_entry(name="slash-ui")})
    agent = make_agent(tmp_path, [{"text": "done"}])
    manager = McpManager(tmp_path, agent.registry, paths=[config])
    agent.tool_sources.append(manager)
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        await manager.start()
        await wait_for(
            pilot,
            lambda: any(p.name == "review" for p in manager.prompts()),
            "the fixture's prompts",
            timeout=30,
        )
        prompt = app.main.prompt
        prompt.focus()
        prompt.insert("/mcp__fx__re")
        await wait_for(pilot, lambda: prompt.menu.is_open, "the menu")
        assert prompt.menu.selected is not None
        assert prompt.menu.selected.source == "mcp: fx"
        prompt.load_text("")
        await submit(pilot, "/mcp__fx__review")
        await wait_for(pilot, lambda: isinstance(app.screen, ArgumentDialog), "the dialog")
        await pilot.press(*"main.py")
        await pilot.press("enter")
        await wait_for(pilot, lambda: _played(app) == 1, "the turn", timeout=20)
        await wait_idle(pilot)
        assert app.agent.messages[0].content == "Please review main.py."
        await manager.aclose()


async def test_a_command_files_shell_line_asks_then_its_output_reaches_the_model(
    tmp_path: Path,
) -> None:
    from agent_tui.core.permissions.setup import build_pipeline

    from .helpers import wait_approval

    commands = tmp_path / ".claude" / "commands" / "ops"
    commands.mkdir(parents=True)
    (commands / "mk.md").write_text(
        "---\nargument-hint: [name]\nmodel: haiku\n---\nMade: !`touch $0 && echo made-$0`\n",
        encoding="utf-8",
    )
    agent = make_agent(tmp_path, [{"text": "one"}, {"text": "two"}])
    agent.policy = agent.executor.policy = build_pipeline(agent.cwd).pipeline
    app = make_app(agent)
    async with app.run_test(size=SIZE) as pilot:
        seen = _record_toasts(app)
        await submit(pilot, "/mk yes.txt")
        await wait_approval(pilot)
        await pilot.press("y")
        await wait_for(pilot, lambda: _played(app) == 1, "the first turn")
        await wait_idle(pilot)
        assert app.agent.messages[0].content == "Made: made-yes.txt"
        assert (tmp_path / "yes.txt").exists()
        await submit(pilot, "/ops:mk no.txt")
        await wait_approval(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: _played(app) == 2, "the second turn")
        await wait_idle(pilot)
        sent = app.agent.messages[-2].content
        assert sent.startswith("Made: [shell line `touch no.txt && echo made-no.txt` not run:")
        assert not (tmp_path / "no.txt").exists()
        toasts = "\n".join(seen)
        assert "!`touch no.txt && echo made-no.txt`: refused:" in toasts
        # each turn says, in the chat, the model it runs on and why not haiku
        said = [t for t in _notices(app) if "model: haiku is a Claude Code model" in t]
        assert len(said) == 2, _notices(app)
        assert sum("/ops:mk allows during this turn" in t for t in _notices(app)) == 2
