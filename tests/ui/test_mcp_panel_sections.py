"""The MCP panel's Resources, Prompts and Server log sections against real servers: the
reference ``everything`` server (resources and templates, prompts, logging/setLevel) and the SDK
fixture server in ``logs`` mode (a text and a binary resource, log messages on demand, no
logging capability). A preview is read through the core in a worker; Enter and m put mentions
and commands into the prompt; l sets the next level on the server; an error logged by a server
shows once as a notice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import TabbedContent

from agent_tui.core.tools.base import ToolContext
from agent_tui.ui.mcp.panel import McpPanel
from agent_tui.ui.mcp.prompt_list import PromptList
from agent_tui.ui.mcp.resource_dialog import ResourceDialog
from agent_tui.ui.mcp.resource_list import ResourceList
from agent_tui.ui.mcp.section_list import SectionList
from agent_tui.ui.mcp.server_log_view import ServerLogView
from tests.core.mcp.conftest import fixture_entry, npm_bin, write_config

from .helpers import wait_for as wait_briefly
from .test_mcp_panel import CONNECT, open_panel, panel_app, running, servers

__all__ = ["npm_bin"]  # the fixture, used by name below


async def wait_for(
    pilot: Pilot[Any], condition: Callable[[], object], what: str, timeout: float = CONNECT
) -> None:
    """``helpers.wait_for`` with a deadline for a loaded machine (servers answer here)."""
    await wait_briefly(pilot, condition, what, timeout)


def lines(section: SectionList) -> list[str]:
    rows = section.options
    return [
        " ".join(str(rows.get_option_at_index(i).prompt).split()) for i in range(rows.option_count)
    ]


def heading(section: SectionList) -> str:
    from textual.widgets import Static

    return str(section.query_one(".section-heading", Static).render())


async def highlight(pilot: Pilot[Any], section: SectionList, index: int) -> None:
    section.options.highlighted = index
    await pilot.pause()


def notices(pilot: Pilot[Any], text: str) -> list[str]:
    return [n.message for n in pilot.app._notifications if text in n.message]


async def test_everything_resources_prompts_and_log_level(tmp_path: Path, npm_bin: Path) -> None:
    write_config(
        tmp_path / ".mcp.json", {"everything": {"command": str(npm_bin / "mcp-server-everything")}}
    )
    app, manager = panel_app(tmp_path)
    async with running(app, manager) as pilot:
        panel = await open_panel(pilot)
        await wait_for(
            pilot,
            lambda: servers(panel).get("everything", "").endswith("tools"),
            "everything to connect",
            CONNECT,
        )
        state = manager.state("everything")
        assert state.resources
        assert state.can_log
        # Resources: every resource and template listed, with its URI
        await pilot.press("2")
        resources = panel.query_one(ResourceList)
        await wait_for(pilot, lambda: len(lines(resources)) == len(state.resources), "resources")
        shown = lines(resources)
        for item, line in zip(state.resources, shown, strict=True):
            assert item.uri in line
            assert line.startswith("template ") == item.template
        assert any(i.template for i in state.resources)
        text = next(
            i
            for i, r in enumerate(state.resources)
            if not r.template and (r.mime_type or "").startswith("text")
        )
        item = state.resources[text]
        await pilot.press("tab")
        assert resources.options.has_focus
        await highlight(pilot, resources, text)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ResourceDialog), "the preview")
        dialog = app.screen
        assert isinstance(dialog, ResourceDialog)
        await wait_for(
            pilot, lambda: dialog.preview is not None or dialog.error, "the read", CONNECT
        )
        assert dialog.error is None
        assert dialog.preview is not None
        read = await manager.hub.side("everything").read(item.uri)
        assert [p.text for p in dialog.preview.parts] == [c.text for c in read.contents]
        assert dialog.preview.parts[0].text
        # the read subscribed to it (the server supports subscriptions): the list says so
        if manager.state("everything").resources[text].subscribed:
            await wait_for(pilot, lambda: "subscribed" in lines(resources)[text], "subscribed")
        # m: the mention goes into the prompt, the panel closes
        await pilot.press("m")
        await wait_for(
            pilot, lambda: not isinstance(app.screen, (McpPanel, ResourceDialog)), "closed"
        )
        assert app.main.prompt.text.strip() == f"@everything:{item.uri}"
        app.main.prompt.load_text("")

        # Prompts: each as its slash command, required arguments in <>, optional in []
        panel = await open_panel(pilot)
        await pilot.press("3")
        prompt_list = panel.query_one(PromptList)
        prompts = manager.prompts()
        assert prompts
        await wait_for(pilot, lambda: len(lines(prompt_list)) == len(prompts), "prompts")
        for prompt, line in zip(prompts, lines(prompt_list), strict=True):
            assert line.startswith(f"/{prompt.command}")
            for argument in prompt.arguments:
                assert (f"<{argument.name}>" if argument.required else f"[{argument.name}]") in line
        with_args = next(i for i, p in enumerate(prompts) if p.arguments)
        await pilot.press("tab")
        await highlight(pilot, prompt_list, with_args)
        detail = str(prompt_list.query_one(".section-detail").render())
        assert "required" in detail
        assert prompts[with_args].arguments[0].name in detail
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, McpPanel), "closed")
        assert app.main.prompt.text == f"/{prompts[with_args].command} "
        app.main.prompt.load_text("")

        # Server log: l sets the next level on the server (debug, then info), shown
        panel = await open_panel(pilot)
        await pilot.press("4")
        log_view = panel.query_one(ServerLogView)
        assert "the server's default" in heading(log_view)
        await pilot.press("l")
        await wait_for(pilot, lambda: manager.state("everything").log_level == "debug", "debug")
        await wait_for(pilot, lambda: "level debug" in heading(log_view), "debug shown")
        await pilot.press("l")
        await wait_for(pilot, lambda: manager.state("everything").log_level == "info", "info")
        await wait_for(pilot, lambda: "level info" in heading(log_view), "info shown")
        # live: simulated logging sends a message at once, then one every 5 s
        ctx = ToolContext(cwd=tmp_path, call_id="t")
        await manager.call("everything", "toggle-simulated-logging", {}, ctx)

        def simulated() -> bool:
            return any("level" in e.text for e in manager.state("everything").log)

        await wait_for(pilot, simulated, "a simulated log message", CONNECT)
        log = manager.state("everything").log
        await wait_for(pilot, lambda: len(lines(log_view)) >= len(log), "it shown", CONNECT)
        shown = lines(log_view)
        for entry, line in zip(log, shown, strict=False):
            assert entry.level in line
            assert entry.text in line
        assert log_view.options.highlighted == len(lines(log_view)) - 1  # newest, followed
        await manager.call("everything", "toggle-simulated-logging", {}, ctx)


async def test_fixture_resources_log_and_error_notice(tmp_path: Path) -> None:
    write_config(tmp_path / ".mcp.json", {"fix": fixture_entry("logs", name="fix-logs")})
    app, manager = panel_app(tmp_path)
    async with running(app, manager) as pilot:
        await wait_for(
            pilot, lambda: manager.state("fix").status == "connected", "the fixture", CONNECT
        )
        ctx = ToolContext(cwd=tmp_path, call_id="t")
        # an error logged by the server: one notice, with the data; an info one: none
        await manager.call("fix", "say", {"level": "info", "data": "all is well"}, ctx)
        await manager.call(
            "fix", "say", {"level": "error", "data": {"error": "disk full"}, "logger": "db"}, ctx
        )
        await wait_for(pilot, lambda: notices(pilot, "disk full"), "the error notice", CONNECT)
        await pilot.pause()
        assert len(notices(pilot, "disk full")) == 1
        assert notices(pilot, "disk full")[0].startswith("error from db:")
        assert not notices(pilot, "all is well")

        panel = await open_panel(pilot)
        await pilot.press("4")
        log_view = panel.query_one(ServerLogView)
        await wait_for(pilot, lambda: len(lines(log_view)) == 2, "two log lines")
        assert "all is well" in lines(log_view)[0]
        assert "error" in lines(log_view)[1]
        assert "db" in lines(log_view)[1]
        assert "did not declare logging" in heading(log_view)
        detail = str(log_view.query_one(".section-detail").render())
        assert '"error": "disk full"' in detail
        # l: no level to set, and why
        await pilot.press("l")
        await wait_for(pilot, lambda: notices(pilot, "did not declare logging"), "why not")
        assert manager.state("fix").log_level is None
        # live: a new message appears at the bottom while the panel is open
        await manager.call("fix", "say", {"level": "warning", "data": "slow disk"}, ctx)
        await wait_for(pilot, lambda: len(lines(log_view)) == 3, "the third line")
        assert "slow disk" in lines(log_view)[-1]
        assert log_view.options.highlighted == 2

        # Resources: the text one previews its text, the binary one says its type and size
        await pilot.press("2")
        resources = panel.query_one(ResourceList)
        await wait_for(pilot, lambda: len(lines(resources)) == 2, "two resources")
        uris = [r.uri for r in manager.state("fix").resources]
        assert panel.query_one("#servers").has_focus
        await pilot.press("enter")  # Enter on the server: into the section shown, not Tools
        assert resources.options.has_focus
        assert panel.section == "resources"
        await highlight(pilot, resources, uris.index("fixture://logo.png"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ResourceDialog), "the preview")
        dialog = app.screen
        assert isinstance(dialog, ResourceDialog)
        await wait_for(
            pilot, lambda: dialog.preview is not None or dialog.error, "the read", CONNECT
        )
        assert dialog.preview is not None
        (part,) = dialog.preview.parts
        assert part.binary
        assert part.mime_type == "image/png"
        assert part.size == 70
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, McpPanel), "back in the panel")
        await highlight(pilot, resources, uris.index("fixture://note"))
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ResourceDialog), "the preview")
        dialog = app.screen
        assert isinstance(dialog, ResourceDialog)
        await wait_for(
            pilot, lambda: dialog.preview is not None or dialog.error, "the read", CONNECT
        )
        assert dialog.preview is not None
        assert dialog.preview.parts[0].text == "a note from the fixture\nsecond line"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, McpPanel), "back in the panel")
        # resources/list_changed: the list follows, the highlight stays on the same resource
        await manager.call("fix", "add_resource", {"resource_name": "fresh"}, ctx)
        await wait_for(pilot, lambda: len(lines(resources)) == 3, "the added resource")
        assert any("fixture://fresh" in line for line in lines(resources))
        assert resources.selected is not None
        assert resources.selected.uri == "fixture://note"
        assert "Resources 3" in str(panel.query_one(TabbedContent).get_tab("tab-resources").label)
        # m with text in the prompt: the mention goes at the cursor, after a space
        prompt = app.main.prompt
        prompt.load_text("line one\nsee")
        prompt.move_cursor(prompt.document.end)
        await pilot.press("m")
        await wait_for(pilot, lambda: not isinstance(app.screen, McpPanel), "closed")
        assert prompt.text == "line one\nsee @fix:fixture://note "
