"""The elicitation form and URL prompt, driven by the real elicit fixture server: the model
calls a tool, the server asks, the user answers in the TUI, the server gets the answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from textual.pilot import Pilot
from textual.widgets import Checkbox, Input, Select

from agent_tui.core.agent.agent import Agent
from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.ui.elicit.field_row import FieldRow
from agent_tui.ui.elicit.form_screen import ElicitFormScreen
from agent_tui.ui.elicit.url_screen import ElicitUrlScreen
from tests.core.mcp.conftest import write_config
from tests.core.mcp.test_elicitation import elicit_entry
from tests.trusting import trust_everything

from .helpers import make_agent, make_app, wait_for

TIMEOUT = 45.0
S = TypeVar("S")


def _agent(
    tmp_path: Path, tool: str, args: dict[str, Any] | None = None
) -> tuple[Agent, McpManager]:
    write_config(tmp_path / ".mcp.json", {"el": elicit_entry()})
    trust_everything(tmp_path)  # as the user would at the prompt
    agent = make_agent(
        tmp_path,
        [{"tool_calls": [{"name": f"mcp__el__{tool}", "arguments": args or {}}]}, {"text": "ok"}],
        allow=(f"mcp__el__{tool}",),
    )
    manager = McpManager(tmp_path, agent.registry, watch=False)
    agent.tool_sources.append(manager)
    return agent, manager


def _server_got(agent: Agent) -> dict[str, Any] | None:
    """What the fixture server said it received (the tool result), once it is in."""
    for message in agent.messages:
        if message.role == "tool":
            return json.loads(str(message.content))  # type: ignore[no-any-return]
    return None


async def wait_armed(pilot: Pilot[Any], kind: type[S], what: str) -> S:
    """Wait (generously: a real server starts first) for ``kind`` to open and accept keys."""
    app = pilot.app
    try:
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, kind) and bool(getattr(app.screen, "armed", False)),
            what,
            TIMEOUT,
        )
    except AssertionError:
        agent = getattr(app, "agent", None)
        seen = [str(m.content)[:200] for m in agent.messages] if agent else []
        raise AssertionError(f"{what} never opened ({type(app.screen).__name__}); {seen}") from None
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


def row(screen: ElicitFormScreen, name: str) -> FieldRow:
    return next(r for r in screen.rows if r.field.name == name)


async def test_fill_the_form_and_accept(tmp_path: Path) -> None:
    agent, manager = _agent(tmp_path, "signup")
    app = make_app(agent, initial_prompt="sign me up")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_armed(pilot, ElicitFormScreen, "the elicitation form")
        assert screen.request.server == "el"
        # the defaults are there to start with
        assert row(screen, "name").raw() == "Ada"
        assert row(screen, "age").raw() == "30"
        assert row(screen, "newsletter").raw() is True
        assert row(screen, "plan").raw() == "pro"
        # accepting without the required email says so and keeps the form open
        await pilot.press("ctrl+s")
        assert row(screen, "email").error == "required"
        assert app.screen is screen
        email = row(screen, "email").control
        assert isinstance(email, Input)
        email.focus()
        await pilot.press(*"ada@example.com")
        assert row(screen, "email").error is None  # re-checked while typing
        age = row(screen, "age").control
        assert isinstance(age, Input)
        age.value = "200"
        await pilot.press("ctrl+s")
        assert row(screen, "age").error == "at most 150"
        age.value = "41"
        newsletter = row(screen, "newsletter").control
        assert isinstance(newsletter, Checkbox)
        newsletter.value = False
        plan = row(screen, "plan").control
        assert isinstance(plan, Select)
        plan.value = "team"
        await pilot.pause()
        age.focus()
        await pilot.press("enter")  # Enter in a field accepts
        await wait_for(
            pilot, lambda: _server_got(agent) is not None, "the server's answer", TIMEOUT
        )
        assert _server_got(agent) == {
            "action": "accept",
            "content": {
                "name": "Ada",
                "email": "ada@example.com",
                "age": 41,
                "score": 9.5,
                "newsletter": False,
                "plan": "team",
                "tags": ["a"],
            },
        }
        await app.action_quit()
    await manager.aclose()


async def test_decline_the_form(tmp_path: Path) -> None:
    agent, manager = _agent(tmp_path, "signup")
    app = make_app(agent, initial_prompt="sign me up")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_armed(pilot, ElicitFormScreen, "the elicitation form")
        await pilot.press("ctrl+d")
        await wait_for(
            pilot, lambda: _server_got(agent) is not None, "the server's answer", TIMEOUT
        )
        assert _server_got(agent) == {"action": "decline", "content": None}
        await app.action_quit()
    await manager.aclose()


async def test_escape_cancels(tmp_path: Path) -> None:
    agent, manager = _agent(tmp_path, "signup")
    app = make_app(agent, initial_prompt="sign me up")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_armed(pilot, ElicitFormScreen, "the elicitation form")
        await pilot.press("escape")
        await wait_for(
            pilot, lambda: _server_got(agent) is not None, "the server's answer", TIMEOUT
        )
        assert _server_got(agent) == {"action": "cancel", "content": None}
        await app.action_quit()
    await manager.aclose()


async def test_a_url_opens_only_after_the_user_confirms(tmp_path: Path) -> None:
    agent, manager = _agent(tmp_path, "visit")
    app = make_app(agent, initial_prompt="connect")
    opened: list[str] = []
    app.elicit_desk.opener = opened.append
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await wait_armed(pilot, ElicitUrlScreen, "the URL prompt")
        assert screen.request.domain == "auth.example.com"
        await pilot.press("enter", "space", "x")  # nothing but o (or the button) opens it
        assert opened == []
        assert app.screen is screen
        await pilot.press("o")
        await wait_for(
            pilot, lambda: _server_got(agent) is not None, "the server's answer", TIMEOUT
        )
        assert opened == ["https://auth.example.com/connect?x=1"]
        assert _server_got(agent) == {"action": "accept", "content": None}
        await app.action_quit()
    await manager.aclose()


async def test_a_declined_url_is_never_opened(tmp_path: Path) -> None:
    agent, manager = _agent(tmp_path, "visit")
    app = make_app(agent, initial_prompt="connect")
    opened: list[str] = []
    app.elicit_desk.opener = opened.append
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_armed(pilot, ElicitUrlScreen, "the URL prompt")
        await pilot.press("d")
        await wait_for(
            pilot, lambda: _server_got(agent) is not None, "the server's answer", TIMEOUT
        )
        assert opened == []
        assert _server_got(agent) == {"action": "decline", "content": None}
        await app.action_quit()
    await manager.aclose()
