"""Helpers for the UI tests: agents over script files, apps without blinking, deadline waits."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

from textual import events
from textual.pilot import Pilot

from agent_tui.core.agent.agent import Agent
from agent_tui.core.events import Event, ToolUse
from agent_tui.core.permissions import SimplePolicy
from agent_tui.core.providers.script import ScriptProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.app import AgentApp
from agent_tui.ui.approval.screen import ApprovalScreen
from agent_tui.ui.chat.assistant_reply import AssistantReply
from agent_tui.ui.shell.events_bridge import AgentEvent
from agent_tui.ui.spills.browser import SpillBrowser

from .shared_css import share_parses

S = TypeVar("S")
SIZE = (120, 36)
DEADLINE = 60.0
"""How long a UI test waits for a condition: generous, so a loaded machine (two busy loops
beside two test workers) only slows the test; a condition that never comes still fails."""


class QuietApp(AgentApp):
    """The app as shipped, with cursors that do not blink (stable screenshots)."""

    CURSOR_BLINK = False
    SHOW_SANDBOX = False  # whether bubblewrap works differs between machines

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        share_parses(self.stylesheet)  # the CSS parses of the worker's earlier apps


def make_agent(cwd: Path, turns: list[dict[str, Any]], *, allow: tuple[str, ...] = ()) -> Agent:
    """An agent replaying ``turns`` (the script format) with the built-in tools in ``cwd``."""
    script = cwd / "script.json"
    script.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return Agent(
        ScriptProvider(script),
        default_registry(),
        cwd,
        policy=SimplePolicy(allow),
        system="test",
    )


def make_app(agent: Agent, **kwargs: Any) -> QuietApp:
    kwargs.setdefault("cwd_label", "~/project")
    return QuietApp(agent=agent, **kwargs)


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], object], what: str, timeout: float = DEADLINE
) -> None:
    """Let the app run until ``condition()`` holds; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        await pilot.pause()


async def wait_idle(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, AgentApp)
    await wait_for(pilot, lambda: not app.busy, "the turn to end")


async def wait_drawn(pilot: Pilot[Any], reply: AssistantReply, text: str) -> None:
    """``reply`` holds all of ``text`` (the turn's end wrote it); wait for the frame that draws
    it (``source`` follows ``text`` at the next paint, which a loaded machine may delay past
    the turn's end)."""
    assert reply.text == text
    await wait_for(pilot, lambda: reply.source == text, "the reply's last write drawn")


async def open_mcp_panel(pilot: Pilot[Any], manager: Any, servers: int) -> Any:
    """Wait for ``servers`` servers of ``manager`` to connect, open the MCP panel (Ctrl+G)
    and return it."""
    from agent_tui.ui.mcp.panel import McpPanel

    app = pilot.app
    connected = ["connected"] * servers
    await wait_for(
        pilot, lambda: [s.status for s in manager.states()] == connected, f"{servers} connected"
    )
    await pilot.press("ctrl+g")
    await wait_for(pilot, lambda: isinstance(app.screen, McpPanel), "the MCP panel")
    return app.screen


async def wait_armed(pilot: Pilot[Any], kind: type[S], what: str) -> S:
    """Wait for a dialog screen of ``kind`` to open and accept keys (``armed``)."""
    app = pilot.app
    await wait_for(pilot, lambda: isinstance(app.screen, kind) and bool(app.screen.armed), what)
    screen = app.screen
    assert isinstance(screen, kind)
    return screen


async def wait_approval(pilot: Pilot[Any]) -> ApprovalScreen:
    """Wait for the permission prompt to open and accept keys."""
    return await wait_armed(pilot, ApprovalScreen, "the permission prompt")


async def submit(pilot: Pilot[Any], text: str) -> None:
    """Type ``text`` into the prompt box and press Enter."""
    app = pilot.app
    assert isinstance(app, AgentApp)
    app.main.prompt.focus()
    app.main.prompt.insert(text)
    await pilot.press("enter")


async def feed(app: AgentApp, events: list[Event], *, settle: bool = True) -> None:
    """Route ``events`` through the app as the agent worker would, in order, and (``settle``)
    let the lane apply them now (it does a moment later by itself)."""
    for event in events:
        await app.on_agent_event(AgentEvent(event))
    if settle:
        await app.main.lane.settle()


def use(call_id: str, name: str, **input: Any) -> ToolUse:
    return ToolUse(id=call_id, name=name, input=input, raw_arguments="")


async def open_browser(pilot: Pilot[Any], path: str = "") -> SpillBrowser:
    """Open the spill browser as ``o`` on a card (``path``) or Ctrl+O (no path) does."""
    app = pilot.app
    assert isinstance(app, AgentApp)
    app.action_open_spill(path)
    await wait_for(pilot, lambda: isinstance(app.screen, SpillBrowser), "the spill browser")
    await pilot.pause()
    assert isinstance(app.screen, SpillBrowser)
    return app.screen


async def burst(pilot: Pilot[Any], *keys: str) -> None:
    """Keys arriving together, as a fast typist or a paste sends them (``pilot.press`` waits
    for the app between keys)."""
    driver = pilot.app._driver
    assert driver is not None
    for key in keys:
        char = {"slash": "/", "enter": "\r", "escape": "\x1b", "space": " "}.get(key, key)
        event = events.Key("space" if key == " " else key, char)
        event.set_sender(pilot.app)
        driver.send_message(event)
    await pilot.pause(0.2)


def fence_codes(replies: Iterable[AssistantReply]) -> list[str]:
    """The code of every fence and indented block the replies were drawn from, as the Markdown
    parser reads them (each part parsed on its own, as it is drawn)."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt().enable("strikethrough").enable("table")  # as Rich parses
    return [
        token.content.rstrip("\n")
        for reply in replies
        for token in parser.parse(reply.source)
        if token.type in ("fence", "code_block")
    ]


def table_count(replies: Iterable[AssistantReply]) -> int:
    from markdown_it import MarkdownIt

    parser = MarkdownIt().enable("strikethrough").enable("table")  # as Rich parses
    return sum(
        token.type == "table_open" for reply in replies for token in parser.parse(reply.source)
    )


def drawn(reply: AssistantReply) -> str:
    """What the reply shows on screen, line by line without trailing blanks."""
    plain = reply.lines(reply.content_region.width).plain
    return "\n".join(line.rstrip() for line in plain.split("\n"))
