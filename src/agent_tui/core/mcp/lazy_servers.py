"""The lazy servers of a manager: which are not started, and the tool lists that stand in.

``LazyServers`` belongs to one ``McpManager`` (``manager``, which decides when a server is
lazy and starts it) and owns the bookkeeping of ``start_mode`` "lazy": the servers left
unstarted, the cached tool list of each (``tool_cache``, read at launch and saved again in a
thread whenever a connected lazy server's list changes), why a cache was ignored (a note of
the server), and the saves still being written when the manager closes.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.mcp.config import ServerSpec
from agent_tui.core.mcp.tool_cache import (
    CachedServer,
    CachedTool,
    CacheProblem,
    ToolCache,
    config_hash,
    same_tools,
    wire_form,
)

if TYPE_CHECKING:
    from agent_tui.core.mcp.connection import Connection

log = logging.getLogger(__name__)
SAVE_TIMEOUT = 5.0
"""How long ``McpManager.aclose`` waits for tool caches still being written."""


class LazyServers:
    def __init__(self, cwd: Path, cache: ToolCache) -> None:
        self.cwd = cwd
        self.cache = cache
        self.unstarted: set[str] = set()
        """Lazy servers not started: their cached tools stand in for them."""
        self.cached: dict[str, CachedServer] = {}
        """The cached tool list of each lazy server, as read or last saved."""
        self.notes: dict[str, str] = {}
        """Why a server's cache was ignored (shown in its notes)."""
        self._saved_for: dict[str, list[Any]] = {}
        """The tool list object last saved per server (saved again only when it changes)."""
        self._saving: set[asyncio.Task[Any]] = set()

    def waiting(self, *, resources: bool = False) -> set[str]:
        """The lazy servers not started yet (``resources``: only those whose cache says they
        offer resources)."""
        return {
            name
            for name in self.unstarted
            if not resources or (name in self.cached and self.cached[name].resources)
        }

    def load(self, spec: ServerSpec) -> bool:
        """Read the cached tool list of ``spec`` (a startable lazy server): whether there is
        a usable one (a corrupt file is a note, and the server starts at launch)."""
        found = self.cache.load(config_hash(spec, self.cwd))
        if isinstance(found, CacheProblem):
            note = (
                f"its tool cache {found.path} {found.reason}: ignored, so it starts at launch "
                "(a new one is saved when it connects)"
            )
            log.warning("MCP server %s: %s", spec.name, note)
            self.notes[spec.name] = note
            return False
        self.notes.pop(spec.name, None)
        if found is None:  # first run or changed configuration: start it to fill the cache
            return False
        self.cached[spec.name] = found
        return True

    def forget(self, name: str) -> None:
        self.unstarted.discard(name)
        self.cached.pop(name, None)
        self._saved_for.pop(name, None)
        self.notes.pop(name, None)

    def save(self, conn: Connection) -> None:
        """Keep the tool list of a connected lazy server (in a thread, when it changed)."""
        name = conn.spec.name
        if self._saved_for.get(name) is conn.tools:
            return
        self._saved_for[name] = conn.tools
        resources = conn.side.has_resources
        known = self.cached.get(name)
        if known is not None and same_tools(known, conn.tools, resources):
            return
        tools = tuple(CachedTool(wire_form(tool)) for tool in conn.tools)
        self.cached[name] = CachedServer(tools, resources)
        digest = config_hash(conn.spec, self.cwd)
        task = asyncio.create_task(
            asyncio.to_thread(self.cache.save, digest, name, list(tools), resources=resources)
        )
        self._saving.add(task)
        task.add_done_callback(lambda t: self._saved(name, t))

    def _saved(self, name: str, task: asyncio.Task[Any]) -> None:
        self._saving.discard(task)
        error = task.exception() if not task.cancelled() else None
        if error is not None:
            log.warning("saving the tool cache of MCP server %s failed: %s", name, error)

    async def wait_saved(self) -> None:
        """Until the saves still being written are done (bounded: ``SAVE_TIMEOUT``)."""
        if self._saving:  # a short run must still leave its tool caches whole
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(SAVE_TIMEOUT):
                    await asyncio.gather(*list(self._saving), return_exceptions=True)


__all__ = ["SAVE_TIMEOUT", "LazyServers"]
