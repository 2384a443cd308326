"""Where the MCP panel gets its data and sends its actions: the session's ``McpManager`` (with
the agent's registry, disclosure and permission policy), or fixed data in snapshot tests.

The panel only sees ``McpOverview`` values (``core.mcp.client.overview``) and calls a few
actions, so what it shows is computed in the core, the same way ``agent-tui mcp list`` computes
it; a resource it reads comes back as a ``ResourcePreview`` (typed parts, never the SDK's
objects).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from agent_tui.core.mcp.client.manager import McpManager
from agent_tui.core.mcp.client.overview import McpOverview, build_overview
from agent_tui.core.mcp.client.resource_preview import ResourcePreview, preview_of
from agent_tui.core.tools.registry import ToolRegistry

Unsubscribe = Callable[[], None]


class PanelSource(Protocol):
    def overview(self) -> McpOverview: ...

    def subscribe(self, callback: Callable[[], None]) -> Unsubscribe:
        """Call ``callback()`` (on any thread) whenever a server or the configuration changed."""
        ...

    async def reconnect(self, name: str) -> str: ...

    async def toggle(self, name: str) -> str:
        """Disable ``name`` when it runs, else enable it; says what was done."""
        ...

    async def reload(self) -> None:
        """Re-read the configuration files (after the panel opened one in an editor)."""
        ...

    async def sign_in(self, name: str, on_url: Callable[[str], None]) -> str:
        """OAuth sign-in to the HTTP server ``name`` (the browser opened, the URL given to
        ``on_url``), then reconnect it; says what was done (``core.mcp.auth.oauth.LoginError``
        says why not)."""
        ...

    async def read_resource(self, server: str, uri: str) -> ResourcePreview:
        """``resources/read`` of ``uri`` on ``server`` (``ToolFailure`` says why not)."""
        ...

    async def cycle_level(self, server: str) -> str:
        """``logging/setLevel`` to the level after the current one; says what was set."""
        ...


class ManagerSource:
    """The live source: a manager (or none, when the session has no MCP configuration) and the
    agent's registry, disclosure and policy."""

    def __init__(
        self,
        manager: McpManager | None,
        *,
        registry: ToolRegistry,
        cwd: Path,
        disclosure: Any = None,
        policy: Any = None,
    ) -> None:
        self.manager = manager
        self.registry = registry
        self.cwd = cwd
        self.disclosure = disclosure
        self.policy = policy

    @classmethod
    def of_agent(cls, agent: Any) -> ManagerSource:
        """The source of ``agent``: its first ``McpManager`` tool source, if any."""
        manager = next((s for s in agent.tool_sources if isinstance(s, McpManager)), None)
        return cls(
            manager,
            registry=agent.registry,
            cwd=agent.cwd,
            disclosure=agent.disclosure,
            policy=agent.policy,
        )

    def overview(self) -> McpOverview:
        return build_overview(
            self.manager,
            registry=self.registry,
            cwd=self.cwd,
            disclosure=self.disclosure,
            policy=self.policy,
        )

    def subscribe(self, callback: Callable[[], None]) -> Unsubscribe:
        if self.manager is None:
            return lambda: None
        return self.manager.add_listener(lambda _server: callback())

    async def reconnect(self, name: str) -> str:
        manager = self._require()
        lazy = manager.state(name).status == "lazy"
        await manager.reconnect(name)
        return f"starting {name}" if lazy else f"reconnecting {name}"

    async def toggle(self, name: str) -> str:
        manager = self._require()
        if manager.state(name).status == "disabled":
            return await manager.enable(name)
        return await manager.disable(name)

    async def reload(self) -> None:
        if self.manager is not None:
            await self.manager.reload()

    async def sign_in(self, name: str, on_url: Callable[[str], None]) -> str:
        from agent_tui.core.mcp.auth.oauth import LoginError, login

        manager = self._require()
        spec = manager.config.servers.get(name)
        if spec is None:
            raise LoginError(f"no MCP server named {name!r}")
        result = await login(spec, on_url=on_url)
        if not result.needed:
            return result.describe()
        await manager.reconnect(name)
        return f"{result.describe()}; reconnecting {name}"

    async def read_resource(self, server: str, uri: str) -> ResourcePreview:
        side = self._require().hub.side(server)
        result = await side.read(uri)
        return preview_of(result, server=server, uri=uri)

    async def cycle_level(self, server: str) -> str:
        level = await self._require().hub.cycle_level(server)
        return f"{server}: log level set to {level}"

    def _require(self) -> McpManager:
        if self.manager is None:
            raise RuntimeError("no MCP servers are configured in this session")
        return self.manager
