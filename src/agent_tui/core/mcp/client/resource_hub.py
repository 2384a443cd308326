"""The resources, roots and logs of every server, for the model, the mentions and the panel.

The manager owns one ``ResourceHub`` and gives it what it needs, explicitly: the connections
by name (read only), whether a name is configured and its status, how to start a lazy server,
which lazy servers offer resources, and where a change is announced. The hub wires each new
connection's ``ResourceSide`` (the roots to answer with, where updates and log messages go),
and registers two read-only tools while a connected server has the resources capability:

- ``list_mcp_resources(server?)``: the resources and templates, one a line (without a server,
  those of the servers the permission rules refuse are left out, and said to be: ``gate``);
- ``read_mcp_resource(server, uri)``: what ``resources/read`` returns — text as it is (through
  the output budget like any result), a blob saved under ``.agent-spill/mcp-media/`` with a
  one-line note.

They are MCP tools for progressive disclosure (deferred with the servers' tools, found by
``search_tool``: ``core.disclosure.state.MCP_BUILTINS``). Log messages of error and worse are
also given to ``add_log_listener`` listeners (the TUI shows them as a notice). Roots come from
``core.mcp.client.roots`` and are read again by ``reload_roots`` (the manager's reload); a change is
announced to every connected server.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import Field

from agent_tui.core.mcp.client.adapter import MediaStore
from agent_tui.core.mcp.client.failures import unavailable
from agent_tui.core.mcp.client.resources import ResourceInfo, ResourceSide, render_contents
from agent_tui.core.mcp.client.roots import Roots, load_roots
from agent_tui.core.mcp.client.server_log import LogEntry
from agent_tui.core.mcp.client.state import Status
from agent_tui.core.mcp.log_levels import next_level
from agent_tui.core.permissions.mcp_rules import Gate
from agent_tui.core.tools.base import Tool, ToolContext, ToolInput, ToolMeta, ToolOutput
from agent_tui.core.tools.errors import ToolFailure
from agent_tui.core.tools.registry import ToolRegistry

if TYPE_CHECKING:  # imported when a server starts (``manager``), not with the hub
    from agent_tui.core.mcp.client.connection import Connection

log = logging.getLogger(__name__)
READ_TOOL = "read_mcp_resource"
LIST_TOOL = "list_mcp_resources"
LIST_SHOWN = 500
"""Resources listed at most by ``list_mcp_resources`` (per call)."""
LogListener = Callable[[LogEntry], None]


class ReadResourceInput(ToolInput):
    server: str = Field(description="The MCP server's name, as configured (e.g. `everything`).")
    uri: str = Field(
        description="The resource's URI, as list_mcp_resources or a resource link gives it; "
        "for a template, its URI with the placeholders filled in."
    )


class ListResourcesInput(ToolInput):
    server: str | None = Field(
        default=None, description="Only this server's resources (default: every server's)."
    )


def pointer(server: str, uri: str) -> str:
    """How the model reads a resource: the call to make."""
    return f'read with read_mcp_resource(server="{server}", uri="{uri}")'


class ResourceHub:
    def __init__(
        self,
        cwd: Path,
        registry: ToolRegistry,
        media: MediaStore,
        connections: Mapping[str, Connection],
        *,
        configured: Callable[[str], bool],
        status: Callable[[str], str],
        start_lazy: Callable[[str], Awaitable[None]],
        unstarted: Callable[[], set[str]],
        on_update: Callable[[str | None], None],
        settings_paths: list[Path] | None = None,
    ) -> None:
        self.cwd = cwd
        self.registry = registry
        """Where the two tools go (the manager's)."""
        self.media = media
        self.connections = connections
        """Every server's current connection, by name (the manager's, read only)."""
        self.configured = configured
        """Whether a server of that name is configured now."""
        self.status = status
        """A configured server's status (``ServerState.status``)."""
        self.start_lazy = start_lazy
        """Start a lazy server not started yet, and wait until it settles (else nothing)."""
        self.unstarted = unstarted
        """The lazy servers not started yet whose cached list says they offer resources."""
        self.on_update = on_update
        """A server's resources or log changed (the manager tells its listeners)."""
        self.settings_paths = settings_paths
        self.roots: Roots = load_roots(cwd, settings_paths)
        self._log_listeners: list[LogListener] = []
        self._tools_registered = False
        self.gate: Gate | None = None
        """The permission rules of each server (``permissions.mcp_rules.server_gate``): a
        listing of every server leaves out the servers they refuse, a mention of one is
        refused. None (tests, ``mcp list``): no rules."""

    # -- connections --------------------------------------------------------------------------

    def wire(self, conn: Connection) -> None:
        side = conn.side
        side.roots = lambda: self.roots.entries
        side.on_update = self.on_update
        side.on_log = self._on_log

    def _sides(self) -> dict[str, ResourceSide]:
        return {
            name: conn.side
            for name, conn in self.connections.items()
            if conn.status is Status.CONNECTED and self.configured(name)
        }

    def side(self, server: str) -> ResourceSide:
        """The connected ``server``'s side; a ``ToolFailure`` saying why there is none."""
        conn = self.connections.get(server)
        if conn is None or conn.status is not Status.CONNECTED:
            known = ", ".join(sorted(self.servers())) or "none"
            configured = self.configured(server)
            why = f"it is {self.status(server)}" if configured else "it is not configured"
            raise unavailable(
                server,
                f"the MCP server {server!r} has no resources to read: {why} (servers with "
                f"resources: {known})",
            )
        if not conn.side.has_resources:
            raise ToolFailure(
                "mcp_no_resources",
                f"The MCP server {server!r} does not offer resources (no resources capability).",
                "Use its tools instead, or another server (list_mcp_resources).",
            )
        return conn.side

    def servers(self) -> set[str]:
        """The connected servers with the resources capability."""
        return {name for name, side in self._sides().items() if side.has_resources}

    def resources(self, server: str | None = None) -> list[ResourceInfo]:
        found: list[ResourceInfo] = []
        for name, side in sorted(self._sides().items()):
            if server is None or name == server:
                found.extend(side.listed())
        return found

    # -- roots ------------------------------------------------------------------------------

    def reload_roots(self) -> None:
        """Read the roots again; tell the connected servers when they changed."""
        roots = load_roots(self.cwd, self.settings_paths)
        if roots.entries == self.roots.entries:
            self.roots = roots
            return
        self.roots = roots
        for side in self._sides().values():
            side.roots_changed()

    # -- logging ----------------------------------------------------------------------------

    def add_log_listener(self, listener: LogListener) -> Callable[[], None]:
        """Call ``listener(entry)`` for every log message of error or worse."""
        self._log_listeners.append(listener)
        return lambda: (
            self._log_listeners.remove(listener) if listener in self._log_listeners else None
        )

    def _on_log(self, entry: LogEntry) -> None:
        if not entry.severe:
            return
        for listener in list(self._log_listeners):
            try:
                listener(entry)
            except Exception:
                log.exception("MCP log listener failed")

    async def cycle_level(self, server: str) -> str:
        """Set ``server``'s log level to the next one (``logging/setLevel``); returns it."""
        conn = self.connections.get(server)
        if conn is None or conn.status is not Status.CONNECTED:
            raise unavailable(server, f"the MCP server {server!r} is not connected")
        if not conn.side.can_log:
            raise ToolFailure(
                "mcp_no_logging",
                f"The MCP server {server!r} does not offer logging (no logging capability).",
            )
        level = next_level(conn.side.level)
        await conn.side.set_level(level)
        return level

    # -- the model's tools --------------------------------------------------------------------

    def sync_tools(self) -> None:
        """Register the two tools while a connected server has resources, else remove them."""
        wanted = bool(self.servers())
        registry = self.registry
        if wanted and not self._tools_registered:
            for tool in (self._read_tool(), self._list_tool()):
                if tool.name not in registry:
                    registry.register(tool)
            self._tools_registered = True
        elif not wanted and self._tools_registered:
            for name in (READ_TOOL, LIST_TOOL):
                if name in registry:
                    registry.unregister(name)
            self._tools_registered = False

    async def read(self, server: str, uri: str, call_id: str = "read") -> ToolOutput:
        """What the model reads of ``uri`` on ``server``; failures raise ``ToolFailure``. A
        lazy server not started yet is started first."""
        await self.start_lazy(server)
        side = self.side(server)
        result = await side.read(uri)
        text, saved = await render_contents(
            result, server=server, uri=uri, media=self.media, call_id=call_id
        )
        data: dict[str, Any] = {"server": server, "uri": uri}
        if saved:
            data["media"] = saved
        return ToolOutput(content=text, data=data)

    def refused(self, server: str, tool_name: str, asks: bool) -> str | None:
        """Why ``server``'s rules refuse what ``tool_name`` would do on it, or None."""
        return self.gate(server, tool_name, asks) if self.gate is not None else None

    def listing(self, server: str | None) -> str:
        if server is not None:
            self.side(server)  # says why there is nothing to list
        items = self.resources(server)
        left: dict[str, str] = {}
        if server is None:  # a call naming its server was judged under its rules already
            for name in sorted({item.server for item in items}):
                why = self.refused(name, LIST_TOOL, True)
                if why is not None:
                    left[name] = why
            items = [item for item in items if item.server not in left]
        if not items:
            where = f"the MCP server {server!r}" if server else "the connected MCP servers"
            return f"No resources on {where}." + _left_out(left)
        lines = []
        for item in items[:LIST_SHOWN]:
            facts = [x for x in (item.mime_type, item.description) if x]
            if item.size is not None:
                facts.append(f"{item.size:,} bytes")
            kind = "template " if item.template else ""
            tail = f" — {'; '.join(facts)}" if facts else ""
            lines.append(f"- {item.server} {kind}<{item.uri}> {item.label}{tail}")
        if len(items) > LIST_SHOWN:
            lines.append(f"[{len(items) - LIST_SHOWN} more not listed: name a server]")
        lines.append(
            "Read one with read_mcp_resource(server, uri); fill a template's {placeholders} first."
        )
        return "\n".join(lines) + _left_out(left)

    def _read_tool(self) -> Tool[ReadResourceInput]:
        async def call(inp: ReadResourceInput, ctx: ToolContext) -> ToolOutput:
            return await self.read(inp.server, inp.uri, ctx.call_id or "call")

        return Tool(
            name=READ_TOOL,
            description=(
                "Read a resource of a connected MCP server by its URI (from list_mcp_resources "
                "or a resource link in a tool result). Text comes back as it is; binary content "
                "is saved to a file and its path given."
            ),
            input_model=ReadResourceInput,
            call=call,
            meta=ToolMeta(
                read_only=True, concurrency_safe=True, destructive=False, acts_on_server="server"
            ),
            timeout=None,
        )

    def _list_tool(self) -> Tool[ListResourcesInput]:
        async def call(inp: ListResourcesInput, _ctx: ToolContext) -> ToolOutput:
            return ToolOutput(content=self.listing(inp.server))

        return Tool(
            name=LIST_TOOL,
            description=(
                "List the resources and resource templates of the connected MCP servers "
                "(server, URI, name, type); read one with read_mcp_resource."
            ),
            input_model=ListResourcesInput,
            call=call,
            meta=ToolMeta(
                read_only=True, concurrency_safe=True, destructive=False, acts_on_server="server"
            ),
        )


def _left_out(left: dict[str, str]) -> str:
    """The line on the servers a listing of every server left out, and why."""
    if not left:
        return ""
    shown = "; ".join(f"{name!r}: {why}" for name, why in sorted(left.items())[:5])
    more = f" and {len(left) - 5} more" if len(left) > 5 else ""
    return (
        f"\n[Not listed, by the permission rules: the resources of {shown}{more}. Do not try "
        "to reach them another way; naming a server a rule asks about asks the user.]"
    )


__all__ = ["LIST_TOOL", "READ_TOOL", "ResourceHub", "pointer"]
