"""Progressive tool disclosure (seed s15): which tools the model sees, per protocol.

Built-ins are direct, but for a few rarely needed ones (``DEFERRABLE_BUILTINS``). MCP tools
(with those) are deferred when there are more than ``auto:N`` tools, and then reachable
through ``search_tool`` (which unmasks what it finds, for the session) and the ``run_tool``
proxy. On free-text protocols (OpenAI-compatible) the tools array never changes;
on strict ones (Anthropic checks ``tool_use.name`` against the request's tools) the sorted
unmasked tools are appended, so the array changes once per turn that unmasked something.
Promoted tools (``promote``) and ``always_load`` servers are direct from the first turn.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Literal

from agent_tui.core.disclosure.proxies import (
    RUN_TOOL,
    SEARCH_TOOL,
    make_run_tool,
    make_search_tool,
    search_description,
)
from agent_tui.core.jobs import JOB_TOOLS
from agent_tui.core.settings import DisclosureSettings
from agent_tui.core.tools.base import Tool
from agent_tui.core.tools.registry import ToolRegistry, tool_schema

if TYPE_CHECKING:
    from agent_tui.core.disclosure.search import SearchIndex

WireProtocol = Literal["free-text", "strict"]
PROXIES = frozenset({SEARCH_TOOL, RUN_TOOL})
CATALOG_SUMMARIES = 8
"""Up to this many deferred tools get a one-line summary in the catalog; past it the catalog is
their names grouped by server (a summary costs ~20 tokens a tool in every request; search_tool
returns the whole description of the tools the model looks for)."""
CATALOG_CHARS = 24_000
"""The most the by-server catalog may take (~6k tokens): past it the servers with the most
tools are named with their tool count only, and the model browses them with search_tool."""


MCP_BUILTINS = frozenset({"read_mcp_resource", "list_mcp_resources"})
"""Tools of the MCP client itself (``core.mcp.client.resource_hub``): deferred with the MCP
tools."""
DEFERRABLE_BUILTINS = frozenset({"web_fetch", "task", "update_plan"})
"""Built-ins most turns never call, deferred with the MCP tools unless
``disclosure.defer_builtins`` is false (~500 tokens a request). Called through ``run_tool``,
such a tool is validated, judged by permissions and hooks, and run as itself
(``core.executor.partition.resolve_proxy``), as when it is called directly."""
BUILTIN_GROUP = "built-in"
"""The catalog's line of the deferred built-ins (they have no server)."""


def counted(tools: Iterable[Tool[Any]]) -> int:
    """The tools the deferral threshold counts: not the plan-mode ones (``exit_plan_mode``),
    which are in no request outside plan mode."""
    return sum(1 for t in tools if not t.meta.plan_mode_only)


def server_of(name: str) -> str:
    """``mcp__github__create_issue`` -> ``github``; built-ins have no server."""
    parts = name.split("__")
    return parts[1] if len(parts) >= 3 and parts[0] == "mcp" else ""


