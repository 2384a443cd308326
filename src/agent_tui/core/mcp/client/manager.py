"""The MCP client manager: every configured server, connected in parallel, its tools routed.

``start()`` returns at once: each enabled server connects in its own task (``connection``),
bounded by its ``startup_timeout``; built-in tools work meanwhile. ``wait_ready()`` waits for
the servers still starting, ``ready()`` (before a model request) only for those a request waits
for (``LazyServers.blocks``). A server's tools enter the registry when it connects, as
``mcp__<server>__<tool>`` (``naming``), are replaced when its tool list changes, and leave it
when it fails or stops; a failed server fails only its own calls. ``reconnect``, ``disable`` and
``enable`` act on one server at run time; ``disable`` is remembered for the project
(``disabled``: in the personal ``.agent-tui/settings.local.json``, never in the shared
``.mcp.json``), so a server turned off stays off in later sessions and in ``mcp list`` until
``enable``. ``reload`` re-reads the configuration and (re)starts what changed;
``start(watch=True)`` does that whenever a configuration file changes. ``aclose()`` stops every
server and its processes. Lazy servers (``"start": "lazy"``, the default: ``lazy_servers``)
stay unstarted while their cached tools are all deferred, start on first use, and never hold
up a request (headless: those not cached yet do, ``wait_uncached``).

What the UI needs: ``states()`` (status, reason, stderr tail, protocol version, tool count,
connect time, tools with their names and metadata) and ``add_listener`` (called on every
change, with the server's name; ``None`` when the configuration itself changed).

This module owns the servers' life cycle (start, reconnect, disable/enable, trust, reload,
close), which remote tools stand for each server (``_sync``) and routing a call to its server.
Its collaborators: ``disabled.DisabledServers`` (which servers are disabled, and why),
``lazy_servers.LazyServers``, ``registered_tools.RegisteredTools``, ``resource_hub.ResourceHub``
(given what it needs, not the manager) and ``watch.ConfigWatch``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_tui.core.commands.mcp_prompts import McpPrompt, from_sdk
from agent_tui.core.mcp.client.adapter import MediaStore, ToolInfo
from agent_tui.core.mcp.client.disabled import DisabledServers
from agent_tui.core.mcp.client.elicitation import ElicitationBroker
from agent_tui.core.mcp.client.failures import unavailable
from agent_tui.core.mcp.client.lazy_servers import LazyServers, all_deferred
from agent_tui.core.mcp.client.naming import PREFIX, server_of
from agent_tui.core.mcp.client.registered_tools import Call, RegisteredTools
from agent_tui.core.mcp.client.resource_hub import ResourceHub
from agent_tui.core.mcp.client.start_mode import StartMode
from agent_tui.core.mcp.client.state import (
    ServerState,
    Status,
    failure_info,
    not_running,
    snapshot,
    start_failure,
)
from agent_tui.core.mcp.client.tool_cache import ToolCache
from agent_tui.core.mcp.client.watch import ConfigWatch
from agent_tui.core.mcp.config.load import load_config
from agent_tui.core.mcp.config.spec import ConfigProblem, McpConfig, ServerSpec
from agent_tui.core.settings import local_settings_path
from agent_tui.core.state.trust import ProjectTrust, TrustItem
from agent_tui.core.tools.base import ProgressUpdate, ToolContext
from agent_tui.core.tools.errors import ToolErrorInfo
from agent_tui.core.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from agent_tui.core.disclosure import Disclosure
    from agent_tui.core.mcp.client.connection import Connection

log = logging.getLogger(__name__)
Listener = Callable[[str | None], None]
STOP_TIMEOUT = 10.0


@dataclass(eq=False)
class McpManager:
    cwd: Path
    registry: ToolRegistry = field(default_factory=ToolRegistry)
    paths: list[Path] | None = None
    """Configuration files (default: the user's, then the project's)."""
    environ: Mapping[str, str] | None = None
    media_dir: Path | None = None
    """Where image/audio bytes of results go (default: ``.agent-spill/mcp-media``)."""
    only: set[str] | None = None
    """Start only these servers (``mcp call``); the others are listed but left alone."""
    watch: bool = False
    """Follow changes of the configuration files once started (the TUI does)."""
    disabled_file: Path | None = None
    """Where the servers turned off in this project are remembered (default: the project's
    ``.agent-tui/settings.local.json``)."""
    trust: ProjectTrust | None = None
    """What of the project's ``.mcp.json`` the user trusts (default: the user's trust store)."""
    settings_paths: list[Path] | None = None
    """Settings files with ``mcp.roots`` and ``mcp.start`` (default: the user's, the
    project's, the local one)."""
    disclosure: Disclosure | None = None
    """The session's progressive disclosure: a lazy server stays unstarted only when it says
    all the server's tools are deferred (None: every server starts at launch)."""
    tool_cache: ToolCache | None = None
    """Where the tool lists of lazy servers are kept (default: ``<cache dir>/mcp-tools``)."""
    keep_lazy: bool = False
    """Leave every lazy server whose tool list is cached unstarted, deferred tools or not
    (``mcp list`` shows it as ``lazy`` with that list; it starts on a call as usual)."""
    wait_uncached: bool = True
    """``ready()`` waits for lazy servers still starting whose tools are not cached (headless);
    False (the TUI): never for a lazy one, whose tools join a request once it connects."""

    def __post_init__(self) -> None:
        self.trust = self.trust or ProjectTrust(self.cwd)
        self.config: McpConfig = load_config(
            self.cwd, paths=self.paths, environ=self.environ, trust=self.trust
        )
        root = self.media_dir or self.cwd / ".agent-spill" / "mcp-media"
        self.media = MediaStore(root if root.is_absolute() else self.cwd / root, self.cwd)
        self._connections: dict[str, Connection] = {}
        self.tool_cache = self.tool_cache or ToolCache()
        self.lazy = LazyServers(self.cwd, self.tool_cache, self.settings_paths)
        """Which servers are lazy; those not started, and their cached tool lists."""
        self.hub = ResourceHub(
            self.cwd,
            self.registry,
            self.media,
            self._connections,
            configured=lambda name: name in self.config.servers,
            status=lambda name: self.state(name).status,
            start_lazy=self.start_lazy,
            unstarted=lambda: self.lazy.waiting(resources=True),
            on_update=self._emit,
            settings_paths=self.settings_paths,
        )
        """Resources, roots and logs of the servers (``resource_hub``)."""
        self.elicitation = ElicitationBroker()
        """Where the servers' ``elicitation/create`` go: the front end sets its ``handler``
        (none: every request is declined with a message, as headless runs do)."""
        self.disabled_file = self.disabled_file or local_settings_path(self.cwd)
        self.disabled_servers = DisabledServers(self.cwd, self.disabled_file, self.only)
        """Which servers are disabled and why (``disabled``)."""
        self.tools = RegisteredTools(self.registry, self.media)
        """The servers' tools in the registry, and their ``ToolInfo`` (``registered_tools``)."""
        self._listeners: list[Listener] = []
        self._changed = asyncio.Event()
        self._started = False
        self._closed = False
        self._config_watch = ConfigWatch(lambda: self.config.paths, self.reload)
        self.watching = self._config_watch.ready
        """Set once the configuration files are being watched (``start(watch=True)``)."""
        self.registry.add_unknown_explainer(self.explain_unknown)

    @property
    def start_mode(self) -> StartMode:
        """The settings' ``mcp.start`` (an entry's own ``start`` wins)."""
        return self.lazy.mode

    # -- what there is ----------------------------------------------------------------------

    @property
    def configured(self) -> bool:
        return bool(self.config.servers)

    @property
    def problems(self) -> list[ConfigProblem]:
        problem = self.disabled_servers.problem
        extra = [problem] if problem is not None else []
        extra += [ConfigProblem(path, text) for path, text in self.hub.roots.problems]
        return [*self.config.problems, *extra, *self.lazy.mode_problems]

    def states(self) -> list[ServerState]:
        return [self.state(name) for name in self.config.servers]

    def state(self, name: str) -> ServerState:
        spec = self.config.servers[name]
        note = self.lazy.notes.get(name)
        return snapshot(
            spec,
            self._connections.get(name),
            self.tools.infos.get(name, []),
            disabled=self.disabled_servers.why(spec),
            lazy=name in self.lazy.unstarted,
            notes=(note,) if note else (),
        )

    def prompts(self) -> list[McpPrompt]:
        """The prompts of the connected servers (from memory), by server then name."""
        found = []
        for name in sorted(self._connections):
            conn = self._connections[name]
            if conn.status is Status.CONNECTED and name in self.config.servers:
                found.extend(
                    sorted((from_sdk(name, p) for p in conn.prompts), key=lambda p: p.name)
                )
        return found

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str]) -> Any:
        """``prompts/get`` on ``server`` (a ``GetPromptResult``; failures raise
        ``ToolFailure``). A lazy server is started first."""
        if server in self.lazy.unstarted:
            return await (await self._serving(server)).get_prompt(name, arguments)
        conn = self._connections.get(server)
        if conn is None:
            raise unavailable(server, f"the MCP server {server!r} is not running")
        return await conn.get_prompt(name, arguments)

    async def start_lazy(self, name: str) -> None:
        """Start ``name`` if it is a lazy server not started yet, and wait until it settles
        (a resource read or a mention needs it running). Nothing for other servers."""
        if name in self.lazy.unstarted:
            with contextlib.suppress(Exception):
                await self._serving(name)

    def start_failures(self) -> list[ServerState]:
        """The servers that were started and failed (not the broken entries: those are
        ``problems``), for headless runs to report."""
        return [
            state
            for state in self.states()
            if state.status == "failed" and not self.config.servers[state.name].error
        ]

    def explain_unknown(self, name: str) -> ToolErrorInfo | None:
        """Why ``mcp__<server>__…`` is not a tool when ``<server>`` is not connected (the
        registry's hook): its failure, or why it is off. None for other names, and for
        servers that are connected (then the tool does not exist: "unknown tool")."""
        server = server_of(name, self.config.servers) if name.startswith(PREFIX) else None
        return failure_info(self.state(server)) if server is not None else None

    def tool_infos(self) -> list[ToolInfo]:
        return self.tools.all_infos()

    def add_listener(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(server)`` on every change; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    async def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        """Wait until ``predicate()`` holds (checked on every change); False on timeout."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not predicate():
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):
                    await self._changed.wait()
        return True

    # -- life cycle -------------------------------------------------------------------------

    async def start(self, *, watch: bool | None = None) -> None:
        """Start connecting every enabled server (in the background). Idempotent."""
        watch = self.watch if watch is None else watch
        if not self._started and not self._closed:
            self._started = True
            self._start_servers(list(self.config.servers.values()))
        if watch and not self._closed:
            self._config_watch.start()

    async def ready(self) -> None:
        """Start if needed, then wait for the servers a request waits for (the agent's hook)."""
        await self.start()
        await self.wait_ready(blocking=True)

    async def wait_ready(self, *, blocking: bool = False) -> None:
        """Until no server is ``connecting`` (each is bounded by its startup timeout);
        ``blocking``: only those a request waits for (``LazyServers.blocks``)."""
        pending = [c for c in self._connections.values() if c.status is Status.CONNECTING]
        if blocking:
            pending = [c for c in pending if self.lazy.blocks(c.spec, self.wait_uncached)]
        if pending:
            await asyncio.gather(*(c.wait_settled() for c in pending))

    async def reconnect(self, name: str) -> None:
        """Stop ``name`` if running and connect it again (also re-enables it)."""
        spec = self._spec(name)
        if name in self.disabled_servers:
            await self.disabled_servers.turn(name, on=True)
        await self._stop(name)
        self._launch(spec, force=True)

    async def disable(self, name: str) -> str:
        """Stop ``name`` and keep it stopped, in this session and the next ones of this project
        (remembered in ``disabled_file``; the ``.mcp.json`` files are not changed). Returns
        what was done, as a sentence for the user."""
        self._spec(name)
        note = await self.disabled_servers.turn(name, on=False)
        await self._stop(name)
        if name in self.lazy.unstarted:  # its cached tools leave with it
            self.lazy.unstarted.discard(name)
            self._sync()
        self._emit(name)
        return note

    async def enable(self, name: str) -> str:
        """Start ``name`` unless it is connecting or connected, and forget that it was turned
        off. An entry that says ``"disabled": true`` is started for this session only (the
        file is not changed). Returns what was done, as a sentence for the user."""
        spec = self._spec(name)
        trusted = ""
        if spec.untrusted:  # the user chose it in the panel, its command on screen: trust it
            trusted = await self.trust_servers([name])
            spec = self._spec(name)
        note = await self.disabled_servers.turn(name, on=True)
        note = f"{trusted}; {note}" if trusted else note
        conn = self._connections.get(name)
        if conn is None or conn.status not in (Status.CONNECTING, Status.CONNECTED):
            await self._stop(name)
            self._launch(spec, force=True)
        if spec.disabled:
            note = (
                f"{name} enabled for this session only: its entry in {spec.source} says "
                '"disabled": true (remove that to enable it for good)'
            )
        return note

    async def trusted(self, items: Sequence[TrustItem]) -> None:
        """Items were trusted (and saved) elsewhere: start the servers among them."""
        if any(item.kind == "mcp_server" for item in items):
            if self.trust is not None:
                self.trust.refresh()  # another ProjectTrust may have saved them
            await self.reload()

    async def trust_servers(self, names: list[str]) -> str:
        """Trust the project servers ``names`` as they are now, then start them (a reload)."""
        assert self.trust is not None
        items = [i for i in self.trust.pending if i.kind == "mcp_server" and i.name in names]
        try:
            await asyncio.to_thread(self.trust.trust, items)
            said = f"trusted {', '.join(names)}"
        except OSError as exc:
            said = f"trusted {', '.join(names)} for this session only ({exc.strerror or exc})"
        await self.reload()
        return said

    async def reload(self) -> None:
        """Re-read the configuration; start, stop or restart the servers that changed."""
        old = self.config
        # A file that became unusable (a typo mid-edit) keeps its servers as they were, and
        # its problem says so (``ConfigProblem.kept``). Fixing the file applies the change.
        self.config = load_config(
            self.cwd, paths=self.paths, environ=self.environ, previous=old, trust=self.trust
        )
        self.lazy.read_mode()
        for name, spec in old.servers.items():
            if self.config.servers.get(name) != spec:
                await self._stop(name)
                self._connections.pop(name, None)
                self.lazy.forget(name)
        self._sync()
        self.hub.reload_roots()
        if self._started:
            self._start_servers(
                [
                    spec
                    for name, spec in self.config.servers.items()
                    if name not in self._connections and name not in self.lazy.unstarted
                ]
            )
        self._emit(None)

    async def aclose(self) -> None:
        """Stop every server and wait until their processes are gone. Idempotent."""
        self._closed = True
        await self._config_watch.aclose()
        names = list(self._connections)
        if names:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(STOP_TIMEOUT):
                    await asyncio.gather(*(self._stop(n) for n in names))
        await self.lazy.wait_saved()

    # -- calls ------------------------------------------------------------------------------

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], ctx: ToolContext
    ) -> Any:
        """Call ``tool`` on ``server`` (a ``CallToolResult``; failures raise ``ToolFailure``).
        A lazy server is started first (``ctx`` gets ``starting_server`` progress meanwhile)."""
        conn = await self._serving(server, ctx)
        return await conn.call(tool, arguments, ctx)

    async def _serving(self, server: str, ctx: ToolContext | None = None) -> Connection:
        """The connection of ``server``, once it is no longer starting: a lazy server is
        started here (as ``_launch`` allows: never an untrusted or disabled one). While it
        starts, ``ctx`` reports ``starting_server``; a start that fails raises the server's
        failure reason."""
        if server in self.lazy.unstarted:
            self._wake(server)
        conn = self._connections.get(server)
        if conn is None:
            state = self.state(server) if server in self.config.servers else None
            raise not_running(server, state)
        if conn.status is Status.CONNECTING:
            if ctx is not None:
                ctx.progress(ProgressUpdate(starting_server=server))
            await conn.wait_settled()
            if ctx is not None:
                ctx.progress(ProgressUpdate())  # started (or not): no longer "starting"
            if _failed_to_start(conn):
                raise unavailable(server, start_failure(self.state(server)), conn.stderr_tail(5))
        return conn

    # -- internals --------------------------------------------------------------------------

    def _spec(self, name: str) -> ServerSpec:
        spec = self.config.servers.get(name)
        if spec is None:
            known = ", ".join(self.config.servers) or "none"
            raise KeyError(f"no MCP server named {name!r} (configured: {known})")
        return spec

    def _start_servers(self, specs: list[ServerSpec]) -> None:
        """Launch ``specs``, except the lazy ones whose cached tools are all deferred: those
        are registered from their cache and left unstarted."""
        candidates = [
            spec.name
            for spec in specs
            if self.lazy.may_wait(spec, disabled=self.disabled_servers.is_disabled(spec))
        ]
        if candidates:
            self.lazy.unstarted.update(candidates)
            self._sync()  # the cached tools count in what disclosure defers
            infos = self.tools.infos
            direct = [
                name
                for name in candidates
                if not self.keep_lazy and not all_deferred(infos.get(name, []), self.disclosure)
            ]
            if direct:
                self.lazy.unstarted.difference_update(direct)
                self._sync()
        for spec in specs:
            if spec.name in self.lazy.unstarted:
                self._emit(spec.name)
            else:
                self._launch(spec)

    def _wake(self, name: str) -> None:
        """Start the lazy server ``name`` (its cached tools stay until it lists its own)."""
        self.lazy.unstarted.discard(name)
        spec = self.config.servers.get(name)
        if spec is not None:
            self._launch(spec)

    def _launch(self, spec: ServerSpec, *, force: bool = False) -> None:
        self.lazy.unstarted.discard(spec.name)
        off = self.disabled_servers.is_disabled(spec) and not force
        if spec.error or self._closed or spec.untrusted or off:  # trust is never forced
            return
        from agent_tui.core.mcp.client.connection import Connection  # with the first server

        conn = Connection(spec, self.cwd, on_change=self._on_connection)
        conn.elicitation = self.elicitation.callback(spec.name)
        self.hub.wire(conn)
        self._connections[spec.name] = conn
        conn.start()
        self._emit(spec.name)

    async def _stop(self, name: str) -> None:
        conn = self._connections.get(name)
        if conn is None:
            return
        await conn.stop()
        self._sync()

    def _on_connection(self, conn: Connection) -> None:
        if self._connections.get(conn.spec.name) is not conn:
            return  # an old connection that was replaced
        self._sync()
        if conn.status is Status.CONNECTED and self.lazy.wants(conn.spec) and not self._closed:
            self.lazy.save(conn)
        self._emit(conn.spec.name)

    def _emit(self, name: str | None) -> None:
        self._changed.set()
        for listener in list(self._listeners):
            try:
                listener(name)
            except Exception:  # a listener must not break the manager
                log.exception("MCP listener failed")

    def _sync(self) -> None:
        """Make the registry hold exactly the tools of the connected servers."""
        remote = self.lazy.remote_tools(self._connections, self.config.servers)
        self.tools.sync(remote, self.config.servers, self._caller)
        self.hub.sync_tools()

    def _caller(self, server: str) -> Call:
        async def call(tool: str, arguments: dict[str, Any], ctx: ToolContext) -> Any:
            return await self.call(server, tool, arguments, ctx)

        return call


def _failed_to_start(conn: Connection) -> bool:
    return conn.status is Status.FAILED and conn.connect_seconds is None


__all__ = ["McpManager"]
