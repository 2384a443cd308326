"""The MCP servers' tools in the tool registry: named, registered, replaced, removed.

``RegisteredTools`` belongs to one ``McpManager`` (``manager``, which says which remote tools
stand for which server: those of its connection, or its cached list). ``sync`` makes the
registry hold exactly those, as ``mcp__<server>__<tool>`` (``naming.qualify``, never taking a
name the registry already has for something else), re-registering one only when its
definition or timeout changed, and keeps the ``ToolInfo`` of each server's tools (also of
those that cannot be registered: ``ToolInfo.unavailable`` says why) for the UI. A call of
such a tool by its name (the model's, ``run_tool``'s, ``mcp call``'s) is answered with that
reason (``explain_unavailable``, the registry's hook for names it does not have) instead of
"there is no tool named …".
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from agent_tui.core.mcp.client.adapter import MediaStore, ToolInfo, build_tool
from agent_tui.core.mcp.client.naming import qualify
from agent_tui.core.mcp.config.spec import ServerSpec
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.registry import ToolRegistry

BACKSTOP_MARGIN = 10.0
TOOL_UNAVAILABLE = "mcp_tool_unavailable"
"""The error code of a call of a tool its server lists but that cannot be offered."""

Call = Callable[[str, dict[str, Any], ToolContext], Any]
"""``call(tool, arguments, ctx)`` on one server."""


class RegisteredTools:
    def __init__(self, registry: ToolRegistry, media: MediaStore) -> None:
        self.registry = registry
        self.media = media
        self._registered: dict[str, tuple[str, str, Any]] = {}
        """Registered name -> (server, remote name, what it was built from)."""
        self.infos: dict[str, list[ToolInfo]] = {}
        """Each server's tools, by registered name."""
        registry.add_unknown_explainer(self.explain_unavailable)

    def explain_unavailable(self, name: str) -> ToolErrorInfo | None:
        """Why the tool ``name`` (``mcp__<server>__<tool>``) cannot be called, when its
        server lists it but it is not offered (``ToolInfo.unavailable``); else None."""
        for infos in self.infos.values():
            for info in infos:
                if info.name == name and info.unavailable is not None:
                    return unavailable_info(info)
        return None

    def all_infos(self) -> list[ToolInfo]:
        return sorted((i for infos in self.infos.values() for i in infos), key=lambda i: i.name)

    def sync(
        self,
        remote: Mapping[tuple[str, str], Any],
        servers: Mapping[str, ServerSpec],
        caller: Callable[[str], Call],
    ) -> None:
        """Register exactly ``remote`` (``(server, remote name)`` -> ``mcp.types.Tool``);
        ``caller(server)`` calls a tool of that server."""
        reserved = set(self.registry.names()) - set(self._registered)
        names = qualify(remote, reserved)
        wanted: dict[str, tuple[str, str, Any]] = {}
        for pair, name in names.items():
            tool = remote[pair]
            timeout = backstop(servers[pair[0]])
            wanted[name] = (pair[0], pair[1], (timeout, tool.model_dump_json()))
        for name, key in list(self._registered.items()):
            if wanted.get(name) != key:
                with contextlib.suppress(KeyError):
                    self.registry.unregister(name)
                del self._registered[name]
        infos: dict[str, list[ToolInfo]] = {}
        for name in sorted(names.values()):
            server, remote_name, key = wanted[name]
            tool = remote[(server, remote_name)]
            entry, info = build_tool(
                name,
                server,
                tool,
                caller(server),
                timeout=backstop(servers[server]),
                media=self.media,
            )
            infos.setdefault(server, []).append(info)
            if info.unavailable is None and name not in self._registered:
                self.registry.register(entry)
                self._registered[name] = (server, remote_name, key)
        self.infos = infos


def backstop(spec: ServerSpec) -> float:
    """The registry's deadline of a call of ``spec``'s tools: past every limit of the call
    (starting a lazy server for it, then its ``call_clock``), never the one that decides."""
    return spec.startup_timeout + spec.max_total_timeout + BACKSTOP_MARGIN


def unavailable_info(info: ToolInfo) -> ToolErrorInfo:
    """What a call of ``info``'s tool, which is not offered, is answered with."""
    assert info.unavailable is not None
    return ToolErrorInfo(
        code=TOOL_UNAVAILABLE,
        message=f"The tool {info.remote_name!r} of the MCP server {info.server!r} is not "
        f"available: {info.unavailable}.",
        next_step="Do not call it again; reach the goal with the tools you have, or tell the "
        "user that this tool cannot be used from this client.",
        retryable=False,
    )


__all__ = ["TOOL_UNAVAILABLE", "Call", "RegisteredTools", "backstop", "unavailable_info"]