def _summary(description: str, width: int = 80) -> str:
    line = " ".join(description.strip().split("\n", 1)[0].split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _server_lines(by_server: dict[str, list[str]]) -> list[str]:
    """A line per server naming its deferred tools; within ``CATALOG_CHARS`` by listing only
    the tool count of the biggest servers (a catalog that grows with every tool would eat the
    context disclosure saves)."""
    full = {
        s: f"- {f'mcp__{s}__*' if s else BUILTIN_GROUP}: {', '.join(names)}"
        for s, names in by_server.items()
    }
    total = sum(len(line) + 1 for line in full.values())
    short: dict[str, str] = {}
    for server in sorted((s for s in by_server if s), key=lambda s: (-len(full[s]), s)):
        if total <= CATALOG_CHARS:
            break
        short[server] = (
            f"- mcp__{server}__*: {len(by_server[server])} tools, not listed — find them with "
            f'search_tool(query="{server}: what to do")'
        )
        total -= len(full[server]) - len(short[server])
    return [short.get(s, line) for s, line in full.items()]


class Disclosure:
    def __init__(
        self,
        registry: ToolRegistry,
        settings: DisclosureSettings | None = None,
        protocol: WireProtocol = "free-text",
    ) -> None:
        self.registry = registry
        self.settings = settings or DisclosureSettings()
        self.protocol: WireProtocol = protocol
        self.promoted = tuple(self.settings.promote)  # fixed for the session: cache-stable
        self.unmasked: set[str] = set()
        self._index: SearchIndex | None = None
        self._index_key: tuple[str, ...] = ()
        self._arrays: dict[tuple[Any, ...], ToolRegistry] = {}
        self._estimate: tuple[tuple[Any, ...], dict[str, int]] | None = None
        for name in (SEARCH_TOOL, RUN_TOOL):
            if name in registry:
                registry.unregister(name)
        registry.register(make_run_tool())
        registry.register(make_search_tool(self))

    # -- buckets ----------------------------------------------------------------------------

    def _real_tools(self) -> list[Tool[Any]]:
        """The tools but the proxies, and the job tools (``core.jobs.JOB_TOOLS``: out of the
        array and of every count) until the turn unmasks them, once the session has a job."""
        idle = JOB_TOOLS - self.unmasked
        return [t for t in self.registry.tools() if t.name not in PROXIES and t.name not in idle]

    def _promoted(self, name: str) -> bool:
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.promoted)

    def deferred(self) -> list[Tool[Any]]:
        """The deferred bucket, sorted by name."""
        threshold = self.settings.threshold
        tools = self._real_tools()
        kept = [t for t in tools if t.name not in JOB_TOOLS]
        if threshold is None or counted(kept) <= threshold:
            return []
        always = set(self.settings.always_load)
        builtins = MCP_BUILTINS | (DEFERRABLE_BUILTINS if self.settings.defer_builtins else set())
        return [
            t
            for t in kept
            if (server_of(t.name) or t.name in builtins)
            and server_of(t.name) not in always
            and not self._promoted(t.name)
        ]

    def direct(self) -> list[Tool[Any]]:
        deferred = {t.name for t in self.deferred()}
        return [t for t in self._real_tools() if t.name not in deferred]

    # -- search -----------------------------------------------------------------------------

    def schema_of(self, tool: Tool[Any]) -> dict[str, Any]:
        return tool_schema(tool)

    def _search_index(self) -> SearchIndex:
        deferred = self.deferred()
        key = tuple(t.name for t in deferred)
        if self._index is None or key != self._index_key:
            from agent_tui.core.disclosure.search import SearchIndex, ToolDoc  # on first search

            docs = [
                ToolDoc(
                    t.name,
                    server_of(t.name),
                    t.description,
                    tuple(self.schema_of(t).get("properties", {})),
                )
                for t in deferred
            ]
            self._index, self._index_key = SearchIndex.build(docs), key
        return self._index

    def search(self, query: str, limit: int = 5) -> list[Tool[Any]]:
        """Rank deferred tools for ``query``; the hits are unmasked for the session."""
        hits = [self.registry.get(doc.name) for doc, _ in self._search_index().search(query, limit)]
        found = [t for t in hits if t is not None]
        self.unmasked.update(t.name for t in found)
        return found

    def catalog(self) -> str:
        """The deferred tools by name (with a summary while there are few): the model's map."""
        deferred = self.deferred()
        if not deferred:
            return "No tools are deferred right now."
        if len(deferred) <= CATALOG_SUMMARIES:
            lines = [f"- {t.name}: {_summary(t.description)}" for t in deferred]
            return f"Deferred tools ({len(deferred)}):\n" + "\n".join(lines)
        by_server: dict[str, list[str]] = {}
        for t in deferred:
            by_server.setdefault(server_of(t.name), []).append(t.name.rsplit("__", 1)[-1])
        lines = _server_lines(by_server)
        return f"Deferred tools ({len(deferred)}) by server:\n" + "\n".join(lines)

    # -- the array of one request -------------------------------------------------------------

    def exposed(
        self, *, read_only_only: bool = False, denied: Iterable[str] = ()
    ) -> list[Tool[Any]]:
        """The tools of the next request, after the filter pipeline: mode (plan mode offers only
        read-only tools, and only it offers the plan-mode tools), tools denied outright, then
        direct + proxies (+ unmasked on strict)."""
        denied = set(denied)
        deferred = self.deferred()

        def keep(tool: Tool[Any]) -> bool:
            if tool.name in denied:
                return False
            if tool.meta.plan_mode_only and not read_only_only:
                return False  # exit_plan_mode: offered in plan mode only
            return not read_only_only or tool.meta.read_only or tool.name == RUN_TOOL

        tools = [t for t in self.direct() if keep(t)]
        if deferred:
            self._refresh_search_tool()
            tools += [t for t in (self.registry.get(n) for n in sorted(PROXIES)) if t]
            if self.protocol == "strict":
                names = {t.name for t in deferred}
                tools += [t for t in deferred if t.name in self.unmasked & names and keep(t)]
        return sorted(tools, key=lambda t: t.name)

    def view(self, **filters: Any) -> ToolRegistry:
        """A registry of exactly the exposed tools (its wire-format arrays are cached)."""
        tools = self.exposed(**filters)
        key = (self.protocol, *(id(t) for t in tools))
        view = self._arrays.get(key)
        if view is None:
            view = ToolRegistry(tools)
            self._arrays = {key: view}
        return view

    def _refresh_search_tool(self) -> None:
        current = self.registry.get(SEARCH_TOOL)
        wanted = search_description(self)
        if current is None or current.description != wanted:
            self.registry.unregister(SEARCH_TOOL)
            self.registry.register(make_search_tool(self))

    # -- accounting ---------------------------------------------------------------------------

    def estimate(self, **filters: Any) -> dict[str, int]:
        """Tokens (about 4 characters each) the tools array costs per request, with and without
        disclosure."""

        def cost(tools: list[Tool[Any]]) -> int:
            return len(ToolRegistry(tools).openai_tools_json()) // 4 if tools else 0

        exposed = self.exposed(**filters)
        deferred = {t.name for t in self.deferred()}
        key = (tuple(id(t) for t in exposed), tuple(sorted(deferred)), len(self.registry))
        if self._estimate is not None and self._estimate[0] == key:
            return dict(self._estimate[1])
        unmasked = [t for t in exposed if t.name in deferred]
        figures = {
            "direct_tokens": cost([t for t in exposed if t.name not in deferred | PROXIES]),
            "proxy_tokens": cost([t for t in exposed if t.name in PROXIES]),
            "unmasked_tokens": cost(unmasked),
            "total_tokens": cost(exposed),
            "without_disclosure_tokens": cost(
                [
                    t
                    for t in self._real_tools()
                    if filters.get("read_only_only") or not t.meta.plan_mode_only
                ]
            ),
            "deferred_count": len(deferred),
        }
        self._estimate = (key, figures)
        return dict(figures)


def estimate_json(disclosure: Disclosure) -> str:
    return json.dumps(disclosure.estimate(), sort_keys=True)
