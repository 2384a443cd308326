"""Snapshots of the elicitation form and URL prompt at 80x24, over the app (fixed requests:
the Pilot tests in ``test_elicitation`` use the real fixture server)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from agent_tui.core.agent.agent import Agent
from agent_tui.core.mcp.client.elicitation import ElicitationRequest, FormRequest, url_request
from agent_tui.core.mcp.client.elicitation_form import parse_schema
from agent_tui.core.providers.demo import DemoProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.elicit.form_screen import ElicitFormScreen
from agent_tui.ui.elicit.url_screen import ElicitUrlScreen
from tests.mcp_servers.elicit_server import SIGNUP_SCHEMA

from .helpers import QuietApp, wait_for

SnapCompare = Callable[..., bool]
SIZE = (80, 24)
SIGNUP = FormRequest("billing", "Sign up for the newsletter", parse_schema(SIGNUP_SCHEMA))
URL = url_request(
    "github", "Authorise access to your repositories", "https://github.com/login/oauth?x=1", None
)


def app(tmp_path: Path) -> QuietApp:
    agent = Agent(DemoProvider(delay=0), default_registry(), tmp_path, system="test")
    return QuietApp(agent=agent, demo=True, cwd_label="~/project")


def asking(
    request: ElicitationRequest, then: Callable[[Pilot[Any]], Awaitable[None]] | None = None
) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        the_app = pilot.app
        assert isinstance(the_app, QuietApp)
        the_app.elicit_desk.opener = lambda _url: None
        asyncio.get_running_loop().create_task(the_app.elicit_desk.ask(request))
        kind = ElicitFormScreen if isinstance(request, FormRequest) else ElicitUrlScreen
        await wait_for(
            pilot,
            lambda: isinstance(the_app.screen, kind) and the_app.screen.armed,
            "the dialog",
            timeout=30,
        )
        await pilot.pause()
        if then is not None:
            await then(pilot)
        await pilot.pause()

    return run_before


async def accept_empty(pilot: Pilot[Any]) -> None:
    await pilot.press("ctrl+s")


def test_form(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(app(tmp_path), terminal_size=SIZE, run_before=asking(SIGNUP))


def test_form_with_errors(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(app(tmp_path), terminal_size=SIZE, run_before=asking(SIGNUP, accept_empty))


def test_url(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(app(tmp_path), terminal_size=SIZE, run_before=asking(URL))
