"""Snapshots of the MCP panel: normal, empty and error states, the schema dialog, and the light
theme. The panel is fed fixed data (connect times and pids of real servers vary; the Pilot tests
in ``test_mcp_panel`` use real servers)."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from agent_tui.core.agent.agent import Agent
from agent_tui.core.commands.mcp_prompts import McpPrompt, PromptArgument
from agent_tui.core.disclosure.marks import Mark, cost_line
from agent_tui.core.mcp.client.adapter import ToolInfo
from agent_tui.core.mcp.client.overview import McpOverview, ServerRow, ToolRow
from agent_tui.core.mcp.client.resource_preview import PreviewPart, ResourcePreview
from agent_tui.core.mcp.client.resources import ResourceInfo
from agent_tui.core.mcp.client.server_log import LogEntry
from agent_tui.core.mcp.client.state import ServerState
from agent_tui.core.mcp.config.spec import ConfigProblem
from agent_tui.core.permissions import Decision, Rule, Step
from agent_tui.core.providers.demo import DemoProvider
from agent_tui.core.tools.builtin import default_registry
from agent_tui.ui.mcp.panel import McpPanel
from agent_tui.ui.mcp.resource_dialog import ResourceDialog
from agent_tui.ui.mcp.schema_dialog import SchemaDialog

from .helpers import QuietApp, wait_for

SnapCompare = Callable[..., bool]
SIZE = (140, 40)
HOME = Path("/home/dev")
PROJECT = HOME / "project" / ".mcp.json"
USER = HOME / ".config" / "agent-tui" / "mcp.json"
FILES = (USER, PROJECT)
DEFERRED = Mark(
    "deferred",
    "not in the tools array (41 tools > auto:10); the model finds it with search_tool and "
    "calls it through run_tool",
)
UNMASKED = Mark(
    "unmasked", "deferred, found with search_tool this session: the model calls it through run_tool"
)
PROMOTED = Mark("promoted", "promoted by disclosure.promote (mcp__everything__echo): direct")
RULE = Rule.parse("mcp__everything__get-env", source=".agent-tui/settings.json")


def read_only(name: str) -> Decision:
    return Decision("allow", f"{name} is read-only", Step.READ_ONLY)


def asks(name: str) -> Decision:
    why = f"{name} is not marked read-only by its MCP server, so it may change things"
    return Decision("ask", why, Step.DEFAULT)


def tool(
    server: str, remote: str, description: str, mark: Mark, *, ro: bool, rule: Decision | None
) -> ToolRow:
    name = f"mcp__{server}__{remote}"
    info = ToolInfo(name, server, remote, description, ro, not ro)
    schema = {
        "type": "object",
        "properties": {
            "message": {"type": "string", "description": "Message to echo"},
            "count": {"type": "integer", "minimum": 1, "default": 1},
        },
        "required": ["message"],
    }
    permission = rule or (read_only(name) if ro else asks(name))
    return ToolRow(info, mark, permission, schema)


EVERYTHING_TOOLS = (
    tool("everything", "echo", "Echoes back the input string.", PROMOTED, ro=True, rule=None),
    tool("everything", "get-sum", "Returns the sum of two numbers.", UNMASKED, ro=True, rule=None),
    tool(
        "everything",
        "get-env",
        "Returns all environment variables, helpful for debugging MCP server configuration.",
        DEFERRED,
        ro=False,
        rule=Decision(
            "deny", f"denied by the rule {RULE} (from {RULE.source})", Step.DENY_RULE, RULE
        ),
    ),
    tool(
        "everything",
        "get-tiny-image",
        "Returns a tiny MCP logo image.",
        DEFERRED,
        ro=True,
        rule=None,
    ),
    tool(
        "everything",
        "toggle-simulated-logging",
        "Toggles simulated, random-leveled logging on or off.",
        DEFERRED,
        ro=False,
        rule=None,
    ),
    tool(
        "everything",
        "trigger-long-running-operation",
        "Demonstrates a long running operation with progress updates.",
        DEFERRED,
        ro=True,
        rule=None,
    ),
)


def state(name: str, status: str, **fields: Any) -> ServerState:
    fields.setdefault("transport", "stdio")
    fields.setdefault("target", f"npx -y @acme/{name}-mcp")
    fields.setdefault("source", str(PROJECT))
    return ServerState(name=name, status=status, **fields)


NORMAL = McpOverview(
    servers=(
        ServerRow(
            state(
                "everything",
                "connected",
                target="npx -y @modelcontextprotocol/server-everything",
                protocol_version="2025-06-18",
                server_info="mcp-servers/everything 2.0.0",
                connect_seconds=0.84,
                tools=tuple(t.info for t in EVERYTHING_TOOLS),
                stderr_tail=("Starting default (STDIO) server...",),
            ),
            EVERYTHING_TOOLS,
        ),
        ServerRow(
            state(
                "github",
                "failed",
                transport="http",
                target="https://api.githubcopilot.com/mcp/",
                reason="HTTP 401 Unauthorized from https://api.githubcopilot.com/mcp/: check the "
                "Authorization header (headers in .mcp.json, e.g. Bearer ${GITHUB_TOKEN})",
                source=str(USER),
            )
        ),
        ServerRow(
            state(
                "notes",
                "disabled",
                reason="turned off for this project (remembered in .agent-tui/settings.local.json)",
                disabled_by="project",
            )
        ),
        ServerRow(state("slow", "connecting")),
    ),
    files=FILES,
    cost={},
    cost_line=cost_line(
        {"total_tokens": 2_310, "without_disclosure_tokens": 10_480, "deferred_count": 4},
        unmasked=1,
    ),
    project_file=PROJECT,
)

BROKEN = ConfigProblem(
    PROJECT,
    "invalid entry:\n- $.timeout: Input should be a valid number, unable to parse string as a "
    "number (got 'soon')",
    "api",
)
USER_FILE = ConfigProblem(
    USER,
    "is not valid JSON: Expecting ',' delimiter at line 4 column 5; no server of this file is "
    "loaded",
    unread=True,
)
ERRORS = McpOverview(
    servers=(
        ServerRow(state("api", "failed", reason=BROKEN.message), problems=(BROKEN,)),
        ServerRow(
            state(
                "crashy",
                "failed",
                target="python -m crashy_server --port 0",
                reason="the server exited during start-up",
                stderr_tail=(
                    "Traceback (most recent call last):",
                    '  File "/opt/crashy/server.py", line 12, in <module>',
                    "    import yaml",
                    "ModuleNotFoundError: No module named 'yaml'",
                ),
            )
        ),
        ServerRow(
            state(
                "team-off",
                "disabled",
                reason=f'turned off in {PROJECT} ("disabled": true)',
                disabled_by="file",
                disabled_in_file=True,
            )
        ),
    ),
    problems=(BROKEN, USER_FILE),
    files=FILES,
    cost_line="tools array ~1.1k tokens per request; every tool is direct",
    project_file=PROJECT,
)
EMPTY = McpOverview(files=FILES, cost_line="", project_file=PROJECT)


def at(hour: int, minute: int, second: int) -> float:
    """A time that shows as ``hour:minute:second`` in any time zone."""
    return time.mktime((2026, 12, 2, hour, minute, second, 0, 0, -1))


DOC = "demo://resource/static/document/architecture.md"
RESOURCES = (
    ResourceInfo(
        "everything",
        DOC,
        "architecture.md",
        description="Static document file exposed as a resource",
        mime_type="text/markdown",
        size=1_843,
        subscribed=True,
        updated=at(14, 2, 51),
    ),
    ResourceInfo(
        "everything",
        "demo://resource/static/document/features.md",
        "features.md",
        mime_type="text/markdown",
    ),
    ResourceInfo(
        "everything", "demo://resource/static/blob/logo.png", "logo.png", mime_type="image/png"
    ),
    ResourceInfo(
        "everything",
        "demo://resource/dynamic/text/{resourceId}",
        "Dynamic Text Resource",
        description="Plaintext dynamic resource fabricated from the {resourceId} variable",
        mime_type="text/plain",
        template=True,
    ),
)
PREVIEW_TEXT = {
    DOC: "# Everything Server – Architecture\n\nThis document summarizes the current layout "
    "and runtime architecture of the src/everything folder.\n\n## Layout\n\n- index.ts: "
    "the entry point\n- server/: the server factory"
}
PROMPTS = (
    McpPrompt(
        "everything",
        "args-prompt",
        "A prompt with two arguments, one required and one optional",
        (
            PromptArgument("city", "Name of the city", required=True),
            PromptArgument("state", "Name of the state"),
        ),
    ),
    McpPrompt(
        "everything",
        "resource-prompt",
        "A prompt that includes an embedded resource",
        (
            PromptArgument("resourceType", "Type of resource to fetch", required=True),
            PromptArgument("resourceId", "ID of the resource", required=True),
        ),
    ),
    McpPrompt("everything", "simple-prompt", "A prompt with no arguments"),
)
LOG = (
    LogEntry("everything", "debug", None, "Debug-level message", at(14, 2, 40)),
    LogEntry("everything", "info", "everything", "Info-level message", at(14, 2, 45)),
    LogEntry("everything", "warning", "cache", {"evicted": 12, "kept": 300}, at(14, 2, 50)),
    LogEntry(
        "everything", "error", "db", {"error": "connection refused", "retry_in": 5}, at(14, 2, 55)
    ),
    LogEntry("everything", "critical", None, "Critical-level message", at(14, 3, 0)),
)
EVERYTHING = NORMAL.servers[0]
RICH = replace(
    NORMAL,
    servers=(
        replace(
            EVERYTHING,
            state=replace(
                EVERYTHING.state, resources=RESOURCES, log=LOG, log_level="debug", can_log=True
            ),
            prompts=PROMPTS,
        ),
        *NORMAL.servers[1:],
    ),
)


class FixedSource:
    """A panel source with fixed data: nothing changes, actions only answer."""

    def __init__(self, overview: McpOverview) -> None:
        self.fixed = overview

    def overview(self) -> McpOverview:
        return self.fixed

    def subscribe(self, callback: Callable[[], None]) -> Callable[[], None]:
        return lambda: None

    async def reconnect(self, name: str) -> str:
        return f"reconnecting {name}"

    async def toggle(self, name: str) -> str:
        return f"{name} toggled"

    async def reload(self) -> None:
        return None

    async def read_resource(self, server: str, uri: str) -> ResourcePreview:
        text = PREVIEW_TEXT.get(uri)
        if text is None:
            return ResourcePreview(server, uri, (PreviewPart(uri, "image/png", None, 2_048),))
        return ResourcePreview(server, uri, (PreviewPart(uri, "text/plain", text, len(text)),))

    async def cycle_level(self, server: str) -> str:
        return f"{server}: log level set to info"


def panel_app(tmp_path: Path) -> QuietApp:
    agent = Agent(DemoProvider(delay=0), default_registry(), tmp_path, system="test")
    return QuietApp(agent=agent, demo=True, cwd_label="~/project")


def showing(
    overview: McpOverview,
    then: Callable[[Pilot[Any]], Awaitable[None]] | None = None,
    theme: str | None = None,
) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        if theme is not None:
            app.theme = theme
        await app.push_screen(McpPanel(FixedSource(overview)))
        await wait_for(pilot, lambda: isinstance(app.screen, McpPanel), "the panel")
        await pilot.pause()
        if then is not None:
            await then(pilot)
        await pilot.pause()

    return run_before


async def to_tools(pilot: Pilot[Any]) -> None:
    await pilot.press("tab", "down")


def test_normal(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        panel_app(tmp_path), terminal_size=SIZE, run_before=showing(NORMAL, to_tools)
    )


def test_normal_light_theme(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        panel_app(tmp_path),
        terminal_size=SIZE,
        run_before=showing(NORMAL, to_tools, theme="agent-light"),
    )


def test_errors(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def crashy(pilot: Pilot[Any]) -> None:
        await pilot.press("down")

    assert snap_compare(panel_app(tmp_path), terminal_size=SIZE, run_before=showing(ERRORS, crashy))


def test_empty(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(panel_app(tmp_path), terminal_size=SIZE, run_before=showing(EMPTY))


def test_schema_dialog(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def open_schema(pilot: Pilot[Any]) -> None:
        await pilot.press("tab", "enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, SchemaDialog), "the schema")

    assert snap_compare(
        panel_app(tmp_path), terminal_size=SIZE, run_before=showing(NORMAL, open_schema)
    )


def section(key: str, *keys: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def go(pilot: Pilot[Any]) -> None:
        await pilot.press(key, *keys)
        await pilot.pause()

    return go


SMALL = (80, 24)


def test_resources(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        panel_app(tmp_path), terminal_size=SIZE, run_before=showing(RICH, section("2", "tab"))
    )


def test_resources_small(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        panel_app(tmp_path), terminal_size=SMALL, run_before=showing(RICH, section("2", "tab"))
    )


def test_resource_preview(snap_compare: SnapCompare, tmp_path: Path) -> None:
    async def preview(pilot: Pilot[Any]) -> None:
        await pilot.press("2", "tab", "enter")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ResourceDialog), "preview")
        dialog = pilot.app.screen
        assert isinstance(dialog, ResourceDialog)
        await wait_for(pilot, lambda: dialog.preview is not None, "the text")

    assert snap_compare(panel_app(tmp_path), terminal_size=SIZE, run_before=showing(RICH, preview))


def test_prompts(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        panel_app(tmp_path), terminal_size=SIZE, run_before=showing(RICH, section("3", "tab"))
    )


def test_prompts_small(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        panel_app(tmp_path), terminal_size=SMALL, run_before=showing(RICH, section("3", "tab"))
    )


def test_server_log(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        panel_app(tmp_path), terminal_size=SIZE, run_before=showing(RICH, section("4", "tab"))
    )


def test_server_log_small(snap_compare: SnapCompare, tmp_path: Path) -> None:
    assert snap_compare(
        panel_app(tmp_path), terminal_size=SMALL, run_before=showing(RICH, section("4", "tab"))
    )
