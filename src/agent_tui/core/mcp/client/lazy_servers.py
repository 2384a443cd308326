"""The lazy servers of a manager: which are not started, and the tool lists that stand in.

``LazyServers`` belongs to one ``McpManager`` (``manager``, which starts the servers) and owns
the bookkeeping of ``start_mode`` "lazy" (the default): which servers are lazy (the settings'
``mcp.start``, read again on a reload, or an entry's own ``start``), whether a request waits
for one still starting (``blocks``: never, unless headless and its tools are not cached yet),
whether one may stay unstarted, the
servers left unstarted, the cached tool list of each (``tool_cache``, read at launch and saved
again in a thread whenever a connected lazy server's list changes), why a cache was ignored (a
note of the server), and the saves still being written when the manager closes.

At ``start()`` a lazy server whose tool list is cached for its configuration (``tool_cache``)
has that list registered instead of being started, and stays unstarted (status ``lazy``) when
all those tools are deferred (``disclosure``; without one, or with a tool of it direct, it
starts as an eager one does). The first call of one of its tools starts it (the call reports
``starting_server`` progress while it connects, and ends with the server's failure reason if it
fails to start); so do a prompt, a resource read, ``reconnect`` and ``enable``. A lazy server
without a usable cache (first run, changed configuration, a corrupt file: a note says so)
starts at launch, in the background: the TUI's first request does not wait for it, its tools
join the first request after it connects; every connect of a lazy server saves its list. Lazy
never bypasses trust or ``disable``: a server that could not be started eagerly is never
started lazily either.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Container, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.mcp.client.start_mode import DEFAULT, StartMode, load_start_mode
from agent_tui.core.mcp.client.state import Status
from agent_tui.core.mcp.client.tool_cache import (
    CachedServer,
    CachedTool,
    CacheProblem,
    ToolCache,
    config_hash,
    same_tools,
    wire_form,
)
from agent_tui.core.mcp.config.spec import ConfigProblem, ServerSpec

if TYPE_CHECKING:
    from agent_tui.core.disclosure import Disclosure
    from agent_tui.core.mcp.client.adapter import ToolInfo
    from agent_tui.core.mcp.client.connection import Connection

log = logging.getLogger(__name__)
SAVE_TIMEOUT = 5.0
"""How long ``McpManager.aclose`` waits for tool caches still being written."""


def all_deferred(infos: Sequence[ToolInfo], disclosure: Disclosure | None) -> bool:
    """Whether every tool of ``infos`` (a server's cached tools) is deferred (an empty list is
    not: such a server is there for its resources or prompts; no ``disclosure``: none is)."""
    if disclosure is None:
        return False
    names = [info.name for info in infos if info.unavailable is None]
    deferred = {tool.name for tool in disclosure.deferred()}
    return bool(names) and all(n in deferred for n in names)


class LazyServers:
    def __init__(self, cwd: Path, cache: ToolCache, settings_paths: list[Path] | None) -> None:
        self.cwd = cwd
        self.cache = cache
        self.settings_paths = settings_paths
        """Settings files with ``mcp.start`` (None: the user's, the project's, the local one)."""
        self.mode: StartMode = DEFAULT
        """The settings' ``mcp.start`` (an entry's own ``start`` wins)."""
        self.mode_problems: list[ConfigProblem] = []
        self.read_mode()
        self.unstarted: set[str] = set()
        """Lazy servers not started: their cached tools stand in for them."""
        self.cached: dict[str, CachedServer] = {}
        """The cached tool list of each lazy server, as read or last saved."""
        self.notes: dict[str, str] = {}
        """Why a server's cache was ignored (shown in its notes)."""
        self._saved_for: dict[str, list[Any]] = {}
        """The tool list object last saved per server (saved again only when it changes)."""
        self._saving: set[asyncio.Task[Any]] = set()

    def read_mode(self) -> None:
        """Read the settings' ``mcp.start`` (again, on the manager's reload)."""
        self.mode, problems = load_start_mode(self.cwd, self.settings_paths)
        self.mode_problems = [ConfigProblem(path, text) for path, text in problems]

    def wants(self, spec: ServerSpec) -> bool:
        """Whether ``spec`` is lazy: its entry's ``start``, else the settings'."""
        return (spec.start or self.mode) == "lazy"

    def blocks(self, spec: ServerSpec, wait_uncached: bool) -> bool:
        """Whether a request waits for ``spec`` while it starts: an eager one, or (when
        ``wait_uncached``: headless runs) a lazy one whose tool list is not cached."""
        return not self.wants(spec) or (wait_uncached and spec.name not in self.cached)

    def may_wait(self, spec: ServerSpec, *, disabled: bool) -> bool:
        """Whether ``spec`` may stay unstarted: lazy, startable (not ``disabled``), its tool
        list cached (read here)."""
        if not self.wants(spec) or spec.error or spec.untrusted:
            return False
        return not disabled and self.load(spec)

    def remote_tools(
        self, connections: Mapping[str, Connection], servers: Container[str]
    ) -> dict[tuple[str, str], Any]:
        """The remote tools that stand for each configured server (of ``servers``), by
        (server, tool): a connection's, or the cached list of a server not started."""
        remote: dict[tuple[str, str], Any] = {}
        for name in sorted(self.unstarted):  # not started: its cached tools stand in for it
            if name in servers and name in self.cached:
                for tool in self.cached[name].tools:
                    remote.setdefault((name, tool.name), tool)
        for name, conn in connections.items():
            # A server that failed after connecting keeps its tools: their calls then say
            # why the server is gone (better than "unknown tool"), and the array stays stable.
            # One that is starting, or failed to start, with a cached list keeps that list.
            if conn.status is not Status.STOPPED and name in servers:
                tools: Sequence[Any] = conn.tools
                if not tools and conn.connect_seconds is None and name in self.cached:
                    tools = self.cached[name].tools
                for tool in tools:
                    remote.setdefault((name, tool.name), tool)
        return remote

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


__all__ = ["SAVE_TIMEOUT", "LazyServers", "all_deferred"]
