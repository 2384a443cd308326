"""The MCP servers' tools in the tool registry: named, registered, replaced, removed.

``RegisteredTools`` belongs to one ``McpManager`` (``manager``, which says which remote tools
stand for which server: those of its connection, or its cached list). ``sync`` makes the
registry hold exactly those, as ``mcp__<server>__<tool>`` (``naming.qualify``, never taking a
name the registry already has for something else), re-registering one only when its
definition or timeout changed, and keeps the ``ToolInfo`` of each server's tools (also of
those that cannot be registered: ``ToolInfo.unavailable`` says why) for the UI.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from typing import Any

from agent_tui.core.mcp.client.adapter import MediaStore, ToolInfo, build_tool
from agent_tui.core.mcp.client.naming import qualify
from agent_tui.core.mcp.config.spec import ServerSpec
from agent_tui.core.tools.base import ToolContext
from agent_tui.core.tools.registry import ToolRegistry

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
            timeout = servers[pair[0]].timeout
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
                timeout=servers[server].timeout,
                media=self.media,
            )
            infos.setdefault(server, []).append(info)
            if info.unavailable is None and name not in self._registered:
                self.registry.register(entry)
                self._registered[name] = (server, remote_name, key)
        self.infos = infos


__all__ = ["Call", "RegisteredTools"]
